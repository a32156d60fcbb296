"""Fine-tuning recipes and trainers, as one family of framework profiles: torchtune, Unsloth,
LitGPT, ms-swift, axolotl and Composer (MosaicML).

core/registry/frameworks.py registers them last. Their ``scenario_defaults`` are the recipes'
own defaults, filled in at validation only where the scenario leaves the field out
(core/memory/techniques.py); each entry's ``sources`` names the recipe file or source it was
read from (docs/evidence/training.md); overheads are bytes (MiB = 2^20).
"""

from __future__ import annotations

from .framework_profile import (
    HF_TRAINER,
    NVIDIA_AMD,
    NVIDIA_AMD_APPLE,
    NVIDIA_AMD_INTEL,
    NVIDIA_ONLY,
    FrameworkProfile,
    MiB,
    OverheadDefaults,
)
from .no_sync import LIGHTNING_FABRIC, TRANSFORMERS_TRAINER

# Where it runs: the install docs that list its GPU vendors (FrameworkProfile.runs_on)
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

# Pipeline parallelism: its docs on it (FrameworkProfile.pipeline_training / pipeline_serving)
_PP_TORCHTUNE = (
    "torchtune distributed recipes (full_finetune_distributed, lora_finetune_distributed): "
    "FSDP2 data parallelism (tensor_parallel_dim since v0.6), no pipeline stages"
)
_PP_UNSLOTH = "unsloth: DDP only, one copy of the model on each GPU (its multi-GPU guide)"
_PP_LITGPT = "LitGPT finetune / pretrain: Lightning Fabric's FSDP strategy (--devices), no pipeline schedule"
_PP_SWIFT = (
    "ms-swift's transformers path: DDP, DeepSpeed ZeRO, FSDP; pipeline parallelism only in its "
    "separate Megatron backend (megatron sft), which this profile does not model"
)
_PP_AXOLOTL = "axolotl docs 'Multi-GPU': DeepSpeed ZeRO and FSDP, no pipeline parallelism"
_PP_COMPOSER = "Composer docs 'Distributed training': DDP and FSDP (parallelism_config), no pipeline schedule"

# In the order users see them
FINETUNE_RECIPES: tuple[FrameworkProfile, ...] = (
    FrameworkProfile(
        "torchtune",
        "torchtune",
        trains=True,
        serves=False,
        runs_on=NVIDIA_AMD_INTEL,
        runs_on_source=_TORCHTUNE,
        runs_on_hpu=False,  # Intel's GPUs (XPU), no Gaudi build in _TORCHTUNE
        hpu_source=_TORCHTUNE,
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
        runs_on=NVIDIA_AMD_INTEL,
        runs_on_source=_UNSLOTH,
        runs_on_hpu=False,  # Intel's GPUs (XPU), no Gaudi build in _UNSLOTH
        hpu_source=_UNSLOTH,
        pipeline_source=_PP_UNSLOTH,
        **HF_TRAINER,
        lora_kernels="unsloth",
        own_release_field="workload.unsloth_version",
        amp_upcasts_returned_logits=True,  # a loss keeping the logits: the pre-2024-11 releases
        adapter_fallback=True,
        # any count of whole-model copies: Unsloth's multi-GPU training is DDP, "one copy of
        # the model on each GPU device" (unsloth.ai/docs/basics/multi-gpu-training-with-unsloth/ddp)
        max_gpus=None,
        data_parallel_only=True,  # its multi-GPU runs are DDP (framework_profile.py)
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
            "unsloth/models/llama.py CausalLM_fast_forward before fa8e59eb1b returns the 16-bit "
            "logits; accelerate accelerator.py convert_outputs_to_fp32 (core/memory/amp_outputs.py)",
        ),
        reports="reserved",
    ),
    FrameworkProfile(
        "litgpt",
        "LitGPT",
        trains=True,
        serves=False,
        runs_on=NVIDIA_AMD_APPLE,
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
        no_sync=LIGHTNING_FABRIC,  # fabric.no_backward_sync under FSDPStrategy (core/registry/no_sync.py)
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
        runs_on=NVIDIA_ONLY,
        runs_on_source=_SWIFT,
        pipeline_source=_PP_SWIFT,
        **HF_TRAINER,
        zero_plus_plus=True,  # --zero_hpz_partition_size (ms-swift PR 3315, 2025-02)
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
        runs_on=NVIDIA_AMD,
        runs_on_source=_AXOLOTL,
        pipeline_source=_PP_AXOLOTL,
        **HF_TRAINER,
        no_sync=TRANSFORMERS_TRAINER,  # its trainers subclass transformers' Trainer
        parameter_offload=True,  # fsdp_config fsdp_offload_params (its FSDP QLoRA examples)
        zero_plus_plus=True,  # its deepspeed: JSON configs reach DeepSpeed as they are
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
        runs_on=NVIDIA_AMD_APPLE,
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
)
