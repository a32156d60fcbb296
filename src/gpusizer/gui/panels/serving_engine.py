"""The Serving panel's engine switches that apply to some engines only (docs/scenario-format.md):
the batch sizes CUDA graphs are captured for with padding (``serving.cuda_graph_batch_sizes``,
TensorRT-LLM ``cuda_graph_config``) and vLLM V0's asynchronous output processing
(``serving.async_output``). Each is enabled where the engine as set runs it; a field holding a
value stays enabled elsewhere, so the error the core gives for it can be fixed where it shows.
The expert-parallel ranks' stated balance (``serving.expert_balance``), the redundant expert
replicas they hold (``serving.redundant_experts``) and the MoE token exchange
(``serving.moe_a2a_backend``, its choices the registry's: core/registry/moe_a2a.py; the tokens a
rank its low-latency buffer holds, ``serving.moe_a2a_dispatch_tokens``) and SGLang's
two-batch overlap beside it (``serving.two_batch_overlap``) show where a MoE model's experts
span more than one rank (or a value is held). vLLM's attention backend
(``serving.attention_backend``), its MoE kernel for a MoE model (``serving.moe_backend``, the
registry's: core/registry/moe_backends.py) and the serving framework in front of it (``serving.frontend``,
its choices the registry's: core/registry/serving_frontends.py) show for an engine with vLLM
releases (or a value held). Whether SGLang's Triton MoE ran its default tiles, without a tuned config
file for the GPU and expert shape (``serving.moe_default_config``, core/speed/sglang_moe_tiles.py),
shows for an engine with SGLang releases and a MoE model (or a value held)."""

from __future__ import annotations

from ...core.registry.engine_knobs import NO_VLLM
from ...core.registry.engines import EngineRelease, release
from ...core.registry.frameworks import FrameworkProfile
from ...core.registry.moe_a2a import MOE_A2A_BACKENDS
from ...core.registry.moe_backends import MOE_BACKENDS
from ...core.registry.serving_frontends import SERVING_FRONTENDS
from ..quantity_field import QuantityField
from ..size_list_field import SizeListField
from ..state import ScenarioState, get_path
from ..widgets import Form, combo
from .moe_kernel_items import refresh_moe_kernels

SIZES = "serving.cuda_graph_batch_sizes"
ASYNC = "serving.async_output"
BALANCE = "serving.expert_balance"
REDUNDANT = "serving.redundant_experts"
ROUTING = "serving.routing_simulation"
A2A = "serving.moe_a2a_backend"
TBO = "serving.two_batch_overlap"
DISPATCH = "serving.moe_a2a_dispatch_tokens"
ATTENTION = "serving.attention_backend"
MOE_BACKEND = "serving.moe_backend"
FRONTEND = "serving.frontend"
TILES = "serving.moe_default_config"

