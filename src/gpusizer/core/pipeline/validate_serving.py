"""The serving checks (core/pipeline/validate.py): the engine's release, its load, its
llama.cpp backend and each deployment feature; each violation names the field and what would
be allowed."""

from __future__ import annotations

from ..errors import ScenarioError, excerpt
from ..model.presets import scenario_gpu
from ..model.redundant import check_redundant
from ..model.specs import Scenario
from ..registry.attention_backends import attention_backend_engine_hint
from ..registry.engines import release
from ..registry.frameworks import FRAMEWORKS
from ..registry.moe_backends import AITER, MOE_BACKENDS
from ..registry.moe_backends import ENGINE as MOE_BACKEND_ENGINE
from ..serving.attention_dp import check_attention_data
from ..serving.context_limit import check_context_limit
from ..serving.cpu_moe import check_cpu_moe
from ..serving.disaggregated import check_disaggregated
from ..serving.lora_serving import check_lora
from ..serving.multi_turn import check_turns
from ..serving.prefix import check_prefix
from ..serving.rules import memory_rule
from ..serving.speculative import check_speculative
from ..serving.turn_context import check_last_turn
from ..serving.weight_offload import check_weight_offload
from ..speed.rates_era import GGML_BACKENDS, backend_runs_on
from .validate_features import check_features
from .validate_sched import check_scheduler_knobs


def check_backend(s: Scenario) -> None:
    """``serving.ggml_backend`` is llama.cpp's and drives the scenario's GPU."""
    backend = s.serving.ggml_backend
    if backend is None or s.workload.trains:
        return
    if s.profile.kernels != "ggml":
        raise ScenarioError("serving.ggml_backend", f"applies to llama.cpp / Ollama, not {s.profile.label}")
    if backend == "cpu":
        msg = '"cpu" is not timed as a backend; set serving.gpu_layers 0'
        raise ScenarioError("serving.ggml_backend", msg)
    vendor = scenario_gpu(s).vendor
    if not backend_runs_on(backend, vendor):
        able = ", ".join(b for b in GGML_BACKENDS if b != "cpu" and backend_runs_on(b, vendor))
        raise ScenarioError("serving.ggml_backend", f"{backend} does not drive {vendor} GPUs; choose {able}")


def check_serving(s: Scenario) -> None:
    """``serving.engine_version`` names a release of the chosen engine; a ``rate`` load has its
    request rate; ``serving.ggml_backend`` drives the GPU; each feature set is one the engine
    runs (before the feature's own checks: a split the engine cannot run is not sized)."""
    check_features(s)
    check_context_limit(s)
    check_prefix(s)
    check_turns(s)
    check_last_turn(s)
    check_speculative(s)
    check_lora(s)
    check_cpu_moe(s)
    check_weight_offload(s, memory_rule(s.profile).offloads_weights)
    check_attention_backend(s)
    check_disaggregated(s)
    check_attention_data(s)
    check_redundant(s)
    if s.serving.needs_rate and s.workload.serves:
        raise ScenarioError("serving.request_rate", 'required with serving.load "rate" (requests per second)')
    check_backend(s)
    _check_moe_backend(s)
    check_scheduler_knobs(s)
    if s.serving.max_kv_size is not None and s.workload.serves and not s.profile.rotating_kv:
        able = ", ".join(p.id for p in FRAMEWORKS.values() if p.rotating_kv)
        msg = f"applies to {able} (mlx-lm --max-kv-size), not {s.profile.label}; use serving.max_context"
        raise ScenarioError("serving.max_kv_size", msg)
    version = s.serving.engine_version
    if version is None or s.workload.trains:
        _check_async_output(s)
        return
    allowed = s.profile.versions
    if not allowed:
        raise ScenarioError("serving.engine_version", f"{s.profile.label} has no versions to choose")
    try:
        release(s.profile.releases, version)
    except KeyError:
        raise ScenarioError(
            "serving.engine_version",
            f"must be a {s.profile.label} version from {allowed[0]} on (documented releases: "
            f"{', '.join(allowed)}; a version between two takes the older one's defaults); "
            f"got {excerpt(version)}",
        ) from None
    _check_async_output(s)


def _check_async_output(s: Scenario) -> None:
    """``serving.async_output`` false is vLLM V0's ``--disable-async-output-proc``: the
    release must run the V0 engine (``VLLMKnobs.serial_output``)."""
    if s.serving.async_output is not False or not s.workload.serves:
        return
    releases = s.profile.releases
    rel = release(releases, s.serving.engine_version) if releases else None
    if rel is None or not rel.vllm.serial_output[1]:
        v0 = ", ".join(r.version for r in FRAMEWORKS["vllm"].releases if r.vllm.serial_output[1])
        msg = (
            "false is vLLM V0's --disable-async-output-proc: framework vllm with "
            f"serving.engine_version one of its V0 releases ({v0}); V1 (0.8.0 on) processes "
            "outputs in its own process; true or null otherwise"
        )
        raise ScenarioError("serving.async_output", msg)


def _check_moe_backend(s: Scenario) -> None:
    """``serving.moe_backend`` is vLLM's ``--moe-backend`` (core/registry/moe_backends.py);
    "aiter" is ROCm's, an AMD GPU's, and the one an SGLang run may state (``SGLANG_USE_AITER=1``:
    ``MoeBackend.engines``)."""
    if s.serving.moe_backend == AITER and s.workload.serves:
        gpu = scenario_gpu(s)
        if gpu.vendor.lower() != "amd":
            other = "triton or null" if s.profile.id == MOE_BACKEND_ENGINE else "null"
            msg = f"\"aiter\" is ROCm's fused MoE (an AMD GPU), not {gpu.name}'s; {other} here"
            raise ScenarioError("serving.moe_backend", msg)
    backend = s.serving.moe_backend
    if backend is None or not s.workload.serves or s.profile.id == MOE_BACKEND_ENGINE:
        return
    if s.profile.id in MOE_BACKENDS[backend].engines:
        return
    vllm = FRAMEWORKS[MOE_BACKEND_ENGINE].label
    told = [b.id for b in MOE_BACKENDS.values() if s.profile.id in b.engines]
    allowed = f"{' or '.join(told)} or null" if told else "null"
    msg = f"is {vllm}'s --moe-backend, not {s.profile.label}'s; {allowed} for this engine"
    raise ScenarioError("serving.moe_backend", msg)


def check_attention_backend(s: Scenario) -> None:
    """``serving.attention_backend`` names a backend of the engine that runs it: vLLM's names
    under vLLM, SGLang's under SGLang (core/registry/attention_backends.py)."""
    hint = attention_backend_engine_hint(s.framework, s.serving.attention_backend)
    if hint:
        raise ScenarioError(
            "serving.attention_backend", f"{hint}; got {excerpt(s.serving.attention_backend)}"
        )
