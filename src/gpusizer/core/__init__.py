"""The estimator core: pure Python + pydantic, no Qt (checked by import-linter).

Grouped by concern into sub-packages, layered from the bottom up (import-linter's ``layers``
contract in pyproject.toml): ``registry`` (dtypes, quantisation rules, optimizers, losses,
workload kinds, frameworks, engine releases) < ``model`` (the scenario schema, architecture,
parameters, presets, sharding) < ``memory`` (training and inference bytes) < ``speed``
(roofline, compute) < ``serving`` (engine memory rules, KV pools) < ``pipeline`` (parse,
validate, estimate, report) < ``sizing`` (layout search, plan, compare) < ``views`` (sweeps,
chart data and chart settings; the Hardware tab's view prices sizing's options). ``errors``,
``cancel``, ``limits``, ``memo``, ``readfile`` and ``suggest`` sit below all.

Before it was grouped, the core was flat; the contract (docs/scenario-format.md) named some of its modules
(``gpusizer.core.workloads.WORKLOAD_KINDS``, ``gpusizer.core.frameworks.FRAMEWORKS``,
``gpusizer.core.views.CHARTS``...). Every old flat path still imports the module that replaced it
(:data:`MOVED`; ``gpusizer.core.serving``, now a package, resolves the old module's names
itself), resolved lazily by a meta-path finder, so nothing is loaded until asked for).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType

_GROUPS = {
    "registry": "dtypes quant_rules optimizers loss_kinds workloads engines engine_releases "
    "engine_releases_cpp frameworks",
    "model": "specs specs_mixers serving_spec checkpoint architecture mixers params presets unified "
    "naming state flops sharding module_bytes result",
    "memory": "activations activations_hybrid activations_unsloth loss optimizer_states phases "
    "stage_activations techniques training inference lora peft overhead",
    "speed": "roofline roofline_shape compute",
    "serving": "engine_settings kv_pool kv_request moe_layout offload",
    "pipeline": "scenario validate estimate report",
    "views": "sweep sweep_fast capacity variants",
    "sizing": "solver layout_search layout_board layout_bounds layout_prefilter layout_space fit_search "
    "compare compare_costs compare_options compare_rank compare_scale",
}
#: Old flat module path -> the module that holds it now.
MOVED: dict[str, str] = {
    f"{__name__}.{old}": f"{__name__}.{group}.{old}"
    for group, mods in _GROUPS.items()
    for old in mods.split()
}


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolves an old flat path to the moved module itself (one module object, not a copy)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None, /
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname in MOVED:
            return importlib.machinery.ModuleSpec(fullname, self)
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(MOVED[spec.name])

    def exec_module(self, module: ModuleType) -> None:
        """The moved module is already executed."""


if not any(isinstance(f, _Alias) for f in sys.meta_path):
    sys.meta_path.append(_Alias())
