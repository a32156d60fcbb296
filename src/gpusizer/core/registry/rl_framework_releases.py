"""RL frameworks' releases: the ``rl.*`` knobs each release sets by default (registered by
core/registry/rl_frameworks.py; the scenario's ``rl.framework`` and ``rl.framework_version``).

Each release lists only what its default configuration fixes for every run, read at its git
tag (the local mirrors of NVIDIA-NeMo/RL, verl-project/verl and OpenRLHF/OpenRLHF); a knob that
a recipe or launch script sets on its own (NeMo RL's ``async_engine`` true in its DeepSeek V3
recipes, verl's ``param_offload`` in a tuning script) is not a framework default and stays the
user's to set. A release is listed only where a default changes, oldest first, the last the
newest modelled; a version between two takes the older one's (core/registry/engines.py
``release``). Paths are relative to the scenario's ``rl`` block.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RLDefault:
    """One knob's default: ``path`` under ``rl`` (``rollout.memory_fraction``), its value, and
    the file and tag it was read from."""

    path: str
    value: object
    source: str


@dataclass(frozen=True)
class RLRelease:
    """A release whose defaults differ from the one before: its version as the framework tags
    it (without the ``v``), the tag's month and the knobs it sets."""

    version: str
    date: str
    defaults: tuple[RLDefault, ...]

    def value(self, path: str) -> object:
        """The default of ``path`` (KeyError when this release leaves it alone)."""
        for d in self.defaults:
            if d.path == path:
                return d.value
        raise KeyError(path)


def _changed(base: RLRelease, version: str, date: str, *changes: RLDefault) -> RLRelease:
    """``base`` with ``changes`` replacing (or adding) knobs: the next release's table."""
    paths = {c.path for c in changes}
    kept = tuple(d for d in base.defaults if d.path not in paths)
    return RLRelease(version, date, (*kept, *changes))


