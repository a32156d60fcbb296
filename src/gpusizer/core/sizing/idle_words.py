"""The note on the GPUs of the units bought that no layout uses (core/sizing/advise.py), and,
in training, whether the global batch is what leaves them idle.

Training splits each step's ``workload.global_batch_size`` sequences over the data-parallel
replicas, micro-batch by micro-batch, so the DP degree divides global / micro (Megatron-LM
``--global-batch-size`` must be divisible by micro-batch x DP, megatron/training/arguments.py;
core/sizing/layout_space.py ``dp_candidates``). Mistral Small 3.1 24B fully fine-tuned at a
global batch of 128 on one GB200 NVL72 rack (tests/cli/data/buyer/full-ft-mistral-small-24b-5days)
ran DP 64 and read "8 of the 72 GPUs idle: no layout of this model uses all of 1 x NVIDIA GB200
NVL72 rack", where the model shards over 72 as well as over 64 and the batch is the cause: 72
does not divide 128. The note now names the batch and the nearest global batch that the whole
count divides; where the batch is not the cause (a shape the count does not divide, serving, no
global batch stated), it reads as before.
"""

from __future__ import annotations

from ..model.architecture import ceil_div
from ..model.specs import Scenario
from .layout_space import Layout


def idle_note(s: Scenario, lay: Layout, bought: int, units: str) -> str:
    """``8 of the 72 GPUs idle: ...`` for ``bought`` GPUs (``units``: ``1 x NVIDIA GB200 NVL72
    rack``) of which ``lay`` uses fewer."""
    head = f"{bought - lay.gpus} of the {bought:,} GPUs idle: "
    batch = _batch_words(s, lay, bought)
    if batch is not None:
        return head + batch
    return head + f"no layout of this model uses all of {units}"


def _batch_words(s: Scenario, lay: Layout, bought: int) -> str | None:
    """Why the global batch leaves them idle, where the layout's shape (TP x PP x CP) divides
    ``bought``, its EP divides the DP that would use all, and that DP does not divide global /
    micro (None: not so)."""
    w = s.workload
    shape = lay.model_parallel
    if not w.trains or w.global_batch_size is None or bought % shape:
        return None
    dp, micro = bought // shape, w.micro_batch_size
    steps = w.global_batch_size // micro
    if steps % dp == 0 or dp % lay.ep:  # the batch divides, or the experts' split is a cause too
        return None
    nearest = ceil_div(w.global_batch_size, dp * micro) * dp * micro
    return (
        f"DP {dp} (all of them at {_shape(lay)}) would split a step's {steps:,} micro-batches "
        f"(workload.global_batch_size {w.global_batch_size:,} / micro_batch_size {micro}) unevenly, "
        f"so DP {lay.dp} is run; a global batch of {nearest:,} uses them all"
    )


def _shape(lay: Layout) -> str:
    cp = f" x CP {lay.cp}" if lay.cp > 1 else ""
    return f"TP {lay.tp} x PP {lay.pp}{cp}"
