"""Ollama's graph and KV estimate per architecture (``GGML.GraphSize``), which its layer
placement (core/serving/ollama_estimate.py) is made from.

Sources, read at tags v0.5.7, v0.6.2, v0.6.5, v0.10.0, v0.11.0-v0.11.4, v0.11.10 of
github.com/ollama/ollama: ``fs/ggml/ggml.go`` (``llm/ggml.go`` before v0.6)
``GGML.GraphSize(context, batch, numParallel, kvCacheType)``: the KV of every layer, ``context x
(key_length + value_length) x head_count_kv x bytes`` (f16 2 B) with ``context = num_ctx x
parallel``; from v0.6.3 (f66216e39) gemma3's window layers (all but every 6th) hold ``parallel x
sliding_window + batch`` cells and gpt-oss's even layers ``parallel x 4096 + batch`` (v0.11.0);
then a graph size per architecture for a full and a partial offload (``batch = min(num_ctx x
parallel, num_batch 512)``); an architecture without a branch gets none here (the caller's GQA
rule of ``llm/memory.go``).
"""

from __future__ import annotations

from ..model.architecture import Arch
from ..model.specs import Scenario
from ..registry.dtypes import nbytes
from ..registry.engines import EngineRelease

ARCH = {
    "llama": "llama",
    "mistral": "llama",
    "mixtral": "llama",
    "llama4_text": "llama",
    "qwen2": "qwen2",
    "gemma2": "gemma",
    "gemma3_text": "gemma3",
    "gpt_oss": "gptoss",
    "deepseek_v3": "deepseek2",
    "kimi_k2": "deepseek2",
}


def _dims(arch: Arch) -> tuple[int, int, int, int]:
    """(heads, KV heads, key length, value length) as the GGUF of the time stores them; an MLA
    model's GGUF then stored every head's full K and V (no latent cache in llama.cpp yet)."""
    mla = arch.mla
    if mla is not None:
        return arch.heads, arch.heads, mla.qk_nope_head_dim + mla.qk_rope_head_dim, mla.v_head_dim
    return arch.heads, arch.kv_heads, arch.head_dim, arch.head_dim


# The bytes an element of a KV cell costs in Ollama's estimate, where its cache type is not
# f16: ``kvCacheBytesPerElement(cacheType)`` (ollama llm/ggml.go at v0.5.0, fs/ggml/ggml.go at
# v0.6.0 and v0.12.0, read at the tags): "q8_0" 1, "q4_0" 0.5, anything else 2. The
# estimate so counts a Q8_0 cell at 1 B an element, not the 34 B per 32 elements llama.cpp then
# allocates (ggml-common.h block_q8_0), and places layers by the smaller figure.
OLLAMA_KV_ELEMENT_BYTES = {"gguf_q8_0": 1.0, "gguf_q4_0": 0.5}


def per_cell(s: Scenario, arch: Arch) -> float:
    """KV bytes of one cell of one layer, as Ollama's estimate counts them."""
    _, hkv, dk, dv = _dims(arch)
    dtype = s.precision.kv_cache
    return (dk + dv) * hkv * OLLAMA_KV_ELEMENT_BYTES.get(dtype, nbytes(dtype))


def layer_kv(s: Scenario, arch: Arch, rel: EngineRelease, ctx: int, batch: int, parallel: int) -> list[float]:
    """Ollama's KV bytes per layer (GraphSize's ``kv`` slice)."""
    per_cell_bytes = per_cell(s, arch)
    kind = ARCH.get(s.model.family, "")
    out = []
    for i in range(arch.layers):
        cells = ctx
        if rel.ollama_knobs.windows:
            if kind == "gemma3" and (i + 1) % 6:
                cells = parallel * (s.model.sliding_window or 0) + batch
            elif kind == "gptoss" and rel.ollama_knobs.gptoss_partial and i % 2 == 0:
                cells = parallel * 4096 + batch
        out.append(cells * per_cell_bytes)
    return out


def graph_sizes(
    arch: Arch, kind: str, ctx: int, b: int, kv_total: float, rel: EngineRelease
) -> tuple[float, float]:  # Go's integer arithmetic, kept as written
    """(partial, full) graph bytes of GraphSize's branch for this architecture (0, 0: none)."""
    e, v = arch.hidden, arch.vocab
    h, hkv, dk, _ = _dims(arch)
    eh = e // h  # EmbeddingHeadCount
    if kind == "llama":
        full = max(4 * b * (1 + 4 * e + ctx * (1 + h)), 4 * b * (e + v))
        partial = 4 * b * e + max(
            4 * b * (1 + e + max(ctx, e)) + e * e * 9 // 16 + 4 * ctx * (b * h + eh * hkv),
            4 * b * (e + v) + e * v * 105 // 128,
        )
        return partial, full
    if kind in ("gemma", "gemma3"):
        full = max(4 * b * (e + v), 4 * b * (2 + ctx + ctx * h + 2 * e + 2 * dk * h))
        partial = max(
            4 * e * b + e * v * 105 // 128 + 4 * v * b,
            4 * b * (2 * e + 1 + 2 * dk * h + ctx + ctx * h) + 4 * dk * ctx * 8 + e * dk * h * 9 // 16,
        )
        return partial, full
    if kind == "qwen2":
        full = max(4 * b * (e + v), 4 * b * (1 + 2 * e + ctx + ctx * h))
        partial = max(
            4 * b * (e + v) + e * v * 105 // 128, 4 * (b * (1 + 2 * e + ctx * (1 + h)) + e * (1 + ctx))
        )
        return partial, full
    if kind == "deepseek2":
        full = max(4 * b * (3 * e + v), 4 * b * (3 * e + 2 + ctx * (1 + hkv) + 2 * dk * hkv))
        partial = max(
            4 * b * (3 * e + v) + e * v * 105 // 128,
            4 * b * (2 * e + 1 + 2 * dk * hkv + ctx + ctx * hkv)
            + 4 * dk * ctx * hkv
            + e * dk * hkv * 9 // 16,
        )
        return partial, full
    if kind == "gptoss" and rel.ollama_knobs.gptoss_partial:
        knobs = rel.ollama_knobs
        oss = knobs.gptoss_full * h // max(1, arch.kv_heads) * kv_total / 6
        return knobs.gptoss_partial * oss, oss
    return 0.0, 0.0
