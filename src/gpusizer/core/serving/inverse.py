"""A pool engine's inverse moved by bytes its features add to or take from the budget after
its rule solved it: the proposer's weights and KV (core/serving/features.py ``reserve``), the
load's shared prefix held once (core/serving/prefix.py ``prefix_memory``).

A pool rule's inverse (core/serving/rules/pool.py ``PoolRule.device_total``) is the larger of
two terms: the pool's (the budget holds what it reserves and the KV: vLLM
``vllm/v1/worker/gpu_worker.py`` ``determine_available_memory``, pool = fraction x total -
weights - peak - non-torch; the same shape in SGLang and TensorRT-LLM) and the floor's, which no
pool size moves (vLLM V1 ``init_device``: fraction x total must be free at start, so (1 -
fraction) x total must hold the CUDA context and NCCL; the memory outside the fraction fitting
the GPU). Bytes moved into the budget move the pool's term alone: the smallest device is the
larger of (the pool's term + bytes / fraction) and the floor, not the larger term plus bytes /
fraction, which counted a draft's weights on top of the start-up check (Llama 3.3 70B FP8 with
EAGLE-3 on 40 RTX 5070 12GB at fraction 0.85: the engine starts and holds 5 requests, the
inverse read 37 MB more than the card).
"""

from __future__ import annotations

import math
from dataclasses import replace

from ..model.result_serving import EngineMemory


def moved(em: EngineMemory, device_bytes: float) -> EngineMemory:
    """``em`` whose pool's term of the inverse grows by ``device_bytes`` of device (negative:
    shrinks; bytes moved into the budget over the fraction), its floor kept. A rule that gives
    no terms (``pool_need_bytes`` and ``floor_bytes`` 0) moves ``required_bytes`` whole."""
    if not em.required_bytes:
        return em
    if not em.pool_need_bytes and not em.floor_bytes:
        return replace(em, required_bytes=int(em.required_bytes + device_bytes))
    pool = int(em.pool_need_bytes + device_bytes)
    return replace(em, pool_need_bytes=pool, required_bytes=max(pool, em.floor_bytes))


def kv_moved(em: EngineMemory, reserved: float, more_request: float, more_load: float) -> EngineMemory:
    """``em`` with ``reserved`` bytes more inside the budget besides the pool and the pool's need
    grown by the KV its features add: ``more_request`` bytes to one request of ``max_context``
    (vLLM ``check_enough_kv_cache_memory``, the proposer's layers in the KV cache spec) and
    ``more_load`` to the load's. The pool must hold the larger of the two
    (core/serving/rules/pool.py ``PoolRule.memory``: ``max(request, load)``), so the pool's term
    moves by ``reserved`` plus the growth of that larger one, over the fraction."""
    req, load = em.request_bytes, em.load_bytes
    req2, load2 = req + more_request, load + more_load
    f = em.fraction or 1.0
    em = replace(em, request_bytes=req2, load_bytes=load2)
    if req <= load and req2 <= load2:  # the load sets the need before and after: its growth
        return moved(em, (reserved + more_load) / f)
    # whole bytes up: the start-up check compares the request with the pool to the byte
    return moved(em, math.ceil((reserved + max(req2, load2) - max(req, load)) / f))


def need_cut(em: EngineMemory, saved: float) -> float:
    """What the pool's need loses when the load's KV shrinks by ``saved`` bytes (the shared
    prefix held once, core/serving/prefix.py): all of it where the load still sets the need,
    none where one ``max_context`` request does (the engine's start-up check holds one whole
    request, prefix or not: vLLM ``check_enough_kv_cache_memory``)."""
    req, load = em.request_bytes, em.load_bytes
    if req <= load - saved:
        return saved
    return max(0.0, load - req)


def outside(em: EngineMemory, device_bytes: float) -> EngineMemory:
    """``em`` with ``device_bytes`` more on the device outside the budget, added to both terms
    (SGLang to 0.5.13 loads its draft after the pool: core/serving/features.py ``after_pool``)."""
    if not em.required_bytes:
        return em
    return replace(
        em,
        required_bytes=int(em.required_bytes + device_bytes),
        pool_need_bytes=int(em.pool_need_bytes + device_bytes) if em.pool_need_bytes else 0,
        floor_bytes=int(em.floor_bytes + device_bytes) if em.floor_bytes else 0,
    )