_NEMO_YAML = "examples/configs/grpo_math_1B.yaml"
_NEMO_WORKER = "nemo_rl/models/generation/vllm/vllm_worker.py"
# NeMo RL v0.3.1: vLLM's settings, packing and the Megatron worker's moves (its Megatron
# options live in grpo_math_1B_megatron.yaml at this tag: not framework-wide, not set)
_NEMO_031 = RLRelease(
    "0.3.1",
    "2025-08",
    (
        RLDefault(
            "rollout.memory_fraction", 0.6, f"{_NEMO_YAML} vllm_cfg.gpu_memory_utilization 0.6 (v0.3.1)"
        ),
        RLDefault("rollout.cuda_graphs", True, f"{_NEMO_YAML} vllm_cfg.enforce_eager False (v0.3.1)"),
        RLDefault(
            "rollout.returns_logprobs",
            True,
            "nemo_rl/models/generation/vllm.py generate: SamplingParams(logprobs=0) (v0.3.1)",
        ),
        RLDefault(
            "rollout.copies_logprobs",
            True,
            f"{_NEMO_YAML} vllm_cfg.async_engine false; vllm.py generate copies each token's log-prob "
            "into full_logprobs[position] (v0.3.1)",
        ),
        RLDefault(
            "rollout.detokenize_in_step",
            False,
            "nemo_rl/models/generation/__init__.py: skip_tokenizer_init True without stop strings "
            f"({_NEMO_YAML} stop_strings null) (v0.3.1)",
        ),
        RLDefault(
            "rollout.sleep_level", 1, "nemo_rl/models/generation/vllm.py: self.llm.sleep(level=1) (v0.3.1)"
        ),
        RLDefault(
            "policy.sequence_packing", True, f"{_NEMO_YAML} policy.sequence_packing.enabled True (v0.3.1)"
        ),
        RLDefault(
            "policy.micro_batch_unit",
            "row",
            f"{_NEMO_YAML} sequence_packing.train_mb_tokens = max_total_sequence_length x "
            "train_micro_batch_size (v0.3.1)",
        ),
        RLDefault(
            "policy.old_logprobs", True, "nemo_rl/algorithms/grpo.py: prev_logprobs every step (v0.3.1)"
        ),
        RLDefault(
            "policy.offload_per_call",
            False,
            "nemo_rl/models/policy/megatron_policy_worker.py: offload_before_refit / "
            "offload_after_refit once a step (v0.3.1)",
        ),
        RLDefault(
            "reference.offload",
            True,
            "nemo_rl/models/policy/megatron_policy_worker.py use_reference_model: the reference "
            "swapped in from host memory for its forward (v0.3.1)",
        ),
        RLDefault(
            "offload_memory",
            "pageable",
            "nemo_rl/models/policy/megatron_policy_worker.py: optimizer state[k] = v.to('cpu') (v0.3.1)",
        ),
        RLDefault(
            "sync_transport",
            None,
            "nemo_rl/models/policy/megatron_policy_worker.py: no packed_broadcast_producer, the "
            "gathered model from training rank 0 (v0.3.1)",
        ),
    ),
)
# v0.4.0: the packed collective refit, Megatron options in grpo_math_1B.yaml, the tokenizer
# forced on for vLLM 0.10.0. bias_activation_fusion has no key at this tag: Megatron-Bridge's
# provider default, false for Qwen3 and true for Llama (model-dependent, so not set here).
_NEMO_040 = _changed(
    _NEMO_031,
    "0.4.0",
    "2025-11",
    RLDefault(
        "rollout.detokenize_in_step",
        True,
        f"{_NEMO_WORKER}: skip_tokenizer_init=False forced ('vllm==0.10.0 breaks "
        "skip_tokenizer_init=True'), engine core in process (VLLM_ENABLE_V1_MULTIPROCESSING 0) (v0.4.0)",
    ),
    RLDefault(
        "sync_transport",
        "collective",
        "nemo_rl/models/policy/megatron_policy_worker.py broadcast_weights_for_collective: "
        "packed_broadcast_producer (v0.4.0)",
    ),
    RLDefault(
        "policy.moe_permute_fusion", False, f"{_NEMO_YAML} megatron_cfg.moe_permute_fusion false (v0.4.0)"
    ),
    RLDefault("policy.fp32_logprobs", True, f"{_NEMO_YAML} megatron_cfg.defer_fp32_logits False (v0.4.0)"),
    RLDefault(
        "policy.expert_routing",
        "router",
        f"{_NEMO_YAML} megatron_cfg.moe_router_load_balancing_type 'none', freeze_moe_router true (v0.4.0)",
    ),
)
# v0.5.0: skip_tokenizer_init respected again; SwiGLU fused in grpo_math_1B.yaml (PR #1241)
_NEMO_050 = _changed(
    _NEMO_040,
    "0.5.0",
    "2026-01",
    RLDefault(
        "rollout.detokenize_in_step",
        False,
        f"{_NEMO_WORKER}: skip_tokenizer_init from the config (True without stop strings) (v0.5.0)",
    ),
    RLDefault(
        "policy.bias_activation_fusion",
        True,
        f"{_NEMO_YAML} megatron_cfg.bias_activation_fusion True (v0.5.0)",
    ),
)
# v0.6.0 changes none of these (grpo_math_1B.yaml and vllm_worker.py read the same): 0.5.0's
_NEMO_070 = _changed(
    _NEMO_050,
    "0.7.0",
    "2026-07",
    RLDefault(
        "policy.moe_permute_fusion", True, f"{_NEMO_YAML} megatron_cfg.moe_permute_fusion true (v0.7.0)"
    ),
)
NEMO_RL: tuple[RLRelease, ...] = (_NEMO_031, _NEMO_040, _NEMO_050, _NEMO_070)

