"""The P/D request path of a disaggregated split, per KV connector and the proxy it runs
behind (``serving.disaggregated.connector``): a registry, one spec per connector owning the
seconds its path adds to a request's first token beyond what the split already prices (the
prefill pool's first token, core/serving/disagg_queue.py, plus the KV over the link,
core/serving/disaggregated.py). Not set (null): nothing added, as before.

Each spec prices only hops whose cost follows from the code path read, in units the split
already has: the decode instance's API server on the request (``front_end``: the engine's own
per-request cost, core/speed ``StepCost.front_end_for``), the decode replica's engine step
(``step``: its time per token at its batch), the KV read (``transfer``). No constant is solved
from a published first token. Not priced by any spec: the network round trips of the proxy's
HTTP hops (their latency is a property of the hosts, stated by no replayed run).

vLLM's proxies (``vllm/tests/v1/kv_connector/nixl_integration/toy_proxy_server.py``
``_handle_completions``; ``examples/online_serving/disaggregated_serving_p2p_nccl_xpyd/
disagg_proxy_p2p_nccl_xpyd.py`` ``handle_request``, "# finish prefill" then "# return decode";
llm-d's routing sidecar, ``pkg/sidecar/proxy/connector_nixlv2.go``, the same order) send the
prefill request with ``max_tokens`` 1, read its whole response, and only then send the original
request to the decode instance, whose API server takes it in as any request (its
``front_end``) and whose first token the client sees; the prefill's token is dropped. A request
that reaches a decode engine mid-step is scheduled at the next step: with steps of one length
the mean residual wait is half a step (the renewal residual E[S^2] / 2 E[S] = S / 2; Kleinrock,
Queueing Systems vol. 1, 1975, §5.2), paid only while the replica is stepping other requests.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from .table import add


@dataclass(frozen=True)
class PathInputs:
    """What a path's cost is built from, in seconds (module docstring); ``busy``: the chance that
    the decode replica is stepping other users' requests when this one reaches it (0-1)."""

    front_end: float
    step: float
    transfer: float
    busy: float


@dataclass(frozen=True)
class PdConnector:
    """One connector and proxy: ``seconds`` maps :class:`PathInputs` to the first-token seconds
    its path adds; ``source``: the code read; ``since``: the engine's first release that runs
    it (None: not gated), below which an explicit ``serving.engine_version`` is refused."""

    id: str
    engine: str
    seconds: Callable[[PathInputs], float]
    source: str
    since: str | None = None


PD_CONNECTORS: dict[str, PdConnector] = {}


def register(c: PdConnector) -> PdConnector:
    """Add a connector (a DuplicateId if its id is taken)."""
    return add(PD_CONNECTORS, c.id, c, "P/D connector")


def _serial_proxy(x: PathInputs) -> float:
    """The decode request after the prefill's response: its API server, then the rest of the
    step the decode replica is running when it arrives (module docstring)."""
    return x.front_end + x.busy * x.step / 2


def _p2p_nccl(x: PathInputs) -> float:
    """P2pNcclConnector: the decode's scheduler counts the prompt less its last token as loaded
    at once (``get_num_new_matched_tokens`` returns ``len(prompt) - 1 - computed, False``: no
    asynchronous load), so the request is scheduled in the next step, whose ``start_load_kv``
    takes the layers the prefill already pushed (``recv_tensor``, PUT_ASYNC) and whose forward
    computes the last prompt token and samples the first: one decode step after the proxy."""
    return _serial_proxy(x) + x.step


def _nixl(x: PathInputs) -> float:
    """NixlConnector: the decode's scheduler loads the whole prompt asynchronously
    (``get_num_new_matched_tokens`` returns ``len(prompt) - computed, True``): the request waits
    in ``WAITING_FOR_REMOTE_KVS`` while the read runs, started in the worker's step
    (``start_load_kv``) and found done only at a step's end (``get_finished``); the next
    ``schedule()`` moves it to waiting with its last prompt token left to compute
    (``_update_waiting_for_remote_kv``: ``num_computed_tokens -= 1`` for a full prompt), and that
    step samples the first token. A busy replica thus rounds the read up to whole steps; an idle
    one polls in its no-forward loop (``kv_connector_no_forward``) and adds only the last step."""
    rounded = math.ceil(x.transfer / x.step) * x.step if x.step > 0 else x.transfer
    return _serial_proxy(x) + x.busy * (max(rounded, x.step) - x.transfer) + x.step


def _sglang(x: PathInputs) -> float:
    """SGLang's router sends both requests at once (``pd_router.rs``
    ``execute_dual_dispatch_internal``: ``tokio::join!``) and the decode streams the prefill's own
    first token from its prebuilt batch (``disaggregation/decode.py``
    ``process_batch_result_prebuilt``, after the first decode step is launched, not finished);
    every other hop is a busy poll or a message (docs/evidence/serving.md, SGLang's P/D path read
    hop by hop): nothing priced."""
    return 0.0


_VLLM_V1 = "vllm-project/vllm v1 scheduler (vllm/v1/core/sched/scheduler.py)"
# vLLM's first release with NixlConnector and the V1 scheduler's remote-KV states these rules
# read ("NixlConnector got released in 0.9.0", ai-dynamo/dynamo PR 1345, 2025-06-03); the P2P
# NCCL connector (PR 18242) and the V1 Mooncake connector came later, so none runs before it.
# Their own first releases are not gated: the P2P run replayed (disagg-published-runs.json) is a
# mid-June 2025 build stated as 0.9.1, before 0.9.2, the first release that ships it.
_VLLM_CONNECTORS_SINCE = "0.9.0"
register(
    PdConnector(
        "vllm-nixl",
        "vllm",
        _nixl,
        f"vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py; {_VLLM_V1}; toy_proxy_server.py",
        since=_VLLM_CONNECTORS_SINCE,
    )
)
register(
    PdConnector(
        "vllm-mooncake",
        "vllm",
        _nixl,  # the same asynchronous pull: ``get_num_new_matched_tokens`` returns ``count, True``
        f"vllm/distributed/kv_transfer/kv_connector/v1/mooncake/mooncake_connector.py; {_VLLM_V1}; "
        "toy_proxy_server.py",
        since=_VLLM_CONNECTORS_SINCE,
    )
)
register(
    PdConnector(
        "vllm-p2p-nccl",
        "vllm",
        _p2p_nccl,
        "vllm/distributed/kv_transfer/kv_connector/v1/p2p/p2p_nccl_connector.py; "
        "disagg_proxy_p2p_nccl_xpyd.py",
        since=_VLLM_CONNECTORS_SINCE,
    )
)
register(
    PdConnector(
        "sglang",
        "sglang",
        _sglang,
        "sgl-project/sglang python/sglang/srt/disaggregation/; sgl-model-gateway pd_router.rs",
    )
)
