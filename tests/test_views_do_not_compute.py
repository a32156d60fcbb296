"""Views do not call the core to compute what they show: the window's views read the Estimate
(core/model/result.py, which keeps the engine memory and the pool line) or the answer the one
background worker (gui/worker.py) delivers. An AST check over every module of ``gui/``.

Two rules:

- the core's entry points that compute an answer (:data:`ENTRY_POINTS`: the estimator, the
  sizing searches and pricing, the report of an estimate, the charts' own data) are imported
  only where :data:`ALLOWED` says, and why;
- the estimator's internals (:data:`INTERNALS`: memory, speed, serving and rules) are not
  imported by ``gui/`` at all, save the few pure look-ups in :data:`ALLOWED_INTERNALS`.

A module that needs a new entry point is added to :data:`ALLOWED` with its reason, or, better,
reads the figure from the Estimate.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

GUI = Path(__file__).resolve().parents[1] / "src" / "gpusizer" / "gui"

# Where each entry point lives (checked below, so the list cannot rot)
ENTRY_POINTS = {
    "gpusizer.core.pipeline.estimate": ("estimate",),
    "gpusizer.core.pipeline.report": ("report_from_estimate", "estimate_report", "roofline_points"),
    "gpusizer.core.serving.engine_memory": ("engine_memory", "serving_result"),
    "gpusizer.core.sizing.solver": ("plan",),
    "gpusizer.core.sizing.compare": ("compare_gpus", "size_gpus", "sized"),
    "gpusizer.core.sizing.compare_rank": ("price_options", "sort_options"),
    "gpusizer.core.sizing.gpus_needed": ("gpus_needed",),
    "gpusizer.core.sizing.fit_models": ("models_that_fit",),
    "gpusizer.core.views.sweep": ("sweep",),
    "gpusizer.core.views.variants": ("variants",),
    "gpusizer.core.views.capacity": ("capacity_curve",),
    "gpusizer.core.views.rl_timeline": ("rl_timeline",),
    "gpusizer": ("estimate_report", "plan", "compare_gpus", "models_that_fit"),  # the public API
}
NAMES = {name for names in ENTRY_POINTS.values() for name in names}

_WORKER = "run by the window's background worker (gui/worker.py)"
_OWN_DATA = "the chart's data is this computation (its docstring says so)"
# gui module (relative to gui/) -> the entry points it may import, and why
ALLOWED: dict[str, dict[str, str]] = {
    "state.py": {"estimate": "the window's one estimate of the scenario (the state owns it)"},
    "estimator.py": {"estimate": "the window's estimate, computed in the background worker"},
    "app.py": {"estimate": "--check and a scenario given on the command line, before any window"},
    "screenshot.py": {"estimate": "--screenshot checks its scenario before any window opens"},
    "advisor.py": {"gpus_needed": _WORKER},
    "hardware/runner.py": {"size_gpus": _WORKER},
    "fit_models.py": {"models_that_fit": _WORKER},
    "charts/hardware.py": {
        "size_gpus": "headless only (CLI chart, report); in the window the runner's worker searches",
        "price_options": "repricing the worker's options on a price edit, without searching again",
        "sort_options": "re-ranking the worker's options on a sort edit, without searching again",
    },
    "charts/sweep.py": {"sweep": _OWN_DATA},
    "charts/variants.py": {"variants": _OWN_DATA},
    "charts/capacity.py": {"capacity_curve": _OWN_DATA},
    "charts/rl_timeline.py": {"rl_timeline": _OWN_DATA},
    "charts/roofline.py": {"roofline_points": _OWN_DATA},
    "charts/folder.py": {"gpus_needed": "the CLI's report folder: no window, no worker"},
    "files.py": {"report_from_estimate": "File > Export writes the JSON report of the estimate shown"},
}

# The window's estimate may move between these (into the background worker) without this list
# changing
WINDOW_ESTIMATE = ("state.py", "estimator.py", "app.py", "screenshot.py")

INTERNALS = ("gpusizer.core.memory", "gpusizer.core.speed", "gpusizer.core.serving", "gpusizer.core.rules")
# (gui module, internal module, name): pure look-ups of names, not estimates
ALLOWED_INTERNALS = {
    # the framework switch's edits (the profile's own fields, then the held fields it refuses)
    ("framework_fields", "gpusizer.core.memory.techniques", "profile_edits"),
    ("precision_panel", "gpusizer.core.speed.roofline", "matmul_dtype"),
    ("serving_panel", "gpusizer.core.serving.rules", "MEMORY_RULES"),
    # which frameworks' layers the host-op count knows: where the permute-fusion box applies
    ("rl_policy_rows", "gpusizer.core.speed.train_host", "INVENTORIES"),
    # the GPU's default host link, shown as what a null rl.host_link_gb_per_s resolves to
    ("rl_sections", "gpusizer.core.speed.host_link", "host_link_gb_per_s"),
    # the speculative methods SGLang drafts a tree with: where the draft-tree rows apply
    ("spec_tree_rows", "gpusizer.core.serving.spec_tree", "TREE_METHODS"),
    # the GPU's default network, shown as what a null hardware.network_gb_per_s resolves to
    ("buyer_rows", "gpusizer.core.speed.train_rates", "network_gb_per_s"),
    # the disk tier's default link, shown as what a null kv_offload link resolves to on disk
    ("offload_medium_row", "gpusizer.core.serving.kv_offload", "DISK_GB_PER_S"),
    # the frameworks that load with transformers and PEFT: the switch clears the release elsewhere
    ("framework_fields", "gpusizer.core.memory.lora_experts", "TRANSFORMERS_PEFT"),
    # the families whose routed experts are 3-D parameters: where the expert-parameter row applies
    ("workload_panel", "gpusizer.core.memory.lora_expert_params", "NATIVE_3D"),
}


def _imports(path: Path) -> list[tuple[str, str]]:
    """(absolute module, name) of every ``from ... import name`` in ``path``; a plain
    ``import module`` gives (module, "")."""
    package = ["gpusizer", "gui", *path.relative_to(GUI).parent.parts]
    out: list[tuple[str, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *(node.module or "").split(".")]).strip(".")
            out += [(module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            out += [(alias.name, "") for alias in node.names]
    return out


def _gui_modules() -> list[Path]:
    return sorted(GUI.rglob("*.py"))


def test_the_entry_points_exist() -> None:
    for module, names in ENTRY_POINTS.items():
        mod = importlib.import_module(module)
        assert all(callable(getattr(mod, n, None)) for n in names), module


def test_views_call_no_core_entry_point_outside_the_allowed() -> None:
    found = []
    for path in _gui_modules():
        rel = path.relative_to(GUI).as_posix()
        for module, name in _imports(path):
            if module.split(".")[0] != "gpusizer":
                continue
            if name == "" and module.startswith("gpusizer.core"):
                found.append(f"{rel}: import {module} (import names, so this check sees them)")
            elif name in NAMES and module in ENTRY_POINTS and name not in ALLOWED.get(rel, {}):
                found.append(f"{rel}: {name} from {module}")
    assert found == [], "views compute instead of reading the Estimate:\n" + "\n".join(found)


def test_views_do_not_reach_into_the_estimator() -> None:
    found = []
    for path in _gui_modules():
        for module, name in _imports(path):
            inside = any(module == p or module.startswith(p + ".") for p in INTERNALS)
            if inside and (path.stem, module, name) not in ALLOWED_INTERNALS:
                found.append(f"{path.relative_to(GUI).as_posix()}: {name} from {module}")
    assert found == [], "views reach into the estimator:\n" + "\n".join(found)


def test_the_check_sees_an_import() -> None:
    """The resolver reads relative imports as the interpreter does (two levels up from
    gui/charts/, one from gui/)."""
    assert ("gpusizer.core.views.sweep", "sweep") in _imports(GUI / "charts" / "sweep.py")
    assert ("gpusizer.core.sizing.gpus_needed", "gpus_needed") in _imports(GUI / "advisor.py")
    assert ("gpusizer.gui.worker", "BackgroundWorker") in _imports(GUI / "advisor.py")


def test_every_allowed_use_is_still_there() -> None:
    """An allowance no module uses any more is removed (modules yet to come excepted), so the
    list says what the views really do."""
    for rel, names in ALLOWED.items():
        path = GUI / rel
        if path.exists() and rel not in WINDOW_ESTIMATE:
            used = {name for module, name in _imports(path) if module in ENTRY_POINTS}
            assert set(names) <= used, (rel, set(names) - used)


def _worker_jobs(tree: ast.Module) -> set[str]:
    """Names of the functions the module hands to ``BackgroundWorker(...)`` as its work."""
    return {
        node.args[0].id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "BackgroundWorker"
        and node.args
        and isinstance(node.args[0], ast.Name)
    }


def test_the_workers_jobs_call_them_in_the_worker() -> None:
    """Where the reason is the worker, every call sits in a function given to the worker."""
    for rel, names in ALLOWED.items():
        path = GUI / rel
        if not path.exists():
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        jobs = _worker_jobs(tree)
        for fn in (n for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)):
            calls = {
                c.func.id for c in ast.walk(fn) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
            }
            for name in calls & {n for n, why in names.items() if why == _WORKER}:
                assert fn.name in jobs, f"{rel}: {name} called in {fn.name}, not in the worker"
