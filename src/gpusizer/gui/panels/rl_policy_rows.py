"""The rows of the RL panel's "Policy training details" group (gui/panels/rl_sections.py): how
the policy's update runs (``rl.policy.*``: epochs, batches, packing, routing) and the
framework's kernels and passes (Megatron's fusions, NeMo RL's FP32 log-probs, the old-policy
log-prob pass, the host's pace of a Hugging Face policy's layers). A Megatron-only knob shows
where Megatron's layers train the policy, or where it holds a value off its default (so it can
be set back)."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox

from ...core.pipeline.work import RL_KEY
from ...core.registry.hf_layer_ops import HF_INVENTORIES
from ...core.registry.workloads import WORKLOAD_KINDS
from ..quantity_field import QuantityField
from ..state import ScenarioState, get_path
from ..widgets import Form, combo
from .logprob_row import refresh_logprob_row

FUSION = "rl.policy.moe_permute_fusion"
FP32_LOGPROBS = "rl.policy.fp32_logprobs"
SWIGLU = "rl.policy.bias_activation_fusion"
GRAD_FUSION = "rl.policy.gradient_accumulation_fusion"
PAD_ROWS = "rl.policy.pad_packed_rows"
PAD_CAPACITY = "rl.policy.pad_rows_to_capacity"
OLD_LOGPROBS = "rl.policy.old_logprobs"
PACKING, UNIT = "rl.policy.sequence_packing", "rl.policy.micro_batch_unit"
ROUTING, PREFETCH = "rl.policy.expert_routing", "rl.policy.prefetch_gathers"
MINI, MICRO = "rl.policy.mini_batch_size", "rl.policy.micro_batch_size"
LOGPROB_MICRO = "rl.policy.log_prob_micro_batch_size"
HF_OPS = "rl.policy.hf_layer_ops"
# the prompt cap a padded row is left-padded to (verl data.max_prompt_length, core/pipeline/rl_tokens.py)
PROMPT_CAP = "rl.prompt_cap"
BALANCED = "rl.policy.balanced_micro_batches"
# (label, path, object name) of the policy's check boxes
_CHECKS = (
    ("Sequence packing", PACKING, "check_rl_policy_sequence_packing"),
    ("FSDP prefetches its gathers", PREFETCH, "check_rl_policy_prefetch_gathers"),
    ("Fused MoE permute (Megatron)", FUSION, "check_rl_moe_permute_fusion"),
    ("FP32 log-probs (NeMo RL)", FP32_LOGPROBS, "check_rl_fp32_logprobs"),
    ("Fused SwiGLU (Megatron)", SWIGLU, "check_rl_bias_activation_fusion"),
    ("Fused grad accumulation (Megatron)", GRAD_FUSION, "check_rl_gradient_accumulation_fusion"),
    ("Pad packed rows under PP", PAD_ROWS, "check_rl_pad_packed_rows"),
    ("Old-policy log-probs pass", OLD_LOGPROBS, "check_rl_old_logprobs"),
    ("Ranks' micro-batches balanced", BALANCED, "check_rl_policy_balanced_micro_batches"),
)

# NeMo RL's DTensor policy pads each packed row to train_mb_tokens (core/pipeline/rl_capacity_padding.py)
_CAPACITY_CHOICES = (
    ("no", "none"),
    ("training (DTensor v0.3-v0.5)", "training"),
    ("+ log-probs (DTensor v0.6+)", "all"),
)


class PolicyRows:
    """Builds the group's rows in ``form``; :meth:`refresh` shows those the estimate reads."""

    def __init__(self, form: Form, state: ScenarioState) -> None:
        self.form, self.state = form, state
        f = form
        f.add(
            "Epochs",
            QuantityField("count", "rl.policy.epochs"),
            "rl.policy.epochs",
            name="spin_rl_policy_epochs",
        )
        self.mini = QuantityField("count", MINI, step=8, none_text="all the step's responses")
        f.add("Mini-batch", self.mini, MINI, name="spin_rl_policy_mini_batch_size")
        self.micro = QuantityField("count", MICRO, none_text="the workload's micro-batch")
        f.add("Micro-batch", self.micro, MICRO, name="spin_rl_policy_micro_batch_size")
        # the scoring forwards' own (verl log_prob_micro_batch_size_per_gpu, NeMo RL logprob_batch_size)
        self.logprob_micro = QuantityField("count", LOGPROB_MICRO, none_text="the training micro-batch")
        name = "spin_rl_policy_log_prob_micro_batch_size"
        f.add("Log-prob micro-batch", self.logprob_micro, LOGPROB_MICRO, name=name)
        cap = QuantityField("context", PROMPT_CAP, step=128, unit="tokens", none_text="the mean prompt")
        f.add("Padded prompt", cap, PROMPT_CAP, name="spin_rl_prompt_cap")
        f.add(
            "Micro-batch counts",
            combo(
                (("rows of prompt + longest (NeMo RL)", "row"), ("responses as they are (verl)", "response"))
            ),
            UNIT,
            name="combo_rl_policy_micro_batch_unit",
        )
        f.add(
            "Expert routing",
            combo((("the router's own load (RL)", "router"), ("balanced", "balanced"))),
            ROUTING,
            name="combo_rl_policy_expert_routing",
        )
        for label, path, name in _CHECKS:
            f.add("", QCheckBox(label), path, name=name)
        f.add(
            "Pad to capacity",
            combo(_CAPACITY_CHOICES),
            PAD_CAPACITY,
            name="combo_rl_policy_pad_rows_to_capacity",
        )
        # the host's pace of a Hugging Face policy's eager layers (core/speed/train_host_hf.py)
        ops = combo([("not paced", None), *((i.label, i.id) for i in HF_INVENTORIES.values())])
        f.add("Host ops (HF layers)", ops, HF_OPS, name="combo_rl_policy_hf_layer_ops")

    def refresh(self) -> None:
        st, f = self.state, self.form
        # packed, what a micro-batch counts (padded: a row either way)
        f.show(UNIT, st.value(PACKING) is not False or st.value(UNIT) == "response")
        # the ranks wait for the longest micro-batch of whole responses (core/pipeline/rl_stragglers.py)
        f.show(BALANCED, st.value(UNIT) == "response" or st.value(BALANCED) is False)
        moe = get_path(st.value("model"), "moe") is not None
        f.show(ROUTING, moe or st.value(ROUTING) == "balanced")  # read under EP only
        # the gathers' wait is priced for a LoRA policy's adapters (core/pipeline/rl_gathers.py)
        f.show(PREFETCH, st.value("rl.policy.kind") == "lora" or st.value(PREFETCH) is False)
        f.show(FUSION, (moe and self.megatron()) or bool(st.value(FUSION)))
        # shown where Megatron's layers run, or held off elsewhere (so it can be set back)
        f.show(SWIGLU, self.megatron() or st.value(SWIGLU) is False)
        f.show(GRAD_FUSION, self.megatron() or st.value(GRAD_FUSION) is False)
        # the padding is priced with packing under pipeline parallelism (core/pipeline/rl_padding.py)
        pipelined = (st.value("parallelism.pipeline") or 1) > 1
        f.show(PAD_ROWS, pipelined or bool(st.value(PAD_ROWS)))
        # the capacity's padding is priced with packing (core/pipeline/rl_capacity_padding.py)
        f.show(PAD_CAPACITY, st.value(PACKING) is not False or st.value(PAD_CAPACITY) not in (None, "none"))
        # read for Hugging Face policies (Megatron's layers have their own inventory), or held set
        f.show(HF_OPS, not self.megatron() or st.value(HF_OPS) is not None)
        refresh_logprob_row(f, st)  # off where no log-prob pass runs (logprob_row.py)

    def show_defaults(self) -> None:
        """The batches null stands for: every response of the step, the workload's micro-batch."""
        rl = getattr(self.state.scenario, "rl", None)
        if rl is None:
            return
        responses = rl.rollout.prompts_per_step * rl.rollout.samples_per_prompt
        self.mini.setSpecialValueText(f"all the step's responses ({responses:,})")
        micro = self.state.scenario.workload.micro_batch_size
        self.micro.setSpecialValueText(f"the workload's micro-batch ({micro:,})")
        trained = rl.policy.micro_batch_size or micro
        self.logprob_micro.setSpecialValueText(f"the training micro-batch ({trained:,})")

    def megatron(self) -> bool:
        """Whether an RL policy trains with Megatron-Core's layers (a framework with an op
        inventory, core/speed/train_host.py). Imported here, for the RL kind only: the training
        speed modules are not loaded at start-up."""
        kind = WORKLOAD_KINDS.get(str(self.state.value("workload.kind")))
        if kind is None or kind.work_key != RL_KEY:
            return False
        from ...core.speed.train_host import INVENTORIES

        return str(self.state.value("framework")) in INVENTORIES
