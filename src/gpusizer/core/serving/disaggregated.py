"""Disaggregated prefill and decode (``serving.disaggregated``): the same users served by two
pools, prefill and decode, with each request's KV sent between them (NVIDIA Dynamo, llm-d,
SGLang ``--disaggregation-mode``, vLLM's P/D connectors; Zhong et al. 2024, DistServe, arXiv
2401.09670 §2-3: prefill sets the first-token time, decode the time per token, and splitting
them removes the interference of prompt chunks with decodes).

The scenario's users (``concurrency`` x data-parallel replicas) are served by
``decode_gpus / (tensor x pipeline)`` decode replicas, each running its share as steady users
whose prompts arrive already in its cache (the step model attends over the prompt; the pool
holds it); their requests reach ``prefill_gpus / (tensor x pipeline)`` prefill replicas as
Poisson arrivals at the users' request rate (one request per user per cycle of the decode
run plus its first token: a fixed point), each computing its prompt and the first token
alone; with no more users than prefill replicas no request waits behind another (each user
has one outstanding at most). Between them a request's KV, prompt x bytes per token on each
GPU in whole engine blocks (the connectors move blocks: vLLM's, SGLang's pages), crosses the
link of each GPU in parallel. First token: the prefill pool's plus the transfer; time per token: the
decode pool's; tokens/s: the users' output over their cycle, at most the decode pool's. A decode
replica runs at most its engine's running-request cap (core/serving/decode_slots.py: vLLM's
``max_num_seqs``, SGLang's ``max_running_requests``, TensorRT-LLM's ``max_batch_size``); one
whose KV pool cannot hold even its users' prompts holds those whose prompt and output fit (an
engine admits a request only while its pool has room). The rest wait for a slot, their users
through its slots each freed every request's decode (Little's law); those it holds wait in its
queue while its pool has no room for their next tokens (its scheduler's run,
core/serving/decode_queue.py). Both waits are in the first token (the client's first token is
the decode engine's) and in ``disaggregated_decode_wait_seconds``; the time per token is the
running batch's.

The prefill pool may run narrower tensor parallelism than the decode pool
(``prefill_tensor``): prompts are compute-bound, so a narrow prefill replica loses little and
saves the all-reduces, while decode wants the widest memory bandwidth (aiconfigurator's
best disaggregated Qwen3-32B on H200 pairs TP1 prefill workers with a TP4 decode worker,
ai-dynamo/aiconfigurator README; DistServe §4 sizes each phase's parallelism apart). Its
step model is the scenario's at that width; the KV of a request then crosses the fewer
pool's GPUs' links. It may also run its own attention data-parallel ranks and expert span
(``prefill_attention_data``, ``prefill_expert``: aiconfigurator's measured P/D runs pair
attention-DP prefill workers with tensor-parallel decode workers), each prefill replica then
counted in its ranks as the decode pool is (core/serving/attention_dp.py ``rank_view``), and
take at most ``prefill_max_sequences`` requests a rank at once (aiconfigurator's generator
renders prefill workers at max_batch_size 1, ``generator/rule_plugin/*.rule``; SGLang's prefill
server then holds one request in its pool until its KV has left, ``ReqToTokenPool(size =
max_running_requests)`` and ``get_new_batch_prefill``'s prefill-mode check;
docs/evidence/serving.md §17).

The prefill pool's own layout and its checks are in core/serving/disagg_prefill.py, a decode
replica's run of its users in core/serving/disagg_decode_run.py, the prefill pool's
queue to the first token (the fixed point of the users' cycle; the stated arrivals,
``arrival_burstiness``) in core/serving/disagg_queue.py, the split's checks in
core/serving/disagg_checks.py. Where ``connector`` names the KV
connector and proxy, the hops its code path adds to the first token (a second API server, the
decode engine's steps around the KV read) come from its spec in core/registry/pd_connectors.py
(``disaggregated_path_seconds``). A decode server that runs without its engine's overlap
scheduler (SGLang before 0.4.6) steps with the host work it does not hide
(core/serving/disagg_decode_host.py). Where ``opening_burst`` is set the run opens with every
user's request at once, as a concurrency benchmark does, and the first token's mean holds that
burst's queue (core/serving/disagg_burst.py). Under ``serving.load: "rate"`` the client's
stated arrivals reach the pools instead of the users' closed loop (core/serving/disagg_rate.py).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..model.result import EngineMemory
from ..model.serving_features import DisaggregatedSpec
from ..model.specs import GPUSpec, Scenario
from .disagg_burst import opening_burst
from .disagg_checks import check_disaggregated, disaggregated_of
from .disagg_decode_host import decode_pool_step
from .disagg_decode_run import decode_run, held
from .disagg_prefill import prefill_runs, prefill_step, prefill_view
from .disagg_queue import prefill_ttft
from .disagg_rate import OpenArrivals, Split, open_arrivals, open_split
from .frontend import decode_side_seconds
from .pools_priced import DECODE_ONLY, UNPRICED, pools_priced

if TYPE_CHECKING:  # the step model and the scheduler load on the first split's figures: every
    # scenario's check reads this module, a training one nothing else of it (start-up time)
    from .engine_settings import EngineSettings
    from .scheduler_types import Engine, LoadResult

# the split's checks live in core/serving/disagg_checks.py; their names stay importable from here
__all__ = ["check_disaggregated", "disaggregated_fields", "disaggregated_of", "kv_link"]

# a split's pools: the decode run, its queue's wait, the wait for a slot, the prefill pool's queue
# to the first token, the chance a request finds its decode replica stepping others, and the
# requests/s the prefill pool passes on (0.0 in the closed loop)
_Pools = tuple["LoadResult", float, float, float, float, float]


def kv_link(spec: DisaggregatedSpec, gpu: GPUSpec) -> tuple[float, str]:
    """The KV hand-off's link: GB/s per GPU and whose rate it is (the user's
    ``link_gb_per_s``, else the GPU's network, else its interconnect)."""
    if spec.link_gb_per_s:
        return spec.link_gb_per_s, "serving.disaggregated.link_gb_per_s"
    if gpu.network_gb_per_s:
        return gpu.network_gb_per_s, "the GPU's network"
    return gpu.interconnect_gb_per_s, "the GPU's interconnect"


