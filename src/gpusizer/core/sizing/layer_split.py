"""The widths and counts the advice offers an engine that splits layers or matrix rows, not
attention heads (``FrameworkProfile.tp_splits_heads`` false: llama.cpp and Ollama).

llama.cpp places a model on any number of GPUs: ``--split-mode layer`` (the default) gives
each device a contiguous run of whole layers, the boundaries the cumulative ``--tensor-split``
fractions (by default each device's free memory) over the layer count (src/llama-model.cpp
``load_tensors``, the ``splits`` array and ``std::upper_bound`` over it per layer);
``--split-mode row`` splits each matrix's rows by the same fractions, rounded to the kernel's
tile (ggml/src/ggml-cuda/ggml-cuda.cu ``get_row_split``). No head divides anything, so 3, 5, 6
or 7 GPUs run a model of 64 heads (core/pipeline/validate_layout.py ``_check_tensor``), and a
buyer who needs 3 cards buys 3, not the next box of 4 (core/sizing/units.py ``layer_box``).

An engine that splits heads (vLLM, SGLang, TensorRT-LLM: ``ModelConfig.
verify_with_parallel_config``) keeps the head divisors and the boxes of 1, 2, 4 or 8 cards
(core/sizing/systems.py ``BOX_SIZES``): its answers are unchanged.
"""

from __future__ import annotations

from ..model.specs import Scenario

__all__ = ["splits_layers", "tensor_widths"]


def tensor_widths(s: Scenario, heads: int, most: int) -> list[int]:
    """The ``parallelism.tensor`` degrees (ascending) weighed up to ``most`` GPUs: those that
    divide the ``heads`` under an engine that splits heads, every count from 1 under one that
    splits layers or rows (llama.cpp ``load_tensors``: any device count)."""
    if s.profile.tp_splits_heads:
        return [t for t in range(1, min(heads, most) + 1) if heads % t == 0]
    return list(range(1, max(1, most) + 1))


def splits_layers(s: Scenario | None) -> bool:
    """Whether the scenario's engine splits layers or rows rather than heads (llama.cpp)."""
    return s is not None and not s.profile.tp_splits_heads
