"""Framework profiles: how a real implementation lays out memory, as one registry.

A training framework (transformers + PyTorch, Megatron-LM, DeepSpeed, FSDP) or a serving
engine (vLLM, llama.cpp) is one :class:`FrameworkProfile` entry. The estimator reads the
profile's properties, never the framework's id, so adding one is one :func:`register` call plus
whatever code its own rules need.

Sources of the defaults (per entry below):
- Runtime overhead (CUDA context, workspaces, NCCL buffers, allocator slack): PyTorch docs
  "CUDA semantics: memory management"; cuBLAS ``CUBLAS_WORKSPACE_CONFIG`` (32 MiB per stream on
  Hopper); NCCL docs ``NCCL_BUFFSIZE`` (4 MiB per channel and peer); vLLM docs "Conserving
  memory" (CUDA graphs, sampler). Typical figures, each overridable in the scenario's
  ``overhead`` block (core/memory/overhead.py).
- Activation layouts: core/memory/activations.py (transformers' saved tensors, measured; Megatron-LM
  after Korthikanti et al. 2022, arXiv 2205.05198).
- Training recipes (torchtune, Unsloth) and their defaults: docs/evidence/training.md, with the
  recipe files cited per entry. ``scenario_defaults`` are filled in at validation only where the
  scenario leaves the field out (core/memory/techniques.py), so the report's echo states them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .engine_releases import VLLM
from .engine_releases_cpp import LLAMA_CPP, TENSORRT_LLM
from .engine_releases_mlx import MLX_LM
from .engine_releases_sglang import SGLANG
from .engines import EngineRelease
from .table import add
from .workloads import WorkloadKind

MiB = 2**20

# GPU vendors as the catalog spells them (GPUSpec.vendor); a framework's ``runs_on`` and the
# install page that says so. A vendor outside these (a user's "custom" GPU) is not judged.
VENDORS = ("NVIDIA", "AMD", "Intel", "Apple")
_EVERY = VENDORS
_NV: tuple[str, ...] = ("NVIDIA",)
_NV_AMD = ("NVIDIA", "AMD")
_NV_AMD_INTEL = ("NVIDIA", "AMD", "Intel")
_NV_AMD_APPLE = ("NVIDIA", "AMD", "Apple")
_APPLE: tuple[str, ...] = ("Apple",)
_TORCH = (
    "PyTorch 'Get started' builds for CUDA, ROCm, XPU and MPS (Apple silicon); transformers runs "
    "on each; Intel Gaudi through accelerate (huggingface.co/docs/accelerate usage_guides/gaudi)"
)
_MEGATRON = (
    "NVIDIA: the project's README (Transformer Engine, NGC containers); AMD Instinct: ROCm Primus "
    "docs 'End-to-end training recipes' (rocm/primus images run Megatron-LM, TorchTitan and "
    "Megatron Bridge)"
)
_DEEPSPEED = (
    "deepspeed.ai/tutorials/accelerator-setup-guide: CUDA, ROCm, Intel XPU and Gaudi (HPU); "
    "its Apple MPS accelerator (PR #3907) trains only small fp32 models, so Apple is left out"
)
_FSDP = (
    "PyTorch distributed backends: NCCL (CUDA), RCCL (ROCm), XCCL (Intel XPU), HCCL (Gaudi); "
    "MPS has no collective backend FSDP shards over"
)
_VLLM = (
    "vLLM docs getting_started/installation/gpu: CUDA, ROCm, Intel XPU (Gaudi: the vllm-gaudi "
    "plugin); on Apple silicon vLLM runs on the CPU backend only"
)
_SGLANG = "docs.sglang.io 'Hardware Platforms': NVIDIA GPUs, AMD GPUs, Intel XPU (and CPUs, TPU, Ascend)"
_TRTLLM = "TensorRT-LLM installation docs: NVIDIA GPUs only (CUDA, TensorRT)"
_GGML = (
    "llama.cpp README 'Supported backends': Metal, CUDA, HIP (AMD), SYCL (Intel), Vulkan "
    "(core/speed/rates_era.py GGML_BACKENDS)"
)
_MLX = (
    "ml-explore.github.io/mlx install: Apple silicon (M series), macOS 14 or newer; MLX's Linux "
    "CUDA backend (pip install mlx[cuda12]) exists, but this profile's rules are Apple's (the "
    "Metal kernels' rates of core/speed/rates_mlx.py, the unified pool's wired limit)"
)
_TORCHTUNE = "torchtune: PyTorch's CUDA, ROCm and Intel XPU devices (training.get_device)"
_UNSLOTH = (
    "unsloth README 'Features': NVIDIA, AMD and Intel GPUs (AMD ROCm builds since 2025); on a Mac "
    "it routes to MLX's loader and trainer (unslothai/unsloth#4, 2026-09): the mlx framework here"
)
_LIGHTNING = "Lightning Fabric accelerators: cuda (CUDA and ROCm builds of PyTorch) and mps (Apple silicon)"
_SWIFT = "ms-swift docs: CUDA images; Ascend NPUs (BestPractices/NPU-support), not in the catalog"
_AXOLOTL = (
    "axolotl README requirements: an NVIDIA (Ampere or newer) or AMD GPU (ROCm install guide, PR #1550)"
)
_COMPOSER = "composer/devices: DeviceGPU (CUDA and ROCm builds of PyTorch), DeviceMPS (Apple M series)"


# Pipeline parallelism per framework (FrameworkProfile.pipeline_training / pipeline_serving)
_PP_HF = (
    "transformers Trainer / accelerate: data parallelism, DeepSpeed ZeRO and FSDP, no pipeline "
    "schedule for training (accelerate's prepare_pippy is inference only, usage_guides/"
    "distributed_inference); serving: device_map='auto' puts consecutive layers on each GPU "
    "(accelerate 'Big Model Inference')"
)
_PP_MEGATRON = (
    "Megatron-LM README / Megatron-Core: --pipeline-model-parallel-size (1F1B, interleaved with "
    "--num-layers-per-virtual-pipeline-stage; Narayanan et al. 2021, arXiv 2104.04473)"
)
_PP_BRIDGE = (
    "Megatron-Bridge recipes: pipeline_model_parallel_size, "
    "virtual_pipeline_model_parallel_size (Megatron-Core's schedules)"
)
_PP_DEEPSPEED = (
    "deepspeed.ai/tutorials/pipeline: PipelineModule and PipelineEngine (1F1B); "
    "deepspeed/runtime/pipe/engine.py asserts ZeRO stage < 2 ('ZeRO-2 and ZeRO-3 are "
    "incompatible with pipeline parallelism')"
)
_PP_FSDP = (
    "PyTorch FSDP docs (FullyShardedDataParallel, fully_shard): shards over data-parallel "
    "ranks, no pipeline schedule (torch.distributed.pipelining is a separate API that "
    "torchtitan composes with it)"
)
_PP_TORCHTITAN = (
    "torchtitan docs: parallelism.pipeline_parallel_degree with torch.distributed.pipelining "
    "schedules (1F1B, Interleaved1F1B, ZBVZeroBubble), composed with FSDP2 and TP"
)
_PP_VLLM = "vLLM docs 'Parallelism and scaling': --pipeline-parallel-size (-pp)"
_PP_SGLANG = "SGLang server arguments: --pp-size (pipeline parallelism)"
_PP_TRTLLM = "TensorRT-LLM docs: pipeline_parallel_size (trtllm-serve --pp_size)"
_PP_GGML = (
    "llama.cpp docs/multi-gpu.md: --split-mode layer (the default) is pipeline parallelism, "
    "each GPU a contiguous slice of layers (PR #6017, GGML_SCHED_MAX_COPIES micro-batches)"
)
_PP_MLX = (
    "mlx-lm: serving splits a model's layers over Macs with mx.distributed (the model's "
    "pipeline(group), mlx_lm sharded_load); mlx_lm.lora trains on one device, no pipeline"
)
_PP_TORCHTUNE = (
    "torchtune distributed recipes (full_finetune_distributed, lora_finetune_distributed): "
    "FSDP2 data parallelism (tensor_parallel_dim since v0.6), no pipeline stages"
)
_PP_UNSLOTH = "unsloth: the open-source release trains on one GPU (no model parallelism)"
_PP_LITGPT = "LitGPT finetune / pretrain: Lightning Fabric's FSDP strategy (--devices), no pipeline schedule"
_PP_SWIFT = (
    "ms-swift's transformers path: DDP, DeepSpeed ZeRO, FSDP; pipeline parallelism only in its "
    "separate Megatron backend (megatron sft), which this profile does not model"
)
_PP_AXOLOTL = "axolotl docs 'Multi-GPU': DeepSpeed ZeRO and FSDP, no pipeline parallelism"
_PP_COMPOSER = "Composer docs 'Distributed training': DDP and FSDP (parallelism_config), no pipeline schedule"


@dataclass(frozen=True)
class OverheadDefaults:
    """Memory outside tensors, bytes (fraction: of the tensor peak)."""

    cuda_context_bytes: int
    workspace_bytes: int
    allocator_fraction: float
    distributed_workspace_bytes: int  # added when more than one GPU communicates


@dataclass(frozen=True)
class FrameworkProfile:
    """One framework's memory rules. Training fields apply to training kinds, serving fields
    to inference; each flag's docstring-comment names the mechanism it stands for."""

    id: str
    label: str
    trains: bool
    serves: bool
    overhead: OverheadDefaults
    # GPU vendors it runs on (VENDORS spelling) and the install docs that say so: estimate
    # refuses another catalog vendor's GPU, the sizing ranks only these (core/pipeline/runs_on.py)
    runs_on: tuple[str, ...] = VENDORS
    runs_on_source: str = ""
    # Pipeline parallelism (``parallelism.pipeline`` > 1): whether its training loop has a
    # pipeline schedule (layers in stages, micro-batches in flight), and whether its serving
    # engine splits the layers over GPUs; ``pipeline_source``: its docs on it. estimate refuses
    # PP elsewhere, the sizing proposes none (core/pipeline/validate.py check_pipeline).
    pipeline_training: bool = False
    pipeline_serving: bool = False
    pipeline_source: str = ""
    # The highest ZeRO stage its pipeline engine trains under (DeepSpeed's PipelineEngine:
    # 1, deepspeed/runtime/pipe/engine.py; torchtitan composes FSDP2, ZeRO-3, with PP)
    pipeline_max_zero: int = 3
    # -- training ---------------------------------------------------------------------------
    # Saved tensors and loss, a key of core/memory/layouts.ACTIVATION_LAYOUTS: "huggingface"
    # (transformers' modules, fp32 log-softmax of the logits), "megatron" (Korthikanti
    # accounting, vocabulary-parallel fused cross entropy) or "torchtitan" (its op-level
    # selective recompute, core/memory/activations_torchtitan.py).
    activation_layout: str = "huggingface"
    # How adapted layers run, a key of core/memory/layouts.LORA_KERNELS: PEFT's modules
    # ("peft", the transformers layout) or Unsloth's fused LoRA autograd functions, RMSNorm,
    # RoPE and xformers attention ("unsloth", core/memory/activations_unsloth.py), which save fewer
    # tensors and cast no input to fp32.
    lora_kernels: str = "peft"
    # PEFT's PeftModel makes the embedding's output require a gradient under gradient
    # checkpointing (peft_model.py _prepare_model_for_gradient_checkpointing:
    # enable_input_require_grads): the backward then runs through every layer, also below
    # the first adapter of workload.lora_layers (core/speed/train_layer.py backward_share)
    input_grads_with_recompute: bool = False
    # fp32 weights under torch.autocast: every matmul keeps its 16-bit weight copy.
    autocast_copies: bool = False
    # Gradient dtype of fully trained weights: the parameter's ("parameter", PyTorch .grad),
    # the scenario's ``precision.gradients`` ("scenario"), or Megatron's fp32 ``main_grad``
    # buffer whenever fp32 master weights are kept ("main_grad").
    gradients: Literal["parameter", "scenario", "main_grad"] = "parameter"
    step_counters: bool = False  # torch.optim keeps a 4-byte ``step`` per parameter tensor
    ddp_buckets: bool = False  # DDP gradient buckets beside .grad (ZeRO 0, DP > 1)
    foreach_scratch: bool = False  # the foreach optimizer step copies the parameters once
    persistent_gradients: bool = False  # the gradient buffer lives through the whole step
    # The layout search prefers TP/PP to ZeRO-2/3 (Megatron has only the distributed
    # optimizer, i.e. ZeRO-1).
    prefers_model_parallel: bool = False
    quantised_base_zero3: bool = True  # can train a quantised base under ZeRO-3
    # DeepSpeed ZeRO-1/2 step (stage_1_and_2.py ``step``): each group's 16-bit gradient
    # partition is converted to an fp32 ``.grad`` of the fp32 master before the update, beside
    # the 16-bit gradients: 4 B per stepped parameter at the step (its estimator: 2 + 18/N).
    fp32_step_gradients: bool = False
    # Its tables' own memory line: "allocated" (torch.cuda.max_memory_allocated, tensors only)
    # or "reserved" (max_memory_reserved: the caching allocator's segments, not the CUDA
    # context or NCCL's buffers); "" when it prints none (core/memory/overhead.py reported_bytes)
    reports: Literal["", "allocated", "reserved"] = ""
    # Its checkpoint converter copies a tied embedding into a separate LM head (LitGPT 0.4.x
    # litgpt/scripts/convert_hf_checkpoint.py: lm_head.weight = transformer.wte.weight for Gemma)
    unties_embeddings: bool = False
    # Its bitsandbytes path quantises every nn.Linear, the LM head too (Lightning's
    # BitsandbytesPrecision with LitGPT's empty ``ignore_modules``): the rule a bitsandbytes
    # format takes under it (core/registry/quant_rules.py; None: the format's default).
    bnb_rule: str | None = None
    # 16-bit copies of a 4-bit matrix alive while bitsandbytes' MatMul4Bit dequantises it for
    # the forward's and the backward's matmul (``dequantize_4bit(B, state).to(A.dtype)``):
    # 2 where the weight was quantised from fp16 but computes in bf16 (Lightning's
    # ``_Linear4bit._quantize_weight``: ``.to(dtype=torch.half)``); 0: not counted (the
    # transformers + PEFT path measured to the byte holds without it).
    dequant_copies: int = 0
    # The training loop holds the last step's ``logits`` and ``loss`` until the next forward
    # returns (LitGPT ``fit``: ``logits = model(...)``, ``loss = ...`` reassigned each step):
    # the last step's autograd graph, with whatever its nodes keep past their backward, and
    # its logits stay through the next forward (core/memory/last_step.py).
    holds_last_step: bool = False
    # -- training speed (core/speed/train_step.py) ----------------------------------------
    # Attention kernel: PyTorch SDPA's FlashAttention-2 ("flash2") or cuDNN fused attention
    # through Transformer Engine ("cudnn", Megatron-LM).
    attention_kernel: Literal["flash2", "cudnn"] = "flash2"
    # Fused norm / RoPE / activation / loss kernels without torch.compile (Megatron-LM with TE
    # or apex); otherwise they are fused only under ``workload.compile``.
    fused_kernels: bool = False
    # What ``parallelism.recompute: "selective"`` reruns: the attention core (Korthikanti et al.
    # 2022) or every second matmul of a layer with the elementwise ops (torchtitan op-level SAC).
    selective_recompute: Literal["attention", "every_other_matmul"] = "attention"
    # Bytes per value of the data-parallel gradient reduction (None: the gradient dtype).
    grad_reduce_bytes: int | None = None
    # ZeRO-1/2: the updated parameters' all-gather overlaps the next forward (Megatron
    # --overlap-param-gather); False: it follows the optimizer step (DeepSpeed).
    param_gather_overlap: bool = True
    # ZeRO-3 under pipeline parallelism keeps the stage's parameters gathered (activation
    # dtype) and its gradients unsharded (reduce dtype) across micro-batches (torchtitan
    # apply_fsdp: reshard_after_forward=False when PP is on; FSDP2 accumulates in reduce_dtype).
    pipeline_gathered: bool = False
    # (block, field, value) the profile sets when the scenario leaves the field out.
    scenario_defaults: tuple[tuple[str, str, object], ...] = ()
    techniques: tuple[str, ...] = ()  # what the profile does, in the user's words (tooltips)
    # -- serving ----------------------------------------------------------------------------
    # transformers' rule (core/memory/inference.py); engines' chunking is per release (engines.py)
    prefill_chunk_tokens: int | None = None  # tokens per prefill pass; None = whole prompt
    prefill_chunk_per_sequence: bool = False  # the chunk is per sequence, not per batch
    kv_window_slack: int = 0  # a sliding-window cache keeps this many tokens fewer
    # the cache is allocated in steps of this many tokens per sequence (mlx-lm KVCache.step 256)
    kv_step_tokens: int = 1
    # serving.max_kv_size caps each sequence's cache, the oldest tokens dropped (mlx-lm
    # RotatingKVCache); False: the field is refused
    rotating_kv: bool = False
    eager_scores: bool = False  # eager attention materialises the scores when serving
    mla_latent_decode: bool = True  # MLA decodes in the compressed latent (weight absorption)
    # Hybrid models' recurrent state (core/model/state.py): "transformers" keeps the whole conv
    # kernel and an fp32 recurrent state; "engine" (vLLM) kernel - 1 inputs, model dtype.
    recurrent_state: Literal["transformers", "engine"] = "engine"
    # How the engine takes GPU memory when serving, a key of core/serving/rules.MEMORY_RULES
    # (one class each; an unknown key is an error at validation): "transformers" allocates as
    # requests need it (core/memory/inference.py); "profiled_pool" (vLLM) reserves a fraction of the
    # device, profiles a dummy batch and pages the rest as KV; "static_pool" (SGLang) reserves
    # (weights + KV) as a fraction; "free_pool" (TensorRT-LLM) gives a fraction of what is
    # free after weights and activations to the KV cache; "layer_offload" (llama.cpp, Ollama)
    # places layers on the GPU or in system RAM.
    memory_rule: str = "transformers"
    releases: tuple[EngineRelease, ...] = ()  # oldest first; the last is the default
    # Whose kernels run the model when serving (core/speed/rates.py): "ggml" (llama.cpp's own),
    # "mlx" (Apple MLX's Metal kernels) or "vendor" (cuBLAS, CUTLASS, FlashAttention, Marlin...
    # under PyTorch or TensorRT).
    kernels: Literal["ggml", "mlx", "vendor"] = "vendor"
    # The engine's switch for attention data parallelism beside expert parallelism
    # (``parallelism.attention_data``, core/serving/attention_dp.py); "" where it has none.
    attention_data_flag: str = ""
    # The engine's own scheduler settings a scenario may set (core/pipeline/validate_sched.py):
    # "batch_wait" (TensorRT-LLM's batch_wait_timeout_iters / _max_tokens_ratio, core/serving/
    # batch_wait.py), "attention_dp_balance" (its attention_dp_config, core/serving/adp_balance.py),
    # "recv_interval" (SGLang's --scheduler-recv-interval, core/serving/recv_poll.py),
    # "max_prefill" (SGLang's --max-prefill-tokens, core/serving/prefill_cap.py)
    scheduler_knobs: frozenset[str] = frozenset()
    # True: its fused MoE writes each token's top-k expert outputs unreduced and sums them in a
    # kernel of its own after the second GEMM (vLLM fused_moe.py ``intermediate_cache3`` then
    # ``moe_sum``; core/speed/step_moe.py ``_topk_sum``)
    moe_topk_sum: bool = False
    # False: its LoRA layer on MoE experts refuses expert parallelism, which its attention data
    # parallelism switches on too (vLLM vllm/lora/layers/fused_moe.py ``FusedMoEWithLoRA``:
    # ``assert not self.base_layer.use_ep``; core/serving/lora_serving.py check_lora).
    moe_lora_expert_parallel: bool = True
    # The sizing advisor's last rung for LoRA and QLoRA (core/sizing/savings.py): switch to
    # this framework with its defaults, on at most ``max_gpus`` GPUs (None: any number).
    adapter_fallback: bool = False
    max_gpus: int | None = None
    sources: tuple[str, ...] = ()

    @property
    def versions(self) -> tuple[str, ...]:
        """``serving.engine_version`` values this profile accepts (empty: none)."""
        return tuple(r.version for r in self.releases)

    @property
    def keeps_whole_conv_kernel(self) -> bool:
        """transformers' recurrent-state layout: the whole conv kernel, an fp32 state."""
        return self.recurrent_state == "transformers"

    def runs_on_vendor(self, vendor: str) -> bool:
        """Whether it runs on ``vendor``'s GPUs (a vendor outside VENDORS is not judged)."""
        v = vendor.lower()
        return v in {x.lower() for x in self.runs_on} or v not in {x.lower() for x in VENDORS}

    def pipelines(self, kind: WorkloadKind) -> bool:
        """Whether it runs ``kind``'s work (its training pool when the kind trains) in pipeline
        stages: a ``parallelism.pipeline`` above 1 is possible."""
        return self.pipeline_training if kind.trains else self.pipeline_serving

    def fits(self, kind: WorkloadKind) -> bool:
        """Whether this framework runs that kind of work."""
        return self.trains if kind.trains else self.serves


