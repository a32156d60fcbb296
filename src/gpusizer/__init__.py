"""GPU Sizer: how much GPU memory, and how many of which GPU, a model needs, and why.

The public, Qt-free API (contract: shared/docs/scenario-format.md)::

    gpusizer.estimate_report(scenario: dict, *, calibration=None) -> dict
    gpusizer.import_hf_config(config: dict | str | Path) -> dict
    gpusizer.import_model(path: str | Path) -> dict
    gpusizer.plan(scenario: dict) -> list[dict]
    gpusizer.compare_gpus(scenario: dict, *, gpus=None, margin=0.10, whole_nodes=False)
        -> list[dict]
    gpusizer.models_that_fit(scenario: dict, *, margin=0.10) -> list[dict]
    gpusizer.ScenarioError
"""

from __future__ import annotations

from typing import Any

from ._version import __version__
from .core.errors import ScenarioError

__all__ = [
    "ScenarioError",
    "__version__",
    "compare_gpus",
    "estimate_report",
    "import_hf_config",
    "import_model",
    "models_that_fit",
    "plan",
]


def estimate_report(scenario: dict[str, Any], *, calibration: Any = None) -> dict[str, Any]:
    """Validate and estimate a scenario; exactly what ``gpusizer-cli estimate --json`` prints.
    ``calibration``: your runs' ratios (a file of ``gpusizer-cli check --calibrate``; None: the
    file named by ``GPUSIZER_USER_CALIBRATION``, if set): a report of a calibrated GPU x engine
    gets the ``calibration`` block (io/calibration.py). A malformed file is ignored (logged)."""
    from .core.pipeline.report import estimate_report as _report

    rep = _report(scenario)
    from .io.calibration import apply, entries_for

    entries, problems = entries_for(calibration)
    if problems:  # logging (with traceback, tokenize...) loads only for a malformed file: ~10 ms
        import logging

        for line in problems:
            logging.getLogger(__name__).warning(line)
    apply(rep, entries)
    return rep


def import_hf_config(config: Any) -> dict[str, Any]:
    """A Hugging Face ``config.json`` (dict, JSON text or path) -> a scenario ``model`` block."""
    from .io.hf_config import import_hf_config as _import

    return _import(config)


def import_model(path: Any) -> dict[str, Any]:
    """What a user has on disk -> the model and the precision its checkpoint is stored in.

    ``path``: a Hugging Face model folder (config.json with its ``quantization_config``, and
    the safetensors headers), a config.json, or a ``.gguf`` file (metadata and tensor table;
    the weights are never read). Returns ``{"model", "precision", "checkpoint", "notes",
    "name", "source", "format"}`` (io/model_import.py; docs/scenario-format.md)."""
    from .io.model_import import import_model as _import

    return _import(path)


def plan(scenario: dict[str, Any], **options: Any) -> list[dict[str, Any]]:
    """Sizing options for a scenario, cheapest first (see core/sizing/solver.py; ``margin``,
    ``gpus``, ``max_gpus``, ``alternatives``, ``allow_recompute`` pass through)."""
    from .core.sizing.solver import plan as _plan

    return _plan(scenario, **options)


def compare_gpus(
    scenario: dict[str, Any],
    *,
    gpus: Any = None,
    margin: float | str = 0.10,
    whole_nodes: bool = False,
    **options: Any,
) -> list[dict[str, Any]]:
    """One option per GPU type: count, the system it is bought in, layout, speed, prices,
    power, cost per unit of work (see core/sizing/compare.py; ``sort``, ``prices`` (the user's own,
    by GPU or system id), ``basis``, ``electricity_usd_per_kwh``, ``amortization_years``,
    ``utilization``, ``used_prices``, ``cards_per_box`` pass through). Field names:
    docs/scenario-format.md."""
    from .core.sizing.compare import compare_gpus as _compare

    return _compare(scenario, gpus=gpus, margin=margin, whole_nodes=whole_nodes, **options)


def models_that_fit(
    scenario: dict[str, Any], *, margin: float = 0.10, **options: Any
) -> list[dict[str, Any]]:
    """The models that fit the scenario's machine (its hardware, layout, workload, framework
    and precision): every preset, the scenario's own model when it is not one, and any
    ``models`` given; largest first, each with ``model``, ``parameters``, ``per_gpu_total``,
    ``headroom_bytes``, ``tokens_per_second_per_user`` (serving) or ``time_seconds``
    (training), ``max_context`` (core/sizing/fit_models.py; docs/scenario-format.md)."""
    from .core.sizing.fit_models import models_that_fit as _fit

    return _fit(scenario, margin=margin, **options)
