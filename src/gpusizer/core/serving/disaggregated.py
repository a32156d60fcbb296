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
replica whose KV pool cannot hold even its users' prompts holds those whose prompt and output
fit (an engine admits a request only while its pool has room) and the rest wait for a slot,
their users through its slots each freed every request's decode (Little's law): that wait is
in the first token and in ``disaggregated_decode_wait_seconds``.

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
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..errors import ScenarioError
from ..model.architecture import resolve
from ..model.redundant import FIELD as REDUNDANT
from ..model.redundant import physical_experts
from ..model.result import EngineMemory
from ..model.serving_features import DisaggregatedSpec
from ..model.specs import GPUSpec, Scenario

if TYPE_CHECKING:  # the step model and the scheduler load on the first split's figures: every
    # scenario's check reads this module, a training one nothing else of it (start-up time)
    from ..speed.step import StepModel
    from .engine_settings import EngineSettings
    from .load import ServedLoad
    from .scheduler_types import Engine, Workload

PREFILL_REQUESTS = 200  # Poisson arrivals simulated for the prefill pool
ROUNDS = 8  # regula falsi steps to the users' cycle and the prefill queue (_fixed_point)


def disaggregated_of(s: Scenario) -> DisaggregatedSpec | None:
    """The scenario's split when on (a serving scenario with a prefill pool)."""
    spec = s.serving.disaggregated
    if spec is None or spec.prefill_gpus is None or s.workload.trains:
        return None
    return spec


def check_disaggregated(s: Scenario) -> None:
    """Both pools are set and hold whole replicas of the layout."""
    spec = disaggregated_of(s)
    if spec is None:
        return
    decode = s.parallelism.tensor * s.parallelism.pipeline
    for name, per in (("prefill_gpus", _prefill_per(s, spec)), ("decode_gpus", decode)):
        n = getattr(spec, name)
        if n is None:
            raise ScenarioError(
                f"serving.disaggregated.{name}", "required: the pool's GPUs (at least one replica)"
            )
        if n % per:
            raise ScenarioError(
                f"serving.disaggregated.{name}",
                f"must be a multiple of the pool's tensor x pipeline ({per}); got {n:,}",
            )
    _check_prefill_width(s, spec)
    _check_prefill_layout(s, spec)


def _check_prefill_width(s: Scenario, spec: DisaggregatedSpec) -> None:
    """A prefill replica's width splits whole heads, as ``parallelism.tensor`` must (vLLM,
    SGLang, TensorRT-LLM; core/pipeline/validate.py): 3 on 32 heads ran a third of them."""
    tp, heads = spec.prefill_tensor, resolve(s.model).heads
    if tp is not None and heads % tp:
        allowed = ", ".join(str(d) for d in range(1, min(heads, 1024) + 1) if heads % d == 0)
        msg = f"must divide attention_heads ({heads}); allowed: {allowed}, or null (parallelism.tensor)"
        raise ScenarioError("serving.disaggregated.prefill_tensor", msg)


def _check_prefill_layout(s: Scenario, spec: DisaggregatedSpec) -> None:
    """The prefill replica's own attention-DP ranks and expert span hold as the scenario's own
    would (core/serving/attention_dp.py), each error naming the split's field."""
    if spec.prefill_attention_data is None and spec.prefill_expert is None:
        return
    from .attention_dp import check_attention_data

    pre = _prefill_scenario(s, spec)
    p = pre.parallelism
    try:
        check_attention_data(pre)
    except ScenarioError as e:
        if e.field == REDUNDANT:  # the replicas over the prefill pool's ranks: their own field
            raise
        field = "prefill_expert" if e.field.endswith("expert") else "prefill_attention_data"
        message = e.message.replace("parallelism.tensor", "the prefill replica's tensor (prefill_tensor)")
        raise ScenarioError(f"serving.disaggregated.{field}", message) from None
    if p.attention_data == 1 and p.expert > 1:
        raise ScenarioError(
            "serving.disaggregated.prefill_expert",
            "without attention data parallelism in the prefill pool its experts are tensor-parallel; use 1",
        )
    experts = s.model.moe.experts if s.model.moe is not None else 1
    if (
        physical_experts(pre) or experts
    ) % p.expert:  # as parallelism.expert is checked (core/pipeline/validate.py)
        raise ScenarioError("serving.disaggregated.prefill_expert", f"must divide the experts ({experts})")


def _prefill_runs(s: Scenario, spec: DisaggregatedSpec) -> bool:
    """Whether the prefill pool's own layout holds at ``s``'s layout. A checked scenario's
    does; the advice's options and its narrower prefill widths (core/sizing/disagg_split.py)
    change the layout unchecked, and a prefill rank count that does not divide their width
    left a replica of zero GPUs (a ZeroDivisionError in ``plan`` and ``compare``)."""
    try:
        _check_prefill_layout(s, spec)
    except ScenarioError:
        return False
    return True