FRAMEWORKS: dict[str, FrameworkProfile] = {}


def register(profile: FrameworkProfile) -> FrameworkProfile:
    """Add a profile (a DuplicateId if its id is taken); the registry's order is the order
    users see."""
    return add(FRAMEWORKS, profile.id, profile, "framework")


def adapter_fallback() -> FrameworkProfile | None:
    """The framework the advisor switches LoRA and QLoRA to (the first so marked)."""
    return next((p for p in FRAMEWORKS.values() if p.adapter_fallback), None)


def frameworks_for(kind: WorkloadKind) -> list[FrameworkProfile]:
    """The profiles that run this kind of work, in registry order (the first is the default)."""
    return [p for p in FRAMEWORKS.values() if p.fits(kind)]


for _p in (
    FrameworkProfile(
        "huggingface",
        "Hugging Face transformers",
        trains=True,
        serves=True,
        runs_on=_EVERY,
        runs_on_source=_TORCH,
        pipeline_serving=True,
        pipeline_source=_PP_HF,
        input_grads_with_recompute=True,  # PEFT's PeftModel
        overhead=OverheadDefaults(500 * MiB, 64 * MiB, 0.05, 256 * MiB),
        autocast_copies=True,
        step_counters=True,
        ddp_buckets=True,
        foreach_scratch=True,
        kv_window_slack=1,
        eager_scores=True,
        mla_latent_decode=False,
        recurrent_state="transformers",
        sources=(
            "transformers modeling_*.py (saved tensors measured: shared/calibration)",
            "PyTorch DDP docs: gradient_as_bucket_view=False keeps buckets beside .grad",
            "transformers DynamicSlidingWindowLayer keeps window - 1 tokens",
        ),
    ),
    FrameworkProfile(
        "megatron",
        "Megatron-LM",
        trains=True,
        serves=False,
        runs_on=_NV_AMD,
        runs_on_source=_MEGATRON,
        pipeline_training=True,
        pipeline_source=_PP_MEGATRON,
        overhead=OverheadDefaults(600 * MiB, 128 * MiB, 0.05, 512 * MiB),
        activation_layout="megatron",
        gradients="main_grad",
        persistent_gradients=True,
        prefers_model_parallel=True,
        quantised_base_zero3=False,
        attention_kernel="cudnn",
        fused_kernels=True,
        grad_reduce_bytes=4,
        sources=(
            "Korthikanti et al. 2022, arXiv 2205.05198 (activations, 18 B/param)",
            "Megatron-LM main_grad fp32 buffer, distributed optimizer",
            "Megatron-LM README: Transformer Engine fused kernels and attention; gradients "
            "reduced in fp32 unless --grad-reduce-in-bf16; --overlap-grad-reduce "
            "--overlap-param-gather",
        ),
    ),
    FrameworkProfile(
        # Megatron-LM's legacy model (megatron/model/transformer.py, before Megatron-Core):
        # the same optimizer and gradient buffers, its own layer (unfused --swiglu, flash-attn
        # through einops rearranges; core/memory/activations_megatron_legacy.py)
        "megatron-legacy",
        "Megatron-LM (legacy model)",
        trains=True,
        serves=False,
        overhead=OverheadDefaults(600 * MiB, 128 * MiB, 0.05, 512 * MiB),
        activation_layout="megatron-legacy",
        gradients="main_grad",
        persistent_gradients=True,
        prefers_model_parallel=True,
        quantised_base_zero3=False,
        fused_kernels=True,
        grad_reduce_bytes=4,
        runs_on=_NV_AMD,  # the same Megatron-LM repository and builds as `megatron`
        runs_on_source=_MEGATRON,
        pipeline_training=True,
        pipeline_source=_PP_MEGATRON,
        sources=(
            "NVIDIA/Megatron-LM 18247cb megatron/model/transformer.py: ParallelMLP swiglu "
            "F.silu(x[0]) * x[1]; ParallelAttention flash path rearrange(...).contiguous()",
            "NVIDIA/Megatron-LM PR #482 tools/get_training_info (10 s.b.h + 4 s.b.F values "
            "per layer, measured with a CUDAPluggableAllocator)",
        ),
    ),
    FrameworkProfile(
        # NeMo 2 / Megatron-Bridge: Megatron-Core as Megatron-LM runs it, with the recipes'
        # distributed optimizer on (ZeRO-1); bf16_mixed keeps grad_reduce_in_fp32 (fp32
        # main_grad, as Megatron-LM's default); the performance recipes' own overrides (bf16
        # gradient buffer, TE's fused cross entropy) are the scenario's fields.
        "megatron-bridge",
        "NeMo 2 / Megatron-Bridge",
        trains=True,
        serves=False,
        runs_on=_NV_AMD,
        runs_on_source=_MEGATRON,
        pipeline_training=True,
        pipeline_source=_PP_BRIDGE,
        overhead=OverheadDefaults(600 * MiB, 128 * MiB, 0.05, 512 * MiB),
        activation_layout="megatron",
        gradients="main_grad",
        persistent_gradients=True,
        prefers_model_parallel=True,
        quantised_base_zero3=False,
        attention_kernel="cudnn",
        fused_kernels=True,
        grad_reduce_bytes=4,
        scenario_defaults=(("parallelism", "zero_stage", 1),),
        techniques=(
            "distributed optimizer on by default (ZeRO-1: fp32 masters and Adam states sharded "
            "over data-parallel ranks); PEFT recipes turn it off (adapters: negligible)",
        ),
        sources=(
            "NVIDIA-NeMo/Megatron-Bridge v0.2.1 src/megatron/bridge/recipes/llama/llama3.py "
            "_llama3_common: DistributedDataParallelConfig(use_distributed_optimizer=True, "
            "grad_reduce_in_fp32=True); recipes/utils/optimizer_utils.py "
            "distributed_fused_adam_with_cosine_annealing: OptimizerConfig("
            "use_distributed_optimizer=True); training/mixed_precision.py bf16_mixed: "
            "grad_reduce_in_fp32=True",
            "NVIDIA-NeMo/Megatron-Bridge 067f987 recipes/llama/h100/llama3.py: "
            "use_precision_aware_optimizer = False, so Megatron-Core's store_param_remainders "
            "(optimizer_config.py, effective only under it) is off: full fp32 masters",
        ),
    ),
    FrameworkProfile(
        "deepspeed",
        "DeepSpeed",
        trains=True,
        serves=False,
        runs_on=_NV_AMD_INTEL,
        runs_on_source=_DEEPSPEED,
        pipeline_training=True,
        pipeline_source=_PP_DEEPSPEED,
        pipeline_max_zero=1,
        overhead=OverheadDefaults(600 * MiB, 128 * MiB, 0.05, 512 * MiB),
        autocast_copies=True,
        step_counters=True,
        gradients="scenario",
        fp32_step_gradients=True,
        param_gather_overlap=False,
        techniques=("ZeRO 1-3 sharding", "fp32 gradient partition at the ZeRO-1/2 step"),
        sources=(
            "Rajbhandari et al. 2020, arXiv 1910.02054 (ZeRO)",
            "DeepSpeed docs, Memory Requirements",
            "deepspeed/runtime/zero/stage_1_and_2.py step() and "
            "estimate_zero2_model_states_mem_needs (2 + 18/N B/param, PR #5099)",
        ),
    ),
    FrameworkProfile(
        # FSDP2 (torch/distributed/fsdp/_fully_shard): parameters sharded per rank; a unit's
        # forward/backward all-gathers it in param_dtype and the next unit's prefetch overlaps,
        # so about two units are unsharded at once, plus one unit's unsharded gradient before
        # its reduce-scatter: the ZeRO-3 term largest_layer x (2 x weight + gradient) bytes.
        "fsdp",
        "PyTorch FSDP",
        trains=True,
        serves=False,
        runs_on=_NV_AMD_INTEL,
        runs_on_source=_FSDP,
        pipeline_source=_PP_FSDP,
        overhead=OverheadDefaults(550 * MiB, 64 * MiB, 0.05, 384 * MiB),
        autocast_copies=True,
        step_counters=True,
        gradients="scenario",
        foreach_scratch=True,
        techniques=("FSDP2 sharding (ZeRO 3)", "all-gather of two units at a time"),
        sources=(
            "PyTorch FSDP docs (sharded parameters, gradients, optimizer states)",
            "torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py foreach_all_gather, "
            "_fsdp_api.py MixedPrecisionPolicy (torch 2.13)",
        ),
    ),
    FrameworkProfile(
        # FSDP2 (ZeRO-3 over data x context) with fp32 sharded parameters, gradients and AdamW
        # states, bf16 compute (MixedPrecisionPolicy param_dtype bf16, reduce_dtype fp32);
        # TP with sequence parallel and loss parallel; op-level selective recompute.
        "torchtitan",
        "torchtitan",
        trains=True,
        serves=False,
        runs_on=_NV_AMD,
        runs_on_source=_MEGATRON,
        pipeline_training=True,
        pipeline_source=_PP_TORCHTITAN,
        overhead=OverheadDefaults(550 * MiB, 64 * MiB, 0.05, 384 * MiB),
        activation_layout="torchtitan",
        step_counters=True,
        foreach_scratch=True,
        selective_recompute="every_other_matmul",
        grad_reduce_bytes=4,
        pipeline_gathered=True,
        scenario_defaults=(
            ("precision", "weights", "fp32"),
            ("precision", "master_weights", None),
            ("precision", "gradients", "fp32"),
            ("parallelism", "zero_stage", 3),
            ("parallelism", "sequence_parallel", True),
            ("parallelism", "recompute", "selective"),
        ),
        techniques=(
            "FSDP2: fp32 parameters, gradients and AdamW states sharded, bf16 compute",
            "TP with sequence parallel and vocabulary-parallel loss",
            "selective op-level activation checkpointing (every second matmul rerun)",
            "Float8 linear layers (precision.matmuls), torch.compile (workload.compile), async TP",
        ),
        sources=(
            "pytorch/torchtitan 9dec370: train_configs/llama3_*.toml, parallelisms/"
            "parallelize_llama.py (_save_list, apply_fsdp MixedPrecisionPolicy, apply_tp "
            "loss_parallel), config_manager.py (mixed_precision_reduce float32)",
            "torchtitan docs/performance.md (d4c86e3, 2025-01-30): H100 tables 1-6",
        ),
    ),
    FrameworkProfile(
        "vllm",
        "vLLM",
        trains=False,
        serves=True,
        runs_on=_NV_AMD_INTEL,
        runs_on_source=_VLLM,
        pipeline_serving=True,
        pipeline_source=_PP_VLLM,
        # context 500 MiB and NCCL 1 GiB at TP > 1: the TP 4 init snapshot of vLLM 0.19 shows
        # 1.55 GiB in use before the weights load (llm-d planner logs; outside the budget)
        overhead=OverheadDefaults(500 * MiB, 0, 0.0, 1024 * MiB),
        memory_rule="profiled_pool",
        releases=VLLM,
        attention_data_flag="--data-parallel-size with --enable-expert-parallel",
        moe_lora_expert_parallel=False,
        moe_topk_sum=True,
        sources=(
            "docs/evidence/serving.md §1 (versions 0.6.4 - 0.33.0); chunking and batch "
            "defaults per release in core/registry/engine_releases.py",
        ),
    ),
    FrameworkProfile(
        "sglang",
        "SGLang",
        trains=False,
        serves=True,
        runs_on=_NV_AMD_INTEL,
        runs_on_source=_SGLANG,
        pipeline_serving=True,
        pipeline_source=_PP_SGLANG,
        overhead=OverheadDefaults(500 * MiB, 0, 0.0, 1024 * MiB),
        memory_rule="static_pool",
        releases=SGLANG,
        attention_data_flag="--enable-dp-attention --dp N",
        scheduler_knobs=frozenset({"recv_interval", "max_prefill"}),
        sources=("docs/evidence/serving.md §2 (sglang 0.4.3, 0.5.3, 0.5.23)",),
    ),
    FrameworkProfile(
        "tensorrt-llm",
        "TensorRT-LLM",
        trains=False,
        serves=True,
        runs_on=_NV,
        runs_on_source=_TRTLLM,
        pipeline_serving=True,
        pipeline_source=_PP_TRTLLM,
        overhead=OverheadDefaults(500 * MiB, 0, 0.0, 1024 * MiB),
        memory_rule="free_pool",
        releases=TENSORRT_LLM,
        attention_data_flag="enable_attention_dp",
        scheduler_knobs=frozenset({"batch_wait", "attention_dp_balance"}),
        sources=("docs/evidence/serving.md §3 (KvCacheConfig docs)",),
    ),
    FrameworkProfile(
        "llama.cpp",
        "llama.cpp / Ollama",
        trains=False,
        serves=True,
        runs_on=_EVERY,
        runs_on_source=_GGML,
        pipeline_serving=True,
        pipeline_source=_PP_GGML,
        # the compute buffers are computed (core/serving/offload.py); the context is CUDA's
        overhead=OverheadDefaults(300 * MiB, 0, 0.0, 0),
        memory_rule="layer_offload",
        releases=LLAMA_CPP,
        kernels="ggml",
        sources=("docs/evidence/serving.md §4 (llama.cpp 2024-2026, Ollama v0.5 - v0.17)",),
    ),
    FrameworkProfile(
        # Apple MLX (mlx-lm): generate / server, and LoRA / QLoRA fine-tuning (mlx_lm.lora) on
        # the unified memory the GPU may wire (hardware.gpu_memory_fraction: macOS's
        # iogpu.wired_limit_mb, which mlx-lm raises to with mx.set_wired_limit).
        "mlx",
        "Apple MLX (mlx-lm)",
        trains=True,
        serves=True,
        runs_on=_APPLE,
        runs_on_source=_MLX,
        pipeline_serving=True,
        pipeline_source=_PP_MLX,
        # "Peak memory" is mx.get_peak_memory(): MLX's own buffers, no CUDA context or
        # workspace (the Metal device's few MB and Python sit outside the wired pool)
        overhead=OverheadDefaults(0, 0, 0.0, 0),
        kernels="mlx",
        prefill_chunk_tokens=2048,
        kv_step_tokens=256,
        rotating_kv=True,
        releases=MLX_LM,
        scenario_defaults=(
            ("precision", "master_weights", None),
            ("precision", "adapters", "fp32"),
            ("precision", "optimizer_states", "fp32"),
            ("workload", "lora_rank", 8),
            ("workload", "lora_layers", 16),
            ("workload", "micro_batch_size", 4),
        ),
        techniques=(
            "quantised weights in 4/6/8-bit groups of 64 (mlx_int4, mlx_int6, mlx_int8)",
            "KV cache grown 256 tokens at a time; prompts prefilled 2,048 tokens at a time",
            "LoRA: rank 8 on every linear layer of the last 16 layers, fp32 adapters and Adam states, a "
            "16-bit (or quantised: QLoRA) frozen base; batch 4; grad_checkpoint off by default "
            "(parallelism.recompute 'full' when on)",
        ),
        sources=(
            "ml-explore/mlx-lm mlx_lm/generate.py (generate_step, wired_limit), "
            "mlx_lm/models/cache.py, mlx_lm/tuner/lora.py LoRALinear (fp32 lora_a/lora_b), "
            "mlx_lm/lora.py CONFIG_DEFAULTS (batch_size 4, num_layers 16, grad_checkpoint False, "
            "lora_parameters rank 8); tuner/utils.py linear_to_lora_layers: every Linear of an "
            "adapted layer by default since v0.28.2 (PR #515, 2025-09-30), q_proj and v_proj "
            "before ('Trainable parameters: 0.041% (1.311M/3212.750M)' for Llama 3.2 3B, PR #330)",
            "ml-explore/mlx mlx.core.quantize (group_size 64, bits 4), mx.fast.scaled_dot_product_attention",
        ),
    ),
    FrameworkProfile(
        "torchtune",
        "torchtune",
        trains=True,
        serves=False,
        runs_on=_NV_AMD_INTEL,
        runs_on_source=_TORCHTUNE,
        pipeline_source=_PP_TORCHTUNE,
        overhead=OverheadDefaults(500 * MiB, 64 * MiB, 0.05, 256 * MiB),
        step_counters=True,
        scenario_defaults=(
            ("precision", "master_weights", None),
            ("precision", "optimizer_states", "bf16"),
            ("precision", "adapters", "bf16"),
            ("workload", "loss", "linear_chunked"),
            ("parallelism", "recompute", "full"),
        ),
        techniques=(
            "bf16 weights, adapters and optimizer states, no fp32 master",
            "chunked cross-entropy, projection in the loss (LinearCrossEntropyLoss)",
            "activation checkpointing",
            "fused AdamW (no foreach copy)",
        ),
        sources=(
            "torchtune recipes/configs/llama3_1/8B_lora_single_device.yaml@v0.3.1: "
            "dtype bf16, loss CEWithChunkedOutputLoss, enable_activation_checkpointing "
            "True, optimizer torch.optim.AdamW fused True",
            "torchtune recipes/full_finetune_single_device.py: the model is built in dtype, no fp32 copy",
            "torchtune/modules/loss/cross_entropy_loss.py LinearCrossEntropyLoss (8 chunks): the "
            "loss of every recipe config since v0.6.0 (PR #2531, 2025-04; before it "
            "CEWithChunkedOutputLoss, workload.loss 'chunked')",
        ),
    ),
    FrameworkProfile(
        "unsloth",
        "Unsloth",
        trains=True,
        serves=False,
        runs_on=_NV_AMD_INTEL,
        runs_on_source=_UNSLOTH,
        pipeline_source=_PP_UNSLOTH,
        input_grads_with_recompute=True,  # PEFT's PeftModel
        overhead=OverheadDefaults(500 * MiB, 64 * MiB, 0.05, 256 * MiB),
        autocast_copies=True,
        step_counters=True,
        ddp_buckets=True,
        foreach_scratch=True,
        lora_kernels="unsloth",
        adapter_fallback=True,
        max_gpus=1,  # Unsloth's open-source release trains on one GPU
        scenario_defaults=(
            ("workload", "loss", "fused"),
            ("parallelism", "recompute", "full"),
            ("parallelism", "activation_offload", "checkpoints"),
        ),
        techniques=(
            "fused chunked cross-entropy (no logits kept)",
            "offloaded gradient checkpointing (layer inputs in host RAM)",
            "fused LoRA kernels: minimal saved tensors, no fp32 input casts",
        ),
        sources=(
            "unsloth_zoo/gradient_checkpointing.py Unsloth_Offloaded_Gradient_Checkpointer"
            " (use_gradient_checkpointing='unsloth', unsloth README)",
            "unsloth_zoo/fused_losses/cross_entropy_loss.py, unsloth/models/llama.py",
            "unsloth/kernels/fast_lora.py LoRA_MLP, LoRA_QKV, LoRA_W; rms_layernorm.py, "
            "rope_embedding.py (saved tensors: core/memory/activations_unsloth.py)",
        ),
        reports="reserved",
    ),
    FrameworkProfile(
        "litgpt",
        "LitGPT",
        trains=True,
        serves=False,
        runs_on=_NV_AMD_APPLE,
        runs_on_source=_LIGHTNING,
        pipeline_source=_PP_LITGPT,
        overhead=OverheadDefaults(500 * MiB, 64 * MiB, 0.05, 256 * MiB),
        step_counters=True,
        foreach_scratch=True,
        reports="allocated",
        unties_embeddings=True,
        bnb_rule="bitsandbytes-all-linear",
        dequant_copies=2,
        holds_last_step=True,
        scenario_defaults=(
            ("precision", "master_weights", None),
            ("precision", "optimizer_states", "bf16"),
            ("precision", "adapters", "bf16"),
            ("precision", "gradients", "bf16"),
            ("workload", "loss", "chunked_16bit"),
            ("parallelism", "model_loading", "full_state_dict"),
        ),
        techniques=(
            "bf16-true: weights, adapters, gradients and AdamW states in bf16",
            "16-bit cross-entropy in 128-token chunks (no fp32 logits)",
            "tied embeddings copied into a separate LM head",
            "FSDP full-state-dict loading (each unit gathered in turn)",
            "bitsandbytes: every Linear quantised, the LM head too; fp16 quantisation state",
            "the last step's logits and graph held through the next forward",
        ),
        sources=(
            "litgpt v0.4.5 finetune/lora.py main/fit: fabric.init_module, load_checkpoint "
            "(fabric.load_raw under FSDP), model(input_ids, lm_head_chunk_size=128), "
            "chunked_cross_entropy; 'Memory used' = torch.cuda.max_memory_allocated() / 1e9 "
            "over the whole run (never reset)",
            "litgpt v0.4.5 scripts/convert_hf_checkpoint.py copy_weights_hf_llama: "
            "lm_head.weight = transformer.wte.weight when the checkpoint ties them",
            "lightning 2.3 fabric/strategies/fsdp.py _load_raw_module_state (FULL_STATE_DICT, "
            "rank0_only=False); plugins/precision/bitsandbytes.py _Linear4bit",
            "lightning 2.4 plugins/precision/bitsandbytes.py BitsandbytesPrecision.init_context "
            "(_ClassReplacementContextManager replaces torch.nn.Linear unless ignore_modules), "
            "_Linear4bit._quantize_weight (weight.to(dtype=torch.half) before quantize_4bit); "
            "litgpt 00af8b0d finetune/lora.py setup: BitsandbytesPrecision(quantize[4:], dtype)",
            "bitsandbytes 0.42.0 autograd/_functions.py MatMul4Bit: "
            "F.dequantize_4bit(B, quant_state).to(A.dtype) in forward and backward",
        ),
    ),
    FrameworkProfile(
        "ms-swift",
        "ms-swift",
        trains=True,
        serves=False,
        runs_on=_NV,
        runs_on_source=_SWIFT,
        pipeline_source=_PP_SWIFT,
        input_grads_with_recompute=True,  # PEFT's PeftModel
        overhead=OverheadDefaults(500 * MiB, 64 * MiB, 0.05, 256 * MiB),
        autocast_copies=True,
        step_counters=True,
        ddp_buckets=True,
        foreach_scratch=True,
        reports="reserved",
        scenario_defaults=(("parallelism", "recompute", "full"),),
        techniques=(
            "transformers' loss: fp32 upcast of the logits and fp32 log-softmax",
            "gradient checkpointing on by default",
        ),
        sources=(
            "ms-swift 3602360 swift/trainers/arguments.py gradient_checkpointing True; the "
            "model's own loss (transformers 4.51.3 loss/loss_utils.py ForCausalLMLoss: "
            "logits.float(), fp32 log-softmax)",
            "swift/trainers/patcher.py add_train_message -> swift/utils/torch_utils.py "
            "get_max_reserved_memory: 'memory(GiB)' = max of torch.cuda.max_memory_reserved()",
        ),
    ),
    FrameworkProfile(
        "axolotl",
        "axolotl",
        trains=True,
        serves=False,
        runs_on=_NV_AMD,
        runs_on_source=_AXOLOTL,
        pipeline_source=_PP_AXOLOTL,
        input_grads_with_recompute=True,  # PEFT's PeftModel
        overhead=OverheadDefaults(500 * MiB, 64 * MiB, 0.05, 256 * MiB),
        autocast_copies=True,
        step_counters=True,
        ddp_buckets=True,
        foreach_scratch=True,
        reports="reserved",
        scenario_defaults=(("workload", "loss", "fused"),),
        techniques=(
            "Cut Cross Entropy plugin: no logits kept",
            "model sharded before it reaches the GPU (skip_move_to_device)",
            "Liger plugin when a config loads it (liger_rope, liger_rms_norm, "
            "liger_glu_activation): tick rope, rmsnorm, swiglu in workload.fused_kernels",
        ),
        sources=(
            "axolotl 067b021 integrations/cut_cross_entropy (every 2025-26 example config "
            "loads CutCrossEntropyPlugin)",
            "axolotl loaders/model.py _build_model / _apply_post_lora_load_setup: "
            "experimental_skip_move_to_device default True since #3015 (2025-08-06)",
            "examples/gpt-oss/README.md: 'Memory usage taken from device_mem_reserved(gib)'",
        ),
    ),
    FrameworkProfile(
        # Composer (MosaicML) FSDP1 FULL_SHARD over an fp32 model: FSDPConfig mixed_precision
        # 'DEFAULT' casts each gathered unit to the training precision and reduces in fp32;
        # 'PURE' reduces in it too (precision.reduce_dtype bf16), 'FULL' keeps fp32.
        "composer",
        "Composer (MosaicML)",
        trains=True,
        serves=False,
        runs_on=_NV_AMD_APPLE,
        runs_on_source=_COMPOSER,
        pipeline_source=_PP_COMPOSER,
        overhead=OverheadDefaults(550 * MiB, 64 * MiB, 0.05, 384 * MiB),
        step_counters=True,
        gradients="scenario",
        foreach_scratch=True,
        scenario_defaults=(
            ("precision", "weights", "fp32"),
            ("precision", "master_weights", None),
            ("precision", "gradients", "fp32"),
            ("precision", "param_dtype", "bf16"),
            ("precision", "reduce_dtype", "fp32"),
            ("parallelism", "zero_stage", 3),
        ),
        techniques=(
            "FSDP FULL_SHARD, mixed_precision DEFAULT: fp32 shards and AdamW states, each unit "
            "gathered in bf16, gradients reduced in fp32 (PURE: reduce_dtype bf16)",
        ),
        sources=(
            "mosaicml/composer 6405188 composer/distributed/mosaic_parallelism.py "
            "get_mixed_precision (DEFAULT: param and buffer dtype = precision, reduce fp32; "
            "PURE: all in precision); composer/utils/parallelism.py FSDPConfig "
            "mixed_precision 'DEFAULT', sharding_strategy 'FULL_SHARD'",
        ),
    ),
):
    register(_p)