def _link(spec: DisaggregatedSpec, gpu: GPUSpec) -> float:
    return kv_link(spec, gpu)[0] * 1e9


def disaggregated_fields(
    s: Scenario, gpu: GPUSpec, em: EngineMemory, st: EngineSettings, whole: Scenario | None = None
) -> dict[str, Any]:
    """The report's fields of the split (empty without it; module docstring): ``s`` is one
    attention-DP rank's view of ``whole`` (the scenario as set; null: ``s`` itself), each
    pool's replicas counted in ranks."""
    from .decode_slots import decode_slots
    from .load import serving_load

    spec = disaggregated_of(s)
    if spec is None or spec.prefill_gpus is None or spec.decode_gpus is None or not em.starts:
        return {}
    if pools_priced() == UNPRICED:  # a caller that reads none of them (core/serving/pools_priced.py)
        return {}
    if not prefill_runs(whole or s, spec):  # the advice's layout, where the split's own cannot run
        return {}
    p, w = s.parallelism, s.workload
    pre = prefill_view(s, whole or s, spec)
    per, pre_per = p.tensor * p.pipeline, pre.parallelism.tensor * pre.parallelism.pipeline
    prefill_r, decode_r = spec.prefill_gpus // pre_per, spec.decode_gpus // per
    if not prefill_r or not decode_r:  # a layout wider than a pool (the advice's own TP)
        return {}
    users = max(1, st.concurrency) * p.data
    served = serving_load(s, gpu, em, st)
    step, eng, wl = served.step, served.engine, served.workload
    pre_step = prefill_step(s, gpu, st, pre, served)
    slots = replace(eng, max_running=decode_slots(s, st, eng, em.state_cap))
    # the connectors move whole KV blocks (vLLM's block, SGLang's page)
    sent = math.ceil(w.prompt_tokens / max(1, eng.block)) * max(1, eng.block)
    transfer_bytes = sent * em.kv_bytes_per_token * per
    transfer = transfer_bytes / min(per, pre_per) / _link(spec, gpu)
    pre_eng = replace(eng, max_running=spec.prefill_max_sequences) if spec.prefill_max_sequences else eng
    dstep = decode_pool_step(s, step)
    sp = Split(s, spec, dstep, slots, wl, pre_step, pre_eng, prefill_r, decode_r, transfer)
    open_ = open_arrivals(s, spec)
    # passed: the requests/s the prefill pool passes on (core/serving/disagg_flow.py)
    pools = _closed(sp, users, st.concurrency) if open_ is None else _open(sp, open_)
    return _answer(sp, eng, pools, users if open_ is None else None, transfer_bytes)


