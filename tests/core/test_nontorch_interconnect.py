"""Why vLLM's multi-GPU non-torch allowance is not split by interconnect (docs/evidence/
serving.md, the section on vllm#17469). The one PCIe V1 log (4 x A10, vLLM 0.8.5, TP 4) leaves
less room under its budget than the profile run's sampler alone at the settings the replay must
assume, so it cannot size the non-torch bytes; at the reporter's stated ``max-num-seq`` 1 the
room it leaves for the multi-GPU growth is 0.16 GiB, as the PCIe V0 logs show, against the
1.88 GiB measured on NVLink H100s. Each logged number is read from the record's data file.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.registry.engine_releases import VLLM

from .engine_replay_blind import Q3_A10, logged
from .replay_base import GiB, Replay, _vllm

# Qwen3-30B-A3B's KV bytes a token on one of four ranks: 48 layers x 1 KV head x 128 x 2 (K, V)
# x 2 B (the record's ``derived.kv_pool_gib``)
KV_TOKEN_BYTES = 48 * 1 * 128 * 2 * 2


def _run(**serving: Any) -> Any:
    """The A10 record's scenario (engine_replay_blind.py), with ``serving`` overrides."""
    sc = _vllm("qwen3-30b-a3b", "0.8.5", "a10-24gb", tp=4, max_context=8192, **serving)
    return Replay(Q3_A10, sc, []).run()


def _room(r: Any) -> float:
    """GiB the log leaves for the profile peak and the non-torch bytes: 0.9 x the device total
    less the logged weights and the logged pool (vLLM 0.8.5 ``determine_available_memory``:
    available = total x util - (torch peak + non-torch), the weights inside the torch peak)."""
    pool = logged(Q3_A10, "kv_cache_tokens") * KV_TOKEN_BYTES / GiB
    return (r.em.fraction or 0.0) * r.total / GiB - logged(Q3_A10, "weights") - pool


def test_the_a10_log_leaves_less_than_the_default_sampler() -> None:
    # vllm#17469 (the record's source): 198,784 tokens x 24 KiB = 4.55 GiB a rank, weights
    # 14.2474 GiB, 0.9 of 21.99 GiB (23,028 MiB less the driver's reserve) -> 0.99 GiB of room
    r = _run()
    room = _room(r)
    assert room == pytest.approx(0.99, abs=0.01)
    # the sort-based sampler of 0.8.x at the 256 sequences off H100/H200 (engine_releases_
    # vllm_v1.py V1_SORT, 38 B a logit x 256 x 151,936) is 1.38 GiB on its own: no non-torch
    # figure >= 0 reproduces the pool at the assumed settings
    assert r.mem.temporary / GiB == pytest.approx(1.38, abs=0.01)
    assert r.mem.temporary / GiB > room


def test_at_one_sequence_the_pcie_growth_is_a_tenth_of_nvlink() -> None:
    # The reporter "set max-model-len to 1024, with max-num-seq = 1" (vllm#17469); the args
    # line of this log is cut, so the setting is not known for it. At one sequence the sampler
    # is nothing and the room left for the multi-GPU growth is the room less the single-GPU
    # non-torch (the 0.8.0 entry's 0.25 GiB, the 0.5 GiB CUDA context the 0.8.x snapshot
    # counts inside) and the forward peak
    r = _run(max_sequences=1)
    rel = next(e for e in VLLM if e.version == "0.8.5")
    context = r.est.scenario.profile.overhead.cuda_context_bytes  # vLLM's profile: 500 MiB
    single = (rel.vllm.non_torch_bytes + context) / GiB
    growth = _room(r) - single - max(r.mem.activations, r.mem.temporary) / GiB
    assert growth == pytest.approx(0.16, abs=0.01)
    # ... where the PCIe V0 logs grow 0.14 GiB at TP 2 (vllm#15815, 2 x L40S, NCCL inside)
    # and the 0.7.0 entry charges 0.10 + 0.04 a peer = 0.22 GiB at TP 4
    # the NVLink H100 growth the V1 entries charge at TP 4: 1.79 + 3 x 0.03 GiB (llm-d v0.19.0)
    nvlink = (rel.vllm.comm_bytes + 3 * rel.vllm.comm_per_peer_bytes) / GiB
    assert nvlink == pytest.approx(1.88, abs=0.01)
    assert growth < nvlink / 10
