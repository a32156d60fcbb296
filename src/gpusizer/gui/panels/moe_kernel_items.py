"""The Serving panel's "MoE kernel" list follows the engine and the GPU, as the core validates
``serving.moe_backend`` (core/pipeline/validate_serving.py ``_check_moe_backend``): a backend is
offered where the engine can be told to run it (``MoeBackend.engines``, core/registry/
moe_backends.py: SGLang states only AITER, ``SGLANG_USE_AITER=1``) and AITER only on an AMD
GPU (ROCm's fused MoE). A held value the engine or GPU does not run stays listed, named so, and
selected, so the error the core gives for it shows beside it and can be undone there."""

from __future__ import annotations

from typing import Any

from ...core.model.presets import gpu_spec
from ...core.registry.frameworks import FrameworkProfile
from ...core.registry.moe_backends import AITER, MOE_BACKENDS
from ..state import ScenarioState
from ..widgets import ComboBox, Form
from .serving_feature_rows import fill_methods

PATH = "serving.moe_backend"
DEFAULT = ("release default", None)  # null: the release's own choice (the binder selects it)


def gpu_is_amd(gpu: Any) -> bool | None:
    """Whether the scenario's GPU (a catalog id or an inline spec) is AMD's; None when unknown
    (an id not in the catalog, a spec without a vendor: its own error shows at its field)."""
    if isinstance(gpu, dict):
        vendor = gpu.get("vendor")
        return vendor.lower() == "amd" if isinstance(vendor, str) else None
    try:
        return gpu_spec(str(gpu)).vendor.lower() == "amd"
    except (KeyError, TypeError, ValueError):
        return None


def moe_kernel_items(profile: FrameworkProfile, amd: bool | None, held: Any) -> list[tuple[str, Any]]:
    """ "release default", the backends ``profile``'s engine takes on this GPU (``amd`` None:
    AITER kept, the GPU being unknown), then a held one it does not run, named why."""

    def why_not(backend_id: str) -> str:
        b = MOE_BACKENDS[backend_id]
        if profile.id not in b.engines:
            return f"not run by {profile.label}"
        if backend_id == AITER and amd is False:
            return "ROCm's, an AMD GPU's"
        return ""

    items = [DEFAULT, *((b.label, b.id) for b in MOE_BACKENDS.values() if not why_not(b.id))]
    if held is not None and held not in [v for _, v in items]:
        known = MOE_BACKENDS.get(str(held))
        label = f"{known.label}: {why_not(known.id)}" if known else str(held)
        items.append((label, held))
    return items


def refresh_moe_kernels(f: Form, state: ScenarioState, profile: FrameworkProfile, path: str = PATH) -> None:
    """Rebuild the list at ``path`` (``serving.moe_backend``, or ``rl.rollout.moe_backend`` with
    the rollout engine's ``profile``: core/pipeline/rl_roles.py checks it as serving's) where it
    changed, the held value selected, no edit sent."""
    box = next((b.widget for b in f.binder.bindings if b.path == path), None)
    if not isinstance(box, ComboBox):
        return
    held = state.value(path)
    fill_methods(box, moe_kernel_items(profile, gpu_is_amd(state.value("hardware.gpu")), held), held)
