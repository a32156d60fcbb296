"""RL post-training panel (``workload.kind: "rl"``): the algorithm, where the roles run and the
rollout's batch (the scenario's ``rl`` block, docs/scenario-format.md "RL post-training").
Role models default to the policy's (the Model panel's); the phases and time per step show in
the summary's assumptions and the report's ``rl`` block."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QLabel

from ...core.model.presets import model_presets
from ...core.pipeline.rl_framework import switch_edits
from ...core.pipeline.rl_qlora_kind import BNB_4BIT
from ...core.pipeline.work import RL_KEY
from ...core.registry.frameworks import FRAMEWORKS
from ...core.registry.rl_algorithms import RL_ALGORITHMS
from ...core.registry.rl_frameworks import RL_FRAMEWORKS, RLRelease
from ...io.units import fmt_bytes
from ..binding import Binder
from ..quantity_field import QuantityField
from ..widgets import combo
from .base import Panel
from .rl_sections import RLSections

# (label, path, object name, quantity kind, step, unit)
_INTS = (
    ("Steps", "rl.steps", "spin_rl_steps", "count", 10, ""),
    ("Prompts per step", "rl.rollout.prompts_per_step", "spin_rl_prompts", "count", 32, ""),
    ("Samples per prompt", "rl.rollout.samples_per_prompt", "spin_rl_samples", "count", 1, ""),
    ("Prompt (mean)", "rl.prompt_tokens", "spin_rl_prompt_tokens", "context", 128, "tokens"),
    ("Response (mean)", "rl.rollout.response_tokens", "spin_rl_response_tokens", "context", 256, "tokens"),
    ("Rollout TP", "rl.rollout.tensor", "spin_rl_rollout_tp", "count", 1, ""),
    ("Rollout GPUs", "rl.rollout.gpus", "spin_rl_rollout_gpus", "count", 1, ""),
)
# the longest response is mean x (1 + spread): a number, not a count
SPREAD = (
    "Response spread",
    "rl.rollout.response_spread",
    "spin_rl_rollout_response_spread",
    "number",
    0.1,
    "",
)
# fields another edit can make invalid (a model of another vocabulary than the reference's; a
# longer response than vLLM's prefill budget takes): each has a widget, so its error shows
# beside it and can be fixed in the window
REFERENCE = "rl.reference.model"
# the roles' own models (null: the policy's); a TP edit the critic's heads do not divide is
# refused beside the critic's
_ROLE_MODELS = (
    ("Reference model", REFERENCE, "combo_rl_reference"),
    ("Critic model", "rl.critic.model", "combo_rl_critic"),
    ("Reward model", "rl.reward.model", "combo_rl_reward_model"),
)
RELEASE = "rl.rollout.engine_version"
CRITIC_PAD = "rl.critic.remove_padding"
VERIFY = "rl.reward.verify_workers"
RL_FW, RL_FW_VERSION = "rl.framework", "rl.framework_version"
# item data is rl.overlap's value; None is the default (the binder selects it for null)
_OVERLAP_ITEMS = (
    ("rollout beside training (default)", None),
    ("yes", True),
    ("no: pools take turns", False),
)


class RLPanel(Panel):
    """The roles of RL post-training; shown for the RL kind only."""

    title = "RL roles"

    def __init__(self, binder: Binder) -> None:
        super().__init__(binder)
        f = self.form
        f.add(
            "Algorithm",
            combo((a.label, a.id) for a in RL_ALGORITHMS.values()),
            "rl.algorithm",
            name="combo_rl_algorithm",
        )
        self._add_framework_fields()
        self._add_schedule_fields()
        self._add_rollout_fields()
        self._add_role_fields()
        self.knobs = RLSections(binder, f)  # the engine's and framework's knobs, collapsible
        self.forms += self.knobs.forms
        self.phases = QLabel()
        self.phases.setObjectName("label_rl_phases")
        self.phases.setWordWrap(True)
        f.add_widget(self.phases, "rl_phases")
        self.state.changed.connect(self.refresh)
        self.state.estimateChanged.connect(self.show_sizes)
        self.refresh()
        self.show_sizes(self.state.estimate)

    def _add_framework_fields(self) -> None:
        """The RL framework and its release (their knob defaults come with them)."""
        f = self.form
        # a framework release's knob defaults come with it (as a training framework's profile
        # defaults do: core/registry/rl_frameworks.py); none leaves the knobs as they are
        fws = combo([("none: the knobs as set", None), *((fw.label, fw.id) for fw in RL_FRAMEWORKS.values())])
        f.add("RL framework", fws, RL_FW, name="combo_rl_framework", extra=self._framework_edits)
        self.fw_release = combo([("newest modelled", None)])
        f.add(
            "Framework release",
            self.fw_release,
            RL_FW_VERSION,
            name="combo_rl_framework_version",
            extra=self._release_edits,
        )
        self._fw_releases_of: object = ""

    def _add_schedule_fields(self) -> None:
        """Placement, overlap and off-policy steps."""
        f = self.form
        f.add(
            "Placement",
            combo((("colocated (one set of GPUs)", "colocated"), ("split pools", "split"))),
            "rl.placement",
            name="combo_rl_placement",
        )
        f.add(
            "Overlap",
            combo(_OVERLAP_ITEMS),
            "rl.overlap",
            name="combo_rl_overlap",
        )
        f.add(
            "Off-policy steps",
            QuantityField("count", "rl.off_policy_steps"),
            "rl.off_policy_steps",
            name="spin_rl_off_policy_steps",
        )

    def _add_rollout_fields(self) -> None:
        """The rollout engine and its release, the reward, the batch sizes and tokens."""
        f = self.form
        f.add(
            "Rollout engine",
            combo((("vLLM", "vllm"), ("SGLang", "sglang"))),
            "rl.rollout.engine",
            name="combo_rl_rollout_engine",
        )
        # the engine's release (its rules); a release of the other engine, left by an engine
        # switch, is refused beside it and chosen again here
        self.release = combo([("current release", None)])
        f.add("Rollout release", self.release, RELEASE, name="combo_rl_engine_version")
        self._releases_of = ""
        f.add(
            "Reward",
            combo((("rule (no GPU)", "rule"), ("reward model", "model"))),
            "rl.reward.kind",
            name="combo_rl_reward",
        )
        # a rule reward's verifier workers (core/pipeline/rl_verify.py); null: not priced
        verify = QuantityField("count", VERIFY, step=1, none_text="not priced")
        f.add("Verify workers", verify, VERIFY, name="spin_rl_reward_verify_workers")
        for label, path, name, kind, step, unit in (*_INTS[:5], SPREAD, *_INTS[5:]):
            f.add(label, QuantityField(kind, path, step=step, unit=unit), path, name=name)

    def _add_role_fields(self) -> None:
        """The policy's kind, the reference and each role's model."""
        f = self.form
        self.policy = combo((("full fine-tune", "full_finetune"), ("LoRA adapters", "lora")))
        f.add(
            "Policy",
            self.policy,
            "rl.policy.kind",
            name="combo_rl_policy_kind",
        )
        self.reference = combo([("the algorithm's", None), ("on", True), ("off", False)])
        f.add("Reference", self.reference, "rl.reference.enabled", name="combo_rl_reference_enabled")
        presets = sorted((str(d.get("name", pid)), pid) for pid, d in model_presets().items())
        for label, path, name in _ROLE_MODELS:
            f.add(label, combo([("the policy's model (default)", None), *presets]), path, name=name)
        # the critic's own padding (core/pipeline/rl_critic_padding.py); None: the framework's
        pad = combo([("the framework's", None), ("removed (packed)", True), ("kept (padded rows)", False)])
        f.add("Critic padding", pad, CRITIC_PAD, name="combo_rl_critic_remove_padding")

    def refresh(self) -> None:
        kind = self.kind()
        shown = kind is not None and kind.work_key == RL_KEY
        self.box.setVisible(shown)
        split = self.state.value("rl.placement") == "split"
        self.form.show("rl.rollout.gpus", split)
        self.form.show("rl.overlap", split)
        self._fill_releases(str(self.state.value("rl.rollout.engine")))
        self._fill_framework_releases()
        algorithm = RL_ALGORITHMS.get(str(self.state.value("rl.algorithm")))
        critic = algorithm is not None and algorithm.critic
        self.form.show("rl.critic.model", critic or self._held("rl.critic.model"))
        self.form.show(CRITIC_PAD, critic or self._held(CRITIC_PAD))
        reward = self.state.value("rl.reward.kind") == "model"
        self.form.show("rl.reward.model", reward or self._held("rl.reward.model"))
        self.form.show(VERIFY, not reward or self._held(VERIFY))
        # read only where the pools overlap (RLSpec.steps_in_flight): colocated, one policy
        self.form.enable("rl.off_policy_steps", split and self.state.value("rl.overlap") is not False)
        # LoRA on a bitsandbytes 4-bit base is the stacks' "qlora" (core/pipeline/rl_qlora_kind.py)
        qlora = self.state.value("precision.weights") in BNB_4BIT
        self.policy.setItemText(1, "QLoRA adapters (4-bit base)" if qlora else "LoRA adapters")
        self.reference.setItemText(
            0, f"the algorithm's ({'on' if algorithm and algorithm.reference else 'off'})"
        )
        self.knobs.refresh(shown)

    def _fill_releases(self, engine: str) -> None:
        """The rollout engine's documented releases, newest first; a release set that is not
        one of them (between two, or the other engine's) is kept as an item of its own."""
        profile = FRAMEWORKS.get(engine)
        current = self.state.value(RELEASE)
        if profile is None or (engine == self._releases_of and self.release.findData(current) >= 0):
            return
        self._releases_of = engine
        blocked = self.release.blockSignals(True)
        self.release.clear()
        self.release.addItem(
            f"current release ({profile.versions[-1]})" if profile.versions else "current", None
        )
        for v in (
            *reversed(profile.versions),
            *([current] if current not in (None, *profile.versions) else []),
        ):
            self.release.addItem(str(v), v)
        self.release.setCurrentIndex(max(self.release.findData(current), 0))
        self.release.blockSignals(blocked)

    def _framework_edits(self, fid: object) -> dict[str, Any]:
        """A framework picked: its newest release's knob defaults where a knob is at the
        current release's (or, without one, the field's own); a knob set by hand stays, and
        none leaves every knob as it is (core/pipeline/rl_framework.py ``switch_edits``)."""
        fw = RL_FRAMEWORKS.get(fid) if isinstance(fid, str) else None
        new = fw.releases[-1] if fw else None
        return {RL_FW_VERSION: None, **switch_edits(self.state.value, self._current_release(), new)}

    def _release_edits(self, version: object) -> dict[str, Any]:
        """A release picked: its knob defaults, a knob set by hand kept (a version no release
        covers: none, refused)."""
        fid = self.state.value(RL_FW)
        fw = RL_FRAMEWORKS.get(fid) if isinstance(fid, str) else None
        try:
            new = fw.release(version if isinstance(version, str) else None) if fw else None
        except KeyError:
            return {}
        return switch_edits(self.state.value, self._current_release(), new)

    def _current_release(self) -> RLRelease | None:
        """The release whose defaults the knobs follow now (None: no framework, or a version
        no release covers)."""
        fid = self.state.value(RL_FW)
        fw = RL_FRAMEWORKS.get(fid) if isinstance(fid, str) else None
        version = self.state.value(RL_FW_VERSION)
        try:
            return fw.release(version if isinstance(version, str) else None) if fw else None
        except KeyError:
            return None

    def _fill_framework_releases(self) -> None:
        """The framework's modelled releases, newest first; a version set that is not one of
        them (between two) is kept as an item of its own. Shown with a framework, or held."""
        fid, current = self.state.value(RL_FW), self.state.value(RL_FW_VERSION)
        self.form.show(RL_FW_VERSION, fid is not None or current is not None)
        fw = RL_FRAMEWORKS.get(fid) if isinstance(fid, str) else None
        if fid == self._fw_releases_of and self.fw_release.findData(current) >= 0:
            return
        self._fw_releases_of = fid
        versions = fw.versions if fw else ()
        blocked = self.fw_release.blockSignals(True)
        self.fw_release.clear()
        self.fw_release.addItem(f"newest modelled ({versions[-1]})" if versions else "newest modelled", None)
        for v in (*reversed(versions), *([current] if current not in (None, *versions) else [])):
            self.fw_release.addItem(str(v), v)
        self.fw_release.setCurrentIndex(max(self.fw_release.findData(current), 0))
        self.fw_release.blockSignals(blocked)

    def _held(self, path: str) -> bool:
        return self.state.value(path) is not None

    def show_sizes(self, est: Any) -> None:
        """The step's timeline in words: each phase's seconds, share and memory per GPU."""
        rl = getattr(est, "rl", None)
        if rl is None:
            self.phases.setText("")
            return
        parts = [
            f"{p['name'].replace('_', ' ')} {p['seconds']:,.1f} s ({p['share']:.0%}, "
            f"{fmt_bytes(p['memory']['total'], self.unit, 1)})"
            for p in rl["phases"]
        ]
        moves = sum(m["seconds"] for m in rl.get("transitions", ()))
        if moves:  # colocated: engine sleep / wake and training states to and from host
            parts.append(
                f"sleep, wake and state moves {moves:,.1f} s ({moves / rl['time_per_step_seconds']:.0%})"
            )
        self.phases.setText(
            f"Time per step {rl['time_per_step_seconds']:,.1f} s: "
            + "; ".join(parts)
            + f". Peak in {rl['peak_phase'].replace('_', ' ')}."
        )
