"""RL frameworks' releases: the ``rl.*`` knobs each release sets by default (registered by
core/registry/rl_frameworks.py; the scenario's ``rl.framework`` and ``rl.framework_version``).
NeMo RL's here, verl's and OpenRLHF's in core/registry/rl_framework_releases_verl.py.

Each release lists only what its default configuration fixes for every run, read at its git
tag (the local mirrors of NVIDIA-NeMo/RL, verl-project/verl and OpenRLHF/OpenRLHF); a knob that
a recipe or launch script sets on its own (NeMo RL's ``async_engine`` true in its DeepSeek V3
recipes, verl's ``param_offload`` in a tuning script) is not a framework default and stays the
user's to set. A release is listed only where a default changes, oldest first, the last the
newest modelled; a version between two takes the older one's (core/registry/engines.py
``release``). Paths are relative to the scenario's ``rl`` block.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .engines import version_key


@dataclass(frozen=True)
class RLDefault:
    """One knob's default: ``path`` under ``rl`` (``rollout.memory_fraction``), its value, and
    the file and tag it was read from."""

    path: str
    value: object
    source: str
    # the rollout engine the default is for ("vllm": a vLLM release the framework pins, which
    # another engine's releases must not take); None: every engine
    engine: str | None = None
    # a knob of the run's layout (placement, the reference, the samples a prompt) that every
    # framework's user states: named in this framework's report only, never in another's
    # ``others_set`` (a split NeMo RL run is the user's layout, not a TRL default)
    own_only: bool = False
    # the oldest rollout-engine release the default holds from (verl's log-prob request is
    # priced at vLLM V1's engine-core figure: "0.8.0", V1's first default release); None: any.
    # A rollout whose release is unset runs the catalog's newest, so the default holds there
    engine_from: str | None = None

    def holds_at(self, engine_version: object) -> bool:
        """Whether the default applies to a rollout at ``engine_version`` (None: the newest)."""
        if self.engine_from is None or not isinstance(engine_version, str):
            return True
        have, low = version_key(engine_version), version_key(self.engine_from)
        return have is None or low is None or have[0] != low[0] or have[1] >= low[1]


@dataclass(frozen=True)
class RLRelease:
    """A release whose defaults differ from the one before: its version as the framework tags
    it (without the ``v``), the tag's month and the knobs it sets."""

    version: str
    date: str
    defaults: tuple[RLDefault, ...]
    # the framework generates once per gradient-accumulation micro-step (TRL before v0.17.0):
    # ``rl.rollout.generation_rounds`` left out is derived from the batch
    # (core/pipeline/rl_micro_rounds.py), not a fixed default
    rounds_per_micro_step: bool = False

    def value(self, path: str) -> object:
        """The default of ``path`` (KeyError when this release leaves it alone)."""
        for d in self.defaults:
            if d.path == path:
                return d.value
        raise KeyError(path)

    def applicable(self, engine: object, engine_version: object = None) -> tuple[RLDefault, ...]:
        """The defaults that apply with ``engine`` as ``rl.rollout.engine`` (a pin of another
        engine's release left out) at ``engine_version`` (None: the release the rollout runs
        unset, else this release's own pin; a default from a later engine release left out)."""
        mine = tuple(d for d in self.defaults if d.engine is None or d.engine == engine)
        if engine_version is None:
            engine_version = next((d.value for d in mine if d.path == "rollout.engine_version"), None)
        return tuple(d for d in mine if d.holds_at(engine_version))


def changed(base: RLRelease, version: str, date: str, *changes: RLDefault) -> RLRelease:
    """``base`` with ``changes`` replacing (or adding) knobs: the next release's table."""
    paths = {c.path for c in changes}
    kept = tuple(d for d in base.defaults if d.path not in paths)
    return replace(base, version=version, date=date, defaults=(*kept, *changes))


def vllm_pin(version: str, source: str) -> RLDefault:
    """``rl.rollout.engine_version``: the vLLM release a framework's tag installs with its vLLM
    extra (for a vLLM rollout only: an SGLang rollout keeps its own release). An unmodelled
    release takes the nearest older modelled vLLM entry's rules (core/registry/engines.py
    ``release``), and the rollout's report says so."""
    return RLDefault("rollout.engine_version", version, source, engine="vllm")


