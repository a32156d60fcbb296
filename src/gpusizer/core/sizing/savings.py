"""Techniques that save hardware: what the advice may turn on so that training fits on fewer
or cheaper GPUs (``plan``, ``compare_gpus``, the window's "GPUs needed" line).

The ladder, cheapest in speed first, each step keeping the ones before it (how a practitioner
tries them; docs/evidence/training.md has the memory each saves):

1. a fused cross-entropy loss (Liger, cut-cross-entropy, Unsloth: no logits kept);
2. selective recompute (Korthikanti et al. 2022, arXiv 2205.05198: attention recomputed);
3. gradient checkpointing (``recompute: "full"``: only each layer's input kept; about a
   third more FLOPs, core/model/flops.py);
4. offloaded gradient checkpointing (the checkpoints in host RAM, Unsloth's);
5. optimizer offload (ZeRO-Offload: optimizer states in host RAM, stepped on the CPU);
5b. parameter offload, where the framework has it (``FrameworkProfile.parameter_offload``:
   FSDP's ``CPUOffload(offload_params=True)``, DeepSpeed ZeRO-3 ``offload_param``): the
   sharded weights in host RAM, copied up before each pass (core/speed/param_offload.py prices
   the copies; Answer.AI's fsdp_qlora trains Llama 2 70B on two 24 GB cards so);
6. for LoRA and QLoRA, an adapter-friendly framework: Unsloth (its fused LoRA kernels save
   fewer tensors; core/memory/activations_unsloth.py), with the defaults its profile sets, on
   one GPU or as data-parallel copies (its DDP: core/pipeline/validate_ddp.py).

A step the scenario already has, or that its framework cannot run (validation says so), is
left out. A variant never changes the model, the workload kind or the precision; its
``changes`` (dotted field paths -> values) applied to the scenario reproduce it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import ScenarioError
from ..memory.layouts import activation_layout
from ..memory.techniques import profile_edits
from ..model.presets import scenario_gpu
from ..model.specs import GPUSpec, Scenario
from ..pipeline.runs_on import runs_on
from ..pipeline.validate import check_scenario
from ..pipeline.validate_ddp import ddp_changes
from ..registry.frameworks import FRAMEWORKS, FrameworkProfile, adapter_fallback
from ..registry.loss_kinds import LOSS_KINDS, advisor_fallback

# (name, dotted field, value) of each rung but the framework, cheapest in speed first
STEPS: tuple[tuple[str, str, Any], ...] = (
    ("a fused loss", "workload.loss", advisor_fallback().id),  # the loss kinds' registry
    ("selective recompute", "parallelism.recompute", "selective"),
    ("gradient checkpointing", "parallelism.recompute", "full"),
    ("offloaded checkpoints", "parallelism.activation_offload", "checkpoints"),
    ("optimizer offload", "parallelism.offload_optimizer", True),
    ("parameter offload", "parallelism.offload_parameters", True),
)


def phrase(names: tuple[str, ...] | list[str]) -> str:
    """``with gradient checkpointing and optimizer offload`` (empty for none)."""
    if not names:
        return ""
    words = list(names)
    return "with " + (words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1])


@dataclass(frozen=True)
class Variant:
    """The scenario with ``changes`` applied, and the techniques named for people."""

    scenario: Scenario
    changes: dict[str, Any] = field(default_factory=dict)
    names: tuple[str, ...] = ()
    max_gpus: int = 2**31  # a fallback profile's ``max_gpus`` (None there: any count)

    @property
    def phrase(self) -> str:
        return phrase(self.names)

    @property
    def falls_back(self) -> bool:
        """Whether this rung switches to the adapter-fallback framework."""
        return _fallback_in(self.changes) is not None

    @property
    def whole_copies(self) -> bool:
        """Whether this rung is a fallback that trains data parallel only (Unsloth's DDP,
        core/pipeline/validate_ddp.py): every GPU holds the whole model at any count."""
        return self.falls_back and self.scenario.profile.data_parallel_only

    @property
    def counts_up_to(self) -> int:
        """The most GPUs for which this rung's fewest count speaks of the lighter rungs: whole
        copies need as much memory per GPU on many GPUs as on one, while the rungs before them
        shard the model, so past one GPU they rule nothing out (0 where the GPU does not run
        the rung's framework: core/sizing/advise_all.py ``_runs_here``)."""
        return min(1, self.max_gpus) if self.whole_copies else self.max_gpus


def describe(changes: dict[str, Any]) -> str:
    """The techniques of an option's ``scenario_changes`` for people (empty for none)."""
    fallback = _fallback_in(changes)
    if fallback is not None:
        extra = ["optimizer offload"] if changes.get("parallelism.offload_optimizer") else []
        return phrase([fallback.label, *extra])
    return phrase([name for name, path, value in STEPS if changes.get(path) == value])


def _fallback_in(changes: dict[str, Any]) -> FrameworkProfile | None:
    """The adapter-fallback framework the changes switch to (None when they switch to none)."""
    profile = FRAMEWORKS.get(str(changes.get("framework", "")))
    return profile if profile is not None and profile.adapter_fallback else None


def apply_changes(s: Scenario, changes: dict[str, Any]) -> Scenario:
    """``s`` with dotted-path ``changes`` (``framework``, ``workload.loss``...) set; the
    result is checked (ScenarioError when the combination cannot run)."""
    blocks: dict[str, dict[str, Any]] = {}
    top: dict[str, Any] = {}
    for path, value in changes.items():
        block, _, name = path.partition(".")
        if name:
            blocks.setdefault(block, {})[name] = value
        else:
            top[block] = value
    update = {b: getattr(s, b).model_copy(update=v) for b, v in blocks.items()} | top
    out = s.model_copy(update=update)
    check_scenario(out)
    return out


def _applies(s: Scenario, path: str, value: Any) -> bool:
    """Whether a rung changes ``s`` (and the loss one: its framework computes the loss)."""
    block, name = path.split(".")
    current = getattr(getattr(s, block), name)
    if path == "workload.loss":
        keeps_logits = not LOSS_KINDS[current].fused
        return not activation_layout(s.profile).vocab_parallel_loss and keeps_logits
    if value == "selective":
        return current == "none"
    if path == "parallelism.offload_parameters" and not s.profile.parameter_offload:
        return False
    return bool(current != value)


def _steps(s: Scenario) -> list[tuple[str, dict[str, Any]]]:
    """(name, changes) of each ladder rung that changes something."""
    out = [(name, {path: value}) for name, path, value in STEPS if _applies(s, path, value)]
    fallback = adapter_fallback()
    # a switch to the fallback only where it runs (Unsloth: not on a Mac)
    if (
        s.workload.is_adapter
        and fallback is not None
        and not s.profile.adapter_fallback
        and runs_on(fallback, scenario_gpu(s))
    ):
        # a data-parallel-only fallback (Unsloth's DDP) runs whole-model copies: the stated
        # split or ZeRO stage is set back to DDP's (core/pipeline/validate_ddp.py)
        ddp = ddp_changes(s) if fallback.data_parallel_only else {}
        # the weights come back to the GPU where the fallback cannot offload them
        resident = {"parallelism.offload_parameters": s.parallelism.offload_parameters}
        kept = {} if fallback.parameter_offload else resident
        edits = {"framework": fallback.id, **profile_edits(fallback.id), **ddp, **kept}
        out.append((fallback.label, edits))
    return out


def offload_moot(variants: list[Variant], v: int, gpu: GPUSpec) -> bool:
    """Whether rung ``v`` turns on parameter offload on a unified-memory GPU (Apple silicon),
    where host RAM is the GPU's own memory: there is nothing to offload the weights to, and the
    rung is kept in place on no count of GPUs (core/sizing/advise_all.py)."""
    adds = (
        variants[v].scenario.parallelism.offload_parameters
        and not variants[0].scenario.parallelism.offload_parameters
    )
    return bool(adds and gpu.unified_memory)


def ladder(s: Scenario) -> list[Variant]:
    """The scenario as set, then each rung of the ladder added to the ones before it
    (training only; a serving scenario has only itself)."""
    out = [Variant(s)]
    if s.workload.serves:
        return out
    changes: dict[str, Any] = {}
    names: list[str] = []
    for name, step in _steps(s):
        trial = changes | step
        try:
            sc = apply_changes(s, trial)
        except ScenarioError:
            continue
        changes, names = trial, [*names, name]
        if name == "gradient checkpointing" and "selective recompute" in names:
            names.remove("selective recompute")  # full recompute replaces it
        if "parameter offload" in names and not sc.parallelism.offload_parameters:
            names.remove("parameter offload")  # a fallback that cannot offload the weights
        fallback = _fallback_in(step)
        most = fallback.max_gpus if fallback is not None and fallback.max_gpus else 2**31
        out.append(Variant(sc, dict(changes), tuple(names), most))
    return out
