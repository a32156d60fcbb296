"""A scenario's evidence: its memory and speed regimes, the band each gives and how sure the
figure is.

``validated``: the regime holds at least ``min_figures`` replayed published figures and so has a
band (its parent regime's, ``pooled_from``, where it has too few for a split-conformal band of its
own). ``measured``: besides, published figures of this very model on this GPU with this
framework were replayed. ``extrapolated``: the framework has figures, but not in this regime (an
engine on a GPU vendor never measured, a batch regime never measured; training or RL on a GPU
vendor no replayed training speed ran on; a speed band none of whose figures ran on this GPU or
its architecture, core/evidence/gpu_coverage.py) or too few of them for a band. ``none``: no replayed
figure of this framework at all. Each says why in ``reason``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..model.presets import gpu_spec
from ..model.specs import GPUSpec, Scenario
from .bands import Band, Confidence, band, min_figures, regimes, release_key
from .gpu_coverage import coverage_gap
from .regimes import (
    BATCH_LABELS,
    RL,
    batch_regime,
    engine_label,
    memory_regime,
    regime_label,
    speed_regime,
    vendor,
    vendor_label,
    workload_group,
)


@dataclass(frozen=True)
class Evidence:
    """One figure kind's evidence (memory or speed)."""

    band: Band
    confidence: Confidence
    reason: str

    def as_dict(self) -> dict[str, Any]:
        """The report's ``evidence`` block (scenario-format.md "Evidence and bands")."""
        b = self.band
        return {
            "regime": b.regime,
            "label": regime_label(b.regime),
            "figures": b.figures,
            "held_out": b.held_out,
            "confidence": self.confidence,
            "reason": self.reason,
            "band": [b.p10, b.p90] if b.has_band else None,
            "median_width": b.median_width,
            # the parent regime whose band a regime too small for its own takes (or null)
            "pooled_from": (
                {"regime": b.pooled_from, "label": regime_label(b.pooled_from), "figures": b.pooled_figures}
                if b.pooled_from
                else None
            ),
        }


def case_key(s: Scenario, gpu: GPUSpec) -> str:
    """``framework|gpu id|model`` of a scenario: how a replayed figure names its case."""
    return f"{s.framework}|{gpu.id}|{s.model.name}"


def _validated(b: Band, s: Scenario, gpu: GPUSpec) -> Evidence:
    label = regime_label(b.regime)
    if b.pooled_from:  # too few figures for a band of its own (scripts/evidence_bands.py)
        parent = regime_label(b.pooled_from)
        figures = f"band of {parent}: {b.pooled_figures} figures; {label} has {b.figures}"
    else:
        figures = f"{b.figures} replayed published figures of {label}"
    if case_key(s, gpu) in b.cases:
        why = f"published figures of {s.model.name} on {gpu.name} with {engine_label(s.framework)} among them"
        if not b.pooled_from:
            figures = f"{b.figures} figures of {label}"
        return Evidence(b, "measured", f"{figures}; {why}")
    return Evidence(b, "validated", figures)


def _sparse(b: Band) -> Evidence:
    return Evidence(
        b,
        "extrapolated",
        f"only {b.figures} published figure{'s' if b.figures != 1 else ''} of {regime_label(b.regime)}: "
        f"fewer than {min_figures()}, no band",
    )


def memory_evidence(s: Scenario, gpu: GPUSpec) -> Evidence:
    """How sure the per-GPU memory is."""
    b = band(memory_regime(s, gpu))
    if b.has_band:
        return _validated(b, s, gpu)
    if b.figures:
        return _sparse(b)
    family = b.regime.split("/")[1]
    if family == "unknown":
        return Evidence(b, "none", f"no replayed run of the framework {engine_label(s.framework)}")
    return Evidence(
        b, "extrapolated", f"no replayed figure of {regime_label(b.regime)} ({workload_group(s)} runs)"
    )


def _older(b: Band, s: Scenario) -> bool:
    """The scenario names an engine release older than every figure of its regime (its rates
    and step costs come from later releases)."""
    v = s.serving.engine_version
    return bool(v and b.oldest_release and release_key(v) and release_key(v) < release_key(b.oldest_release))


def _training_never_measured_on(gpu: GPUSpec) -> bool:
    """No replayed training speed figure (``speed/training/*``) ran on the GPU's vendor: the
    training step's rates there are the vendor fallback's, not measured (Intel's, Apple's; AMD
    Instinct's since the Primus-Megatron runs of docs/evidence/speed.md's AMD training section)."""
    return vendor(gpu) not in _trained_vendors()


@lru_cache(maxsize=1)
def _trained_vendors() -> frozenset[str]:
    """Vendors of the GPUs the replayed training speed figures ran on."""
    gpus = {c.split("|")[1] for k, b in regimes().items() if k.startswith("speed/training/") for c in b.cases}
    return frozenset(vendor(gpu_spec(g)) for g in gpus)


