"""llama.cpp's GPUs as its default ``--split-mode layer`` runs them: a relay of whole layers, not
tensor parallelism.

An engine whose GPUs split layers or matrix rows rather than attention heads
(``FrameworkProfile.tp_splits_heads`` false: llama.cpp, Ollama) accepts any
``parallelism.tensor`` (core/pipeline/validate_layout.py ``_check_tensor``); what its GPUs do
with them is llama.cpp's default split, ``--split-mode layer`` (``llama_model_default_params``
``split_mode = LLAMA_SPLIT_MODE_LAYER``): each device holds a contiguous run of whole layers
(src/llama-model.cpp ``load_tensors``, the cumulative ``--tensor-split`` fractions over the
layer count) and the scheduler hands the hidden state from one device to the next
(ggml/src/ggml-backend.cpp ``ggml_backend_sched_split_graph``, one split per device, the input
copied across). A micro-batch therefore passes the GPUs one after another: at batch 1 a decode
step is the sum of each GPU's layers' reads plus the hops, and one ``n_ubatch`` of a prompt
the same. The scheduler overlaps only *different* micro-batches of one ``llama_decode`` call
(src/llama-context.cpp ``pipeline_parallel``: more than one device, every layer offloaded,
``LLAMA_SPLIT_MODE_LAYER``, KV offloaded, no tensor overrides; ``n_copies =
GGML_SCHED_MAX_COPIES`` = 4 in ggml-backend.cpp, from ggml-org/llama.cpp PR #6017) - a pipeline
of stages, which is what the step model's ``pipeline`` prices (core/speed/step.py: the stages
one after another for one sequence, overlapped across sequences in flight, a hop between
stages).

So the speed of ``parallelism.tensor`` = N under such an engine is priced as N pipeline stages
of one GPU each, not as an N-way tensor split with an all-reduce per layer. Published
llama-bench runs agree: XiongjieDai's May 2024 tables decode Llama 3 8B Q4_K_M at 111.74 tok/s
on one RTX 3090 and 108.07 / 104.94 / 101.07 on 2 / 4 / 6 (tg1024), the pp512 of one ubatch
flat (docs/evidence/speed.md, the section on llama.cpp's layer split).

Memory is not read here: the weights and KV per GPU are a share either way
(core/serving/offload.py places whole layers per GPU already). ``--split-mode row`` (each
matrix's rows over the GPUs, ggml-cuda.cu ``get_row_split``, a reduction to the main GPU per
matrix) has no scenario field and is not priced.
"""

from __future__ import annotations

from ..model.specs import Scenario

__all__ = ["as_layer_split"]


def as_layer_split(s: Scenario) -> Scenario:
    """The scenario the step model prices: under an engine that splits layers, not heads,
    ``parallelism.tensor`` GPUs become that many pipeline stages (module docstring); every other
    scenario (and one GPU) is returned as it is."""
    p = s.parallelism
    if s.profile.tp_splits_heads or p.tensor <= 1:
        return s
    stages = p.model_copy(update={"tensor": 1, "pipeline": p.tensor * p.pipeline})
    return s.model_copy(update={"parallelism": stages})
