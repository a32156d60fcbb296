"""What a serving step is given besides the model's shape (core/speed/step.py): the engine's
costs around the GPU's kernels (core/registry/engines.py ``StepCost``, the release's rules), the
achieved rate of each operation kind (core/speed/step_rates.py ``op_rate``) and the layers kept in
system RAM."""

from __future__ import annotations

from dataclasses import dataclass

from ..registry.all_reduce import ENGINE_KERNEL, AllReduceRule


@dataclass(frozen=True)
class EngineCosts:
    """What the engine adds to the GPU's kernels (core/registry/engines.py ``StepCost``)."""

    library: str  # "ggml" | "mlx" | "vendor" (core/speed/rates.py)
    layer_kernels: str  # how kernels are counted: "ggml", "vendor" (fused) or "eager" (transformers)
    host: float  # seconds per step the GPU waits for
    launch: float  # seconds per kernel launch of a step not replayed from a CUDA graph
    graphs: bool  # decode steps replay a CUDA graph
    graph_batch: int  # largest batch a graph covers (llama.cpp: 1)
    graph_prefill: bool  # steps with prefill tokens replay graphs too (vLLM V1 piecewise)
    flash_attention: bool
    fixed: float | None = None  # serving.step_latency_seconds: replaces floors + host
    per_request: float = 0.0  # host seconds per request of a step, beside the GPU's kernels
    # seconds a replayed step adds per layer: PIECEWISE graphs, each layer's attention issued
    # between the captured pieces (core/registry/engine_steps.py ``StepCost.piecewise_layer``)
    piecewise: float = 0.0
    # host seconds a step the GPU waits for after its kernels, fixed and per sequence sampled
    # (vLLM V0's output processing with async output off: VLLMKnobs.serial_output)
    serial_output: tuple[float, float] = (0.0, 0.0)
    kernel_era: str = ""  # the build's kernels where they have rates of their own (rates_era.py)
    backend: str = ""  # llama.cpp's ggml backend (serving.ggml_backend; rates_era.py)
    gdn_decode: str = ""  # the build's Gated DeltaNet decode path (LlamaCppKnobs; ggml_gdn.py)
    lora_gather: bool = False  # LoRA kernels load adapter weights per token (vLLM V0; lora_serving.py)
    graph_ranks: int = 1  # ranks whose steps must all be generation-only for a graph (Scheduling)
    # how the MoE layers move tokens between expert-parallel ranks (EngineRelease.moe_comm):
    # "all_to_all" dispatch and combine, or "gather": every rank's tokens all-gathered in the
    # experts' input format and the 16-bit outputs reduce-scattered
    moe_comm: str = "all_to_all"
    # every rank's MoE tokens padded to the busiest rank's count (EngineRelease.dp_padding)
    dp_padding: bool = False
    # where the TP all-reduce runs the engine's own kernel, else NCCL (EngineRelease.all_reduce),
    # and the GPUs of one host (the custom kernels need the group inside one)
    all_reduce: AllReduceRule = ENGINE_KERNEL
    host_gpus: int = 8
    # the batch sizes captured with padding (serving.cuda_graph_batch_sizes, ascending; empty:
    # each batch replays at its own size): :meth:`StepModel.graph_rows`
    graph_sizes: tuple[int, ...] = ()
    # the routed experts' outputs written unreduced, top-k rows a token, and summed by a kernel of
    # their own that reads them back (vLLM's Triton and Marlin MoE: core/speed/step_moe.py)
    moe_topk_sum: bool = False
    # the second expert GEMM bound by its grid of short tiles at narrow expert slices (vLLM's
    # Triton fused MoE, 16-bit experts: core/speed/triton_moe.py)
    moe_w2_grid: bool = False
    # the share of the family's grouped rate that kernel streams the experts at
    # (core/speed/triton_moe.py ``stream_share``: datacentre Blackwell's below Hopper's); 1: as rated
    moe_stream_share: float = 1.0
    # the w2 grid's tiles by the call's tokens where SGLang's Triton MoE config is known, rows of
    # (tokens, BLOCK_SIZE_M, BLOCK_SIZE_N) (core/speed/sglang_moe_tiles.py); (): vLLM's default tiles
    moe_w2_tiles: tuple[tuple[int, int, int], ...] = ()

    # the MoE module's measured kernel where the release runs the experts through it
    # (core/speed/moe_measured.py: vLLM's OpenAI Triton MXFP4 MoE on Hopper); "" none
    moe_module: str = ""
    # the Gated DeltaNet decode update kernel's measured times where the release runs it on
    # this GPU (core/speed/recurrent_update.py); empty: the state's bytes at the achieved rate
    state_update: tuple[tuple[float, float], ...] = ()
    # under pipeline parallelism, the prompt tokens one micro-batch (one scheduler call) holds
    # where the engine gives each its own budget (core/speed/step_pipeline.py; 0: not known), and
    # whether waiting prompts fill the first micro-batch scheduled before the next gets any
    micro_batch_tokens: float = 0.0
    micro_batch_fill: bool = False


@dataclass(frozen=True)
class Rate:
    """Achieved FLOP/s of each operation kind and bytes/s (after the rates table)."""

    mm: float  # the projections and MLP in the weights' format
    head: float
    attention: float
    bandwidth: float
    vector: float = 0.0  # 32-bit vector instructions/s (core/speed/mx_upcast.py)
    mm16: float = 0.0  # 16-bit GEMMs at the large-GEMM share (MXFP4 upcast to BF16)


@dataclass(frozen=True)
class Offload:
    """Layers kept in system RAM (llama.cpp ``-ngl`` below all): ``host_bytes`` read per
    decode step at ``host_bandwidth``; a prefill step (32 tokens or more: ggml-cuda runs a CPU
    layer's large matmuls on the GPU) sends them over ``link_bandwidth``; ``gpu_share`` of the
    weights stays on the GPU. ``expert_bytes``: routed experts of GPU layers kept in RAM
    (llama.cpp ``--n-cpu-moe``, core/serving/cpu_moe.py): a decode step reads the share its
    tokens route to (``expert_pick`` = k/E each) at ``host_bandwidth`` and the GPU skips
    ``expert_active`` of its weight reads; a prefill step copies the routed ones over the link."""

    host_bytes: float = 0.0
    host_bandwidth: float = 1.0
    link_bandwidth: float = 1.0
    gpu_share: float = 1.0
    expert_bytes: float = 0.0
    expert_pick: float = 0.0
    expert_active: float = 0.0


NO_OFFLOAD = Offload()
