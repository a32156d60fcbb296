"""Why no count of GPUs holds training under a framework that runs data parallel only.

Unsloth's multi-GPU training is DDP, "one copy of the model on each GPU device"
(unsloth.ai/docs/basics/multi-gpu-training-with-unsloth/ddp; a model split over GPUs there is
``device_map="balanced"`` in one process, which ``accelerate launch`` refuses: "You can't train
a model that has been loaded with device_map='auto' in any distributed mode"). Its profile sets
``data_parallel_only`` (core/registry/framework_profile.py), so the search tries DP alone at
ZeRO 0 (core/sizing/layout_space.py): each GPU needs the whole model's bytes whatever the count.
"Nothing fits with up to 4,096 GPUs" then reads as if a count were the problem; the reason says
one GPU is the question, and which kind of framework splits the model.
"""

from __future__ import annotations

from ..model.specs import Scenario


def ddp_clause(s: Scenario) -> str | None:
    """The clause for a no-fit reason where the scenario's framework trains data parallel only
    (None otherwise)."""
    if not (s.workload.trains and s.profile.data_parallel_only):
        return None
    return (
        f"{s.profile.label} trains on several GPUs data parallel only (DDP: the whole model on "
        "every GPU), so no count of this GPU holds it; a framework that shards the model over "
        "GPUs (FSDP or ZeRO-3, e.g. huggingface, axolotl) can"
    )
