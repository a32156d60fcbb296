"""Training stacks, as one family of framework profiles: Hugging Face transformers (which
serves too), Megatron-LM (Megatron-Core and its legacy model), NeMo 2 / Megatron-Bridge,
DeepSpeed, PyTorch FSDP and torchtitan.

core/registry/frameworks.py registers them first, in this order (the first is the default);
:class:`core.registry.framework_profile.FrameworkProfile` says what each field means. Each
entry's ``sources`` names the paper, docs or source file its rules were read from; overheads
are bytes (MiB = 2^20).
"""

from __future__ import annotations

from .framework_profile import (
    HF_TRAINER,
    NVIDIA_AMD,
    NVIDIA_AMD_INTEL,
    VENDORS,
    FrameworkProfile,
    MiB,
    OverheadDefaults,
)
from .no_sync import TRANSFORMERS_TRAINER
from .serving_support import HF_FEATURES

# Where it runs: the install docs that list its GPU vendors (FrameworkProfile.runs_on)
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

# Pipeline parallelism: its docs on it (FrameworkProfile.pipeline_training / pipeline_serving)
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

# In the order users see them (huggingface, the default, first)
TRAINING_STACKS: tuple[FrameworkProfile, ...] = (
    FrameworkProfile(
        "huggingface",
        "Hugging Face transformers",
        trains=True,
        serves=True,
        runs_on=VENDORS,
        runs_on_source=_TORCH,
        pipeline_serving=True,
        pipeline_source=_PP_HF,
        pipeline_device_map_training=True,  # Trainer's is_model_parallel (core/memory/device_map.py)
        # TrainingArguments fsdp "full_shard offload" / a DeepSpeed config's offload_param
        parameter_offload=True,
        zero_plus_plus=True,  # TrainingArguments(deepspeed=...) hands DeepSpeed its zero_optimization
        **HF_TRAINER,
        no_sync=TRANSFORMERS_TRAINER,  # accumulation under FSDP1's no_sync() (core/registry/no_sync.py)
        kv_window_slack=1,
        eager_scores=True,
        mla_latent_decode=False,
        recurrent_state="transformers",
        serving_features=HF_FEATURES,
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
        runs_on=NVIDIA_AMD,
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
        eager_expert_bias=True,
        eager_activation_clamp=True,
        module_recompute=True,
        moe_token_dispatcher=True,
        unfused_scaled_rope=True,
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
        runs_on=NVIDIA_AMD,  # the same Megatron-LM repository and builds as `megatron`
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
        runs_on=NVIDIA_AMD,
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
        eager_expert_bias=True,
        eager_activation_clamp=True,
        module_recompute=True,
        moe_token_dispatcher=True,
        unfused_scaled_rope=True,
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
        runs_on=NVIDIA_AMD_INTEL,
        runs_on_source=_DEEPSPEED,
        pipeline_training=True,
        pipeline_source=_PP_DEEPSPEED,
        pipeline_max_zero=1,
        # Ulysses (deepspeed/runtime/sequence_parallel/ulysses_sp.py UlyssesSPAttentionHF,
        # v0.19.5): "Attention head count ... is not divisible by SP size"
        context_splits_heads=True,
        overhead=OverheadDefaults(600 * MiB, 128 * MiB, 0.05, 512 * MiB),
        autocast_copies=True,
        step_counters=True,
        gradients="scenario",
        fp32_step_gradients=True,
        host_grad_accumulation=True,
        parameter_offload=True,  # zero_optimization.offload_param (ZeRO-3; docs, config-json)
        reduce_every_backward=True,
        zero_plus_plus=True,  # deepspeed/runtime/zero/config.py zero_hpz_partition_size, ...
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
        runs_on=NVIDIA_AMD_INTEL,
        runs_on_source=_FSDP,
        pipeline_source=_PP_FSDP,
        overhead=OverheadDefaults(550 * MiB, 64 * MiB, 0.05, 384 * MiB),
        autocast_copies=True,
        step_counters=True,
        gradients="scenario",
        foreach_scratch=True,
        parameter_offload=True,  # CPUOffload(offload_params=True) / FSDP2 CPUOffloadPolicy
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
        runs_on=NVIDIA_AMD,
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
        fsdp2=True,
        parameter_offload=True,  # training.enable_cpu_offload: FSDP2 CPUOffloadPolicy
        scenario_defaults=(
            ("precision", "weights", "fp32"),
            ("precision", "master_weights", None),
            ("precision", "gradients", "fp32"),
            # apply_fsdp MixedPrecisionPolicy(param_dtype, reduce_dtype) from config_manager.py
            # --training.mixed_precision_param bfloat16, --training.mixed_precision_reduce float32
            ("precision", "param_dtype", "bf16"),
            ("precision", "reduce_dtype", "fp32"),
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
)
