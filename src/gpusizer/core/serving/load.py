"""The serving block's speed: a scenario's engine settings, KV pool and stated load turned into a
simulated run (core/serving/scheduler.py) of its step model (core/speed/step.py).

What comes from where:
- the step: the engine's kernel library (``FrameworkProfile.kernels``) on the GPU's
  architecture; the release's host cost per step and per eager kernel launch (``StepCost``),
  CUDA graphs as set (Apple GPUs have none); llama.cpp layers in system RAM read at the
  host's bandwidth (core/serving/offload.py);
- the scheduler: the release's ``Scheduling``; the token budget is ``prefill_chunk_tokens``
  (vLLM ``max_num_batched_tokens``, SGLang ``chunked_prefill_size``, TensorRT-LLM
  ``max_num_tokens``, llama.cpp ``n_ubatch``); the running limit ``max_sequences``; the pool
  the engine's KV capacity; transformers (no release) serves static batches;
- the load: ``serving.load``, ``concurrency``, ``request_rate``, ``requests``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..memo import Memo
from ..model.node import MNNVL_NODE, host_gpus
from ..model.presets import host_cpu
from ..model.result import EngineMemory
from ..model.specs import GPUSpec, Scenario
from ..registry.all_reduce import ENGINE_KERNEL, AllReduceRule
from ..speed.rates import Rates, power_capped, sixteen_bit_scale
from ..speed.rates_era import default_backend
from ..speed.roofline import peak_tflops
from ..speed.step import EngineCosts, Offload, StepModel
from ..speed.step_model import step_model
from .budget import bounded, budget_note, caps, extrapolated
from .engine_settings import EngineSettings
from .features import featured_run
from .moe_layout import measured_moe_kernel
from .scheduler import simulate
from .scheduler_types import Engine, LoadResult, Workload

ADP_BATCHING_DEFAULT = 10  # TensorRT-LLM AttentionDpConfig.batching_wait_iters default
UNLIMITED = 1 << 40  # tokens per step when the engine sets no budget (transformers)
# Requests in a run the scenario does not count: four rounds of every user (the first, all
# arriving together, weighs a quarter; benchmark suites often run ten, InferenceX 10 x the
# concurrency: state ``serving.requests`` to match one), vllm bench serve's default
# --num-prompts for a rate.
ROUNDS = 4
RATE_REQUESTS = 1000


def _backend(s: Scenario, gpu: GPUSpec) -> str:
    """llama.cpp's ggml backend: the scenario's, else the GPU vendor's own ("" for vendor kernels)."""
    if s.profile.kernels != "ggml":
        return ""
    return s.serving.ggml_backend or default_backend(gpu.vendor)


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
        launch=0.0 if apple else _launch(s, st),
        graphs=st.cuda_graphs and not apple,
        graph_batch=_graph_batch(s, sched.graph_batch)
        if sched
        else UNLIMITED,  # transformers: a compiled static cache
        graph_prefill=sched.graph_prefill if sched else False,
        flash_attention=rel.flash_attention if rel and s.profile.kernels == "ggml" else True,
        fixed=st.step_latency_seconds,
        per_request=st.step.per_request_pipeline if s.parallelism.pipeline > 1 else st.step.per_request,
        serial_output=rel.vllm.serial_output if rel and s.serving.async_output is False else (0.0, 0.0),
        kernel_era=rel.kernel_era if rel else "",
        backend=_backend(s, gpu),
        lora_gather=bool(rel and rel.vllm.lora_gather_per_token),
        # experts over data-parallel ranks (an attention-DP rank's view): those ranks share
        # every MoE layer, and their graphs with it
        graph_ranks=s.parallelism.expert if sched and sched.graph_all_ranks and s.parallelism.data > 1 else 1,
        moe_comm=_moe_comm(s, gpu, st),
        dp_padding=_dp_padding(s, st),
        all_reduce=_all_reduce(gpu, st),
        host_gpus=host_gpus(s.hardware.gpus_per_node),  # core/model/node.py: a tray in an NVL72
        graph_sizes=_graph_sizes(s, gpu, st),
        moe_module=measured_moe_kernel(s, st.release, gpu),
    )


