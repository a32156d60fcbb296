"""llama.cpp's sliding-window KV cache (``llama_kv_cache_iswa``): a model with window layers
gets two caches, the full one of ``n_ctx`` cells for its global layers and a small one for its
window layers (ggml-org/llama.cpp PR 13194 'kv-cache : add SWA support', merged May 2025;
src/llama-kv-cache-iswa.cpp)::

    size_swa = min(size_base, GGML_PAD(n_swa x (unified ? n_seq_max : 1) + n_ubatch, 256))

``swa_full`` off (common.h's default for llama-server, llama-cli and llama-bench; the library's
``llama_context_default_params`` keeps it on). A build without the knob
(``LlamaCppKnobs.swa_cache``, core/registry/engine_knobs.py) gives every layer ``n_ctx`` cells.

The architectures llama.cpp loads with a window (src/llama-model.cpp ``load_hparams``:
``swa_type = LLAMA_SWA_TYPE_STANDARD``): Gemma 2 (every other layer), Gemma 3 (five in six) and
gpt-oss (every other layer); a model whose config names a window llama.cpp ignores keeps one
cache (Mistral 7B: the llama loader sets none; Phi-3: "Phi SWA is currently disabled", PR 13676,
``swa_type = LLAMA_SWA_TYPE_NONE``). Example, llama.cpp PR 17609's
log (gpt-oss-20b, Metal, n_ctx 4096, one sequence): ``creating SWA KV cache, size = 768 cells``
= pad(128 + 512, 256), 18.00 MiB for its 12 window layers.
"""

from __future__ import annotations

from ..model.architecture import Arch, ceil_div
from ..model.flops import local_layers
from ..model.specs import Scenario
from .engine_settings import EngineSettings

# llama.cpp's model families loaded with a sliding-window cache (src/llama-model.cpp)
SWA_FAMILIES = frozenset({"gemma2", "gemma3_text", "gpt_oss"})
PAD = 256  # llama-kv-cache-iswa.cpp n_pad


def mean_cells(s: Scenario, arch: Arch, st: EngineSettings, cells: int) -> float:
    """Mean KV cells of an attention layer when the cache holds ``cells`` (n_ctx, all streams):
    the window layers' ``size_swa`` beside the global layers' ``cells``; ``cells`` where the
    build or the model has no window cache."""
    rel, window = st.release, s.model.sliding_window
    if rel is None or not rel.llama_cpp.swa_cache or s.model.family not in SWA_FAMILIES or not window:
        return float(cells)
    local, attn = local_layers(arch), arch.attention_layers
    if not local or not attn:
        return float(cells)
    seqs = max(1, st.max_sequences or 1)
    ub = st.prefill_chunk_tokens or rel.llama_cpp.ubatch_tokens
    if rel.llama_cpp.kv_unified:  # one stream of n_ctx cells shared by the sequences
        swa = min(cells, ceil_div(window * seqs + ub, PAD) * PAD)
    else:  # a stream per sequence, each n_ctx / n_seq cells
        swa = seqs * min(cells // seqs, ceil_div(window + ub, PAD) * PAD)
    return (local * swa + (attn - local) * cells) / attn
