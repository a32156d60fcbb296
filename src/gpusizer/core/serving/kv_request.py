"""What one request holds in a paged KV pool, and whether an engine starts (vLLM V1 and V0,
and the pool engines that follow the same paging: SGLang, TensorRT-LLM).

A pool is counted in blocks of ``kv_block_tokens`` tokens per attention layer. One request of
``max_context`` tokens holds a block per ``block`` tokens of the context in every
full-attention layer, its window in a sliding-window layer (where the release pages windows,
core/engines.py ``window_pages``), and a hybrid model's recurrent state. The engine refuses to
start when that does not fit the pool (vllm/v1/core/kv_cache_utils.py
``check_enough_kv_cache_memory``; V0 worker.py ``raise_if_cache_size_invalid``).
"""

from __future__ import annotations

from ..memory.inference import attention_layers, kv_bytes_per_token_layer
from ..model.architecture import Arch, ceil_div
from ..model.sharding import StageParams
from ..model.specs import Scenario
from ..model.state import state_bytes
from .engine_settings import EngineSettings


def state_per_request(s: Scenario, arch: Arch) -> float:
    """Recurrent-state bytes one request holds on one GPU (0 for a transformer): vLLM's hybrid
    allocator gives each request one state page per recurrent layer from the same pool as the
    attention blocks (vllm/v1/kv_cache_interface.py ``MambaSpec.page_size_bytes``)."""
    if not arch.mixer_layers:
        return 0.0
    p = s.parallelism
    return state_bytes(arch, s.profile, s.precision.activations, p.tensor, p.pipeline)


def per_request_bytes(
    s: Scenario, arch: Arch, st: EngineSettings, sp: StageParams, page: float, ctx: int
) -> float:
    """Pool bytes one request of ``ctx`` tokens holds (vLLM V1 ``max_memory_usage_bytes``
    summed over the layers, v1/kv_cache_interface.py): a full-attention layer a page per
    block of the context; a sliding-window layer min(window - 1 + max_num_batched_tokens,
    ctx) tokens plus one block (``SlidingWindowSpec``), where the release pages windows; a
    hybrid model's recurrent state (``MambaSpec``)."""
    block, rel = st.kv_block_tokens, st.release
    spec, layers = arch.spec, attention_layers(arch, sp, s.parallelism.pipeline)
    windowed = spec.sliding_window and (rel is None or rel.window_pages)
    local = min(spec.sliding_window_layers, layers, sp.sliding_layers) if windowed else 0
    window = min((spec.sliding_window or 0) - 1 + (st.prefill_chunk_tokens or ctx), ctx)
    return page * (
        (layers - local) * ceil_div(ctx, block) + local * (ceil_div(window, block) + 1)
    ) + state_per_request(s, arch)


def largest_context(
    s: Scenario, arch: Arch, st: EngineSettings, sp: StageParams, page: float, pool: float
) -> int:
    """vLLM's ``estimate_max_model_len`` (v1/core/kv_cache_utils.py, PR #16168): the largest
    max_model_len in 1..max_context whose per-request bytes fit the pool, by binary search
    (0 when none does)."""
    low, high, best = 1, st.max_context or 0, 0
    while low <= high:
        mid = (low + high) // 2
        if per_request_bytes(s, arch, st, sp, page, mid) <= pool:
            best, low = mid, mid + 1
        else:
            high = mid - 1
    return best


def page_bytes(s: Scenario, arch: Arch, st: EngineSettings) -> float:
    """Bytes of one KV block of one attention layer on one GPU."""
    return kv_bytes_per_token_layer(arch, s.precision.kv_cache, s.parallelism.tensor) * st.kv_block_tokens


def capacity(
    s: Scenario, arch: Arch, st: EngineSettings, sp: StageParams, pool: float
) -> tuple[int, float, float]:
    """(KV tokens, max concurrency at max_context, bytes per token) of a pool on one GPU."""
    page = page_bytes(s, arch, st)
    layers = attention_layers(arch, sp, s.parallelism.pipeline)
    per_token = page / st.kv_block_tokens * layers
    if pool <= 0 or page * layers <= 0:
        return 0, 0.0, per_token
    blocks = int(pool // (page * layers))
    tokens = blocks * st.kv_block_tokens
    request = per_request_bytes(s, arch, st, sp, page, st.max_context or 1)
    return tokens, pool / request, per_token


def startup_check(
    s: Scenario, arch: Arch, st: EngineSettings, sp: StageParams, pool: float, tokens: int
) -> tuple[str | None, float]:
    """(the engine's start-up error in its words or None, the KV bytes one request of
    max_context needs). vLLM V1 ``check_enough_kv_cache_memory`` sums every layer's
    ``max_memory_usage_bytes`` (sliding-window layers their window) and names the largest
    context that fits (``estimate_max_model_len``); V0 ``raise_if_cache_size_invalid``
    compares max_model_len with the pool's tokens, every layer charged the whole context."""
    ctx, page, rel = st.max_context or 0, page_bytes(s, arch, st), st.release
    windowed = rel is not None and rel.window_pages
    layers = attention_layers(arch, sp, s.parallelism.pipeline)
    needed = (
        per_request_bytes(s, arch, st, sp, page, ctx)
        if windowed and ctx
        else (0.0 if windowed else page / st.kv_block_tokens * layers * ctx)
    )
    if pool <= 0:
        return (
            "No available memory for the cache blocks: weights, the profile peak and "
            "non-torch memory exceed the budget. Increase memory_fraction, use more GPUs "
            "or a smaller format"
        ), needed
    if needed <= pool:
        return None, needed
    largest = largest_context(s, arch, st, sp, page, pool) if windowed else tokens
    return (
        f"one request of max_context {ctx:,} tokens needs {needed / 2**30:.2f} GiB of KV "
        f"cache, more than the pool's {pool / 2**30:.2f} GiB; the largest context that "
        f"fits is {largest:,}"
    ), needed