def _graph_batch(s: Scenario, default: int) -> int:
    """The largest decode batch a CUDA graph covers: the largest of the sizes the scenario
    states (SGLang ``--cuda-graph-bs``: its CudaGraphRunner's ``max_bs`` is ``max(capture_bs)``
    and a batch up to it replays, padded; the LMSYS GB200 decode captured 1408, sglang issue
    10903), else the release's limit."""
    sizes = s.serving.cuda_graph_batch_sizes
    return max(sizes) if sizes else default


def _graph_sizes(s: Scenario, gpu: GPUSpec, st: EngineSettings) -> tuple[int, ...]:
    """The decode batch sizes captured as CUDA graphs with padding: the scenario's
    (``serving.cuda_graph_batch_sizes``), else the SGLang release's default list cut at its
    ``cuda_graph_max_bs`` for the GPU's memory and the TP size (core/registry/engine_knobs.py
    ``SGLangKnobs.graph_sizes``); empty (each batch replays at its own size) elsewhere."""
    if s.serving.cuda_graph_batch_sizes:
        return tuple(sorted(set(s.serving.cuda_graph_batch_sizes)))
    rel = st.release
    tier = rel.tier(gpu) if rel and rel.sglang else None
    if tier is None or not rel or not rel.sglang_knobs.decode_graphs:
        return ()
    wide = s.parallelism.tensor >= 4 and tier.graph_batch_wide
    return rel.sglang_knobs.graph_sizes(tier.graph_batch_wide if wide else tier.graph_batch)


def _launch(s: Scenario, st: EngineSettings) -> float:
    """Host seconds per kernel of a step not replayed from a graph: the engine's launch cost,
    PyTorch's per-op dispatch scaled by the host CPU's (core/registry/host_cpus.py: Grace issues
    an op 2.75x as slowly as the x86 hosts the costs were measured on)."""
    if not st.step.torch_launch:
        return st.step.launch
    return st.step.launch * host_cpu(s.hardware).op_dispatch


def _moe_comm(s: Scenario, gpu: GPUSpec, st: EngineSettings) -> str:
    """How the MoE layers move tokens between expert-parallel ranks: the release's pattern
    (``EngineRelease.moe_comm``: TensorRT-LLM 0.19-1.0 gathers every rank's quantised tokens and
    reduce-scatters the 16-bit outputs, over NVLink and PCIe alike), and the all-to-all in a
    multi-node NVLink domain (TensorRT-LLM's MNNVL path) or where the release states none.
    Inside an NVLink node the all-to-all once stood in for MoE time the model lacked; the
    engine's CUTLASS grouped GEMMs now run at their measured rates (core/speed/rates_trtllm_moe.py,
    docs/evidence/speed.md section 49), so its own traffic is priced there too."""
    rel = st.release
    if rel is None or s.hardware.gpus_per_node > MNNVL_NODE:
        return "all_to_all"
    return rel.moe_comm


def _all_reduce(gpu: GPUSpec, st: EngineSettings) -> AllReduceRule:
    """The release's all-reduce rule (core/registry/all_reduce.py) on NVIDIA GPUs. Elsewhere the
    engine's kernel is kept for every message: the fallback there is RCCL (or another vendor's
    library), whose protocol tuning core/speed/collectives.py does not have, and the AMD shares
    of core/speed/rates.py were measured with the step's all-reduce so priced. The kernel takes
    the release's measured times where they were timed on that GPU (vLLM's on 8 x MI355X,
    core/speed/allreduce_measured.py; the MI300X and MI325X have none, so their answers and
    the CDNA3 shares set on them stay as they were)."""
    if st.release is None:
        return ENGINE_KERNEL
    if gpu.vendor.lower() != "nvidia":
        return replace(ENGINE_KERNEL, measured=st.release.all_reduce.measured)
    return st.release.all_reduce