ENGINE_TIPS = {
    SIZES: "Batch sizes the engine captures CUDA graphs for, with padding on: a decode step runs "
    "the smallest size that holds its batch (the added rows cost every row's work but hold no "
    "cache) and a batch above the largest runs eager (TensorRT-LLM cuda_graph_config batch_sizes "
    "with enable_padding, as trtllm-bench runs it; model_engine.py _round_up_batch_size). Whole "
    "numbers separated by commas, e.g. 1, 2, 4, 8, 16; blank: every batch replays at its own "
    "size. Needs CUDA graphs on.",
    ASYNC: "vLLM V0 (0.6.4-0.7.x) processes each step's outputs while the next step runs. Off is "
    "--disable-async-output-proc: every step waits for the last one's output processing, "
    "0.1 ms + 0.1 ms a sequence sampled (vLLM RFC #6913: 0.2 ms at one sequence, 3.4 ms at 32). "
    "V1 (0.8.0 on) processes outputs in its own process: choose a V0 engine version to set it.",
    BALANCE: "The expert-parallel ranks' load balance your deployment measures: the mean rank's "
    "routed tokens over the busiest rank's (SGLang's and DeepSeek EPLB's balancedness; e.g. 0.7 "
    "for 'a >70% load balance ratio'). A MoE layer waits for its busiest rank. Default: the "
    "router's own skew, with no expert load balancer.",
    ROUTING: "How the run's tokens pick their experts: the router's own (a trained model's skew) or "
    "uniformly at random, as a benchmark with dummy weights runs them (vLLM "
    "VLLM_MOE_ROUTING_SIMULATION_STRATEGY=uniform_random): more experts read a decode step, the "
    "expert-parallel ranks loaded alike but for chance. Default: the router's own.",
    REDUNDANT: "Extra expert replicas an EPLB deployment adds (SGLang --ep-num-redundant-experts, "
    "vLLM --num-redundant-experts): the expert-parallel ranks hold the routed experts plus these, "
    "the same count on each (e.g. 32: DeepSeek's 256 experts as 288 over 72 GPUs, 4 a GPU). "
    "Each replica costs a GPU its weights. Default: none.",
    A2A: "How the MoE layers move tokens between expert-parallel ranks (SGLang --moe-a2a-backend "
    "deepep --deepep-mode, vLLM --all2all-backend). DeepEP normal: FP8 tokens sent once per "
    "destination node and forwarded over NVLink; low-latency: a copy per expert over RDMA; auto "
    "(SGLang): normal for steps with prompt tokens, else low-latency. Rates from DeepEP's README "
    "(H800, 400 Gb/s NICs). Default: 16-bit tokens, a copy per expert, at the link's rate.",
    DISPATCH: "The tokens a rank DeepEP's low-latency kernels are sized for (SGLang "
    "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK, vLLM VLLM_MOE_DP_CHUNK_SIZE): the "
    "low-latency buffer each GPU holds grows with it (288 experts, hidden 7,168: 2 GiB at 128, "
    "16 GiB at 1,024). Default: the engine's (SGLang 128, vLLM 256).",
    ATTENTION: "vLLM's attention backend as your deployment runs it (--attention-backend, "
    "VLLM_ATTENTION_BACKEND). A ROCm build before 0.19 without AITER (VLLM_ROCM_USE_AITER unset) runs "
    "TRITON_ATTN: on MI300X / MI325X its decode walks each sequence's context a tile at a time, "
    "at least 1.65 ns a context token a layer for Qwen3-235B's FP8 cache at TP 8, flat in the batch "
    "(measured on MI325X); its prompts run at the kernel's measured prefill rate (320 TFLOP/s at "
    "128-dim heads, 160 at 256). Default: the attention's bytes and FLOPs.",
    MOE_BACKEND: "The MoE experts' kernel; the list offers what the engine takes on this GPU. "
    "vLLM: its kernel for BF16 experts (--moe-backend). Triton is timed where "
    "aiconfigurator measured it (Hopper; SM100 at the default config); FlashInfer's TRT-LLM and "
    "CUTLASS MoE are priced by the grouped-GEMM rates (no measured table). Default: the "
    "release's per GPU family: Triton, but FlashInfer CUTLASS on Hopper in 0.20-0.22 and "
    "FlashInfer TRT-LLM on B200 / GB200 from 0.20. AITER (ROCm; SGLang's SGLANG_USE_AITER=1, the "
    "one value SGLang takes): block-FP8 experts at AITER's own measured times where its tables "
    "hold the shape (MI355X; DeepSeek-V3/R1 at TP 8 on MI300X / MI325X).",
    FRONTEND: "The serving framework in front of the engine's OpenAI server. Ray Serve LLM "
    "(ray.serve.llm build_openai_app / build_pd_openai_app, Ray before PR 64534, 2026-07): its "
    "proxy, ingress and replica hops (9.4 ms measured) and its stream batcher, which sends a "
    "streamed first token at its next 50 ms tick, add to each first token. Default: the engine's "
    "own server.",
    TBO: "SGLang --enable-two-batch-overlap: the MoE layers run as two micro-batches, each one's "
    "DeepEP dispatch and combine beside the other's computation; each micro-batch launches the "
    "layers' kernels and reads their weights again, so small batches can run slower. Needs a "
    "DeepEP MoE exchange. Default: off.",
    TILES: "SGLang's Triton fused MoE without a tuned config file for this GPU and expert shape: "
    "the server logs 'Using default MoE kernel config. Performance might be sub-optimal!' and runs "
    "get_default_config's tiles (16-bit experts: BLOCK_SIZE_M 16, BLOCK_SIZE_N 32 up to as many "
    "tokens as experts, 64 / 64 above). Priced for 16-bit experts on a Hopper GPU without expert "
    "parallelism, where narrow expert slices make the second GEMM's many short tiles bound the call "
    "(Qwen3-Next's 512 experts at TP 2-8). Default: a tuned file, priced at its tiles where the "
    "tool holds it, else as before.",
}
# item data is the scenario's value; None is "engine default" (the binder selects it for null)
_ASYNC_ITEMS = (
    ("engine default (on)", None),
    ("on", True),
    ("off (--disable-async-output-proc)", False),
)

_TBO_ITEMS = (
    ("engine default (off)", None),
    ("on (--enable-two-batch-overlap)", True),
    ("off", False),
)

_TILES_ITEMS = (
    ("engine default (tuned file)", None),
    ("default tiles (no tuned file)", True),
    ("tuned file", False),
)

_ROUTING_ITEMS = (("router's own", None), ("uniform at random (simulated)", "uniform_random"))

_ATTENTION_ITEMS = (("engine default (bytes and FLOPs)", None), ("Triton (TRITON_ATTN)", "TRITON_ATTN"))

_MOE_BACKEND_ITEMS = (
    ("release default", None),
    *((b.label, b.id) for b in MOE_BACKENDS.values()),
)

_FRONTEND_ITEMS = (
    ("engine's own server", None),
    *((f.label, f.id) for f in SERVING_FRONTENDS.values()),
)

