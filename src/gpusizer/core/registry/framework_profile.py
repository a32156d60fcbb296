"""What a framework profile is: :class:`FrameworkProfile` (its :class:`OverheadDefaults` and the
GPU vendors a profile may run on are core/registry/framework_defaults.py, whose names stay
importable from here; its queries of its own fields, core/registry/profile_queries.py).

A training framework or a serving engine is one profile; the estimator reads its properties,
never its id. The entries live by family in core/registry/frameworks_training.py,
frameworks_serving.py and frameworks_finetune.py; core/registry/frameworks.py is the registry.

Sources of the defaults (per entry below):
- Runtime overhead: core/registry/framework_defaults.py (``OverheadDefaults``).
- Activation layouts: core/memory/activations.py (transformers' saved tensors, measured; Megatron-LM
  after Korthikanti et al. 2022, arXiv 2205.05198).
- Training recipes (torchtune, Unsloth) and their defaults: docs/evidence/training.md, with the
  recipe files cited per entry. ``scenario_defaults`` are filled in at validation only where the
  scenario leaves the field out (core/memory/techniques.py), so the report's echo states them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .engines import EngineRelease
from .framework_defaults import APPLE_ONLY as APPLE_ONLY  # the "as" names: importable from here
from .framework_defaults import HF_TRAINER as HF_TRAINER
from .framework_defaults import NVIDIA_AMD as NVIDIA_AMD
from .framework_defaults import NVIDIA_AMD_APPLE as NVIDIA_AMD_APPLE
from .framework_defaults import NVIDIA_AMD_INTEL as NVIDIA_AMD_INTEL
from .framework_defaults import NVIDIA_ONLY as NVIDIA_ONLY
from .framework_defaults import VENDORS, OverheadDefaults
from .framework_defaults import MiB as MiB
from .long_context import LongContextRule
from .no_sync import NoSyncRule
from .profile_queries import ProfileQueries
from .serving_support import FeatureTable


@dataclass(frozen=True)
class FrameworkProfile(ProfileQueries):
    """One framework's memory rules. Training fields apply to training kinds, serving fields
    to inference; each flag's docstring-comment names the mechanism it stands for. What it
    answers of them (its releases' features, vendors, kinds): core/registry/profile_queries.py."""

    id: str
    label: str
    trains: bool
    serves: bool
    overhead: OverheadDefaults
    # GPU vendors it runs on (VENDORS spelling) and the install docs that say so: estimate
    # refuses another catalog vendor's GPU, the sizing ranks only these (core/pipeline/runs_on.py)
    runs_on: tuple[str, ...] = VENDORS
    runs_on_source: str = ""
    # Whether it has a build for Intel Gaudi HPUs (GPUSpec.hpu), which Intel's vendor name
    # alone does not say: vLLM (the vllm-gaudi plugin), SGLang (HabanaAI/sglang-fork), DeepSpeed,
    # FSDP and transformers do; ``hpu_source`` the docs that name Intel's GPUs only
    runs_on_hpu: bool = True
    hpu_source: str = ""
    # The AMD architectures its ROCm build compiles its kernels for (core/speed/gpu_family.py
    # keys: "cdna3", "cdna4"); empty: every AMD GPU. An AMD GPU of another architecture is left
    # out as another vendor's is (core/pipeline/runs_on.py); ``amd_source`` names the build
    amd_families: tuple[str, ...] = ()
    amd_source: str = ""
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
    # Training with parallelism.pipeline > 1 where no pipeline schedule exists: layers spread
    # over the GPUs by device_map, run one after another (core/memory/device_map.py)
    pipeline_device_map_training: bool = False
    # Context parallelism by attention heads (DeepSpeed Ulysses): each of the
    # ``parallelism.context`` ranks attends over the whole sequence with its share of the heads,
    # so the heads must divide evenly (core/pipeline/validate_context.py); False: ring
    # attention over sequence chunks (Megatron-Core, torch context_parallel), any head count.
    context_splits_heads: bool = False
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
    # DeepSpeed ZeRO-1/2 with ``offload_optimizer``: each backward after the first of a step
    # copies the accumulated 16-bit gradient partition up from its pinned host buffer, adds the
    # new one on the GPU and copies it back down (stage_1_and_2.py ``copy_grads_in_partition``,
    # ``async_accumulate_grad_in_cpu_via_gpu``); core/speed/offload_grads.py prices it.
    host_grad_accumulation: bool = False
    # Its sharded weights can live in host RAM (``parallelism.offload_parameters``: FSDP's
    # CPUOffload(offload_params=True), DeepSpeed ZeRO-3 offload_param); the advice's ladder turns
    # it on only here (core/sizing/savings.py), core/speed/param_offload.py prices the copies.
    parameter_offload: bool = False
    # ZeRO-2 reduces all of its gradients in every backward, not once a step (DeepSpeed
    # stage_1_and_2.py ``reduce_ready_partitions_and_remove_grads``); core/speed/zero2_reduce.py
    reduce_every_backward: bool = False
    # It runs DeepSpeed's ZeRO-3, so ZeRO++ (hpZ, qwZ, qgZ) applies (core/memory/zeropp.py):
    # DeepSpeed itself and the stacks that hand it their ZeRO config (transformers Trainer,
    # ms-swift, axolotl)
    zero_plus_plus: bool = False
    # Its tables' own memory line: "allocated" (torch.cuda.max_memory_allocated, tensors only)
    # or "reserved" (max_memory_reserved: the caching allocator's segments, not the CUDA
    # context or NCCL's buffers); "" when it prints none (core/memory/overhead.py reported_bytes)
    reports: Literal["", "allocated", "reserved"] = ""
    # Score-sized [batch, heads, L, L] arrays one layer's attention backward holds where the
    # framework has no fused attention backward (MLX on Metal differentiates its SDPA's unfused
    # fallback: 3, core/memory/attention_vjp.py); 0: a fused kernel keeps none
    attention_vjp_scores: int = 0
    # The head sizes its attention forward runs fused; another size (or query and value heads
    # of different sizes) runs unfused and builds the score matrix (MLX: 64, 80, 128,
    # core/memory/attention_unfused.py); None: every head size is fused
    fused_attention_head_dims: tuple[int, ...] | None = None
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
    # Its forward returns the 16-bit logits its loss keeps (Unsloth before Cut Cross-Entropy),
    # which the Trainer's Accelerate AMP wrapper converts to fp32 (``convert_outputs_to_fp32``):
    # 4 B per logit at the forward's end for a loss that keeps them (core/memory/amp_outputs.py)
    amp_upcasts_returned_logits: bool = False
    # It runs the model through the transformers Trainer, whose Accelerate wraps the forward in
    # ``convert_outputs_to_fp32`` under fp16 / bf16 AMP (not under DeepSpeed): TRL's reference
    # forward returns its logits as an fp32 copy (core/memory/amp_outputs.py reference_logits)
    trainer_amp_wrapper: bool = False
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
    # The routed experts' output bias added outside the GEMM, one eager ``t + b * p`` per local
    # expert and a ``torch.cat`` (Megatron-Core ``TEGroupedMLP._apply_bias``, fc2 built with
    # ``skip_bias_add=True``); core/speed/train_ops.py ``expert_bias_bytes``.
    eager_expert_bias: bool = False
    # A clamped gated activation (``ModelSpec.activation_clamp``) clamps its two halves and
    # concatenates them eagerly before the fused activation kernel (Megatron-Core
    # ``weighted_bias_quick_geglu_impl``); core/speed/train_ops.py ``activation_clamp_bytes``.
    eager_activation_clamp: bool = False
    # Honours ``parallelism.recompute_modules`` (Megatron-Core ``--recompute-modules``): the
    # memory it frees and, in the backward, the rebuild (core/speed/train_recompute.py).
    module_recompute: bool = False
    # Runs Megatron-Core's MoE token dispatcher, whose choice (all-to-all, DeepEP, HybridEP:
    # ``--moe-token-dispatcher-type``, ``--moe-flex-dispatcher-backend``) and batch-level EP
    # all-to-all overlap (``--overlap-moe-expert-parallel-comm``) are the scenario's
    # ``parallelism.expert_dispatcher`` and ``expert_overlap`` (Megatron-LM
    # megatron/training/arguments.py); the GUI shows those rows only for such a framework, and
    # the advice weighs Megatron-Core's own expert TP (``--expert-tensor-parallel-size``,
    # core/sizing/layout_etp.py) only there.
    moe_token_dispatcher: bool = False
    # RoPE with YaRN scaling runs Megatron-Core's unfused ``_apply_rotary_pos_emb_bshd``
    # (Megatron-Bridge ``validate_rope_fusion_compatibility`` turns the fusion off for any
    # position embedding but plain "rope"; TE's fused RoPE refuses YaRN's mscale != 1);
    # core/speed/train_ops.py ``unfused_rope_bytes``.
    unfused_scaled_rope: bool = False
    # Bytes per value of the data-parallel gradient reduction (None: the gradient dtype).
    grad_reduce_bytes: int | None = None
    # ZeRO-1/2: the updated parameters' all-gather overlaps the next forward (Megatron
    # --overlap-param-gather); False: it follows the optimizer step (DeepSpeed).
    param_gather_overlap: bool = True
    # ZeRO-3 under pipeline parallelism keeps the stage's parameters gathered (activation
    # dtype) and its gradients unsharded (reduce dtype) across micro-batches (torchtitan
    # apply_fsdp: reshard_after_forward=False when PP is on; FSDP2 accumulates in reduce_dtype).
    pipeline_gathered: bool = False
    # ZeRO-3 runs FSDP2 (``fully_shard``) whatever ``parallelism.fsdp_version`` says: its
    # per-group reduce-scatter buffers (core/memory/fsdp2_buffers.py; torchtitan apply_fsdp)
    fsdp2: bool = False
    # Its gradient accumulation runs FSDP1's no_sync() by default: ``parallelism.fsdp_no_sync``
    # where the scenario leaves it out (core/registry/no_sync.py, core/memory/no_sync_default.py)
    no_sync: NoSyncRule | None = None
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
    # MLA's down-projections and the MoE router stay whole on every TP rank (vLLM
    # deepseek_v2.py: disable_tp=True / ReplicatedLinear; core/serving/tp_replicated.py)
    replicates_tp_projections: bool = False
    # False: ``parallelism.tensor`` GPUs each hold whole layers or a share of every matrix's
    # rows, never whole attention heads, so TP need not divide the heads (llama.cpp's
    # --split-mode layer / row; core/pipeline/validate_layout.py ``_check_tensor``)
    tp_splits_heads: bool = True
    # Hybrid models' recurrent state (core/model/state.py): "transformers" keeps the whole conv
    # kernel and an fp32 recurrent state; "engine" (vLLM) kernel - 1 inputs, model dtype.
    recurrent_state: Literal["transformers", "engine"] = "engine"
    # The "engine" layout's recurrent (SSM / delta-rule) state dtype where the model states
    # none: None keeps the model dtype (vLLM's mamba_ssm_cache_dtype "auto"); SGLang "fp32"
    # (core/model/state.py)
    recurrent_state_dtype: str | None = None
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
    # The engine's switch for routed experts sharded whole over the tensor-parallel ranks with
    # attention and dense weights at TP (``parallelism.expert`` dividing tensor x data, serving;
    # core/serving/expert_in_tensor.py); "" where it has none.
    expert_in_tensor_flag: str = ""
    # The serving features it runs, each feature's modes with its switch and source
    # (core/registry/serving_support.py); a release may carry its own (Ollama's). None: not a
    # serving engine (nothing is judged).
    serving_features: FeatureTable | None = None
    # The engine's own scheduler settings a scenario may set (core/pipeline/validate_sched.py):
    # "batch_wait" (TensorRT-LLM's batch_wait_timeout_iters / _max_tokens_ratio, core/serving/
    # batch_wait.py), "attention_dp_balance" (its attention_dp_config, core/serving/adp_balance.py),
    # "recv_interval" (SGLang's --scheduler-recv-interval, core/serving/recv_poll.py),
    # "max_prefill" (SGLang's --max-prefill-tokens, core/serving/prefill_cap.py),
    # "two_batch_overlap" (SGLang's --enable-two-batch-overlap, core/speed/step_tbo.py)
    scheduler_knobs: frozenset[str] = frozenset()
    # True: its fused MoE writes each token's top-k expert outputs unreduced and sums them in a
    # kernel of its own after the second GEMM (vLLM fused_moe.py ``intermediate_cache3`` then
    # ``moe_sum``; core/speed/step_moe.py ``_topk_sum``)
    moe_topk_sum: bool = False
    # True: its Triton fused MoE launches at the tiles of its own config files, its default
    # config where none is tuned (SGLang's fused_moe_triton ``get_default_config`` and
    # ``configs/triton_3_4_0``; core/speed/sglang_moe_tiles.py)
    triton_moe_config_tiles: bool = False
    # True: its EPLB places redundant experts by deepseek-ai/EPLB's ``rebalance_experts`` with
    # the checkpoint's expert groups and the launch's nodes, so hierarchically where the nodes
    # divide the groups (SGLang ``init_by_eplb``: ``num_groups``, ``server_args.nnodes``; vLLM
    # eplb_state.py: ``model.num_expert_groups``, ``get_node_count()``;
    # core/speed/eplb_hierarchical.py). False: a group-blind placement (TensorRT-LLM's
    # ``do_replication`` / ``do_placement`` take no groups) or none.
    eplb_groups: bool = False
    # False: its LoRA layer on MoE experts refuses expert parallelism, which its attention data
    # parallelism switches on too (vLLM vllm/lora/layers/fused_moe.py ``FusedMoEWithLoRA``:
    # ``assert not self.base_layer.use_ep``; core/serving/lora_serving.py check_lora).
    moe_lora_expert_parallel: bool = True
    # The engine's rule for a ``serving.max_context`` past the model's own length: the length
    # it derives (its default context), what it does past it, its switch
    # (core/registry/long_context.py, core/serving/context_limit.py); None: any length.
    long_context: LongContextRule | None = None
    # The sizing advisor's last rung for LoRA and QLoRA (core/sizing/savings.py): switch to
    # this framework with its defaults, on at most ``max_gpus`` GPUs (None: any number).
    adapter_fallback: bool = False
    max_gpus: int | None = None
    # Training on several GPUs runs only DDP: each GPU holds the whole model and optimizer, no
    # tensor, pipeline, context or expert split and no ZeRO / FSDP sharding (the sizing's
    # search tries DP only, ZeRO 0; core/sizing/layout_space.py). Unsloth: its multi-GPU guide
    # (unsloth.ai/docs/basics/multi-gpu-training-with-unsloth/ddp) is DDP, "one copy of the
    # model on each GPU device".
    data_parallel_only: bool = False
    # The field naming this framework's own release where it changes answers ("": none)
    own_release_field: str = ""  # Unsloth: workload.unsloth_version (core/registry/unsloth_releases.py)
    sources: tuple[str, ...] = ()