def _dp_padding(s: Scenario, st: EngineSettings) -> bool:
    """Whether the MoE layers of an attention-DP rank run on every rank's tokens padded to the
    busiest rank's count: TensorRT-LLM 0.19-0.21 pad "when x_sf in self.experts is not None"
    (the experts take FP4 activations with their scale factors; Deepseekv3MoE / Qwen3MoE
    ``forward``, PR #3439) and all-gather the padded rows, which the grouped GEMMs then compute;
    PR #6064 (July 2025, "Remove padding in attention DP") gathers each rank's own count."""
    rel, p = st.release, s.parallelism
    if rel is None or not rel.dp_padding:
        return False
    return p.data > 1 and p.expert > 1 and s.precision.weights == "nvfp4"


def _offload(s: Scenario, gpu: GPUSpec, em: EngineMemory, st: EngineSettings) -> Offload:
    host = em.host_read_bytes
    if not host:
        return Offload()
    p = s.parallelism
    on_gpu = em.memory.weights * p.tensor * p.pipeline
    link = gpu.hbm_bandwidth_gb_per_s if gpu.unified_memory else gpu.interconnect_gb_per_s
    return Offload(host, st.host_bandwidth, max(1.0, link * 1e9 * 0.7), on_gpu / (on_gpu + host))


def _engine(s: Scenario, em: EngineMemory, st: EngineSettings) -> Engine:
    rel = st.release
    if rel is None:  # transformers: a static batch, whole prompts
        return Engine(UNLIMITED, False, False, st.concurrency, em.kv_capacity_tokens, 1, "static")
    chunked = rel.chunks_prefill(em.max_context or 0)
    if s.profile.kernels == "ggml":  # llama.cpp evaluates a batch in n_ubatch pieces
        chunked = True
    budget = st.prefill_chunk_tokens or st.profile_tokens or UNLIMITED  # TRT: max_num_tokens
    running = st.max_sequences or max(1, st.concurrency)
    stages = s.parallelism.pipeline
    if rel.scheduling.per_micro_batch and stages > 1:  # limits of each micro-batch in flight
        budget, running = budget * stages, running * stages
    if not chunked:  # an unsplit prompt needs a budget of one prompt beside the decodes
        spread = 1 + (s.serving.length_spread or 0.0)  # (TRT: max_num_tokens >= max_input_len)
        budget = max(budget, int(s.workload.prompt_tokens * spread) + running)
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


def serving_load(s: Scenario, gpu: GPUSpec, em: EngineMemory, st: EngineSettings) -> ServedLoad:
    """The simulated run of an inference scenario (kept per frozen scenario and GPU)."""

    def run() -> ServedLoad:
        costs = engine_costs(s, gpu, st)
        step = step_model(s, gpu, costs, _offload(s, gpu, em, st))
        eng, wl = _engine(s, em, st), _workload(s, st)
        step, eng, wl = featured_run(
            s, gpu, costs, step, eng, wl, em.kv_bytes_per_token
        )  # prefix, speculative (null: as is)
        if wl.alike:  # one user's requests are alike
            wl = Workload(wl.prompt, wl.output, wl.load, 1, wl.rate, 1, wl.time_boxed)
        ran, scale = bounded(wl)
        result = simulate(step, eng, ran)
        note = budget_note(wl, ran, result, scale)
        return ServedLoad(step, wl, extrapolated(result, scale), eng, note)

    return _RUNS.get((id(s), id(gpu), caps()), run, (s, gpu))  # a sizing call's runs apart


