"""Rules that tie fields together; each violation names the field and what would be allowed."""

from __future__ import annotations

from ..errors import ScenarioError, excerpt
from ..memo import Memo
from ..memory.layouts import check_layouts
from ..memory.techniques import check_techniques
from ..model.architecture import MIN_INFERRED_PARAMETERS, resolve
from ..model.presets import check_host, scenario_gpu
from ..model.redundant import check_redundant, physical_experts
from ..model.specs import ModelSpec, Scenario
from ..model.workload_spec import LORA_TARGETS
from ..registry.engines import release
from ..registry.frameworks import FRAMEWORKS
from ..serving.attention_dp import attention_tp, check_attention_data, per_rank_note
from ..serving.disaggregated import check_disaggregated
from ..serving.kv_offload import check_offload
from ..serving.lora_serving import check_lora
from ..serving.prefix import check_prefix
from ..serving.rules import check_rules
from ..serving.speculative import check_speculative
from ..speed.rates_era import GGML_BACKENDS, backend_runs_on
from .rl_check import check_rl
from .validate_features import check_features
from .validate_sched import check_scheduler_knobs


def _divisors(n: int, limit: int = 64) -> str:
    return ", ".join(str(d) for d in range(1, min(n, limit) + 1) if n % d == 0)


def check_model(spec: ModelSpec) -> None:
    """The architecture must be complete (or size-only) and self-consistent."""
    if spec.layers is None:
        if spec.parameters is None:
            raise ScenarioError(
                "model",
                "give a preset, a full architecture (layers, hidden_size, attention_heads, ...) "
                'or {"name", "parameters"}',
            )
        if spec.parameters < MIN_INFERRED_PARAMETERS:
            raise ScenarioError(
                "model.parameters",
                f"a model known only by its size needs at least {MIN_INFERRED_PARAMETERS:,} parameters; "
                f"got {spec.parameters:,} (give a smaller model's architecture: layers, hidden_size, ...)",
            )
        return
    for field in ("hidden_size", "attention_heads", "vocab_size"):
        if getattr(spec, field) is None:
            raise ScenarioError(f"model.{field}", "required with model.layers (a full architecture)")
    arch = resolve(spec)
    if spec.head_dim is None and spec.mla is None and arch.hidden % arch.heads:
        raise ScenarioError(
            "model.head_dim",
            f"hidden_size ({arch.hidden}) is not divisible by attention_heads ({arch.heads}); give head_dim",
        )
    if arch.heads % arch.kv_heads:
        raise ScenarioError(
            "model.kv_heads",
            f"must divide attention_heads ({arch.heads}); allowed: {_divisors(arch.heads)}",
        )
    moe = spec.moe
    if moe is not None and moe.experts_per_token > moe.experts:
        raise ScenarioError("model.moe.experts_per_token", f"at most experts ({moe.experts})")
    if spec.sliding_window_layers > arch.layers:
        raise ScenarioError("model.sliding_window_layers", f"at most layers ({arch.layers})")
    _check_hybrid(spec)


def _check_hybrid(spec: ModelSpec) -> None:
    """Recurrent layers fit in the model; MLP-free layers come off the dense layers."""
    arch = resolve(spec)
    if arch.mixer_layers > arch.layers:
        raise ScenarioError(
            "model.linear_attention.layers",
            f"linear_attention.layers + mamba.layers at most layers ({arch.layers}); got {arch.mixer_layers}",
        )
    if spec.sliding_window_layers > arch.attention_layers:
        raise ScenarioError(
            "model.sliding_window_layers", f"at most the attention layers ({arch.attention_layers})"
        )
    if spec.mlp_layers is not None and not arch.moe_layers <= spec.mlp_layers <= arch.layers:
        raise ScenarioError(
            "model.mlp_layers", f"between the MoE layers ({arch.moe_layers}) and layers ({arch.layers})"
        )


