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
"""

from __future__ import annotations

from ..model.result import Estimate


def stated_headroom(est: Estimate) -> int:
    """Bytes per GPU: ``est.headroom_bytes`` (capacity less the peak) where the engine starts
    or the peak is over the card; else the card's shortfall against the smallest card the
    engine starts on (negative), never above 0 (module docstring)."""
    room, sv = est.headroom_bytes, est.serving
    if sv is None or sv.starts or room < 0:
        return room
    return min(0, est.capacity_bytes - sv.required_bytes)
