"""Serving memory rules as objects (core/serving/rules) and the training layouts' registries
(core/memory/layouts.py): every rule's inverse round-trips its pool, a new rule or layout is
one registered class, and an unknown one is a clear error."""

from __future__ import annotations

import math
import pathlib
import re
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.params import count_parameters
from gpusizer.core.model.presets import gpu_spec
from gpusizer.core.model.specs import GPUSpec, Scenario
from gpusizer.core.model.unified import OS_RESERVE_BYTES
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.pipeline.validate import check_scenario
from gpusizer.core.registry import frameworks
from gpusizer.core.registry.frameworks import FRAMEWORKS
from gpusizer.core.serving.engine_memory import pool_line
from gpusizer.core.serving.kv_pool import EngineView, PoolBudget, Stage
from gpusizer.core.serving.rules import MEMORY_RULES, ProfiledPool, memory_rule, register_rule
from gpusizer.core.serving.rules.static_free import vlm_cut

SRC = pathlib.Path(__file__).resolve().parents[2] / "src" / "gpusizer"
# (framework, version) of every serving engine's every release: each rule, each release's data
ENGINES = [(p.id, v) for p in FRAMEWORKS.values() if p.serves for v in (p.versions or (None,))]
PRESETS = ["llama-3.1-8b", "qwen2.5-0.5b", "gpt-oss-20b", "gemma-3-4b", "nemotron-nano-9b-v2"]


def test_every_serving_framework_names_a_registered_rule_and_every_rule_is_tested() -> None:
    named = {p.memory_rule for p in FRAMEWORKS.values()}
    assert named <= set(MEMORY_RULES)
    assert set(MEMORY_RULES) <= {memory_rule(FRAMEWORKS[fw]).key for fw, _ in ENGINES}


def _scenario(fw: str, version: str | None, preset: str, users: int, prompt: int, out: int, **sv: Any):
    tokens = prompt + out
    ctx = max(tokens, sv.pop("context"))
    if memory_rule(FRAMEWORKS[fw]).fitted_context:
        ctx = max(ctx, users * tokens)  # llama.cpp's cells come from the context: let it hold the load
    serving = {"max_context": ctx, "concurrency": users, **sv}
    if version:
        serving["engine_version"] = version
    sc = {
        "model": {"preset": preset},
        "workload": {"kind": "inference", "prompt_tokens": prompt, "generated_tokens": out},
        "framework": fw,
        "serving": serving,
    }
    if fw == "llama.cpp":
        sc["precision"] = {"weights": "gguf_q4_k_m"}
    return parse_scenario(sc)


def _sized(gpu: GPUSpec, capacity: int) -> GPUSpec:
    """``gpu`` with ``capacity`` bytes for the work. The inverse sizes the GPU's share; on
    unified memory the machine's whole pool (core/model/unified.pool_note: the share plus what
    sits beside it, less the OS's 6 GiB) is a second condition, so the machine grows with the
    share and never binds here (a 128 GB Mac sized to a 123.2 GiB share held 122 GiB)."""
    update: dict[str, int] = {"usable_memory_bytes": max(1, capacity)}
    if gpu.unified_memory:
        update["memory_bytes"] = max(gpu.memory_bytes, 2 * capacity + OS_RESERVE_BYTES)
    return gpu.model_copy(update=update)


def _input_fraction(s: Scenario, st_: Any, fraction: float | None) -> float | None:
    """The fraction to give the engine for it to apply ``fraction``: SGLang to 0.4.8 cuts a
    multimodal model's stated fraction too (core/registry/sglang_reserve.py), so the input is
    the applied one before that cut."""
    if fraction is None or st_.release is None or st_.release.sglang is None:
        return fraction
    return fraction / vlm_cut(s, replace(st_, memory_fraction=fraction))


def _round_trip(s: Scenario, gpu: GPUSpec) -> None:
    """The smallest GPU the inverse returns (serving.required_bytes) starts the engine, holds
    the load and one request of max_context, and fits; one block of KV less does not. The
    settings are held fixed (a larger GPU would change the defaults that depend on its size:
    vLLM's batch tiers, SGLang's fraction formula, Ollama's context); the report states whole
    bytes, truncated (hence R + 1)."""
    rule = memory_rule(s.profile)
    arch, counts = resolve(s.model), count_parameters(s.model)
    st_ = rule.settings(s, gpu)
    em = rule.memory(s, arch, counts, gpu, st_)
    st_ = replace(st_, memory_fraction=_input_fraction(s, st_, em.fraction), max_context=em.max_context)
    need = em.required_bytes
    block = em.kv_bytes_per_token * st_.kv_block_tokens / (em.fraction or 1.0)
    below = need - max(1, math.ceil(block))
    at = rule.memory(s, arch, counts, _sized(gpu, need + 1), st_)
    assert rule.runs(at, need + 1), (at.reason, at.holds_load, at.memory.total, need)
    less = rule.memory(s, arch, counts, _sized(gpu, below), st_)
    assert not rule.runs(less, below), (need, below)


