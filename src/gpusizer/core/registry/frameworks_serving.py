"""Serving engines, as one family of framework profiles: vLLM, SGLang, TensorRT-LLM,
llama.cpp / Ollama and Apple MLX (mlx-lm, which also fine-tunes with LoRA).

core/registry/frameworks.py registers them after the training stacks; each carries its releases
(core/registry/engine_releases*.py, oldest first, the last the default). Each entry's ``sources``
names the evidence (docs/evidence/serving.md) its rules were read from; overheads are bytes
(MiB = 2^20).
"""

from __future__ import annotations

from .engine_releases import VLLM
from .engine_releases_cpp import LLAMA_CPP, TENSORRT_LLM
from .engine_releases_mlx import MLX_LM
from .engine_releases_sglang import SGLANG
from .framework_profile import (
    APPLE_ONLY,
    NVIDIA_AMD_INTEL,
    NVIDIA_ONLY,
    VENDORS,
    FrameworkProfile,
    MiB,
    OverheadDefaults,
)
from .long_context import SGLANG_CONTEXT, TRTLLM_CONTEXT, VLLM_CONTEXT
from .serving_support import (
    LLAMA_CPP_FEATURES,
    MLX_FEATURES,
    SGLANG_FEATURES,
    TRTLLM_FEATURES,
    VLLM_FEATURES,
)

# Where it runs: the install docs that list its GPU vendors (FrameworkProfile.runs_on)
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
_GGML_NO_HPU = (
    "llama.cpp README 'Supported backends' (2026 tree): SYCL 'Intel and Nvidia GPU', OpenVINO "
    "'Intel CPUs, GPUs, and NPUs', Vulkan 'GPU'; no backend drives an Intel Gaudi HPU"
)
_MLX = (
    "ml-explore.github.io/mlx install: Apple silicon (M series), macOS 14 or newer; MLX's Linux "
    "CUDA backend (pip install mlx[cuda12]) exists, but this profile's rules are Apple's (the "
    "Metal kernels' rates of core/speed/rates_mlx.py, the unified pool's wired limit)"
)

# Pipeline parallelism: its docs on it (FrameworkProfile.pipeline_training / pipeline_serving)
_PP_VLLM = "vLLM docs 'Parallelism and scaling': --pipeline-parallel-size (-pp)"
# sgl-kernel's ROCm build targets the CDNA3 and CDNA4 Instinct GPUs alone: gfx942 (MI300X,
# MI325X) and gfx950 (MI350X, MI355X); CDNA2 (MI210, MI250X), Radeon and the Ryzen APUs are not
# built for ("SGLang officially supports only CDNA Instinct parts (gfx942 / gfx950) plus gfx1250",
# the sglang-radeon-rdna3 package that patches that allowlist; sgl-project/sglang#11195)
_SGLANG_AMD = "sgl-project/sglang sgl-kernel/setup_rocm.py: gfx942 and gfx950"
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

