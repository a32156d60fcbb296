"""Adding a framework profile, a workload kind or a chart is one registry entry:
each test registers a dummy one and finds it everywhere that lists or uses such entries."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from gpusizer import ScenarioError, estimate_report
from gpusizer.cli import main
from gpusizer.core.registry import frameworks, workloads
from gpusizer.core.views import settings as views
from gpusizer.core.views.variants import variant_list, variants

BASE = {"model": {"preset": "llama-3.2-1b"}, "workload": {"kind": "full_finetune"}}


@pytest.fixture
def dummy_framework():
    profile = replace(
        frameworks.FRAMEWORKS["deepspeed"],
        id="dummy-trainer",
        label="Dummy trainer",
        overhead=frameworks.OverheadDefaults(0, 0, 0.0, 0),
    )
    frameworks.register(profile)
    yield profile
    frameworks.FRAMEWORKS.pop(profile.id, None)


@pytest.fixture
def dummy_kind():
    kind = workloads.WorkloadKind(
        "dummy_adapters", "Dummy adapters", "Dummy", True, is_adapter=True, variant_weights=("bf16",)
    )
    workloads.register(kind)
    yield kind
    workloads.WORKLOAD_KINDS.pop(kind.id, None)


def test_a_registered_framework_is_accepted_and_used(dummy_framework) -> None:
    rep = estimate_report({**BASE, "framework": "dummy-trainer"})
    ds = estimate_report({**BASE, "framework": "deepspeed"})
    # Same memory rules as DeepSpeed, but no runtime overhead: the profile is what is read.
    assert rep["per_gpu"]["overhead"] == 0 < ds["per_gpu"]["overhead"]
    assert rep["per_gpu"]["total"] == ds["per_gpu"]["total"] - ds["per_gpu"]["overhead"]
    assert any("Dummy trainer" in a for a in rep["assumptions"])
    kind = workloads.WORKLOAD_KINDS["full_finetune"]
    assert dummy_framework in frameworks.frameworks_for(kind)


def test_an_unregistered_framework_names_the_registered_ones() -> None:
    with pytest.raises(ScenarioError, match="framework") as err:
        estimate_report({**BASE, "framework": "nope"})
    assert all(pid in str(err.value) for pid in frameworks.FRAMEWORKS)


def test_a_serving_engine_cannot_train() -> None:
    engines = [p.id for p in frameworks.FRAMEWORKS.values() if not p.trains]
    assert engines
    for engine in engines:
        with pytest.raises(ScenarioError, match="framework"):
            estimate_report({**BASE, "framework": engine})


def test_a_registered_workload_kind_is_estimated_and_charted(dummy_kind) -> None:
    rep = estimate_report({**BASE, "workload": {"kind": "dummy_adapters"}})
    lora = estimate_report({**BASE, "workload": {"kind": "lora"}})
    # An adapter kind trains the LoRA adapters only, as LoRA does.
    assert rep["parameters"]["trainable"] == lora["parameters"]["trainable"]
    assert rep["per_gpu"] == lora["per_gpu"]
    assert ("dummy_adapters", "Dummy", "dummy_adapters", "bf16") in variant_list()
    assert "dummy_adapters" in [b.key for b in variants(BASE).bars]


def test_a_registered_chart_is_listed_for_the_cli(capsys) -> None:
    views.register(views.ChartView("dummy", "Dummy", "A dummy chart", "no.such.module:Chart"))
    try:
        assert "dummy" in views.chart_keys()
        # The CLI's --kind accepts it (the renderer's failure comes later, as one line).
        code = main(["chart", "missing.json", "--kind", "dummy", "--output", "x.png"])
        assert code == 2 and "invalid choice" not in capsys.readouterr().err
    finally:
        views.CHARTS.pop("dummy", None)
    assert "dummy" not in views.chart_keys()


def test_every_registry_refuses_a_duplicate_id() -> None:
    """A second entry under a taken id is an error where it is registered, never a silent
    replacement of the first (core/registry/table.py)."""
    from gpusizer.core.memory import layouts
    from gpusizer.core.registry import loss_kinds, optimizers, quant_rules
    from gpusizer.core.registry.table import DuplicateId
    from gpusizer.core.serving import kv_request, rules

    tables: list[tuple[dict[str, Any], Callable[..., Any]]] = [
        (frameworks.FRAMEWORKS, frameworks.register),
        (workloads.WORKLOAD_KINDS, workloads.register),
        (loss_kinds.LOSS_KINDS, loss_kinds.register),
        (optimizers.OPTIMIZER_KINDS, optimizers.register),
        (quant_rules.QUANT_RULES, quant_rules.register),
        (views.CHARTS, views.register),
        (rules.MEMORY_RULES, rules.register_rule),
        (kv_request.KV_LAYOUTS, kv_request.register_layout),
        (layouts.ACTIVATION_LAYOUTS, layouts.register_layout),
        (layouts.LORA_KERNELS, layouts.register_kernels),
    ]
    for table, register in tables:
        first = next(iter(table.values()))
        with pytest.raises(DuplicateId, match="already registered"):
            register(first)
        assert next(iter(table.values())) is first
    with pytest.raises(DuplicateId):  # the decorator form: a class under a taken key
        rules.register_rule(type("Again", (rules.ProfiledPool,), {}))


def test_rules_and_layouts_register_themselves_where_they_are_defined() -> None:
    from gpusizer.core.memory import layouts
    from gpusizer.core.serving import kv_request, rules

    for table in (
        rules.MEMORY_RULES,
        kv_request.KV_LAYOUTS,
        layouts.ACTIVATION_LAYOUTS,
        layouts.LORA_KERNELS,
    ):
        for key, entry in table.items():
            assert entry.key == key
    assert set(rules.MEMORY_RULES) >= {
        "transformers",
        "profiled_pool",
        "static_pool",
        "free_pool",
        "layer_offload",
    }