_VERL_YAML = "verl/trainer/config/ppo_trainer.yaml"
_VERL_ROLLOUT = "verl/trainer/config/rollout/rollout.yaml"
# verl v0.3.0.post1 (the same values through v0.4.1): its FSDP workers and vLLM rollout.
# Not set: rollout.returns_logprobs (verl asks SamplingParams(logprobs=0) too, but the knob's
# cost is vLLM V1's engine-core figure and verl's replays of this era run V0; left to the user).
_VERL_030 = RLRelease(
    "0.3.0",
    "2025-04",
    (
        RLDefault(
            "rollout.memory_fraction", 0.5, f"{_VERL_YAML} rollout.gpu_memory_utilization 0.5 (v0.3.0.post1)"
        ),
        RLDefault("rollout.cuda_graphs", False, f"{_VERL_YAML} rollout.enforce_eager True (v0.3.0.post1)"),
        RLDefault("rollout.max_sequences", 1024, f"{_VERL_YAML} rollout.max_num_seqs 1024 (v0.3.0.post1)"),
        RLDefault(
            "rollout.max_batched_tokens",
            8192,
            f"{_VERL_YAML} rollout.max_num_batched_tokens 8192, enable_chunked_prefill True (v0.3.0.post1)",
        ),
        RLDefault(
            "rollout.detokenize_in_step",
            False,
            "verl/workers/rollout/vllm_rollout/vllm_rollout.py: SamplingParams detokenize=False "
            "(v0.3.0.post1)",
        ),
        RLDefault(
            "rollout.sleep_level",
            1,
            "verl/workers/sharding_manager/fsdp_vllm.py sleep(level=1) (v0.3.0.post1)",
        ),
        RLDefault(
            "policy.sequence_packing",
            False,
            f"{_VERL_YAML} actor_rollout_ref.model.use_remove_padding False (v0.3.0.post1)",
        ),
        RLDefault(
            "policy.micro_batch_unit",
            "response",
            f"{_VERL_YAML} actor.ppo_micro_batch_size_per_gpu: responses a micro-batch (v0.3.0.post1)",
        ),
        RLDefault(
            "offload_states",
            False,
            f"{_VERL_YAML} actor.fsdp_config param_offload False, optimizer_offload False (v0.3.0.post1)",
        ),
        RLDefault(
            "policy.offload_per_call",
            True,
            "verl/workers/fsdp_workers.py: offload_fsdp_model_to_cpu after every worker call when "
            "param_offload is on (v0.3.0.post1)",
        ),
        RLDefault(
            "policy.prefetch_gathers",
            False,
            "verl/workers/fsdp_workers.py: FSDP(..., forward_prefetch=False) (v0.3.0.post1)",
        ),
        RLDefault(
            "reference.offload", False, f"{_VERL_YAML} ref.fsdp_config.param_offload False (v0.3.0.post1)"
        ),
    ),
)
# v0.5.0: rollout settings move to rollout.yaml (same values); the one-step-off-policy recipe's
# split sync broadcasts tensor by tensor
_VERL_050 = _changed(
    _VERL_030,
    "0.5.0",
    "2025-07",
    RLDefault(
        "broadcast_per_tensor",
        True,
        "recipe/one_step_off_policy/fsdp_workers.py sync_rollout_weights: collective.broadcast "
        "per tensor (v0.5.0)",
    ),
)
# v0.6.0: CUDA graphs on; sleep level 2 (verl/third_party/vllm/__init__.py VLLM_SLEEP_LEVEL 2
# with vLLM 0.8.5 or later, every modelled V1 release; 1 under layered_summon)
_VERL_060 = _changed(
    _VERL_050,
    "0.6.0",
    "2025-10",
    RLDefault("rollout.cuda_graphs", True, f"{_VERL_ROLLOUT} enforce_eager False (v0.6.0)"),
    RLDefault(
        "rollout.sleep_level",
        2,
        "verl/third_party/vllm/__init__.py VLLM_SLEEP_LEVEL 2 for vllm >= 0.8.5 (v0.6.0)",
    ),
)
# v0.7.0: padding removed by default (the same through v0.9.0)
_VERL_070 = _changed(
    _VERL_060,
    "0.7.0",
    "2026-01",
    RLDefault(
        "policy.sequence_packing",
        True,
        "verl/trainer/config/model/hf_model.yaml use_remove_padding True (v0.7.0)",
    ),
)
VERL: tuple[RLRelease, ...] = (_VERL_030, _VERL_050, _VERL_060, _VERL_070)

_ORL = "openrlhf/cli/train_ppo_ray.py"
# OpenRLHF v0.7.0 (the same defaults through v0.11.0, whose flags are renamed --vllm.*, --ds.*)
OPENRLHF: tuple[RLRelease, ...] = (
    RLRelease(
        "0.7.0",
        "2025-04",
        (
            RLDefault("rollout.memory_fraction", 0.95, f"{_ORL} --vllm_gpu_memory_utilization 0.95 (v0.7.0)"),
            RLDefault("rollout.cuda_graphs", True, f"{_ORL} --enforce_eager default False (v0.7.0)"),
            RLDefault("policy.sequence_packing", False, f"{_ORL} --packing_samples default False (v0.7.0)"),
            RLDefault(
                "offload_states",
                False,
                f"{_ORL} --deepspeed_enable_sleep default False: the training states stay on the "
                "GPU (v0.7.0)",
            ),
            RLDefault(
                "broadcast_per_tensor",
                True,
                "openrlhf/trainer/ray/ppo_actor.py _broadcast_to_vllm: one broadcast per parameter (v0.7.0)",
            ),
        ),
    ),
)
