"""Which adapters LoRA puts on a MoE's routed experts, by transformers release
(``workload.transformers_version``).

transformers 4.x builds each routed expert as its own ``gate_proj`` / ``up_proj`` /
``down_proj`` ``nn.Linear`` (``modeling_qwen3_moe.py`` ``Qwen3MoeMLP`` in a ``ModuleList``), so
PEFT's ``target_modules`` names wrap every expert's three Linears: ``r·(h + f)`` each, the
count :mod:`core.memory.lora` gives by default (layout ``"modules"``).

transformers 5 stores a family's experts as two 3-D parameters, ``gate_up_proj`` (E, 2f, h) and
``down_proj`` (E, h, f) (``Qwen3MoeExperts``; huggingface/peft#3009). The families are those
``conversion_mapping.py`` ``_MODEL_TO_CONVERSION_PATTERN`` maps to the ``mixtral`` or
``qwen2_moe`` pattern (:data:`FUSED_IN_V5`). PEFT's ``ParamWrapper`` adapts a 3-D parameter with
``lora_A`` (E·r, d_in) and ``lora_B`` (d_out, E·r): per expert ``r·(d_in + d_out)``, so the fused
``gate_up_proj`` is one adapter of ``r·(h + 2f)``, not two of ``r·(h + f)``.

- Plain PEFT on transformers >= 5 (layout ``"fused"``): ``get_peft_model`` runs transformers'
  ``integrations/peft.py`` ``_convert_peft_config_moe``, behind PEFT's ``is_transformers_ge_v5``.
  It moves the bare names ``gate_proj``, ``up_proj`` (Mixtral ``w1``, ``w3``) to
  ``target_parameters`` ``gate_up_proj`` with ``rank_pattern`` ``r * 2``, and ``down_proj``
  (``w2``) to ``down_proj`` at rank r. Naming only one of gate/up raises "Cannot convert PEFT
  target(s) up_proj without also targeting gate_proj" (``huggingface/peft/tests/test_target_parameters.py``
  ``test_qwen3_moe_error_message``, trl#5428). The names leave ``target_modules``, so a dense
  MLP layer's or a shared expert's ``gate_proj``/``up_proj``/``down_proj`` Linears get no
  adapter (peft#3711: only fully qualified names keep them).
- Unsloth on transformers >= 5 (layout ``"fused_unsloth"``): "Detected MoE model with 128
  experts - enabling LoRA on: ['mlp.experts.gate_up_proj', 'mlp.experts.down_proj']" at rank r.
  Measured: unslothai/notebooks ``nb/Qwen3_MoE.ipynb`` @06a3175 (Unsloth 2026.2.1, Transformers
  5.1.0, Qwen3-30B-A3B-Instruct-2507, r 32, q/k/v/o/gate/up/down): "Trainable parameters =
  1,285,029,888 of 31,817,152,512", which is rank r on ``gate_up_proj`` exactly (2r would print
  1.96 B), so PEFT's conversion did not run on it. The notebook keeps ``gate_proj``/``up_proj``/
  ``down_proj`` in ``target_modules``, so dense and shared-expert Linears are taken to keep their
  adapters (Qwen3-MoE has neither: the printed count does not test that part).

A scenario naming no release, a release before 5, or a family outside :data:`FUSED_IN_V5`
keeps ``"modules"`` (the answers given before the field), except gpt-oss and Llama 4, whose
experts are 3-D parameters in every release: their layout is ``"native_3d"``, where the expert
names adapt no routed expert and ``workload.lora_target_parameters`` does
(core/memory/lora_expert_params.py).
"""

from __future__ import annotations

from ..errors import ScenarioError
from ..model.architecture import resolve
from ..model.specs import Scenario
from ..registry.transformers_releases import fuses_experts
from .lora_expert_params import NATIVE_3D, layer_error, native_layout
from .unsloth_experts import check_unsloth_release, unsloth_expert_names

MODULES, FUSED, FUSED_UNSLOTH = "modules", "fused", "fused_unsloth"
FIELD = "workload.transformers_version"

# huggingface/transformers v5 ``src/transformers/conversion_mapping.py``
# ``_MODEL_TO_CONVERSION_PATTERN``: the model types mapped to "mixtral" or "qwen2_moe", whose
# per-expert checkpoints load into fused 3-D expert parameters.
FUSED_IN_V5 = frozenset(
    {
        "mixtral",
        "minimax",
        "minimax_m2",
        "qwen2_moe",
        "deepseek_v2",
        "deepseek_v3",
        "dots1",
        "ernie4_5_moe",
        "glm4_moe",
        "glm4_moe_lite",
        "glm4v_moe",
        "longcat_flash",
        "solar_open",
        "qwen3_moe",
        "qwen3_omni_moe",
        "qwen3_next",
        "hunyuan_v1_moe",
        "flex_olmo",
        "olmoe",
    }
)