def _prefill_per(s: Scenario, spec: DisaggregatedSpec) -> int:
    """GPUs of one prefill replica: its own tensor parallelism (null: the scenario's) x pipeline."""
    return (spec.prefill_tensor or s.parallelism.tensor) * s.parallelism.pipeline


def _prefill_step(
    s: Scenario, gpu: GPUSpec, st: EngineSettings, pre: Scenario, served: ServedLoad
) -> StepModel:
    """The prefill replica's step model: the decode layout's, or ``pre``'s (one rank of the
    prefill pool's own layout, :func:`_prefill_view`)."""
    from ..speed.step_model import step_model
    from .features import featured_run
    from .load import engine_costs

    if pre.parallelism == s.parallelism:
        return served.step
    costs = engine_costs(pre, gpu, st)
    step, _, _ = featured_run(pre, gpu, costs, step_model(pre, gpu, costs), served.engine, served.workload)
    return step


def _prefill_view(s: Scenario, whole: Scenario, spec: DisaggregatedSpec) -> Scenario:
    """One rank of a prefill replica as the step model runs it: ``s`` (the decode pool's rank,
    core/serving/attention_dp.py ``rank_view``) where the pool keeps the scenario's layout,
    else the rank view of the scenario at the pool's own layout (whose ranks divide its width:
    :func:`_prefill_runs` holds first)."""
    from .attention_dp import rank_view

    pre = _prefill_scenario(whole, spec)
    return s if pre is whole else rank_view(pre)


def _prefill_scenario(s: Scenario, spec: DisaggregatedSpec) -> Scenario:
    """The scenario as one prefill replica runs it: its tensor width, attention-DP ranks and
    expert span (each null: the scenario's)."""
    p = s.parallelism
    tp = spec.prefill_tensor or p.tensor
    # unset, the scenario's ranks and expert span carry over where they divide the width
    a = spec.prefill_attention_data or (p.attention_data if tp % p.attention_data == 0 else 1)
    keep = a == p.attention_data and (a == 1 or tp % p.expert == 0)
    update = {"tensor": tp, "attention_data": a, "expert": spec.prefill_expert or (p.expert if keep else a)}
    if all(getattr(p, k) == v for k, v in update.items()):
        return s
    return s.model_copy(update={"parallelism": p.model_copy(update=update)})


def _link(spec: DisaggregatedSpec, gpu: GPUSpec) -> float:
    gb = spec.link_gb_per_s or gpu.network_gb_per_s or gpu.interconnect_gb_per_s
    return gb * 1e9


def disaggregated_fields(
    s: Scenario, gpu: GPUSpec, em: EngineMemory, st: EngineSettings, whole: Scenario | None = None
) -> dict[str, Any]:
    """The report's fields of the split (empty without it; module docstring): ``s`` is one
    attention-DP rank's view of ``whole`` (the scenario as set; null: ``s`` itself), each
    pool's replicas counted in ranks."""
    from .budget import MAX_SIMULATED_USERS, extrapolated
    from .load import serving_load
    from .prefix import PrefixStep
    from .scheduler import simulate

    spec = disaggregated_of(s)
    if spec is None or spec.prefill_gpus is None or spec.decode_gpus is None or not em.starts:
        return {}
    if not _prefill_runs(whole or s, spec):  # the advice's layout, where the split's own cannot run
        return {}
    p, w = s.parallelism, s.workload
    pre = _prefill_view(s, whole or s, spec)
    per, pre_per = p.tensor * p.pipeline, pre.parallelism.tensor * pre.parallelism.pipeline
    prefill_r, decode_r = spec.prefill_gpus // pre_per, spec.decode_gpus // per
    if not prefill_r or not decode_r:  # a layout wider than a pool (the advice's own TP)
        return {}
    users = max(1, st.concurrency) * p.data
    served = serving_load(s, gpu, em, st)
    step, eng, wl = served.step, served.engine, served.workload
    pre_step = _prefill_step(s, gpu, st, pre, served)
    # the decode pool: its users' prompts already in the cache (the run's prompt is what a
    # shared prefix leaves of it: core/serving/prefix.py already offsets the rest)
    own, each = wl.prompt - 1, max(1, math.ceil(users / decode_r))
    share = _held(each, own, wl.output, eng.kv_tokens, eng.block)
    kv = max(float(eng.block), eng.kv_tokens - share * own)
    # past the simulation's users (core/serving/budget.py) the run is of that many, its waits
    # scaled as the aggregated run's are: 2^20 users on one llama.cpp replica ran for minutes
    ran = min(share, MAX_SIMULATED_USERS)
    dec_wl = replace(wl, prompt=1, load="steady", users=ran, requests=4 * ran, time_boxed=False)
    dec = simulate(PrefixStep(step, own), replace(eng, kv_tokens=kv, front_end=0.0), dec_wl)
    dec = extrapolated(dec, share / ran)
    # the connectors move whole KV blocks (vLLM's block, SGLang's page)
    sent = math.ceil(w.prompt_tokens / max(1, eng.block)) * max(1, eng.block)
    transfer_bytes = sent * em.kv_bytes_per_token * per
    transfer = transfer_bytes / min(per, pre_per) / _link(spec, gpu)
    pre_eng = replace(eng, max_running=spec.prefill_max_sequences) if spec.prefill_max_sequences else eng
    # users a full decode replica does not hold wait for a slot: its ``each`` users through
    # ``share`` slots each freed every ``dec.e2e`` (Little's law; 0 when it holds them all)
    wait = dec.e2e * (each - share) / share
    first = (
        _prefill_ttft(pre_step, pre_eng, wl, users, prefill_r, (dec.e2e + wait, transfer)) + transfer + wait
    )
    cycle = dec.e2e + first
    tps = min(dec.tokens_per_second * decode_r, users * w.generated_tokens / cycle if cycle > 0 else 0.0)
    return {
        "disaggregated_prefill_gpus": spec.prefill_gpus,
        "disaggregated_decode_gpus": spec.decode_gpus,
        "disaggregated_ttft_seconds": first,
        "disaggregated_tpot_seconds": dec.tpot,
        "disaggregated_tokens_per_second": tps,
        "disaggregated_kv_transfer_bytes": int(transfer_bytes),
        "disaggregated_kv_transfer_seconds": transfer,
        "disaggregated_decode_wait_seconds": wait,
    }


