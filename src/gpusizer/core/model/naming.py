"""A scenario's name, derived from what it describes until the user names it: "Llama 3.1 8B,
LoRA on one H100 SXM 80GB". The window, the saved file and the reports all use it."""

from __future__ import annotations

from .specs import Scenario


def derived_name(s: Scenario) -> str:
    """Model, kind of work and GPUs in one phrase (``..., inference on 2 × GeForce RTX 4090``)."""
    from .presets import scenario_gpu  # the catalog is read only when a name is needed

    try:
        gpu = scenario_gpu(s).name
    except (KeyError, ValueError, TypeError):  # an unknown id: name it as written
        gpu = str(s.hardware.gpu)
    n = s.parallelism.gpus
    count = "one" if n == 1 else f"{n:,} ×"
    return f"{s.model.name}, {s.workload.info.short_label} on {count} {gpu}"


def is_derived(s: Scenario) -> bool:
    """Whether the name follows the scenario (empty, or what :func:`derived_name` gives)."""
    return not s.name or s.name == derived_name(s)


def with_derived_name(s: Scenario) -> Scenario:
    """The scenario with its derived name (frozen models: a copy; the name alone changes)."""
    name = derived_name(s)
    return s if s.name == name else s.model_copy(update={"name": name})