def _answer(
    sp: Split, eng: Engine, pools: _Pools, users: int | None, transfer_bytes: float
) -> dict[str, Any]:
    """The split's report fields from its pools' runs (:func:`_closed` or :func:`_open`):
    ``users`` the closed loop's (its output over their cycle), None under stated arrivals (the
    output the prefill pool passes on)."""
    spec, w, transfer = sp.spec, sp.s.workload, sp.transfer
    dec, queued, wait, queue, busy, passed = pools
    path = _path(spec, eng, dec, transfer, busy)
    first = queue + transfer + wait + queued + path
    # a stated frontend's (core/serving/frontend.py) on the decode server's own take; 0.0 if null
    first += decode_side_seconds(sp.s, transfer + wait + queued + path)
    cycle = dec.e2e - queued + first  # the run's queue is in its e2e and now in the first token
    if users is not None:
        offered = users * w.generated_tokens / cycle if cycle > 0 else 0.0
    else:  # the client's output tokens a second, as the prefill pool passes them on
        offered = passed * w.generated_tokens
    tps = min(dec.tokens_per_second * sp.decode_r, offered)
    return {
        "disaggregated_prefill_gpus": spec.prefill_gpus,
        "disaggregated_decode_gpus": spec.decode_gpus,
        "disaggregated_ttft_seconds": first,
        "disaggregated_tpot_seconds": dec.tpot,
        "disaggregated_tokens_per_second": tps,
        "disaggregated_kv_transfer_bytes": int(transfer_bytes),
        "disaggregated_kv_transfer_seconds": transfer,
        "disaggregated_decode_wait_seconds": wait + queued,
        "disaggregated_path_seconds": path,
    }


def _path(spec: DisaggregatedSpec, eng: Engine, dec: LoadResult, transfer: float, busy: float) -> float:
    """Seconds the connector's request path adds to the first token (core/registry/pd_connectors.py;
    0 without ``connector``); ``busy``: the chance the decode replica is stepping others'
    requests when this one arrives."""
    if spec.connector is None:
        return 0.0
    from ..registry.pd_connectors import PD_CONNECTORS, PathInputs

    return PD_CONNECTORS[spec.connector].seconds(PathInputs(eng.front_end, dec.tpot, transfer, busy))


def _closed_busy(dec: LoadResult, each: int, first: float) -> float:
    """The closed loop's chance that a decode replica steps others' requests when one arrives:
    unless none of its other ``each - 1`` users is decoding, each independently a share
    ``e2e / (e2e + first)`` of its cycle."""
    share = dec.e2e / (dec.e2e + first) if dec.e2e + first > 0 else 0.0
    return 1.0 - (1.0 - share) ** (each - 1)


def _closed(sp: Split, users: int, concurrency: int) -> _Pools:
    """The closed loop of ``users`` (module docstring): the decode run, its queue's wait, the
    wait for a slot, the prefill pool's queue to the first token and the chance a request
    arrives to a decode replica stepping others (then 0.0: no stated rate passed on)."""
    from .load import ROUNDS

    spec, wl = sp.spec, sp.wl
    each = max(1, math.ceil(users / sp.decode_r))
    dec, share, queued = decode_run(sp.step, sp.slots, wl, each)
    # users a full decode replica does not hold wait for a slot: its ``each`` users through
    # ``share`` slots each freed every ``dec.e2e`` (Little's law; 0 when it holds them all);
    # those it holds wait in its queue (``queued``, inside ``dec.e2e``) while its pool fills
    wait = dec.e2e * (each - share) / share
    rest = (dec.e2e + wait, sp.transfer)
    if pools_priced() == DECODE_ONLY:  # its caller reads the decode pool's figures only
        return dec, queued, wait, 0.0, 0.0, 0.0
    pulled = spec.prefill_queue == "shared"  # one queue all prefill replicas pull from
    queue = prefill_ttft(
        sp.pre_step, sp.pre_eng, wl, users, sp.prefill_r, rest, spec.arrival_burstiness, pulled
    )
    if spec.opening_burst:
        rounds = (sp.s.serving.requests or ROUNDS * max(1, concurrency)) / max(1, concurrency)
        queue = opening_burst(sp.pre_step, sp.pre_eng, wl, users, sp.prefill_r, queue, rounds)
    busy = _closed_busy(dec, each, queue + sp.transfer + wait + queued)
    return dec, queued, wait, queue, busy, 0.0


def _open(sp: Split, arrivals: OpenArrivals) -> _Pools:
    """The open loop of ``arrivals`` (core/serving/disagg_rate.py ``open_split``), a decode
    replica holding at most its slots' requests whose prompt and output its pool holds."""
    eng, wl = sp.slots, sp.wl
    cap = held(eng.max_running, wl.prompt - 1, wl.output, eng.kv_tokens, eng.block)
    return open_split(sp, arrivals, lambda n: decode_run(sp.step, eng, wl, n), cap)