_A2A_ITEMS = (
    ("engine default (all-to-all)", None),
    *((b.label, b.id) for b in MOE_A2A_BACKENDS.values()),
)


def add_engine_rows(f: Form) -> None:
    """Add the rows (after the CUDA graphs row, where a user looks for them)."""
    f.add("CUDA graph sizes", SizeListField(), SIZES, name="edit_serving_cuda_graph_batch_sizes")
    f.add(
        "Async output",
        combo(_ASYNC_ITEMS),
        ASYNC,
        name="combo_serving_async_output",
    )
    balance = QuantityField("number", BALANCE, step=0.05, none_text="router's own")
    f.add("EP balance", balance, BALANCE, name="spin_serving_expert_balance")
    f.add("Expert routing", combo(_ROUTING_ITEMS), ROUTING, name="combo_serving_routing_simulation")
    f.add("Attention backend", combo(_ATTENTION_ITEMS), ATTENTION, name="combo_serving_attention_backend")
    f.add("MoE kernel", combo(_MOE_BACKEND_ITEMS), MOE_BACKEND, name="combo_serving_moe_backend")
    f.add("Serving frontend", combo(_FRONTEND_ITEMS), FRONTEND, name="combo_serving_frontend")
    spare = QuantityField("count", REDUNDANT, none_text="none")
    f.add("Redundant experts", spare, REDUNDANT, name="spin_serving_redundant_experts")
    f.add("MoE exchange", combo(_A2A_ITEMS), A2A, name="combo_serving_moe_a2a_backend")
    tokens = QuantityField("count", DISPATCH, none_text="engine default")
    f.add("DeepEP tokens a rank", tokens, DISPATCH, name="spin_serving_moe_a2a_dispatch_tokens")
    f.add("Two-batch overlap", combo(_TBO_ITEMS), TBO, name="combo_serving_two_batch_overlap")
    f.add("MoE tile config", combo(_TILES_ITEMS), TILES, name="combo_serving_moe_default_config")


def _release(state: ScenarioState, profile: FrameworkProfile) -> EngineRelease | None:
    """The release whose rules apply (None: the engine has none, or the version is refused)."""
    if not profile.releases:
        return None
    try:
        return release(profile.releases, state.value("serving.engine_version"))
    except (KeyError, TypeError):  # an unknown version: its own error shows at its field
        return None


def refresh_engine_rows(f: Form, state: ScenarioState, profile: FrameworkProfile) -> None:
    """Enable each row where it applies: the sizes where decode steps replay CUDA graphs
    (``serving.cuda_graphs``, null: the release's default; core/serving/engine_settings.py),
    async output on the releases that run vLLM's V0 engine (``VLLMKnobs.serial_output``), shown
    for an engine with such a release (vLLM): by the releases' property, not the engine's id."""
    rel = _release(state, profile)
    graphs = state.value("serving.cuda_graphs")
    if graphs is None:
        graphs = rel.cuda_graphs if rel is not None else False
    f.enable(SIZES, bool(graphs) or state.value(SIZES) is not None)
    v0 = rel is not None and rel.vllm.serial_output[1] > 0
    held = state.value(ASYNC) is not None
    f.show(ASYNC, any(r.vllm.serial_output[1] > 0 for r in profile.releases) or held)
    f.enable(ASYNC, v0 or held)
    spans = any(int(state.value(f"parallelism.{k}") or 1) > 1 for k in ("expert", "attention_data"))
    moe = get_path(state.value("model"), "moe") is not None
    f.show(BALANCE, (moe and spans) or state.value(BALANCE) is not None)
    f.show(REDUNDANT, (moe and spans) or state.value(REDUNDANT) is not None)
    f.show(ROUTING, moe or state.value(ROUTING) is not None)  # the experts read, on one GPU too
    vllm = any(r.vllm != NO_VLLM for r in profile.releases)
    f.show(ATTENTION, vllm or state.value(ATTENTION) is not None)
    f.show(FRONTEND, vllm or state.value(FRONTEND) is not None)  # measured behind vLLM
    # SGLang states one of them, AITER's (SGLANG_USE_AITER=1: core/registry/moe_backends.py)
    sglang = any(r.sglang is not None for r in profile.releases)
    f.show(MOE_BACKEND, ((vllm or sglang) and moe) or state.value(MOE_BACKEND) is not None)
    f.show(TILES, (sglang and moe) or state.value(TILES) is not None)  # SGLang's Triton MoE only
    refresh_moe_kernels(f, state, profile)  # the backends this engine takes on this GPU
    f.show(A2A, (moe and spans) or state.value(A2A) is not None)
    low_latency = state.value(A2A) in ("deepep_low_latency", "deepep_auto")
    f.show(DISPATCH, (moe and spans and low_latency) or state.value(DISPATCH) is not None)
    f.show(TBO, (moe and spans) or state.value(TBO) is not None)
