"""Dispatch by property, never by id: no module compares a loss, a framework, a workload kind
or an engine release's mode with a string outside the class that owns it. A registered copy of
an entry (a second fused loss, another adapter-friendly framework) then behaves as the original
does, and a release's modes are closed sets mypy checks (core/registry/engines.py)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import gpusizer
from gpusizer.core.registry.frameworks import FRAMEWORKS
from gpusizer.core.registry.loss_kinds import LOSS_KINDS
from gpusizer.core.registry.workloads import WORKLOAD_KINDS

ROOT = Path(gpusizer.__file__).parent
# the release's mode fields (their values are Literal sets in core/registry/engines.py)
RELEASE_MODES = {
    "chunked_prefill",
    "budget_snapshot",
    "sglang_reserve",
    "sglang_aiter",
    "ollama_estimate",
    "ollama_weights_log",
    "recurrent_state",
    # SGLang's and Ollama's own knobs (SGLangKnobs, OllamaKnobs)
    "reserve",
    "aiter",
    "estimate",
    "weights_log",
}
# the owners: a registry's own module may ask its entries' fields
OWNERS = {
    "core/registry/engines.py",
    "core/registry/engine_knobs.py",
    "core/registry/frameworks.py",
    "core/registry/framework_profile.py",  # FrameworkProfile, the registry's entry class
    "core/registry/profile_queries.py",  # ProfileQueries, FrameworkProfile's queries of its fields
    "core/registry/loss_kinds.py",
    "core/registry/workloads.py",
}


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else None


def _strings(node: ast.expr) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return set()


def _id_comparisons(root: Path) -> list[str]:
    ids = {
        "loss": set(LOSS_KINDS),
        "framework": set(FRAMEWORKS),
        "kind": set(WORKLOAD_KINDS),
        "id": set(LOSS_KINDS) | set(FRAMEWORKS) | set(WORKLOAD_KINDS),
    }
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel in OWNERS:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Compare):
                continue
            sides = [node.left, *node.comparators]
            names = {n for n in map(_name, sides) if n}
            strings = set().union(*map(_strings, sides))
            hit = bool(names & RELEASE_MODES and strings) or any(strings & ids.get(n, set()) for n in names)
            if hit:
                found.append(f"{rel}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_id_comparison_outside_the_owning_class() -> None:
    assert _id_comparisons(ROOT) == []


def test_the_scan_finds_a_comparison(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(
        'def f(s, rel):\n    return s.workload.loss == "fused" or rel.sglang_reserve in ("by_tp",)\n'
    )
    assert len(_id_comparisons(tmp_path)) == 2
    (tmp_path / "m.py").write_text('def f(s):\n    return s.framework != "unsloth"\n')
    assert len(_id_comparisons(tmp_path)) == 1


def test_a_registered_copy_of_the_fused_loss_gets_fused_speed_and_memory() -> None:
    """The fused loss's speed is a property of the loss kind (``LossKind.fused``), as its
    memory is: a copy under another id answers as the original."""
    from dataclasses import replace

    from gpusizer import estimate_report
    from gpusizer.core.pipeline.estimate import clear_caches
    from gpusizer.core.pipeline.scenario import clear_cache
    from gpusizer.core.registry import loss_kinds

    base: dict[str, Any] = {
        "model": {"preset": "llama-3.1-8b"},
        "workload": {"kind": "full_finetune", "sequence_length": 4096, "training_tokens": 1.0e9},
        "hardware": {"gpu": "h100-sxm-80gb"},
    }
    loss_kinds.register(replace(LOSS_KINDS["fused"], id="fused_copy", advisor_fallback=False))
    try:
        clear_caches()
        clear_cache()
        runs = [
            estimate_report({**base, "workload": {**base["workload"], "loss": loss}})
            for loss in ("fused", "fused_copy", "full")
        ]
    finally:
        loss_kinds.LOSS_KINDS.pop("fused_copy")
        clear_caches()
        clear_cache()
    fused, copy, full = (r["compute"]["time_seconds"] for r in runs)
    assert copy == fused != full
    assert runs[1]["per_gpu"] == runs[0]["per_gpu"]