# In the order users see them
SERVING_ENGINES: tuple[FrameworkProfile, ...] = (
    FrameworkProfile(
        "vllm",
        "vLLM",
        trains=False,
        serves=True,
        runs_on=NVIDIA_AMD_INTEL,
        runs_on_source=_VLLM,
        pipeline_serving=True,
        pipeline_source=_PP_VLLM,
        replicates_tp_projections=True,
        # context 500 MiB and NCCL 1 GiB at TP > 1: the TP 4 init snapshot of vLLM 0.19 shows
        # 1.55 GiB in use before the weights load (llm-d planner logs; outside the budget)
        overhead=OverheadDefaults(500 * MiB, 0, 0.0, 1024 * MiB),
        memory_rule="profiled_pool",
        releases=VLLM,
        serving_features=VLLM_FEATURES,
        attention_data_flag="--data-parallel-size with --enable-expert-parallel",
        expert_in_tensor_flag="--enable-expert-parallel",
        moe_lora_expert_parallel=False,
        long_context=VLLM_CONTEXT,
        moe_topk_sum=True,
        eplb_groups=True,
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
        runs_on=NVIDIA_AMD_INTEL,
        runs_on_source=_SGLANG,
        amd_families=("cdna3", "cdna4"),
        amd_source=_SGLANG_AMD,
        pipeline_serving=True,
        pipeline_source=_PP_SGLANG,
        overhead=OverheadDefaults(500 * MiB, 0, 0.0, 1024 * MiB),
        memory_rule="static_pool",
        # the SSM / delta-rule state in fp32 unless the model's config or --mamba-ssm-dtype
        # says otherwise (core/model/state.py: server_args.py mamba_ssm_dtype "float32",
        # configs/mamba_utils.py mamba2_state_dtype)
        recurrent_state_dtype="fp32",
        releases=SGLANG,
        serving_features=SGLANG_FEATURES,
        attention_data_flag="--enable-dp-attention --dp N",
        expert_in_tensor_flag="--ep N within --tp",
        scheduler_knobs=frozenset({"recv_interval", "max_prefill", "two_batch_overlap"}),
        eplb_groups=True,
        triton_moe_config_tiles=True,
        long_context=SGLANG_CONTEXT,
        sources=("docs/evidence/serving.md §2 (sglang 0.4.3, 0.5.3, 0.5.23)",),
    ),
    FrameworkProfile(
        "tensorrt-llm",
        "TensorRT-LLM",
        trains=False,
        serves=True,
        runs_on=NVIDIA_ONLY,
        runs_on_source=_TRTLLM,
        pipeline_serving=True,
        pipeline_source=_PP_TRTLLM,
        overhead=OverheadDefaults(500 * MiB, 0, 0.0, 1024 * MiB),
        memory_rule="free_pool",
        releases=TENSORRT_LLM,
        serving_features=TRTLLM_FEATURES,
        attention_data_flag="enable_attention_dp",
        expert_in_tensor_flag="moe_expert_parallel_size",
        scheduler_knobs=frozenset({"batch_wait", "attention_dp_balance"}),
        long_context=TRTLLM_CONTEXT,
        sources=("docs/evidence/serving.md §3 (KvCacheConfig docs)",),
    ),
    FrameworkProfile(
        "llama.cpp",
        "llama.cpp / Ollama",
        trains=False,
        serves=True,
        runs_on=VENDORS,
        runs_on_source=_GGML,
        runs_on_hpu=False,
        hpu_source=_GGML_NO_HPU,
        pipeline_serving=True,
        pipeline_source=_PP_GGML,
        # the compute buffers are computed (core/serving/offload.py); the context is CUDA's
        overhead=OverheadDefaults(300 * MiB, 0, 0.0, 0),
        memory_rule="layer_offload",
        tp_splits_heads=False,
        # the recurrent cache in fp32 whatever the weights: llama.cpp src/llama-model.cpp
        # create_memory, recurrent_type_s GGML_TYPE_F32 (core/model/state.py)
        recurrent_state_dtype="fp32",
        releases=LLAMA_CPP,
        serving_features=LLAMA_CPP_FEATURES,
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
        runs_on=APPLE_ONLY,
        runs_on_source=_MLX,
        pipeline_serving=True,
        pipeline_source=_PP_MLX,
        # "Peak memory" is mx.get_peak_memory(): MLX's own buffers, no CUDA context or
        # workspace (the Metal device's few MB and Python sit outside the wired pool)
        overhead=OverheadDefaults(0, 0, 0.0, 0),
        kernels="mlx",
        attention_vjp_scores=3,  # no fused SDPA backward on Metal (core/memory/attention_vjp.py)
        # mlx v0.24.0 - v0.32.0 sdpa_full_supported_head_dim (core/memory/attention_unfused.py)
        fused_attention_head_dims=(64, 80, 128),
        prefill_chunk_tokens=2048,
        kv_step_tokens=256,
        rotating_kv=True,
        releases=MLX_LM,
        serving_features=MLX_FEATURES,
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
            "ml-explore/mlx v0.24.0 mlx/fast.cpp Custom::vjp (the SDPA backward differentiates the unfused "
            "fallback: L x L scores per layer), still so on Metal at v0.32.1",
        ),
    ),
)
