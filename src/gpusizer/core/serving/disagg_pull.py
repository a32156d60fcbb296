"""One prefill queue that every prefill worker pulls from (``serving.disaggregated.prefill_queue:
"shared"``; core/serving/disagg_queue.py).

NVIDIA Dynamo v0.3.0's vLLM P/D graph does not route a prompt to a prefill worker: the decode
worker enqueues it on one NATS JetStream stream, ``{namespace}_prefill_queue``, and each
``PrefillWorker`` loops ``dequeue_prefill_request()`` then runs that request to its first token
(``async for _ in self.generate(prefill_request)``) before it dequeues the next
(ai-dynamo/dynamo at f7b3ccfc, the commit TKE's image cherry-picks onto v0.3.0:
``examples/llm/components/prefill_worker.py`` ``prefill_queue_handler``). Every worker fetches
from the same durable pull consumer, ``durable_name: "worker-group"``, one message a fetch
(``lib/runtime/src/transports/nats.rs`` ``NatsQueue::connect``, ``dequeue_task``:
``.fetch().max_messages(1)``). So the pool is one first-come queue before ``c`` servers, each
busy with one prompt at a time: a request waits only while all ``c`` workers are busy (an
M/D/c queue under Poisson arrivals; Kleinrock 1975, *Queueing Systems* vol. 1 ch. 3, M/M/m, for the
multi-server queue). Splitting the same arrivals at random among ``c`` replicas, each its own
queue (the rule without this field), makes a request wait behind its replica's backlog while
another replica idles, so it queues longer at the same load.

The queue is simulated directly: the seeded arrivals of the pool's whole rate (the same draw
as a "rate" run's, core/serving/scheduler_state.py ``arrival_times``), each taken by the first
worker free, each worker holding it for the prompt's first token alone (seconds, the engine's
own simulation of one request on an idle worker).
"""

from __future__ import annotations

import heapq


def pulled_ttft(alone: float, arrivals: list[float], workers: int) -> float:
    """Mean seconds from arrival to first token of ``arrivals`` (seconds from the run's start,
    in order) pulled first come first served by ``workers`` workers, each running one request
    at a time for ``alone`` seconds (module docstring)."""
    if not arrivals:
        return alone
    free = [0.0] * max(1, workers)  # when each worker next dequeues; all idle at the start
    waited = 0.0
    for at in arrivals:
        start = max(at, heapq.heappop(free))
        heapq.heappush(free, start + alone)
        waited += start - at
    return alone + waited / len(arrivals)