def _off_vendor(b: Band, s: Scenario, gpu: GPUSpec) -> Evidence:
    """A training step, or an RL step's training and log-prob phases, on a GPU vendor no replayed
    training speed ran on: the training regimes are not split by vendor, so the band's figures
    stand, but none checked this vendor's kernels (AMD Instinct was such a vendor until the
    Primus-Megatron runs of docs/evidence/speed.md's AMD training section were replayed)."""
    name = vendor_label(vendor(gpu))
    if s.workload.kind == RL:
        what = (
            f"RL training and log-prob phases on {name} GPUs: no replayed training speed there "
            "(their rates are the vendor fallback's)"
        )
    else:
        what = (
            f"training never measured on {name} GPUs (the step's rates there come from kernel "
            "benchmarks or the vendor fallback; no whole step replayed)"
        )
    return Evidence(b, "extrapolated", f"{what}; band of {b.figures} figures of {regime_label(b.regime)}")


def speed_evidence(s: Scenario, gpu: GPUSpec) -> Evidence:
    """How sure the speed (tokens/s, first-token time, training time) is."""
    b = band(speed_regime(s, gpu))
    if b.has_band and s.workload.trains and _training_never_measured_on(gpu):
        return _off_vendor(b, s, gpu)
    if b.has_band and not s.workload.trains and _older(b, s):
        return Evidence(
            b,
            "extrapolated",
            f"{engine_label(s.framework)} {s.serving.engine_version} is older than every replayed speed "
            f"figure of {regime_label(b.regime)} (from {b.oldest_release})",
        )
    if b.has_band:
        gap = None if case_key(s, gpu) in b.cases else coverage_gap(b, gpu)
        return Evidence(b, "extrapolated", gap) if gap else _validated(b, s, gpu)
    if b.figures:
        return _sparse(b)
    if s.workload.trains:
        return Evidence(b, "none", "no published training speed of this kind")
    prefix = f"speed/{s.framework}/"
    seen = sorted({k.split("/")[2] for k in regimes() if k.startswith(prefix)})
    if not seen:
        return Evidence(b, "none", f"no published speed of {engine_label(s.framework)}")
    if vendor(gpu) not in seen:
        return Evidence(
            b,
            "extrapolated",
            f"{engine_label(s.framework)} never measured on {vendor_label(vendor(gpu))} GPUs "
            f"(measured on {', '.join(vendor_label(v) for v in seen)})",
        )
    # "never measured" would be false here: measured rows of an engine's MoE runs on NVIDIA GPUs
    # (aiconfigurator's) are replayed out of sample, not banded (scripts/silicon_replay.py)
    return Evidence(
        b,
        "extrapolated",
        f"no banded published {engine_label(s.framework)} speed at {BATCH_LABELS[batch_regime(s)]} on "
        f"{vendor_label(vendor(gpu))} GPUs",
    )


def rl_step_note(s: Scenario, gpu: GPUSpec) -> str:
    """The RL step time's worth in words, from its regime's band (``speed/rl/colocated/<dense|moe>``
    or ``speed/rl/split``, regimes.py ``rl_speed_regime``):
    "RL steps like this have run 1.12-3.39x the estimate (80 % of 46 published steps...)". A
    ratio here is published seconds / estimated seconds (the estimate's speed over the
    published), so the band's edges are how many times the estimate the published steps ran."""
    b = band(speed_regime(s, gpu))
    steps = f"{b.figures} published {regime_label(b.regime)}"
    if b.p10 is None or b.p90 is None:
        return f"RL step time: no band ({steps}; fewer than {min_figures()}), docs/evidence/rl.md"
    if b.pooled_from and not b.pooled_from.startswith("speed/rl"):
        # split steps: the band of the serving and training figures their phases are priced as
        # (core/evidence/regimes.py pool_chain), not of RL steps
        return (
            f"RL steps like this: {b.p10:.2f}-{b.p90:.2f}x the estimate, the band of the "
            f"{b.pooled_figures} published serving and training speeds its phases are priced as "
            f"(80 %; {steps}; docs/evidence/rl.md)"
        )
    if b.pooled_from:
        # e.g. "53 published RL steps, colocated, pooled; 7 RL steps, colocated, MoE policy"
        steps = (
            f"{b.pooled_figures} published {regime_label(b.pooled_from)}, pooled; "
            f"{b.figures} {regime_label(b.regime)}"
        )
    runs = f"RL steps like this have run {b.p10:.2f}-{b.p90:.2f}x the estimate"
    return f"{runs} (80 % of {steps}; docs/evidence/rl.md)"