@pytest.mark.parametrize("engine", ENGINES, ids=[f"{fw}-{v}" for fw, v in ENGINES])
def test_every_engine_and_release_round_trips(engine: tuple[str, str | None]) -> None:
    # 8 users of 1,500 + 300 tokens, Llama-3.1-8B on an H100 (and Gemma-3-4B's windows)
    for preset in ("llama-3.1-8b", "gemma-3-4b"):
        _round_trip(_scenario(*engine, preset, 8, 1500, 300, context=8192), gpu_spec("h100-sxm-80gb"))


@settings(max_examples=200, deadline=None)
@given(
    engine=st.sampled_from(ENGINES),
    preset=st.sampled_from(PRESETS),
    users=st.integers(1, 64),
    prompt=st.integers(1, 6000),
    out=st.integers(1, 2000),
    context=st.sampled_from([2048, 5000, 32768]),
    layout=st.sampled_from([(1, 1), (2, 1), (1, 2), (2, 2)]),
    fraction=st.sampled_from([None, 0.6, 0.85]),
    gpu_id=st.sampled_from(["h100-sxm-80gb", "apple-m4-max-128gb"]),
)
def test_the_inverse_round_trips_the_pool_within_one_block(
    engine: tuple[str, str | None],
    preset: str,
    users: int,
    prompt: int,
    out: int,
    context: int,
    layout: tuple[int, int],
    fraction: float | None,
    gpu_id: str,
) -> None:
    # every rule and release, hybrid and windowed models, TP and PP, unified memory
    fw, version = engine
    reads = memory_rule(FRAMEWORKS[fw]).serving_fields
    extra = {"memory_fraction": fraction} if fraction and "memory_fraction" in reads else {}
    try:
        s = _scenario(fw, version, preset, users, prompt, out, context=context, **extra)
        par = s.parallelism.model_copy(update={"tensor": layout[0], "pipeline": layout[1]})
        s = s.model_copy(update={"parallelism": par})
        check_scenario(s)
    except ScenarioError:
        return  # a layout the model does not allow (TP over its heads)
    _round_trip(s, gpu_spec(gpu_id))


def test_the_pool_chart_draws_the_load_as_the_rule_counts_it() -> None:
    # gui/charts/pool.py asks the rule: 3 users of 1,001 + 6 tokens = 3,021 tokens take
    # cdiv(3021, 16) = 189 whole blocks of the pool (vLLM pages by block), 3,024 tokens' worth;
    # the chart drew 3,021 tokens' worth before (no block rounding). gpt-oss-20b: 24 layers,
    # 2 KiB a token and layer (exact).
    est = estimate(
        {
            "model": {"preset": "gpt-oss-20b"},
            "workload": {"kind": "inference", "batch_size": 3, "prompt_tokens": 1001, "generated_tokens": 6},
            "framework": "vllm",
            "serving": {"max_context": 8192},
        }
    )
    line, sv = pool_line(est), est.serving
    assert line is not None and sv is not None
    assert line.reserved and line.budget_share == "0.92 of the GPU"
    assert sv.kv_bytes_per_token == 24 * 2048
    assert line.used_kv_bytes == 189 * 16 * sv.kv_bytes_per_token
    assert line.used_kv_bytes > 3021 * sv.kv_bytes_per_token  # what the chart drew before


@pytest.fixture
def bogus_engine():
    """A framework naming rules nobody registered."""
    added: list[str] = []

    def make(**names: Any) -> str:
        prof = frameworks.register(
            replace(FRAMEWORKS["vllm"], id=f"bogus-{len(added)}", label="Bogus", **names)
        )
        added.append(prof.id)
        return prof.id

    yield make
    for fid in added:
        FRAMEWORKS.pop(fid, None)


