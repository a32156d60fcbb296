"""Which GPUs a framework runs on: one rule every surface enforces.

A framework's ``runs_on`` (core/registry/frameworks.py, each with the install docs that say
so) names the GPU vendors its builds drive: MLX only Apple silicon's Metal, TensorRT-LLM only
NVIDIA's CUDA, vLLM CUDA, ROCm and Intel XPU. ``estimate`` refuses a scenario whose GPU is of
another vendor (naming ``framework`` and the GPUs it runs on); the sizing (``compare``,
``plan``, the Hardware tab) ranks only the GPUs it runs on and says which it left out. A GPU of
a vendor the catalog does not know (a user's custom entry) is not judged.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from ..errors import ScenarioError
from ..model.field_path import get_path
from ..model.presets import gpu_presets, gpu_spec, scenario_gpu
from ..model.specs import GPUSpec, Scenario
from ..registry.frameworks import FRAMEWORKS, FrameworkProfile
from ..registry.training_formats import mx_refusal
from ..speed.gpu_family import gpu_family
from .quant_capability import quant_capability_note, quant_capability_refusal
from .validate_sched import a2a_gpu_refusal

_LISTED = 6  # at most this many GPU ids in a message; more are said by vendor


def runs_on(profile: FrameworkProfile, gpu: GPUSpec) -> bool:
    """Whether ``profile`` runs on ``gpu``: its vendor among ``profile.runs_on``, an Intel
    Gaudi HPU only where it has a Gaudi build (``profile.runs_on_hpu``), and an AMD GPU only of
    the architectures its ROCm build targets (``profile.amd_families``: SGLang's sgl-kernel is
    built for CDNA3 and CDNA4 alone, core/registry/frameworks_serving.py)."""
    return (
        profile.runs_on_vendor(gpu.vendor)
        and (profile.runs_on_hpu or not gpu.hpu)
        and _amd_built(profile, gpu)
    )


def _amd_built(profile: FrameworkProfile, gpu: GPUSpec) -> bool:
    if not profile.amd_families or gpu.vendor.lower() != "amd":
        return True
    return gpu_family(gpu) in profile.amd_families


def vendors_text(profile: FrameworkProfile) -> str:
    """Its vendors in words: "NVIDIA, AMD and Intel"."""
    *head, last = profile.runs_on
    return f"{', '.join(head)} and {last}" if head else last


def no_hpu(profile: FrameworkProfile) -> str:
    """ ", not on Intel Gaudi HPUs" where it runs on Intel's GPUs but has no Gaudi build."""
    return "" if profile.runs_on_hpu or not profile.runs_on_vendor("Intel") else ", not on Intel Gaudi HPUs"


def amd_only(profile: FrameworkProfile, gpus: Iterable[GPUSpec]) -> str:
    """ ", on AMD only CDNA3 and CDNA4 Instinct GPUs (its build)" where one of ``gpus`` is an
    AMD GPU of an architecture its ROCm build does not target; "" otherwise."""
    if all(_amd_built(profile, g) for g in gpus):
        return ""
    built = " and ".join(f.upper() for f in profile.amd_families)
    return f", on AMD only {built} Instinct GPUs ({profile.amd_source})"


def _gpus_of(profile: FrameworkProfile, gpu: GPUSpec) -> str:
    """The catalog GPUs it runs on: their ids when few, else its vendors; then not on ``gpu``."""
    ids = [gid for gid in gpu_presets() if runs_on(profile, gpu_spec(gid))]
    vendors = vendors_text(profile)
    head = f"{vendors} GPUs ({', '.join(ids)})" if len(ids) <= _LISTED else f"{vendors} GPUs"
    if gpu.hpu and profile.runs_on_vendor(gpu.vendor):  # Intel's GPUs, not its Gaudi HPUs
        return f"{head}, not on Intel Gaudi HPUs such as {gpu.name}"
    if not _amd_built(profile, gpu):
        return f"{head}{amd_only(profile, [gpu])}, not on {gpu.name}"
    return f"{head}, not on {gpu.name} ({gpu.vendor})"


def _engines(s: Scenario) -> list[tuple[str, FrameworkProfile]]:
    """The kind's own engines beside the framework, each with the field naming it (RL's rollout
    engine, ``rl.rollout.engine``: vLLM and SGLang, whose builds drive no Apple GPU)."""
    return [(path, FRAMEWORKS[str(get_path(s, path))]) for path in s.workload.info.engines]


def _stoppers(s: Scenario, gpu: GPUSpec) -> list[tuple[str, FrameworkProfile]]:
    """The framework and the kind's engines that do not run on ``gpu``, each with its field."""
    return [(f, p) for f, p in [("framework", s.profile), *_engines(s)] if not runs_on(p, gpu)]


def scenario_runs_on(s: Scenario, gpu: GPUSpec) -> bool:
    """Whether the scenario's framework and its kind's own engines all run on ``gpu``, and the
    MoE exchange it states too (``serving.moe_a2a_backend``: DeepEP needs NVLink,
    core/pipeline/validate_sched.py ``a2a_gpu_refusal``), and its weight format loads there
    (core/pipeline/quant_capability.py)."""
    return not _stoppers(s, gpu) and _refusal(s, gpu) is None


