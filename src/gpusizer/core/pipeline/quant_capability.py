"""A weight format the engine does not load on the scenario's GPU: vLLM refuses a quantisation
method below its config's minimum compute capability at the scenario's release
(``serving.engine_version``; core/registry/quant_capability.py, with the sources). ``estimate``
refuses such a scenario naming ``precision.weights``; a comparison
leaves the GPU out with the same sentence (core/pipeline/runs_on.py), as it does a GPU the
framework does not run on. A GPU without a CUDA compute capability (AMD, Apple, Intel, a custom
entry without one) is not judged.

A named weight mixture (SGLang's ``w4afp8``: core/registry/weight_mixtures.py) is judged by its
own rule: refused under a framework that does not load it, naming the ones that do, and on a
GPU outside the compute capabilities its kernels are built for (Hopper), AMD and Apple included.
"""

from __future__ import annotations

from ..errors import ScenarioError
from ..model.presets import scenario_gpu
from ..model.specs import GPUSpec, Scenario
from ..registry.quant_capability import first_release_loading, min_capability
from ..registry.weight_mixtures import WeightMixture, engines_line, stated_mixture


def _version(cc: str) -> tuple[int, int]:
    major, minor = cc.split(".")
    return int(major), int(minor)


def quant_capability_refusal(s: Scenario, gpu: GPUSpec) -> str | None:
    """Why the scenario's engine cannot load its weights on ``gpu`` (None: it can, or the
    pair is not judged)."""
    return quant_capability_note(s, [gpu])


def mixture_engine_note(s: Scenario) -> str | None:
    """Why the scenario's framework does not load its named weight mixture (None: none
    stated, or the framework loads it)."""
    mix = stated_mixture(s.precision.modules)
    if mix is None or s.profile.id in mix.engines:
        return None
    return (
        f"{mix.id} (FP8 with W4A8 INT4 routed experts) is loaded by {engines_line(mix)}, not "
        f'{s.profile.label}; choose one of those, or state fp8 with precision.modules {{"experts": '
        '"awq_int4"} for the bytes of a 4-bit-expert checkpoint'
    )


def mixture_gpu_note(s: Scenario, gpus: list[GPUSpec]) -> str | None:
    """The mixture's rule once, then each GPU of ``gpus`` below its minimum compute capability
    (None: no mixture stated, or none is below)."""
    mix = stated_mixture(s.precision.modules)
    if mix is None:
        return None
    low = [f"{g.name} has {g.compute_capability or 'none'}" for g in gpus if not _runs_mixture(g, mix)]
    if not low:
        return None
    return (
        f"{s.profile.label} runs {mix.id} weights at CUDA compute capability {mix.min_capability} "
        f"to below {mix.below_capability} (Hopper: an SM90 CUTLASS W4A8 MoE kernel); {', '.join(low)}"
    )


def _runs_mixture(gpu: GPUSpec, mix: WeightMixture) -> bool:
    # a GPU without a CUDA compute capability (AMD, Apple) has no build of the kernel
    cc = gpu.compute_capability
    return cc is not None and _version(mix.min_capability) <= _version(cc) < _version(mix.below_capability)


def quant_capability_note(s: Scenario, gpus: list[GPUSpec]) -> str | None:
    """The engine's rule once, then each refused GPU of ``gpus`` with its own capability
    ("...; Tesla T4 16GB has 7.5, Tesla V100 SXM2 32GB has 7.0"); None where none is refused."""
    mixed = mixture_engine_note(s) or mixture_gpu_note(s, gpus)
    if mixed:
        return mixed
    need = min_capability(s.profile.id, s.precision.weights, s.serving.engine_version)
    if need is None:
        return None
    low = [
        f"{g.name} has {g.compute_capability}"
        for g in gpus
        if g.compute_capability is not None and _version(g.compute_capability) < _version(need.capability)
    ]
    if not low:
        return None
    return (
        f"{s.profile.label} loads {s.precision.weights} weights from compute capability "
        f"{need.capability} ({need.source}); {', '.join(low)}"
    )


def check_quant_capability(s: Scenario) -> None:
    """ScenarioError naming ``precision.weights`` where the engine refuses the weight format
    on the scenario's GPU."""
    gpu = scenario_gpu(s)
    engine = mixture_engine_note(s)
    if engine:
        raise ScenarioError("precision.weights", engine)
    low = mixture_gpu_note(s, [gpu])
    if low:
        raise ScenarioError("precision.weights", f"{low}: choose another GPU in hardware.gpu")
    why = quant_capability_refusal(s, gpu)
    if why:
        since = first_release_loading(s.profile.id, s.precision.weights, gpu.compute_capability or "0.0")
        later = f", serving.engine_version {since} or later" if since else ""
        fix = f"choose 16-bit or GPTQ weights{later}, or another GPU in hardware.gpu"
        raise ScenarioError("precision.weights", f"{why}: {fix}")