@pytest.mark.parametrize(
    ("names", "said"),
    [
        ({"memory_rule": "bogus_pool"}, "memory rule 'bogus_pool'"),
        ({"activation_layout": "bogus"}, "activation layout 'bogus'"),
        ({"lora_kernels": "bogus"}, "LoRA kernels 'bogus'"),
    ],
)
def test_an_unknown_rule_is_a_clear_error_at_validation(bogus_engine, names, said) -> None:
    fid = bogus_engine(**names)
    with pytest.raises(ScenarioError, match=f"{said}, which is not registered; registered: ") as err:
        estimate({"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}, "framework": fid})
    assert err.value.field == "framework"


def test_an_unknown_kv_layout_of_a_release_is_a_clear_error(bogus_engine) -> None:
    from gpusizer.core.registry.engine_releases import VLLM

    fid = bogus_engine(releases=(replace(VLLM[-1], version="9.9", kv_layout="bogus"),))
    with pytest.raises(ScenarioError, match="KV layout 'bogus', which is not registered"):
        estimate({"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}, "framework": fid})


def test_a_new_engine_is_a_profile_entry_and_one_rule_class(bogus_engine) -> None:
    # A vLLM-like engine that also keeps 2 GiB outside its budget: one subclass, one key.
    class Padded(ProfiledPool):
        key = "padded_pool"

        def budget(self, v: EngineView, stage: Stage) -> PoolBudget:
            b = super().budget(v, stage)
            return replace(b, away=b.away + 2 * 2**30)

    register_rule(Padded())
    try:
        sc = {
            "model": {"preset": "llama-3.1-8b"},
            "workload": {"kind": "inference"},
            "serving": {"max_context": 8192},
        }
        base = estimate({**sc, "framework": "vllm"}).serving
        padded = estimate({**sc, "framework": bogus_engine(memory_rule="padded_pool")}).serving
        assert base is not None and padded is not None
        assert padded.kv_pool_bytes == base.kv_pool_bytes
        # the free check binds at 8B: (1 - 0.92) x T >= outside, 2 GiB more outside
        assert padded.required_bytes > base.required_bytes
    finally:
        MEMORY_RULES.pop("padded_pool", None)


def test_no_rule_name_is_compared_outside_its_rule_classes() -> None:
    """A rule, a layout or a release's mode is a registry entry or a typed field its owner
    answers for, not a string tested across the tree (losses, frameworks and workload kinds:
    tests/test_no_id_dispatch.py, by the syntax tree)."""
    asked = re.compile(
        r"(memory_rule|activation_layout|lora_kernels|kv_layout|chunked_prefill|budget_snapshot"
        r"|recurrent_state|reserve|aiter|weights_log)\s*(==|!=|\bin\b)"
    )
    owners = {
        "core/registry/engines.py",
        "core/registry/engine_knobs.py",
        "core/registry/frameworks.py",
        "core/registry/framework_profile.py",
        "core/registry/profile_queries.py",  # ProfileQueries, FrameworkProfile's queries of its fields
    }
    found = [
        f"{path.relative_to(SRC)}:{n}"
        for path in SRC.rglob("*.py")
        if path.relative_to(SRC).as_posix() not in owners
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if asked.search(line.split("#")[0])
    ]
    assert found == []


def test_sglang_default_fraction_zero_is_never_a_division() -> None:
    """SGLang's default ``mem_fraction_static`` is 0 when its reservation for the GPU class and
    TP x PP is the whole device (server_args.py); the inverse then answers "more than any GPU"
    instead of dividing by zero (a Kimi K2 comparison under SGLang crashed with a traceback)."""
    import gpusizer
    from gpusizer.core.limits import MAX_BYTES

    scen = {
        "model": {"preset": "kimi-k2"},
        "workload": {"kind": "inference", "batch_size": 1, "prompt_tokens": 2048},
        "framework": "sglang",
        "hardware": {"gpu": "h100-sxm-80gb"},
    }
    options = gpusizer.compare_gpus(scen)
    assert options and all(o["gpus"] >= 1 for o in options if o["fits"])
    # RTX 4090, TP 4 x PP 61: SGLang 0.5.3 reserves 512 + 2048 x 1.5 + 16 + 244/8 x 1024 MiB, more
    # than the card has, so its default fraction is 0.
    small = {**scen, "hardware": {"gpu": "rtx-4090-24gb"}, "parallelism": {"tensor": 4, "pipeline": 61}}
    r = gpusizer.estimate_report(small)
    assert not r["fits"] and r["serving"]["required_bytes"] >= MAX_BYTES


def test_the_estimate_keeps_the_engine_memory_and_the_pool_line() -> None:
    """The views draw what the estimate kept (``Estimate.engine``, ``Estimate.pool``): the
    memory chart's pool view and the verdict colour import nothing from core/serving."""
    from pathlib import Path

    import gpusizer
    from gpusizer.core.serving.engine_memory import engine_memory

    sc = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}, "framework": "vllm"}
    est = estimate(sc)
    assert est.engine is not None and est.pool is not None and est.pool.reserved
    assert est.engine.memory == est.memory
    s = est.scenario
    em, _ = engine_memory(s, resolve(s.model), count_parameters(s.model), est.gpu)
    assert est.engine == em and est.pool == memory_rule(s.profile).pool_line(est.gpu, em)
    trained = estimate({"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "lora"}})
    assert trained.engine is None and trained.pool is None
    gui = Path(gpusizer.__file__).parent / "gui"
    for view in ("charts/pool.py", "colors.py"):
        assert "core.serving" not in (gui / view).read_text(encoding="utf-8")