def _held(share: int, own: int, output: int, kv_tokens: float, block: int) -> int:
    """Users a decode replica holds at once: its ``share``, or, where the pool cannot hold even
    their prompts' KV, those whose prompt and output fit (the engine admits a request only while
    its KV pool has room; the rest wait for a slot, vLLM's and SGLang's schedulers). Before, the
    pool's KV went to a single block, no request was admitted and the split's time per token
    and tokens/s read 0 for any decode pool its users overfill."""
    if kv_tokens - share * own >= block:
        return share
    return max(1, min(share, int(kv_tokens // max(1, own + output))))


def _prefill_ttft(
    pre_step: StepModel, eng: Engine, wl: Workload, users: int, replicas: int, rest: tuple[float, float]
) -> float:
    """Seconds from a request's arrival at the prefill pool to its first token.

    Each user has one request outstanding at most, so with no more users than prefill
    replicas an idle replica is always free (a router that picks it: exact for one user) and
    a request waits behind none: it is one prompt alone. More users than replicas reach the
    pool as Poisson arrivals at the users' rate, one request per cycle (first token, then
    ``rest``: the decode and the transfer): the arrival rate and the queue meet at the fixed
    point of the cycle (:func:`_fixed_point`)."""
    from .scheduler import simulate

    if users <= replicas:
        alone = replace(wl, output=1, load="steady", users=1, requests=1, time_boxed=False)
        return float(simulate(pre_step, eng, alone).ttft)
    e2e, transfer = rest

    def queued(t: float) -> float:  # the pool's first token when the users' cycle has it at t
        rate = users / max(1e-9, e2e + t + transfer) / replicas
        pre_wl = replace(wl, output=1, load="rate", rate=rate, requests=PREFILL_REQUESTS, time_boxed=False)
        return float(simulate(pre_step, eng, pre_wl).ttft)

    return _fixed_point(queued)


def _fixed_point(f: Callable[[float], float]) -> float:
    """The t with f(t) = t for f falling in t (a later first token slows the users' cycle,
    so fewer requests queue): bracketed by 0 and f(0) and closed in by regula falsi (the
    Illinois rule) to a 1 % step; a plain iteration of f swings around it, undamped."""
    lo, g_lo = 0.0, f(0.0)
    hi = g_lo
    g_hi = f(hi) - hi
    if g_hi >= 0 or g_lo <= 0:
        return hi
    t, side = hi, 0
    for _ in range(ROUNDS):
        t = (lo * g_hi - hi * g_lo) / (g_hi - g_lo)
        g = f(t) - t
        if abs(g) <= 0.01 * max(t, 1e-9):
            return t
        if g > 0:
            lo, g_lo = t, g
            g_hi = g_hi / 2 if side > 0 else g_hi
            side = 1
        else:
            hi, g_hi = t, g
            g_lo = g_lo / 2 if side < 0 else g_lo
            side = -1
    return t
