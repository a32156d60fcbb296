"""SGLang's pool for a hybrid model (recurrent Mamba / Gated DeltaNet layers beside attention):
the pool is split between the requests' recurrent states and the full-attention KV cache, and
the state pool caps the requests run at once.

Source: sgl-project/sglang python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py
(read at 001ccef0) ``handle_max_mamba_cache``: unless ``--max-mamba-cache-size`` is set, the
rest memory (the pool) is solved as ``mamba_state_memory / full_kv_cache_memory =
mamba_full_memory_ratio``, ``max_mamba_cache_size = mamba_state_memory // mamba_cache_per_req``,
and only the rest of the pool holds KV tokens (``profile_max_num_token``); ``init_memory``:
``max_num_reqs = min(max_num_reqs, max_mamba_cache_size // ratio)`` with ratio
``MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO`` = 3 (radix cache on, no extra buffer).
The cap binds whatever ``--max-running-requests`` is set to (``max_num_reqs`` is the setting
before the ``min``): it is ``EngineMemory.state_cap``, the simulated run's running limit
(core/serving/load.py ``_engine``) as well as the reported ``max_sequences``.
The Mamba pool came with Qwen3-Next (sgl-project/sglang#10233, 2025-09-09, in 0.5.2);
``mamba_full_memory_ratio`` defaulted to 0.2 until sgl-project/sglang#11679 (2025-10-15) made
it 0.9 (server_args.py), first in 0.5.4. A request's state: core/model/state.py (SGLang keeps the
recurrent state in fp32, ``mamba_ssm_dtype``). Units: bytes, tokens, requests.

Slots a request, by release (``calculate_mamba_ratio``: 3, plus the ping-pong track buffer of
``--mamba-radix-cache-strategy extra_buffer``, ``MAMBA_CACHE_V2_ADDITIONAL_RATIO_OVERLAP`` = 2
with the overlap scheduler on): the default strategy ``auto`` resolved to ``no_buffer`` (3
slots, overlap off) until sgl-project/sglang#28151 ("refactor: mamba radix cache server args
initialize", merged 2026-06-18 as 66a7fd5c) made it ``extra_buffer`` wherever the model supports
it and overlap is on (the default) on CUDA: 5 slots. First in 0.5.15 (tagged by 2026-07-13,
radixark/miles#1655; whether 0.5.14 holds it is not read); still the resolution on main in
2026-09 (sgl-project/sglang#39430). Off CUDA ``extra_buffer`` needs FLA: ROCm fell back to
``no_buffer`` (sgl-project/sglang#29965, #31237), 3 slots.
"""

from __future__ import annotations

from dataclasses import replace

from ..model.architecture import Arch
from ..model.result import EngineMemory
from ..model.specs import GPUSpec, Scenario
from ..model.state import state_bytes
from ..registry.engines import version_key

POOL_FROM = (0, 5, 2)  # the first release with the Mamba pool (sglang#10233)
RATIO_09_FROM = (0, 5, 4)  # the first release after sglang#11679 (0.2 -> 0.9)
EXTRA_BUFFER_FROM = (0, 5, 15)  # the first release with auto -> extra_buffer (sglang#28151)
SLOTS_PER_REQUEST = 3  # MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO (radix cache on)
TRACK_BUFFER_SLOTS = 2  # MAMBA_CACHE_V2_ADDITIONAL_RATIO_OVERLAP (extra_buffer, overlap on)


def _numbers(s: Scenario) -> tuple[int, ...] | None:
    """The stated SGLang release's numbers (None: unstated, the current one)."""
    key = version_key(s.serving.engine_version) if s.serving.engine_version else None
    return key[1] if key else None


def mamba_ratio(s: Scenario) -> float:
    """``mamba_full_memory_ratio`` of the stated release (0: no Mamba pool before 0.5.2)."""
    n = _numbers(s)
    if n is None or n >= RATIO_09_FROM:
        return 0.9
    return 0.2 if n >= POOL_FROM else 0.0


def slots_per_request(s: Scenario, gpu: GPUSpec) -> int:
    """State slots the release reserves a running request (module docstring): 5 from 0.5.15 on
    CUDA (``extra_buffer``'s ping-pong pair beside the 3), else 3."""
    n = _numbers(s)
    if (n is not None and n < EXTRA_BUFFER_FROM) or gpu.vendor.lower() != "nvidia":
        return SLOTS_PER_REQUEST
    return SLOTS_PER_REQUEST + TRACK_BUFFER_SLOTS


def mamba_split(s: Scenario, arch: Arch, gpu: GPUSpec, em: EngineMemory) -> EngineMemory:
    """The engine memory with SGLang's split (module docstring): the KV tokens of the pool's
    KV share and the running cap of its state share; ``em`` unchanged for a model without
    recurrent layers or a release before the Mamba pool."""
    r = mamba_ratio(s)
    if not arch.mixer_layers or r <= 0 or em.kv_pool_bytes <= 0:
        return em
    p = s.parallelism
    state = state_bytes(arch, s.profile, s.precision.activations, p.tensor, p.pipeline)
    if state <= 0:
        return em
    kv_share = 1.0 / (1.0 + r)
    per = slots_per_request(s, gpu)
    states = int(em.kv_pool_bytes * r * kv_share // state)
    slots = states // per
    cap = min(em.max_sequences, slots) if em.max_sequences else slots
    note = (
        f"SGLang splits the pool of a hybrid model: recurrent states {r / (1 + r):.0%}, "
        f"KV cache {kv_share:.0%} (mamba_full_memory_ratio {r}); the state pool holds "
        f"{states:,} states of {state / 2**20:,.0f} MiB, {per} a request: "
        f"{slots:,} requests at once"
    )
    return replace(
        em,
        kv_capacity_tokens=int(em.kv_capacity_tokens * kv_share),
        max_concurrency=em.max_concurrency * kv_share,
        max_sequences=max(1, cap),
        state_cap=max(1, slots),  # binds a set --max-running-requests too (init_memory)
        notes=(*em.notes, note),
    )
