"""SGLang's AITER attention backend on AMD GPUs: its paged-decode workspace and the fraction
cut that stands in for it.

Read from the PyPI wheels of sglang 0.4.9 and 0.5.3 and from main of 2026
(``python/sglang/srt/layers/attention/aiter_backend.py`` ``AiterAttnBackend.__init__``, the same
formula throughout):

- On ROCm a model with ordinary attention gets ``attention_backend = "aiter"`` by default
  (``model_runner.py`` ``model_specific_adjustment``: ``elif _is_hip: ... "aiter"``); an MLA
  model only with 16 or 128 heads per rank, and it keeps no such workspace; a sliding-window
  model runs AITER's unified attention (``SWAKVPool``), which keeps none either.
- The backend allocates, when it is built (after the KV pool is sized and allocated),
  ``workspace_buffer = max_bs x heads x partitions x head_dim x 4 + 2 x max_bs x heads x
  partitions x 4`` bytes, with ``max_bs = req_to_token_pool.size`` (``--max-running-requests``,
  else ``min(max(int(pool tokens / context_len x 512), 2048), 4096)``, ``init_memory_pool``),
  ``heads`` the query heads per attention-TP rank and ``partitions = ceil(context_len / 256)``
  (``_AITER_PARTITION_SIZE_ROCM``). Qwen3-30B-A3B-Instruct-2507 (32 heads of 128, 262,144
  tokens) at 3,261 request slots: 51.75 GiB (sglang#18263's debug line).
- Nothing sizes the pool for it: ``model_runner.py`` (0.4.9 - 0.5.x) multiplies
  ``mem_fraction_static`` by 0.85 when the backend is aiter and ``context_len > 8192`` (set
  after the default backend is chosen); in 2026 the cut moved to ``server_args.py``
  ``_handle_attention_backend_compatibility``, where a default-chosen backend no longer takes
  it (sglang#18263's main log, MI355X, July 2026: 2,227,073 tokens, the pool of the uncut
  fraction, then the workspace does not fit). sglang#18263 and #36563 (open) would subtract the
  workspace from the pool budget instead.
"""

from __future__ import annotations

from ..model.architecture import Arch, ceil_div
from ..model.specs import GPUSpec, Scenario
from ..registry.engines import EngineRelease

PARTITION_TOKENS = 256  # aiter_backend.py _AITER_PARTITION_SIZE_ROCM
FRACTION_CUT = 0.85  # model_runner.py: mem_fraction_static *= 0.85 ...
CUT_ABOVE = 8192  # ... when context_len > 8192


def runs_aiter(s: Scenario, arch: Arch, gpu: GPUSpec, rel: EngineRelease | None) -> bool:
    """SGLang picks the AITER backend with its paged-decode workspace: an AMD GPU, a release
    that defaults to it, ordinary attention (not MLA, no sliding window)."""
    return bool(
        rel is not None
        and rel.sglang_knobs.aiter
        and gpu.vendor.lower() == "amd"
        and arch.mla is None
        and not s.model.sliding_window
    )


def fraction_cut(s: Scenario, arch: Arch, gpu: GPUSpec, rel: EngineRelease | None, context: int) -> float:
    """What SGLang multiplies ``mem_fraction_static`` by for the AITER backend (1: nothing)."""
    cut = runs_aiter(s, arch, gpu, rel) and rel is not None and rel.sglang_knobs.aiter_cuts_fraction
    return FRACTION_CUT if cut and context > CUT_ABOVE else 1.0


def request_slots(max_sequences: int | None, pool_tokens: int, context: int) -> int:
    """``req_to_token_pool.size``: ``--max-running-requests``, else SGLang's default."""
    if max_sequences is not None:
        return max_sequences
    return min(max(int(pool_tokens / max(1, context) * 512), 2048), 4096)


def workspace_bytes(s: Scenario, arch: Arch, slots: int, context: int) -> float:
    """Bytes of ``AiterAttnBackend.workspace_buffer`` on one GPU."""
    heads = arch.heads // max(1, s.parallelism.tensor)
    partitions = ceil_div(context, PARTITION_TOKENS)
    return float(slots * heads * partitions * (arch.head_dim * 4 + 2 * 4))


def aiter_note(cut: float, workspace: float) -> str:
    """The assumption line: the cut of the fraction (if any) and the workspace."""
    head = f"mem_fraction_static x {cut:g} for it, " if cut < 1 else ""
    return (
        f"SGLang's AITER attention backend (AMD): {head}its decode workspace "
        f"{workspace / 2**30:.2f} GiB allocated after the KV pool, outside the fraction"
    )
