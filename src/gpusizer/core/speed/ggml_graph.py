"""The ggml op nodes a model family's llama.cpp graph builder adds to the Llama layer and the
plain MoE FFN that core/speed/step_kernels.py counts (``GGML_LAYER``, the ``build_moe_ffn`` softmax router).

Every op node that is not a view (reshape, view, permute, transpose: no kernel) is a kernel
launch on the Metal and CUDA backends, so each one pays the step's kernel floor (fusion is
where the backend fuses them, ``Rates.fused_expert_adds``: the top-k experts' adds and each
RMS norm with its weight's multiply, as for every family).
Read in llama.cpp's source (``src/models/qwen3moe.cpp``, ``src/models/deepseek2.cpp``, in
``src/llama-model.cpp`` before 2025-11; ``src/llama-graph.cpp``
``llm_graph_context::build_moe_ffn``):

- ``qwen3_moe`` (``llm_build_qwen3moe``): per layer ``Qcur = build_norm(Qcur, attn_q_norm, ...,
  LLM_NORM_RMS)`` and ``Kcur = build_norm(Kcur, attn_k_norm, ...)``, each an ``rms_norm`` and a
  ``mul`` by the norm weight (``build_norm``): 4; per MoE layer ``build_moe_ffn(..., norm_w =
  true, ..., LLAMA_EXPERT_GATING_FUNC_TYPE_SOFTMAX)``: the weights' ``sum_rows``, ``clamp`` (no
  division by zero) and ``div``: 3.
- ``deepseek_v3`` / ``kimi_k2`` (``llm_build_deepseek2``, ``expert_gating_func`` sigmoid,
  ``expert_weights_norm`` true, ``expert_weights_scale`` 2.5 / 2.827): per MoE layer the
  ``sigmoid`` in place of the ``soft_max`` (0), ``ggml_add(probs, exp_probs_b)`` (the
  selection bias, 1), ``sum_rows``, ``clamp`` and ``div`` (3) and ``ggml_scale`` (1): 5. The
  MLA projections and the shared expert are counted in step_kernels.py (``GGML_MLA_EXTRA``,
  ``GGML_SHARED``). The group-limited top-k (``hparams.n_expert_groups > 1``: argsort_top_k,
  get_rows, sum_rows, argsort_top_k, get_rows, fill, set_rows, 7 a MoE layer) runs only where
  the GGUF carries ``expert_group_count``, which llama.cpp reads since the group selection of
  PR #16063 (opened 2025-09-18); DeepSeek-R1 GGUFs converted in 2025-01 do not, so it is not counted.

A family not listed runs the Llama layer and the plain MoE FFN (Mixtral's ``llm_build_llama``).
Counted where the backend's own fusion is modelled too (Metal from PR #14596, ``Rates.
fused_expert_adds``); elsewhere the count stays the Llama layer's, on which those backends'
floors were solved: ggml-cuda's builds of late 2025 fuse the router's softmax, top-k, get_rows and
weight normalisation into one top-k MoE kernel and each RMS_NORM with its MUL, not modelled.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..registry.table import add


@dataclass(frozen=True)
class GgmlExtra:
    """Kernels a family's llama.cpp graph adds: ``layer`` per decoder layer, ``moe`` per MoE layer."""

    layer: int = 0
    moe: int = 0
    norms: int = 0  # rms_norm + mul pairs among ``layer`` (one kernel each where ggml fuses them)
    # the build's Gated DeltaNet layers (core/speed/ggml_gdn.py): their kernels beyond the
    # attention block, all such layers, and the full reads and writes of their state a token
    recurrent: int = 0
    state_passes: int = 1


NONE = GgmlExtra()
GGML_EXTRA: dict[str, GgmlExtra] = {}
add(GGML_EXTRA, "qwen3_moe", GgmlExtra(layer=4, moe=3, norms=2), "ggml graph family")
add(GGML_EXTRA, "deepseek_v3", GgmlExtra(moe=5), "ggml graph family")
add(GGML_EXTRA, "kimi_k2", GgmlExtra(moe=5), "ggml graph family")


def ggml_extra(family: str) -> GgmlExtra:
    """The kernels ``family``'s llama.cpp graph adds (module docstring); none if not listed."""
    return GGML_EXTRA.get(family, NONE)