def load_note(s: Scenario, gpu: GPUSpec, em: EngineMemory, st: EngineSettings) -> str:
    """The assumption behind the speed figures: the load and the step's fixed cost."""
    served = serving_load(s, gpu, em, st)
    step, wl, run = served.step, served.workload, served.run
    n = wl.users
    what = {
        "steady": f"a steady load of {n:,} user{'s' if n != 1 else ''}",
        "burst": f"a burst of {n:,} request{'s' if n != 1 else ''} at once",
        "rate": f"Poisson arrivals at {wl.rate:g} requests/s",
    }[wl.load]
    done = f"{run.completed:,} request{'s' if run.completed != 1 else ''} simulated"
    if wl.time_boxed and run.completed < wl.requests:
        done += " (the run stopped at its time box)"
    if served.note:
        done += f" ({served.note})"
    origin = "serving.step_latency_seconds" if st.step_latency_seconds is not None else "kernel floors + host"
    host = host_cpu(s.hardware)
    if st.step.torch_launch and host.op_dispatch != 1.0:  # the eager steps' ops, on this host
        origin += f"; eager ops issued by {host.short} at {host.op_dispatch:.2f}x an x86 host's time"
    r = step.rates
    balance = step.expert_balance if step.shape.ep > 1 else None  # as stated, not the router's skew
    return (
        f"speed for {what}, {done}; fixed cost per step {step.fixed * 1e3:.2f} ms ({origin}); "
        f"{s.profile.kernels} kernels reach {r.bandwidth:.0%} of the memory bandwidth, "
        f"{matmul_share(gpu, r, s.precision.activations)}"
        + ("" if s.serving.load else " (serving.load not set: steady)")
        + (f"; EP ranks at the stated balance {balance:g} (mean / busiest rank)" if balance else "")
        + (f"; MoE tokens exchanged by {step.a2a.backend.label} at its measured rates" if step.a2a else "")
        + (
            _nvlink_ll
            if step.a2a and step.a2a.backend.mode != "normal" and step.ep_link.kind == "nvlink"
            else ""
        )
        + ("; two-batch overlap (SGLang --enable-two-batch-overlap)" if step.tbo else "")
    )


# DeepEP's low-latency kernels inside one NVLink domain (core/registry/moe_a2a.py)
_nvlink_ll = " (its low-latency kernels over NVLink at the link's own rate: no NIC on the path)"


def matmul_share(gpu: GPUSpec, r: Rates, activations: str) -> str:
    """The 16-bit matmuls' achieved rate against the peak they run at: on a GeForce card whose
    library accumulates in FP16, the FP16-accumulate peak, twice the catalog's FP32-accumulate
    figure (``sixteen_bit_scale``); else the catalog's 16-bit peak, with board power's cap.
    Apple publishes FP32 TFLOPS only and the catalog's 16-bit figure is that rate, while M3 and
    later GPUs issue FP16, FP32 and integer instructions in parallel (Apple tech talk 111375
    "Explore GPU advancements in M3 and A17 Pro", 2023-11: "the high-performance ALUs execute
    different combinations of integer, FP32, and FP16 in parallel"), so llama.cpp's Metal GEMMs
    (half tiles, float accumulators) run above it: stated in TFLOPS there, not as a share above
    100 %. The rate is the step model's own; only the wording differs."""
    _, peak = peak_tflops(gpu, activations)
    if not peak:
        return "0% of the 16-bit peak"
    scale = sixteen_bit_scale(gpu, r)
    tflops = power_capped(peak * scale * r.matmul, gpu, r.watt_tflops)
    if scale != 1.0:
        return f"{tflops / (peak * scale):.0%} of the FP16-accumulate peak"
    if tflops <= peak:
        return f"{tflops / peak:.0%} of the 16-bit peak"
    why = "Apple states FP32 only; M3 and later issue FP16 and FP32 in parallel" if _apple(gpu) else ""
    return f"{tflops:.1f} TFLOPS of 16-bit matmuls, above the catalog's {peak:g} TFLOPS peak" + (
        f" ({why})" if why else ""
    )


def _apple(gpu: GPUSpec) -> bool:
    return gpu.vendor.lower() == "apple"
