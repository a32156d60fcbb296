"""Megatron-Core option names a scenario written from a 2025-26 Megatron, Megatron-Bridge or
verl (``actor.megatron.override_transformer_config``, ``actor.optim.override_optimizer_config``)
recipe may carry under ``parallelism`` or ``precision``, with the one-line answer a refusal
gives in place of "unknown field (check the spelling)": the field that states the setting, or
what is not modelled and what to state (docs/evidence/training.md, "Real runs the estimate
refused, round 4").

Sources: Megatron-LM ``megatron/core/transformer/transformer_config.py``
(``num_layers_in_first_pipeline_stage``, ``num_layers_in_last_pipeline_stage``,
``account_for_embedding_in_pipeline_split``, ``account_for_loss_in_pipeline_split``,
``pipeline_model_parallel_layout``, ``recompute_granularity`` / ``recompute_method`` /
``recompute_num_layers``, ``moe_token_dispatcher_type``, ``moe_enable_deepep``,
``moe_router_dtype``, ``cpu_offloading``, ``fp8`` / ``fp8_recipe`` / ``fp4``) and
``megatron/core/optimizer/optimizer_config.py`` (``optimizer_cpu_offload``,
``optimizer_offload_fraction``, ``use_precision_aware_optimizer``,
``overlap_cpu_optimizer_d2h_h2d``, ``use_distributed_optimizer``); the recipes that set them:
volcengine/verl@144f58a5 ``examples/grpo_trainer/run_qwen3-235b_megatron_96gb.sh``, @2e67e210
``run_deepseek671b_math_megatron_80gb.sh``, @0d122e11
``customer_run_gptoss_20b_megatron_backend.sh``.
"""

from __future__ import annotations

_UNEVEN = (
    "Megatron's uneven pipeline split (first / last stage layer counts, embedding or loss "
    "counted as a layer, a layout string) is not modelled: every stage is priced at "
    "ceil(layers / parallelism.pipeline) layers with the embedding on the first and the head "
    "on the last, an upper bound where the ends hold fewer; leave it out"
)
_CPU_OPTIMIZER = (
    "Megatron's optimizer_cpu_offload (HybridDeviceOptimizer, optimizer_offload_fraction 1: "
    "master weights and states in host memory, the step on the CPU): state "
    "parallelism.offload_optimizer true; a fraction below 1 is not modelled"
)
_RECOMPUTE = (
    "state parallelism.recompute: full (recompute_granularity full, recompute_method uniform, "
    "recompute_num_layers 1: each layer's input kept) or selective; a block recompute of fewer "
    "layers than a stage holds is not modelled (parallelism.recompute_modules names modules)"
)
_DISPATCHER = (
    "state parallelism.expert_dispatcher: alltoall, deepep or hybridep (Megatron's "
    "--moe-token-dispatcher-type alltoall, or flex with --moe-flex-dispatcher-backend); "
    "allgather is not modelled"
)
_FP8 = (
    "state precision.matmuls fp8 (Megatron --fp8-format e4m3 / hybrid with any --fp8-recipe: "
    "the Linear GEMMs in FP8); NVFP4 (--fp4-format e2m1) is not modelled"
)
_VERL_OFFLOAD = (
    "verl's param / grad / optimizer offload between phases: state rl.offload_states true "
    "(colocated RL); in training alone, parallelism.offload_parameters / offload_optimizer"
)

MEGATRON_FIELDS: dict[str, str] = {
    **{
        f"parallelism.{name}": _UNEVEN
        for name in (
            "num_layers_in_first_pipeline_stage",
            "num_layers_in_last_pipeline_stage",
            "decoder_first_pipeline_num_layers",
            "decoder_last_pipeline_num_layers",
            "account_for_embedding_in_pipeline_split",
            "account_for_loss_in_pipeline_split",
            "pipeline_model_parallel_layout",
        )
    },
    "parallelism.optimizer_cpu_offload": _CPU_OPTIMIZER,
    "parallelism.optimizer_offload_fraction": _CPU_OPTIMIZER,
    "parallelism.overlap_cpu_optimizer_d2h_h2d": (
        "the offloaded optimizer's copies overlapped with its step are not modelled; leave it "
        "out (state parallelism.offload_optimizer true for optimizer_cpu_offload)"
    ),
    "parallelism.use_precision_aware_optimizer": (
        "state the dtypes it sets: precision.master_weights (main_params_dtype) and "
        "precision.optimizer_states (exp_avg_dtype); at their fp32 defaults leave it out"
    ),
    "parallelism.use_distributed_optimizer": (
        "state parallelism.zero_stage 1 (Megatron's distributed optimizer: master weights and "
        "states sharded over the data-parallel ranks), or 0 for false"
    ),
    "parallelism.recompute_granularity": _RECOMPUTE,
    "parallelism.recompute_method": _RECOMPUTE,
    "parallelism.recompute_num_layers": _RECOMPUTE,
    "parallelism.moe_token_dispatcher_type": _DISPATCHER,
    "parallelism.moe_enable_deepep": _DISPATCHER,
    "parallelism.moe_flex_dispatcher_backend": _DISPATCHER,
    "parallelism.moe_router_dtype": (
        "the router's FP32 logits are not priced apart from the layer's; leave it out"
    ),
    "parallelism.cpu_offloading": (
        "Megatron's --cpu-offloading of layers' activations: state parallelism.activation_offload "
        "all (every layer's saved tensors in host RAM, about one layer in flight)"
    ),
    "parallelism.expert_tensor_parallel_size": "state parallelism.expert_tensor",
    "parallelism.param_offload": _VERL_OFFLOAD,
    "parallelism.grad_offload": _VERL_OFFLOAD,
    "parallelism.optimizer_offload": _VERL_OFFLOAD,
    "precision.fp8": _FP8,
    "precision.fp8_recipe": _FP8,
    "precision.fp4": _FP8,
}


def megatron_field_hint(path: str) -> str | None:
    """The refusal's line for a Megatron-Core option name at ``path``; None: not one."""
    return MEGATRON_FIELDS.get(path)
