"""Attention backend names as the serving engines spell them (``serving.attention_backend``):
vLLM's GPU kernels and SGLang's, which engine runs which, and the assumption line for a named
backend priced as the engine's default. The refusal's line for a name neither engine has is
core/registry/engine_names.py ``attention_backend_hint``."""

from __future__ import annotations

from collections.abc import Callable

# vLLM's --attention-backend / VLLM_ATTENTION_BACKEND names for GPU kernels: the ``_Backend`` members
# of vllm/attention/backends/registry.py (vllm-project/vllm@0001743e, 0.11) and those the
# ``AttentionBackendEnum`` of vllm/v1/attention/backends/registry.py adds later (FLASH_ATTN_DIFFKV,
# the ROCm AITER and sparse-MLA kernels). TPU, XPU, CPU and attention-free entries are left out.
VLLM_ATTENTION_BACKENDS: tuple[str, ...] = (
    "FLASH_ATTN", "TRITON_ATTN", "XFORMERS", "ROCM_FLASH", "ROCM_ATTN", "ROCM_AITER_MLA",
    "ROCM_AITER_FA", "ROCM_AITER_TRITON_MLA", "ROCM_AITER_MLA_SPARSE", "ROCM_AITER_UNIFIED_ATTN",
    "TORCH_SDPA", "FLASHINFER", "FLASHINFER_MLA", "FLASHINFER_MLA_SPARSE", "TRITON_MLA",
    "CUTLASS_MLA", "FLASHMLA", "FLASHMLA_SPARSE", "FLASH_ATTN_MLA", "FLASH_ATTN_DIFFKV",
    "DUAL_CHUNK_FLASH_ATTN", "DIFFERENTIAL_FLASH_ATTN", "FLEX_ATTENTION", "TREE_ATTN",
)  # fmt: skip


# SGLang's --attention-backend names for GPUs: python/sglang/srt/server_args.py
# ATTENTION_BACKEND_CHOICES (v0.5.x; "dsa" the later name of "nsa"), Ascend, Intel and MLU left out
SGLANG_ATTENTION_BACKENDS: tuple[str, ...] = (
    "triton", "torch_native", "flex_attention", "nsa", "dsa", "cutlass_mla", "fa3", "fa4",
    "flashinfer", "flashmla", "trtllm_mla", "trtllm_mha", "dual_chunk_flash_attn", "aiter", "wave",
)  # fmt: skip

VLLM_TRITON = "vLLM's Triton backend: state 'TRITON_ATTN'"


def _under_vllm(value: str) -> str:
    if value == "triton":
        return VLLM_TRITON
    return (
        f"{value!r} is SGLang's --attention-backend name; vLLM's: 'FLASH_ATTN', 'FLASHINFER', "
        "'FLASHMLA', 'TRITON_ATTN'... (vllm/attention/backends/registry.py), or null"
    )


def _under_sglang(value: str) -> str:
    return (
        f"{value!r} is vLLM's --attention-backend name; SGLang's: 'fa3', 'flashinfer', 'triton', "
        "'trtllm_mla'... (server_args.py ATTENTION_BACKEND_CHOICES), or null"
    )


# per engine (its framework id): the other engine's names it refuses, and the refusal's line.
# TRITON_ATTN under SGLang was answered before SGLang's names were read: it stays so
_FOREIGN: dict[str, tuple[frozenset[str], Callable[[str], str]]] = {
    "vllm": (frozenset(SGLANG_ATTENTION_BACKENDS), _under_vllm),
    "sglang": (frozenset(VLLM_ATTENTION_BACKENDS) - {"TRITON_ATTN"}, _under_sglang),
}


def attention_backend_engine_hint(framework: str, value: str | None) -> str | None:
    """The refusal's line for another engine's backend name under vLLM or SGLang; None where
    the engine runs it, or under another engine (priced as its default)."""
    foreign = _FOREIGN.get(framework)
    if foreign is None or value is None or value not in foreign[0]:
        return None
    return foreign[1](value)


def attention_backend_note(value: str | None) -> str | None:
    """The assumption line for a stated backend whose kernels are not modelled apart (every one
    but ``TRITON_ATTN``, whose CDNA3 floors core/speed/decode_walk.py reads); None otherwise."""
    if value is None or value == "TRITON_ATTN":
        return None
    return (
        f"attention backend {value} (--attention-backend): priced as the attention's bytes and "
        "FLOPs, as the engine's default for the GPU (only TRITON_ATTN's CDNA3 walk is modelled apart)"
    )
