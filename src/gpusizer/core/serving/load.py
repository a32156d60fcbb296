"""The serving block's speed: a scenario's engine settings, KV pool and stated load turned into a
simulated run (core/serving/scheduler.py) of its step model (core/speed/step.py).

What comes from where:
- the step: the engine's kernel library (``FrameworkProfile.kernels``) on the GPU's
  architecture; the release's host cost per step and per eager kernel launch (``StepCost``),
  CUDA graphs as set (Apple GPUs have none); llama.cpp layers in system RAM read at the
  host's bandwidth (core/serving/offload.py);
- the scheduler: the release's ``Scheduling``; the token budget is ``prefill_chunk_tokens``
  (vLLM ``max_num_batched_tokens``, SGLang ``chunked_prefill_size``, TensorRT-LLM
  ``max_num_tokens``, llama.cpp ``n_ubatch``); the running limit ``max_sequences``, within a
  hybrid model's state slots on SGLang (``EngineMemory.state_cap``); the pool
  the engine's KV capacity; transformers (no release) serves static batches;
- the load: ``serving.load``, ``concurrency``, ``request_rate``, ``requests``.

The engine's costs are put together here from core/serving/step_costs.py (graphs, launches,
the all-reduce rule, the MoE exchange); core/serving/load_text.py words the assumption.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..memo import Memo
from ..model.node import host_gpus
from ..model.result import EngineMemory
from ..model.specs import GPUSpec, Scenario
from ..speed.recurrent_update import update_points
from ..speed.step import EngineCosts, Offload, StepModel
from ..speed.step_model import step_model
from .budget import bounded, budget_note, caps, extrapolated
from .engine_settings import EngineSettings
from .features import featured_run
from .frontend import frontend_view
from .load_text import load_text
from .load_text import matmul_share as matmul_share  # its import path before the split
from .moe_layout import measured_moe_kernel
from .scheduler import simulate
from .scheduler_types import Engine, LoadResult, Workload
from .step_costs import (
    all_reduce,
    dp_padding,
    ggml_backend,
    graph_batch,
    graph_sizes,
    launch,
    moe_comm,
    piecewise,
)
from .weight_offload import weight_offload

ADP_BATCHING_DEFAULT = 10  # TensorRT-LLM AttentionDpConfig.batching_wait_iters default
UNLIMITED = 1 << 40  # tokens per step when the engine sets no budget (transformers)
# Requests in a run the scenario does not count: four rounds of every user (the first, all
# arriving together, weighs a quarter; benchmark suites often run ten, InferenceX 10 x the
# concurrency: state ``serving.requests`` to match one), vllm bench serve's default
# --num-prompts for a rate.
ROUNDS = 4
RATE_REQUESTS = 1000


def engine_costs(s: Scenario, gpu: GPUSpec, st: EngineSettings) -> EngineCosts:
    """What the engine adds to the kernels of a step on ``gpu``."""
    rel = st.release
    apple = gpu.vendor.lower() == "apple"
    sched = rel.scheduling if rel else None
    eager = rel is None  # no engine release: transformers, the model run op by op
    return EngineCosts(
        library=s.profile.kernels,
        layer_kernels="eager" if eager else s.profile.kernels,
        host=st.step.step,
        launch=0.0 if apple else launch(s, st),
        graphs=st.cuda_graphs and not apple,
        graph_batch=graph_batch(s, sched.graph_batch)
        if sched
        else UNLIMITED,  # transformers: a compiled static cache
        graph_prefill=sched.graph_prefill if sched else False,
        flash_attention=rel.flash_attention if rel and s.profile.kernels == "ggml" else True,
        fixed=st.step_latency_seconds,
        per_request=st.step.per_request_pipeline if s.parallelism.pipeline > 1 else st.step.per_request,
        piecewise=0.0 if apple else piecewise(s, st),
        serial_output=rel.vllm.serial_output if rel and s.serving.async_output is False else (0.0, 0.0),
        kernel_era=rel.kernel_era if rel else "",
        backend=ggml_backend(s, gpu),
        gdn_decode=rel.llama_cpp.gdn_decode if rel else "",
        lora_gather=bool(rel and rel.vllm.lora_gather_per_token),
        # experts over data-parallel ranks (an attention-DP rank's view): those ranks share
        # every MoE layer, and their graphs with it
        graph_ranks=s.parallelism.expert if sched and sched.graph_all_ranks and s.parallelism.data > 1 else 1,
        moe_comm=moe_comm(s, gpu, st),
        dp_padding=dp_padding(s, st),
        all_reduce=all_reduce(gpu, st),
        host_gpus=host_gpus(s.hardware.gpus_per_node),  # core/model/node.py: a tray in an NVL72
        graph_sizes=graph_sizes(s, gpu, st),
        moe_module=measured_moe_kernel(s, st.release, gpu),
        state_update=update_points(gpu.id, st.release, s.profile.kernels) if s.model.linear_attention else (),
    )


def _offload(s: Scenario, gpu: GPUSpec, em: EngineMemory, st: EngineSettings) -> Offload:
    host, experts = em.host_read_bytes, em.host_expert_bytes
    if s.serving.cpu_offload_gib and em.host_memory_bytes:  # vLLM / SGLang --cpu-offload-gb
        return weight_offload(gpu, float(em.host_memory_bytes))
    if not host and not experts:
        return Offload()
    p = s.parallelism
    # the routed experts in RAM count as the GPU's layers' weights (their share is apart)
    on_gpu = em.memory.weights * p.tensor * p.pipeline + experts
    link = gpu.hbm_bandwidth_gb_per_s if gpu.unified_memory else gpu.interconnect_gb_per_s
    share = on_gpu / (on_gpu + host)
    off = Offload(host, st.host_bandwidth, max(1.0, link * 1e9 * 0.7), share)
    return replace(off, expert_bytes=experts, expert_pick=em.expert_pick, expert_active=em.expert_active)


def _engine(s: Scenario, em: EngineMemory, st: EngineSettings) -> Engine:
    rel = st.release
    if rel is None:  # transformers: a static batch, whole prompts
        return Engine(UNLIMITED, False, False, st.concurrency, em.kv_capacity_tokens, 1, "static")
    chunked = rel.chunks_prefill(em.max_context or 0)
    if s.profile.kernels == "ggml":  # llama.cpp evaluates a batch in n_ubatch pieces
        chunked = True
    budget = st.prefill_chunk_tokens or st.profile_tokens or UNLIMITED  # TRT: max_num_tokens
    running = st.max_sequences or max(1, st.concurrency)
    each = _budgets(s, st)  # micro-batches in flight with a budget of their own
    if rel.scheduling.per_micro_batch:  # the running limit of each too
        running = running * each
    if em.state_cap:  # SGLang's Mamba state pool caps the engine's requests (sglang_mamba.py)
        running = min(running, em.state_cap)
    if not chunked:  # an unsplit prompt needs a budget of one prompt beside the decodes
        spread = 1 + (s.serving.length_spread or 0.0)  # (TRT: max_num_tokens >= max_input_len)
        budget = max(budget, int(s.workload.prompt_tokens * spread) + -(-running // each))
    budget = budget * each
    mixed = rel.scheduling.mixed or (chunked and rel.chunks_long_context_only)
    if s.serving.mixed_prefill is not None:
        mixed = s.serving.mixed_prefill
    return Engine(
        budget,
        chunked,
        mixed,
        running,
        em.kv_capacity_tokens,
        max(1, st.kv_block_tokens),
        rel.scheduling.admission,
        (
            st.step.front_end_for(s.serving.api_endpoint, s.workload.prompt_tokens)
            if s.serving.api_server is not False
            else 0.0
        ),
        rel.scheduling.cached_preemption,
        rel.scheduling.watermark * em.kv_capacity_tokens,
        *_batch_wait(s),
        s.serving.scheduler_recv_interval or 0,
        s.serving.attention_dp_balance_iterations or 0,
        s.parallelism.expert,  # a rank's view spreads the experts over its attention-DP ranks
        _adp_batching(s),
        s.serving.max_prefill_tokens or 0,
        rel.scheduling.overlap_skip,
    )


def _budgets(s: Scenario, st: EngineSettings) -> int:
    """Pipeline micro-batches in flight each filled to the engine's token budget: the stages
    where the release schedules every micro-batch with its own budget
    (``Scheduling.per_micro_batch`` / ``budget_per_micro_batch``), else 1."""
    stages, rel = s.parallelism.pipeline, st.release
    sched = rel.scheduling if rel else None
    if stages < 2 or sched is None or not (sched.per_micro_batch or sched.budget_per_micro_batch):
        return 1
    return stages


def _micro_batches(s: Scenario, st: EngineSettings, eng: Engine, costs: EngineCosts) -> EngineCosts:
    """``costs`` with the prompt tokens one pipeline micro-batch holds where the engine gives
    each its own budget (:func:`_budgets`), and whether waiting prompts fill the first one
    scheduled (vLLM V1's running limit spans the pipeline, so the next ``schedule()`` call takes
    every prompt waiting) or spread over them (TensorRT-LLM's limits hold per micro-batch, so
    each admits into the slots its own finished requests freed) (core/speed/step_pipeline.py)."""
    each = _budgets(s, st)
    if each < 2 or st.release is None:
        return costs
    fill = not st.release.scheduling.per_micro_batch
    return replace(costs, micro_batch_tokens=eng.budget / each, micro_batch_fill=fill)


def _adp_batching(s: Scenario) -> int:
    """TensorRT-LLM's ``attention_dp_config.batching_wait_iters`` (null: its default, 10:
    llm_args ``AttentionDpConfig``; core/serving/adp_balance.py)."""
    n = s.serving.attention_dp_batching_iterations
    return ADP_BATCHING_DEFAULT if n is None else n


def _batch_wait(s: Scenario) -> tuple[int, float]:
    """TensorRT-LLM's batch waiting as set (``serving.batch_wait_iterations``,
    ``batch_wait_tokens_ratio``; validated to TensorRT-LLM; core/serving/batch_wait.py). An
    attention-DP rank's view clears both: the executor skips it there
    (core/serving/attention_dp.py ``rank_view``)."""
    sv = s.serving
    return sv.batch_wait_iterations or 0, sv.batch_wait_tokens_ratio or 0.0


def _workload(s: Scenario, st: EngineSettings) -> Workload:
    w, sv = s.workload, s.serving
    load = sv.load or "steady"
    users = max(1, st.concurrency)
    default = {"steady": ROUNDS * users, "burst": users, "rate": RATE_REQUESTS}[load]
    requests = sv.requests or default
    if load == "burst":
        users = requests = min(users, requests)
    return Workload(
        w.prompt_tokens,
        w.generated_tokens,
        load,
        users,
        sv.request_rate or 1.0,
        requests,
        sv.load is None,
        sv.length_spread or 0.0,
    )


@dataclass(frozen=True)
class ServedLoad:
    """A scenario's step model, the engine's scheduling, the workload simulated and what it
    gave."""

    step: StepModel
    workload: Workload
    run: LoadResult
    engine: Engine
    note: str | None = None  # what the work budget changed (core/serving/budget.py)


_RUNS: Memo[ServedLoad] = Memo(512)
_SIMULATED: Memo[LoadResult] = Memo(1024)  # a run by its step model, engine, workload, budget


def serving_load(s: Scenario, gpu: GPUSpec, em: EngineMemory, st: EngineSettings) -> ServedLoad:
    """The simulated run of an inference scenario (kept per frozen scenario and GPU)."""

    def run() -> ServedLoad:
        eng, wl = _engine(s, em, st), _workload(s, st)
        costs = _micro_batches(s, st, eng, engine_costs(s, gpu, st))
        step = step_model(s, gpu, costs, _offload(s, gpu, em, st))
        step, eng, wl = featured_run(
            s, gpu, costs, step, eng, wl, em.kv_bytes_per_token
        )  # prefix, speculative (null: as is)
        if wl.alike:  # one user's requests are alike
            wl = Workload(wl.prompt, wl.output, wl.load, 1, wl.rate, 1, wl.time_boxed)
        ran, scale = bounded(wl)
        # scenarios that differ only outside the run (a P/D split's pool sizes, a plan's
        # counts) share its step model, engine and workload: one simulation (a pure function)
        key = (id(step), eng, ran.run_key, caps())
        result = _SIMULATED.get(key, lambda: simulate(step, eng, ran), (step,))
        note = budget_note(wl, ran, result, scale)
        seen = frontend_view(s, extrapolated(result, scale), wl)  # null frontend: as is
        return ServedLoad(step, wl, seen, eng, note)

    return _RUNS.get((id(s), id(gpu), caps()), run, (s, gpu))  # a sizing call's runs apart


def load_note(s: Scenario, gpu: GPUSpec, em: EngineMemory, st: EngineSettings) -> str:
    """The assumption behind the speed figures: the load and the step's fixed cost
    (core/serving/load_text.py words it)."""
    served = serving_load(s, gpu, em, st)
    return load_text(s, gpu, st, served.step, served.workload, served.run, served.note)
