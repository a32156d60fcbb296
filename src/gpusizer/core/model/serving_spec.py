"""The scenario's ``serving`` block (contract: docs/scenario-format.md "serving"): how the
serving engine is run; ``null`` = the engine's default for the GPU and release
(core/serving/engine_settings.py, core/registry/engines.py)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, SerializerFunctionWrapHandler, field_validator, model_serializer

from ..errors import check_id, excerpt
from ..limits import MAX_RATE, MIN_RATE, Batch, Efficiency, Rate, SomeLayers, Strict, Tokens, Whole
from ..registry.engine_names import ZERO_CONTEXT, attention_backend_hint
from ..registry.moe_a2a import MOE_A2A_BACKENDS, backend_id
from ..registry.moe_backends import MOE_BACKENDS
from ..registry.serving_frontends import SERVING_FRONTENDS
from .serving_features import DisaggregatedSpec, KvOffloadSpec, LoraServingSpec, PrefixSpec, SpeculativeSpec

MAX_STEP_SECONDS = 3600.0  # an hour per engine step: far beyond any real engine
# Requests in one simulated run: 10x the largest published benchmark run (trtllm-bench 30,000)
MAX_REQUESTS = 300_000


class ServingSpec(Strict):
    """How the serving engine is run (null: the engine's default for the scenario's GPU and
    version; core/registry/engines.py). Names follow the contract, the engines' own names beside;
    bounds as every scenario value's (core/limits.py)."""

    # vLLM gpu_memory_utilization, SGLang mem_fraction_static, TRT free_gpu_memory_fraction;
    # at least 0.1 % (MIN_EFFICIENCY): the engine's budget is divided by it (1e-300 overflowed)
    memory_fraction: Efficiency | None = None
    max_context: Tokens | None = None  # vLLM max_model_len; llama.cpp n_ctx per sequence
    # Additive: the engine's switch for a max_context past the model's length (vLLM
    # VLLM_ALLOW_LONG_MAX_MODEL_LEN=1; core/serving/context_limit.py). Null / false: refused.
    allow_long_context: bool | None = None
    max_sequences: Batch | None = None  # vLLM max_num_seqs; llama.cpp n_parallel
    prefill_chunk_tokens: Tokens | None = None  # vLLM max_num_batched_tokens
    kv_block_tokens: Tokens | None = None  # vLLM block_size, SGLang page_size
    cuda_graphs: bool | None = None  # False: vLLM --enforce-eager
    # Additive: the batch sizes the engine captures CUDA graphs for, padding on: a
    # generation-only step runs at the smallest of them that holds its batch, a batch above the
    # largest eager (TensorRT-LLM ``cuda_graph_config`` ``batch_sizes`` + ``enable_padding``,
    # "batches are rounded up to the nearest cuda_graph_batch_size"; core/speed/step.py).
    # Null: every batch up to the engine's graph limit replays at its own size.
    cuda_graph_batch_sizes: tuple[Batch, ...] | None = Field(None, strict=False, min_length=1, max_length=64)
    gpu_layers: SomeLayers | None = None  # llama.cpp -ngl (null: as many as fit)
    # Additive: llama.cpp --n-cpu-moe N, the first N layers' routed experts kept in host RAM;
    # "all": --cpu-moe / -ot exps=CPU (core/serving/cpu_moe.py). Null: none.
    cpu_moe_layers: SomeLayers | Literal["all"] | None = None
    # Additive: vLLM / SGLang --cpu-offload-gb, GiB of weights each GPU keeps in pinned host
    # memory and reads over its host link every forward (core/serving/weight_offload.py).
    # Null / 0: none.
    cpu_offload_gib: Annotated[float, Field(ge=0.0, le=1e6)] | None = None
    concurrency: Batch | None = None  # users served at once (null: workload.batch_size)
    # Additive: the engine release whose defaults apply (null: the current one), the fixed
    # cost of a step (null: the engine's per GPU class), host RAM bandwidth (offloaded layers).
    engine_version: Annotated[str, Field(max_length=40)] | None = None  # as engines print it
    step_latency_seconds: Annotated[float, Field(ge=0.0, le=MAX_STEP_SECONDS)] | None = None
    host_bandwidth_gb_per_s: Rate | None = None
    # Additive: the load the speed figures are for (core/serving/scheduler.py):
    # "steady" (null: steady, time-boxed) ``concurrency`` users sending a request when the
    # last ends; "burst" ``concurrency`` requests at once; "rate" Poisson arrivals at
    # ``request_rate`` requests/s. ``requests``: requests in the run (null: steady 4 x
    # concurrency, burst the concurrency, rate 1,000). ``flashinfer_sampler``: vLLM runs
    # FlashInfer's top-k/top-p sampler (startup log "Using FlashInfer for top-p & top-k
    # sampling."; null: the release's default, core/registry/engines.py
    # ``flashinfer_sampler_default``). ``mixed_prefill``:
    # prompt chunks share steps with decodes (vLLM V1, TensorRT-LLM, llama.cpp's server) or
    # run alone first (SGLang without --enable-mixed-chunk, vLLM V0, llama-batched-bench);
    # null: the engine's. ``length_spread``: requests' prompt and output lengths vary by +-
    # this share around the workload's (one even step per user, 5 to 64, in turn; null: 0).
    load: Literal["steady", "burst", "rate"] | None = None
    # at least MIN_RATE (one request in 11.6 days): 5e-324 overflowed a gap to inf, 1e-300 lost
    # every step in the clock's rounding (0 ms first token, a 301-digit cost)
    request_rate: Annotated[float, Field(ge=MIN_RATE, le=MAX_RATE)] | None = None
    requests: Annotated[int, Field(ge=1, le=MAX_REQUESTS)] | None = None
    flashinfer_sampler: bool | None = None
    mixed_prefill: bool | None = None
    length_spread: Annotated[float, Field(ge=0.0, le=0.9)] | None = None
    # Additive: requests come through the engine's HTTP API server (``vllm serve``,
    # SGLang's server, ``trtllm-serve``), whose per-request cost (chat template, tokenising,
    # handing the request to the scheduler, streaming the first token back) users see in TTFT;
    # false for in-process offline runs (vLLM's ``LLM`` class and benchmark_latency /
    # benchmark_throughput, trtllm-bench, llama-bench). Null: true.
    api_server: bool | None = None
    # Additive: the API route the requests take: "chat" (/v1/chat/completions: the server
    # renders the chat template before tokenising) or "completions" (/v1/completions: the
    # prompt as sent); each engine's cost per request as published for that route
    # (core/registry/engines.py StepCost.front_end, front_end_completions). Null: "chat".
    api_endpoint: Literal["chat", "completions"] | None = None
    # Additive: the serving framework in front of the engine's API layer, an id of
    # core/registry/serving_frontends.py ("ray_serve_llm": Ray Serve LLM's actor hops and its
    # stream batcher's first tick in the first token). Null: the engine's own server, as before.
    frontend: str | None = None
    # Additive: vLLM V0 processes each step's outputs while the next step runs (0.6.0 on);
    # false: ``--disable-async-output-proc``, every step then waits for the last one's
    # (core/registry/engine_releases.py V0_SERIAL_OUTPUT). V0 releases only (0.6.4-0.7.x).
    # Null: true.
    async_output: bool | None = None
    # Additive: llama.cpp's ggml backend (its build: ggml-cuda, the HIP build for
    # ROCm, Vulkan, Metal, SYCL), whose kernels reach their own shares of the GPU
    # (core/speed/rates_era.py); null: the GPU vendor's own (NVIDIA cuda, AMD rocm, Apple
    # metal, Intel sycl, others vulkan). "cpu" is refused: set gpu_layers 0 for a CPU-only run.
    ggml_backend: Literal["cuda", "rocm", "vulkan", "metal", "sycl", "cpu"] | None = None
    # Additive: each sequence's KV cache keeps at most this many tokens, the oldest dropped
    # (mlx-lm --max-kv-size: RotatingKVCache; core/memory/kv_cap.py); null: the whole context
    max_kv_size: Tokens | None = None
    # Additive: TensorRT-LLM's batch waiting (PyTorch backend; ``batch_wait_timeout_iters``,
    # ``batch_wait_max_tokens_ratio``): while decodes run, waiting prompts are held until the
    # step's tokens reach the ratio x ``max_num_tokens`` or this many steps have held them
    # (``PyExecutor._waiting_requests``; off under attention DP). Null / 0: off, the default.
    batch_wait_iterations: Annotated[int, Field(ge=0, le=100_000)] | None = None
    batch_wait_tokens_ratio: Annotated[float, Field(ge=0.0, le=1.0)] | None = None
    # Additive: SGLang's ``--scheduler-recv-interval``: while decoding, the scheduler takes new
    # requests in every this many decode steps (core/serving/recv_poll.py). Null / 1: every step.
    scheduler_recv_interval: Annotated[int, Field(ge=1, le=100_000)] | None = None
    # Additive: SGLang's ``--max-prefill-tokens``: a step takes a waiting prompt only while its
    # tokens are below what is left of this (the step's first always; less one per running
    # decode with mixed prefill): core/serving/prefill_cap.py. Null: the engine's 16,384, which
    # the chunk binds first (as before).
    max_prefill_tokens: Annotated[int, Field(ge=1, le=10_000_000)] | None = None
    # Additive: TensorRT-LLM's attention-DP balance (``attention_dp_config`` with
    # ``enable_balance: true``, this ``timeout_iters``): a rank's
    # prompts wait until every rank holds one or this many steps (core/serving/adp_balance.py).
    # Null / 0: off, the engine's default. Needs parallelism.attention_data above 1.
    attention_dp_balance_iterations: Annotated[int, Field(ge=0, le=100_000)] | None = None
    # Additive: its ``batching_wait_iters``: once every rank holds a prompt, decodes running,
    # this many steps more (null: the engine's default, 10). Only with the balance on.
    attention_dp_batching_iterations: Annotated[int, Field(ge=0, le=100_000)] | None = None
    # Additive: the expert-parallel ranks' load balance the deployment states: the mean rank's
    # routed tokens over the busiest rank's (SGLang's and DeepSeek EPLB's "balancedness"; a MoE
    # layer waits for the busiest rank). Null: the router's own skew (core/speed/expert_load.py).
    # Read only where the experts span more than one rank (core/speed/step_moe.py).
    expert_balance: Annotated[float, Field(gt=0.0, le=1.0)] | None = None
    # Additive: the run's tokens routed to experts uniformly at random instead of by the router
    # (vLLM ``VLLM_MOE_ROUTING_SIMULATION_STRATEGY=uniform_random``, its "Simulating Balanced
    # Routing" benchmark setting). Null: the router's own skew (core/speed/expert_reads.py).
    routing_simulation: Literal["uniform_random"] | None = None
    # Additive: vLLM's attention backend as the deployment ran it (``--attention-backend``,
    # ``VLLM_ATTENTION_BACKEND``; a ROCm V1 build before 0.19 without AITER runs "TRITON_ATTN").
    # "TRITON_ATTN": its decode walks each sequence's context at the measured floor where one is
    # measured (CDNA3, core/speed/decode_walk.py), its prefill at the kernel's measured gfx942 rate
    # (core/speed/triton_prefill.py). Null: the attention's bytes and FLOPs, as before.
    # Any other of vLLM's or SGLang's GPU backend names (core/registry/attention_backends.py,
    # each engine its own: pipeline/validate_serving.py) is priced as null, the assumptions say so.
    attention_backend: str | None = None
    # Additive: redundant expert replicas an expert-parallel deployment adds (SGLang
    # --ep-num-redundant-experts, vLLM --num-redundant-experts with EPLB): the EP ranks hold the
    # routed experts plus these, evenly (core/model/redundant.py). Null / 0: none, as before.
    redundant_experts: Annotated[int, Whole, Field(ge=0, le=65_536)] | None = None

    # Additive: the MoE token exchange between expert-parallel ranks (SGLang
    # ``--moe-a2a-backend deepep --deepep-mode``, vLLM ``--all2all-backend``): an id of
    # core/registry/moe_a2a.py ("none", "deepep_normal", "deepep_low_latency", "deepep_auto").
    # Null / "none": each token's 16-bit state once per routed expert, as before.
    moe_a2a_backend: str | None = None
    # Additive: vLLM's ``--moe-backend`` for BF16 experts, an id of core/registry/moe_backends.py
    # ("triton", "flashinfer_trtllm", "flashinfer_cutlass"): Triton reads the measured module
    # (core/speed/moe_measured_lanes.py), FlashInfer's kernels the grouped-GEMM rates. Null: the
    # release's default per GPU family (Triton; FlashInfer CUTLASS on Hopper in 0.20 - 0.22,
    # FlashInfer TRT-LLM on SM100 from 0.20). vLLM only. "aiter": ROCm's fused MoE (an AMD GPU;
    # block-FP8 experts read AITER's tuned table, core/speed/moe_measured_aiter.py).
    moe_backend: str | None = None
    # Additive: the tokens a rank DeepEP's low-latency kernels are sized for (SGLang
    # SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK, vLLM VLLM_MOE_DP_CHUNK_SIZE): the
    # low-latency buffer grows with it (core/registry/moe_a2a_buffers.py). Null: the engine's
    # default (SGLang 128, vLLM 256). Read with a low-latency or auto DeepEP backend only.
    moe_a2a_dispatch_tokens: Annotated[int, Whole, Field(ge=1, le=65_536)] | None = None
    # Additive: SGLang's ``--enable-two-batch-overlap``: each MoE layer's step split into two
    # micro-batches, one's DeepEP dispatch and combine beside the other's computation
    # (core/speed/step_tbo.py). Null / false: one batch, as before. Needs a DeepEP backend.
    two_batch_overlap: bool | None = None
    # Additive: SGLang's Triton fused MoE ran without a tuned config for the GPU and expert shape
    # (its log "Using default MoE kernel config"; the "Before" runs of its tuning PRs), so with
    # ``get_default_config``'s tiles: at narrow 16-bit expert slices on Hopper the second GEMM's
    # grid of short tiles bounds the call (core/speed/sglang_moe_tiles.py). Null / false: a tuned
    # config, priced where its file is known, else as before. SGLang only (vLLM's narrow-slice
    # grid already takes its default tiles); another engine ignores it.
    moe_default_config: bool | None = None
    # Additive: deployment features (core/model/serving_features.py; null: off)
    prefix: PrefixSpec | None = None
    speculative: SpeculativeSpec | None = None
    lora: LoraServingSpec | None = None
    kv_offload: KvOffloadSpec | None = None
    disaggregated: DisaggregatedSpec | None = None

    @model_serializer(mode="wrap")
    def _echo(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        """``cpu_offload_gib`` left out of the echo when null (scenarios without it echo as
        before)."""
        data: dict[str, object] = handler(self)
        if self.cpu_offload_gib is None:
            data.pop("cpu_offload_gib", None)
        return data

    @field_validator("cpu_moe_layers", mode="before")  # a string other than "all": name both
    @classmethod
    def _cpu_moe(cls, v: object) -> object:
        # a boolean, list or object read "Input should be a valid integer", which left "all" out
        if (isinstance(v, str) and v != "all") or isinstance(v, (bool, list, dict)):
            raise ValueError(f'a layer count (0 or more) or "all"; got {v!r}')
        return v

    @field_validator("moe_a2a_backend", mode="before")  # any type: the message names the ids
    @classmethod
    def _moe_a2a(cls, v: object) -> str | None:
        # SGLang's "deepep" and vLLM's "deepep_high_throughput" name registered kernels
        return None if v is None else check_id(backend_id(v), MOE_A2A_BACKENDS, "MoE all-to-all backend")

    @field_validator("moe_backend", mode="before")  # any type: the message names the ids
    @classmethod
    def _moe_backend(cls, v: object) -> str | None:
        return None if v is None else check_id(v, MOE_BACKENDS, "vLLM MoE backend")

    @field_validator("max_context", mode="before")  # llama.cpp / Ollama -c 0: its line
    @classmethod
    def _max_context(cls, v: object) -> object:
        if v == 0 and not isinstance(v, bool):
            raise ValueError(ZERO_CONTEXT)
        return v

    @field_validator("attention_backend", mode="before")  # another backend's name: its line
    @classmethod
    def _attention_backend(cls, v: object) -> object:
        hint = attention_backend_hint(v)  # core/registry/engine_names.py
        if hint:
            raise ValueError(f"{hint}; got {excerpt(v)}")
        return v

    @field_validator("frontend", mode="before")  # any type: the message names the ids
    @classmethod
    def _frontend(cls, v: object) -> str | None:
        return None if v is None else check_id(v, SERVING_FRONTENDS, "serving frontend")

    @property
    def arrival_rate(self) -> float | None:
        """Requests/s of a "rate" load (None for the other loads, whatever ``request_rate``)."""
        return self.request_rate if self.load == "rate" else None

    @property
    def needs_rate(self) -> bool:
        """A "rate" load without its ``request_rate``."""
        return self.load == "rate" and self.request_rate is None