_NEMO_PIN = "pyproject.toml's vllm extra"
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
            "rollout.async_engine",
            False,
            f"{_NEMO_YAML} vllm_cfg.async_engine false; nemo_rl/models/generation/vllm.py: "
            "vllm.LLM(**llm_kwargs), no max_num_seqs in llm_kwargs (v0.3.1)",
            engine="vllm",
        ),
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
        RLDefault(
            "refit_gather",
            "full",
            "nemo_rl/models/megatron/refit_utils.py gather_params: TP all-gather, then "
            "torch.distributed.broadcast(full_param, group=pp_group) (v0.3.1)",
        ),
        RLDefault(
            "reward.verify_workers",
            8,
            f"{_NEMO_YAML} env.math.num_workers 8; nemo_rl/environments/math_environment.py "
            "HFVerifyWorker.verify: math_verify's math_metric per response, the same through v0.7.0 (v0.3.1)",
        ),
        RLDefault(
            "policy.gradient_accumulation_fusion",
            False,
            "NeMo 33259f2 nemo/collections/llm/gpt/model/base.py GPTConfig gradient_accumulation_fusion "
            "= _grad_accum_fusion_available (imports apex's fused_weight_gradient_mlp_cuda), which "
            "neither pyproject.toml nor uv.lock installs; no megatron_cfg key (v0.3.1)",
        ),
        vllm_pin("0.9.0", f"{_NEMO_PIN}: vllm==0.9.0; uv.lock vllm 0.9.0 from pypi.org/simple (v0.3.1)"),
    ),
)
# v0.4.0: the packed collective refit, the refit's export through Megatron-Bridge (its pipeline
# broadcast carries each GPU's own shard: core/pipeline/rl_pp_gather.py; the same in the
# Megatron-Bridge commits v0.5.0 and v0.6.0 pin, 1e9a459 and 95e5f38, and on its main at v0.7.0),
# Megatron options in grpo_math_1B.yaml, the tokenizer forced on for vLLM 0.10.0.
# bias_activation_fusion has no key at this tag: Megatron-Bridge's provider default, false for
# Qwen3 and true for Llama (model-dependent, so not set here).
_NEMO_040 = changed(
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
        "refit_gather",
        "shard",
        "nemo_rl/models/policy/megatron_policy_worker.py stream_weights_via_ipc_zmq and "
        "broadcast_weights_for_collective iterate Megatron-Bridge export_hf_weights; its "
        "param_mapping.py megatron_to_hf runs broadcast_from_pp_rank on the GPU's own shard before "
        "gather_from_tp_ranks (Megatron-Bridge 62f4704, the same through v0.7.0) (v0.4.0)",
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
    RLDefault(
        "policy.gradient_accumulation_fusion",
        False,
        "Megatron-Bridge 62f4704 (1e9a459 at v0.5.0) gpt_provider.py default_factory "
        "can_enable_gradient_accumulation_fusion: only apex's fused_weight_gradient_mlp_cuda, not in "
        "uv.lock; nemo_rl/models/megatron/community_import.py leaves it (v0.4.0)",
    ),
    vllm_pin("0.10.0", f"{_NEMO_PIN}: vllm==0.10.0; uv.lock vllm 0.10.0 from pypi.org/simple (v0.4.0)"),
)
# v0.5.0: skip_tokenizer_init respected again; SwiGLU fused in grpo_math_1B.yaml (PR #1241)
_NEMO_050 = changed(
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
    vllm_pin("0.11.2", f"{_NEMO_PIN}: vllm==0.11.2; uv.lock vllm 0.11.2 from pypi.org/simple (v0.5.0)"),
)
# v0.6.0: 0.5.0's knobs (grpo_math_1B.yaml and vllm_worker.py read the same) on vLLM 0.17.1
_NEMO_060 = changed(
    _NEMO_050,
    "0.6.0",
    "2026-04",
    RLDefault(
        "policy.gradient_accumulation_fusion",
        False,
        f"{_NEMO_YAML} megatron_cfg.gradient_accumulation_fusion false, set on the provider by "
        "nemo_rl/models/megatron/community_import.py (v0.7.0: megatron/setup.py too), no recipe "
        "sets it true (v0.6.0)",
    ),
    vllm_pin("0.17.1", f"{_NEMO_PIN}: vllm==0.17.1; uv.lock vllm 0.17.1 from pypi.org/simple (v0.6.0)"),
)
# v0.7.0: vLLM 0.20.0 from the project's GitHub release wheels (PyPI's elsewhere); vLLM's Triton
# MoE kept, as every MoE config of the tag states it (0.20.0's default FlashInfer BF16 MoE breaks
# the refit): a framework-wide constraint, not one recipe's tuning, so a default here
_NEMO_070 = changed(
    _NEMO_060,
    "0.7.0",
    "2026-07",
    RLDefault(
        "policy.moe_permute_fusion", True, f"{_NEMO_YAML} megatron_cfg.moe_permute_fusion true (v0.7.0)"
    ),
    RLDefault(
        "rollout.moe_backend",
        "triton",
        "examples/configs/grpo_math_qwen30ba3b_megatron.yaml and every MoE recipe (performance/"
        "grpo-qwen3-235b-16n8g.yaml, grpo-qwen3-30ba3b-4n4g.yaml, grpo-deepseek-v3-32n8g.yaml, ...) "
        "vllm_kwargs moe_backend: triton, \"vLLM 0.20's default FlashInfer TRTLLM MoE backend isn't "
        'refit-compatible"; nemo_rl/modelopt/models/generation/vllm_quant_worker.py '
        "llm_kwargs.setdefault('moe_backend', 'triton') (v0.7.0)",
        engine="vllm",
    ),
    vllm_pin(
        "0.20.0",
        f"{_NEMO_PIN}: vllm @ .../releases/download/v0.20.0/vllm-0.20.0-cp38-abi3-manylinux_2_35_x86_64.whl "
        "(vllm==0.20.0 off Linux x86-64 / aarch64); uv.lock vllm 0.20.0 (v0.7.0)",
    ),
)
NEMO_RL: tuple[RLRelease, ...] = (_NEMO_031, _NEMO_040, _NEMO_050, _NEMO_060, _NEMO_070)