def _refusal(s: Scenario, gpu: GPUSpec) -> str | None:
    """Why a GPU the framework runs on still cannot take the scenario: the stated MoE exchange,
    a weight format the engine does not load on it, or MXFP8 matmuls below Blackwell (None:
    none of them)."""
    return a2a_gpu_refusal(s, gpu) or quant_capability_refusal(s, gpu) or _mx(s, gpu)


def _mx(s: Scenario, gpu: GPUSpec) -> str | None:
    """Training's ``precision.matmuls: "mxfp8"`` on an NVIDIA GPU below compute capability 10.0
    (core/registry/training_formats.py: torchtitan's own assertion)."""
    return mx_refusal(s.precision.matmuls, gpu.vendor, gpu.compute_capability) if s.workload.trains else None


def check_runs_on(s: Scenario) -> None:
    """ScenarioError naming ``framework`` when the scenario's GPU is of a vendor it does not
    run on: the GPUs it runs on, and the frameworks of the same kind that run on this GPU; or
    naming a kind's engine's field (``rl.rollout.engine``) when that engine does not."""
    prof, gpu = s.profile, scenario_gpu(s)
    if runs_on(prof, gpu):
        if _mx(s, gpu):
            raise ScenarioError("precision.matmuls", str(_mx(s, gpu)))
        for field, engine in _engines(s):
            if not runs_on(engine, gpu):
                raise ScenarioError(
                    field,
                    f"{engine.label} runs on {_gpus_of(engine, gpu)}; choose one of those in hardware.gpu",
                )
        return
    others = [p.id for p in FRAMEWORKS.values() if p.fits(s.workload.info) and runs_on(p, gpu)]
    raise ScenarioError(
        "framework",
        f"{prof.label} runs on {_gpus_of(prof, gpu)}; choose one of those in hardware.gpu, or a "
        f"framework that runs on {gpu.name if gpu.hpu else gpu.vendor}: {', '.join(others) or 'none'}",
    )


def left_out(s: Scenario, gpu_ids: Iterable[str], specs: dict[str, GPUSpec]) -> list[str]:
    """The ids of ``gpu_ids`` whose GPU the scenario's framework (or its kind's own engine)
    does not run on."""
    return [gid for gid in gpu_ids if gid in specs and not scenario_runs_on(s, specs[gid])]


def left_out_note(s: Scenario, ids: list[str]) -> str | None:
    """The sentence that says which GPUs a comparison left out and why (None: none): their
    ids when few, else how many of each vendor. GPUs the framework (or an engine) runs on but
    the stated MoE exchange or the weight format does not get a sentence of their own after it."""
    presets = gpu_presets()
    # an id outside the catalog is the scenario's inline GPU (compare.left_out_gpus)
    specs = {g: gpu_spec(g) if g in presets else scenario_gpu(s) for g in ids}
    by_a2a = [g for g in ids if not _stoppers(s, specs[g]) and _refusal(s, specs[g])]
    by_engine = [g for g in ids if g not in by_a2a]
    out = [_engine_note(s, by_engine)] if by_engine else []
    by_a2a_only = [g for g in by_a2a if a2a_gpu_refusal(s, specs[g])]
    if by_a2a_only:
        out.append(f"Left out: {_which(by_a2a_only)}: {a2a_gpu_refusal(s, specs[by_a2a_only[0]])}.")
    by_mx = [g for g in by_a2a if g not in by_a2a_only and _mx(s, specs[g])]
    if by_mx:  # the framework's rule; the message's own GPU is the first's
        out.append(f"Left out: {_which(by_mx)}: MXFP8 matmuls need compute capability 10.0 or later.")
    by_quant = [g for g in by_a2a if g not in by_a2a_only and g not in by_mx]
    if by_quant:  # the weight format's rule once, with each GPU's own capability
        out.append(f"Left out: {_which(by_quant)}: {quant_capability_note(s, [specs[g] for g in by_quant])}.")
    return " ".join(out) or None


def _which(ids: list[str]) -> str:
    """The ids when few, else how many of each vendor."""
    if len(ids) <= _LISTED:
        return ", ".join(ids)
    presets = gpu_presets()
    vendors = Counter(gpu_spec(g).vendor if g in presets else "other" for g in ids)
    return f"{len(ids)} GPUs ({', '.join(f'{v} {n}' for v, n in vendors.most_common())})"


def _engine_note(s: Scenario, ids: list[str]) -> str:
    """The sentence for GPUs the framework or the kind's own engine does not run on."""
    prof, specs = s.profile, [gpu_spec(g) for g in ids if g in gpu_presets()]
    why = [f"{prof.label} runs on {vendors_text(prof)} GPUs only{no_hpu(prof)}{amd_only(prof, specs)}"]
    engines = {(f, p.id): p for g in specs for f, p in _stoppers(s, g)}
    if engines and ("framework", prof.id) not in engines:  # the framework runs there: an engine not
        why = [
            f"{p.label} ({f}) runs on {vendors_text(p)} GPUs only{no_hpu(p)}{amd_only(p, specs)}"
            for (f, _), p in engines.items()
        ]
    return f"Left out: {_which(ids)}: {'; '.join(why)}."
