"""The headroom a report states, agreeing with its verdict (core/pipeline/report.py
``headroom_bytes``, io/wording.py's verdict, the memory chart's label).

``Estimate.headroom_bytes`` is the capacity less the peak. A serving engine that reserves its
memory is drawn as it would hold it had it started, so where its start-up check fails the peak
can sit under the card: Llama 3.3 70B FP8 with EAGLE-3 on 10 RTX 5080 16GB at vLLM's default
0.92 peaks at 16.83 of 17.09 GB, a positive headroom, yet vLLM V1's ``init_device``
(vllm/v1/worker/gpu_worker.py) refuses: 0.08 of the card cannot hold the CUDA context and NCCL
(free 13.93 GiB < 0.92 x total 14.19 GiB). Where the engine does not start, the headroom stated
is the card's shortfall against the smallest card the engine starts on and holds the load on
(``serving.required_bytes``, the inverse of its checks: core/serving/rules/pool.py), in the
same bytes as a headroom (of the card, not of free memory at start): 3.42 GB here (a 20.51 GB
card). Where no inverse is larger than the card (an engine whose rule gives none) it is 0: no
headroom, and the verdict says why the engine does not start.

The card it starts on holds one request of ``max_context``, not the load: the start-up check
(vllm/v1/core/kv_cache_utils.py ``check_enough_kv_cache_memory``) asks the pool for that one
request, and requests beyond the pool wait in the scheduler's queue. A pool rule's inverse
(core/serving/rules/pool.py) sizes the pool for the larger of that request and the load, its
pool term growing by a byte of KV over the memory fraction (vLLM, SGLang and TensorRT-LLM alike:
core/serving/inverse.py), so where the load is the larger the term falls by their difference
over the fraction. GPUStack's Qwen3-32B on one H100 (vLLM 0.11.0, 40,960-token context, a burst
of 100 requests of 32,100 tokens): the pool is 4.45 GiB where one request needs 10.00, 6.2 GiB
more card; the 100 requests at once read 866 GiB short.
"""

from __future__ import annotations

from ..model.result import EngineMemory, Estimate


def stated_headroom(est: Estimate) -> int:
    """Bytes per GPU: ``est.headroom_bytes`` (capacity less the peak) where the engine starts
    or the peak is over the card; else the card's shortfall against the smallest card the
    engine starts on (negative), never above 0 (module docstring)."""
    room, sv = est.headroom_bytes, est.serving
    if sv is None or sv.starts or room < 0:
        return room
    need = start_bytes(est.engine) if est.engine is not None else sv.required_bytes
    return min(0, est.capacity_bytes - need)


def start_bytes(em: EngineMemory) -> int:
    """Bytes per GPU: the smallest card the engine starts on, its pool holding one request of
    ``max_context`` (``request_bytes``), not the load (module docstring); the inverse as its
    rule gives it where the rule does not split the pool's term from the floor."""
    f = em.fraction
    if not em.pool_need_bytes or not f:
        return em.required_bytes
    beyond = max(0.0, em.load_bytes - em.request_bytes) / f
    return int(max(em.pool_need_bytes - beyond, em.floor_bytes))