def check_parallelism(s: Scenario) -> None:
    """TP divides heads, PP at most layers, EP divides experts, TP within a node (Megatron-LM).
    Under attention data parallelism the heads are split at its attention TP
    (core/serving/attention_dp.py ``attention_tp``)."""
    p, arch = s.parallelism, resolve(s.model)
    tp = attention_tp(p)
    if arch.heads % tp:
        raise ScenarioError(
            "parallelism.tensor",
            f"must divide attention_heads ({arch.heads}){per_rank_note(p)}; allowed: {_divisors(arch.heads)}",
        )
    if s.model.mla is None and tp > arch.kv_heads and tp % arch.kv_heads:
        raise ScenarioError(
            "parallelism.tensor",
            f"must divide kv_heads ({arch.kv_heads}) or be a multiple of it{per_rank_note(p)}",
        )
    if tp < arch.kv_heads and arch.kv_heads % tp:
        raise ScenarioError(
            "parallelism.tensor",
            f"must divide kv_heads ({arch.kv_heads}){per_rank_note(p)}; allowed: {_divisors(arch.kv_heads)}",
        )
    check_pipeline(s)
    if p.pipeline > arch.layers:
        raise ScenarioError("parallelism.pipeline", f"at most layers ({arch.layers})")
    if p.virtual_stages > 1 and p.pipeline * p.virtual_stages > arch.layers:
        raise ScenarioError(
            "parallelism.virtual_stages",
            f"pipeline x virtual_stages must not exceed layers ({arch.layers})",
        )
    moe = s.model.moe
    if p.expert > 1:
        if moe is None:
            raise ScenarioError("parallelism.expert", "must be 1 for a dense model (no experts)")
        check_redundant(s)  # replicas that do not spread evenly: named on their own field
        if physical_experts(s) % p.expert:
            raise ScenarioError(
                "parallelism.expert",
                f"must divide experts ({moe.experts}); allowed: {_divisors(moe.experts, 256)}",
            )
        if p.attention_data == 1 and (p.data * p.context) % p.expert:
            raise ScenarioError(
                "parallelism.expert",
                f"must divide data x context ({p.data * p.context}): experts are sharded over "
                "the data-parallel ranks",
            )
    if p.context > 1 and s.workload.sequence_length % (2 * p.context) and s.workload.trains:
        raise ScenarioError(
            "parallelism.context",
            f"2 x context must divide sequence_length ({s.workload.sequence_length}) "
            "(load-balanced ring attention)",
        )
    hw = s.hardware
    # under attention DP only the ranks' attention TP is tensor-parallel traffic; the experts'
    # exchange may cross nodes as EP over replicas does (SGLang's --tp 72 --dp 72 over 9 nodes)
    if attention_tp(p) > hw.gpus_per_node and not hw.allow_cross_node_tensor_parallel:
        raise ScenarioError(
            "parallelism.tensor",
            f"at most gpus_per_node ({hw.gpus_per_node}); tensor parallelism across nodes is "
            "allowed only with hardware.allow_cross_node_tensor_parallel",
        )


def check_pipeline(s: Scenario) -> None:
    """ScenarioError naming ``parallelism.pipeline`` when it is above 1 under a framework with
    no pipeline parallelism for this kind of work (FrameworkProfile.pipelines: FSDP, the HF
    Trainer and the recipes built on them shard over data-parallel ranks instead), with the
    frameworks of the same kind that have it; a ZeRO stage above the one its pipeline engine
    takes (DeepSpeed: 1) is refused on ``parallelism.zero_stage``."""
    kind, prof, p = s.workload.info, s.profile, s.parallelism
    if p.pipeline <= 1:
        return
    if prof.pipelines(kind):
        if kind.trains and p.zero_stage > prof.pipeline_max_zero:
            raise ScenarioError(
                "parallelism.zero_stage",
                f"at most {prof.pipeline_max_zero} with parallelism.pipeline > 1 under "
                f"{prof.label} (its pipeline engine refuses ZeRO-{p.zero_stage}); got {p.zero_stage}",
            )
        return
    others = ", ".join(f.id for f in FRAMEWORKS.values() if f.fits(kind) and f.pipelines(kind))
    work, instead = (
        ("training", " (shard over data with zero_stage instead)") if kind.trains else ("serving", "")
    )
    raise ScenarioError(
        "parallelism.pipeline",
        f"{prof.label} has no pipeline parallelism for {work}: set 1{instead}, or a framework "
        f"that has it: {others or 'none'}",
    )


def check_framework(s: Scenario) -> None:
    """The framework names registered rules (its memory rule, its releases' KV layouts, its
    activation layout and LoRA kernels), runs this kind of work (core/registry/frameworks.py:
    ``trains``; serving engines cannot train) and this layout."""
    w, prof = s.workload, s.profile
    check_rules(prof)
    check_layouts(prof)
    if not prof.fits(w.info):
        able = ", ".join(p.id for p in FRAMEWORKS.values() if p.fits(w.info))
        does = "serves models; for training" if prof.serves else "trains models; for serving"
        raise ScenarioError("framework", f"{s.framework} {does} choose {able}")
    if w.info.quantised_base and s.parallelism.zero_stage == 3 and not prof.quantised_base_zero3:
        able = ", ".join(p.id for p in FRAMEWORKS.values() if p.trains and p.quantised_base_zero3)
        raise ScenarioError("framework", f"{w.info.label} under ZeRO-3 needs {able}, not {s.framework}")


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
    check_prefix(s)
    check_speculative(s)
    check_lora(s)
    check_offload(s)
    check_disaggregated(s)
    check_attention_data(s)
    check_redundant(s)
    if s.serving.needs_rate and s.workload.serves:
        raise ScenarioError("serving.request_rate", 'required with serving.load "rate" (requests per second)')
    check_backend(s)
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
    if w.global_batch_size is not None and w.trains:
        unit = w.micro_batch_size * p.data
        if w.global_batch_size % unit:
            raise ScenarioError(
                "workload.global_batch_size",
                f"must be a multiple of micro_batch_size x data ({unit})",
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
    check_workload(s)
    check_framework(s)
    check_serving(s)
    check_techniques(s)
    check_rl(s)
