"""Rules that tie fields together; each violation names the field and what would be allowed."""

from __future__ import annotations

from ..errors import ScenarioError
from ..memo import Memo
from ..memory.layouts import check_layouts
from ..memory.lora_experts import check_transformers_release
from ..memory.lora_kernels_axolotl import check_lora_kernels
from ..memory.techniques import check_techniques
from ..memory.zeropp import check_zeropp
from ..model.architecture import resolve
from ..model.presets import check_host
from ..model.specs import ModelSpec, Scenario
from ..model.workload_spec import LORA_TARGETS
from ..registry.frameworks import FRAMEWORKS
from ..serving.rules import check_rules
from .rl_check import check_rl
from .rl_one_copy import check_shared_weights
from .validate_layout import check_parallelism, check_pipeline
from .validate_model import check_model
from .validate_serving import check_backend, check_serving

# The groups of checks live in validate_model.py, validate_layout.py and validate_serving.py;
# every check stays importable here.
__all__ = [
    "check_backend",
    "check_framework",
    "check_model",
    "check_parallelism",
    "check_pipeline",
    "check_scenario",
    "check_serving",
    "check_workload",
]


def check_framework(s: Scenario) -> None:
    """The framework names registered rules (its memory rule, its releases' KV layouts, its
    activation layout and LoRA kernels), runs this kind of work (core/registry/frameworks.py:
    ``trains``; serving engines cannot train) and this layout."""
    w, prof = s.workload, s.profile
    check_rules(prof)
    check_layouts(prof)
    check_lora_kernels(s)
    if not prof.fits(w.info):
        able = ", ".join(p.id for p in FRAMEWORKS.values() if p.fits(w.info))
        does = "serves models; for training" if prof.serves else "trains models; for serving"
        raise ScenarioError("framework", f"{s.framework} {does} choose {able}")
    if w.info.quantised_base and s.parallelism.zero_stage == 3 and not prof.quantised_base_zero3:
        able = ", ".join(p.id for p in FRAMEWORKS.values() if p.trains and p.quantised_base_zero3)
        raise ScenarioError("framework", f"{w.info.label} under ZeRO-3 needs {able}, not {s.framework}")


def check_workload(s: Scenario) -> None:
    w, p = s.workload, s.parallelism
    if w.is_adapter and not w.lora_targets:  # PEFT tuners_utils.inject_adapter: "Target modules
        # ... not found in the base model" when none matched; before, 0 parameters trained
        raise ScenarioError("workload.lora_targets", f"give at least one of {', '.join(LORA_TARGETS)}")
    if w.lora_layers is not None and w.is_adapter:
        layers = resolve(s.model).layers
        if w.lora_layers > layers:
            msg = f"{w.lora_layers} > the model's {layers} layers; set 1-{layers}, or null for every layer"
            raise ScenarioError("workload.lora_layers", msg)
        if p.pipeline > 1:
            raise ScenarioError(
                "workload.lora_layers", "applies to one pipeline stage; set parallelism.pipeline 1"
            )
    _check_preference(s)
    check_transformers_release(s)  # workload.transformers_version
    if w.mlx_version is not None and s.profile.fused_attention_head_dims is None:
        able = ", ".join(p.id for p in FRAMEWORKS.values() if p.fused_attention_head_dims is not None)
        raise ScenarioError(
            "workload.mlx_version", f"applies to {able} (MLX's own release), not {s.profile.label}"
        )
    if w.global_batch_size is not None and w.trains:
        unit = w.micro_batch_size * p.data
        if w.global_batch_size % unit:
            raise ScenarioError(
                "workload.global_batch_size",
                f"must be a multiple of micro_batch_size x data ({unit})",
            )


def _check_preference(s: Scenario) -> None:
    """A preference fine-tune is one training stage's step (not RL's roles, not serving); TRL
    refuses precomputed reference log-probs under DeepSpeed ZeRO-3 (dpo_trainer.py v0.24.0:
    "You cannot use `precompute_ref_log_probs=True` with Deepspeed ZeRO-3"), and so under
    parameter offload, which DeepSpeed runs at stage 3 only (its config docs, deepspeed.ai
    config-json, ``offload_param``: "Available only with ZeRO stage 3")."""
    w = s.workload
    if w.preference is None:
        return
    if not w.trains or w.info.phased:
        raise ScenarioError(
            "workload.preference",
            f"applies to a fine-tune (full_finetune, lora, qlora); not to kind {w.kind}",
        )
    zero3 = s.parallelism.zero_stage == 3 or s.parallelism.offload_parameters
    if w.reference_info is not None and w.reference_info.precomputed and zero3:
        raise ScenarioError(
            "workload.preference.reference",
            "precomputed is refused by TRL under ZeRO-3; use copy, or zero_stage 0-2",
        )


_VALID_MODELS: Memo[bool] = Memo(256)  # models that passed check_model, by identity


def _valid_model(spec: ModelSpec) -> bool:
    check_model(spec)
    return True


def check_scenario(s: Scenario) -> None:
    # A model checked once is valid for good (frozen): layout variants share the object.
    _VALID_MODELS.get(id(s.model), lambda: _valid_model(s.model), (s.model,))
    check_host(s)
    check_parallelism(s)
    check_zeropp(s)
    check_workload(s)
    check_framework(s)
    check_serving(s)
    check_techniques(s)
    check_rl(s)
    check_shared_weights(s)