# the frameworks that build the model with transformers and wrap it with PEFT (Unsloth: its own
# get_peft_model over PEFT); Megatron, torchtitan, torchtune, LitGPT and MLX build their own
# modules, so a transformers release does not set their experts' layout
TRANSFORMERS_PEFT = frozenset({"huggingface", "deepspeed", "fsdp", "ms-swift", "axolotl", "unsloth"})
# the frameworks that adapt transformers 5's fused experts with their own kernels at rank r
# (layout ``"fused_unsloth"``, the Unsloth notebook above), not PEFT's conversion at 2r
OWN_FUSED_LORA = frozenset({"unsloth"})


def check_transformers_release(s: Scenario) -> None:
    """Validation: ``workload.transformers_version`` names the release of a framework that
    trains a transformers model with PEFT (elsewhere it would change nothing), and PEFT's
    conversion accepts the targets (gate without up is refused)."""
    if s.workload.transformers_version is not None and s.framework not in TRANSFORMERS_PEFT:
        raise ScenarioError(
            FIELD,
            f"applies to {', '.join(sorted(TRANSFORMERS_PEFT))} (PEFT on a transformers model), "
            f"not {s.profile.label}",
        )
    if s.workload.is_adapter and expert_layout(s) == FUSED:
        fused_targets(frozenset(s.workload.lora_targets), FUSED)
    check_target_parameters(s)
    check_unsloth_release(s)


def check_target_parameters(s: Scenario) -> None:
    """Validation: ``workload.lora_target_parameters`` names 3-D expert parameters of a LoRA
    run under a framework that wraps a transformers model with PEFT, on gpt-oss or Llama 4
    (elsewhere the experts are Linears or another framework's modules), at layers the model
    has."""
    names = s.workload.lora_target_parameters
    if not names:
        return
    field = "workload.lora_target_parameters"
    if not s.workload.is_adapter or s.framework not in TRANSFORMERS_PEFT:
        raise ScenarioError(field, "applies to LoRA and QLoRA under " + ", ".join(sorted(TRANSFORMERS_PEFT)))
    if s.model.family not in NATIVE_3D or s.model.moe is None:
        raise ScenarioError(
            field,
            f"applies to gpt-oss and Llama 4 (3-D expert parameters), not family {s.model.family}; "
            "other MoE families' experts take workload.lora_targets",
        )
    err = layer_error(resolve(s.model), names)
    if err is not None:
        raise ScenarioError(field, err)


def expert_layout(s: Scenario) -> str:
    """The routed experts' adapter layout of the scenario's LoRA (module docstring)."""
    peft = s.framework in TRANSFORMERS_PEFT
    if peft and s.model.family in NATIVE_3D and s.model.moe is not None:
        # Unsloth's release adds expert targets of its own (core/memory/unsloth_experts.py)
        return native_layout(s.workload.lora_target_parameters or unsloth_expert_names(s))
    fused = fuses_experts(s.workload.transformers_version) and peft
    if not fused or s.model.family not in FUSED_IN_V5 or s.model.moe is None:
        return MODULES
    return FUSED_UNSLOTH if s.framework in OWN_FUSED_LORA else FUSED


def fused_targets(names: frozenset[str], layout: str) -> dict[str, int]:
    """The fused expert parameters adapted, each with its rank multiplier: ``gate_up`` (2 under
    PEFT's conversion, 1 under Unsloth) and ``down``. PEFT refuses gate without up and the
    reverse; Unsloth's path for one of the two alone is not read, and is priced as adapting
    ``gate_up_proj``."""
    gate, up = "gate" in names, "up" in names
    if layout == FUSED and gate != up:
        raise ScenarioError(
            "workload.lora_targets",
            f"{'gate' if gate else 'up'} without {'up' if gate else 'gate'}: PEFT on transformers 5 "
            "refuses it, the two are fused into gate_up_proj (name both, or neither)",
        )
    out = {"gate_up": (2 if layout == FUSED else 1)} if gate or up else {}
    return out | ({"down": 1} if "down" in names else {})


def keeps_mlp_modules(layout: str) -> bool:
    """Whether dense MLP layers and shared experts keep their gate/up/down adapters: not after
    PEFT's conversion moves the bare names to ``target_parameters`` (module docstring)."""
    return layout != FUSED
