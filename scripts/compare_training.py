#!/usr/bin/env python3
"""The current estimator against every measured and published training record.

For each record of
* ``shared/calibration/peft-measured.json`` and ``tests/core/data/peft-extra-measured.json``
  (LoRA / QLoRA, scripts/measure_peft.py),
* ``tests/core/data/techniques-measured.json`` (chunked / linear / fused cross-entropy,
  optimizer in backward, 8-bit AdamW; scripts/measure_techniques.py),
* ``tests/core/data/training-published.json`` (framework tables: each record carries the
  GPU Sizer scenario that describes it),

builds the matching scenario, runs ``gpusizer.estimate_report`` and prints estimate vs
measured per component (weights, gradients, optimizer, activations, peak) as a signed gap
(estimate / measured - 1), then the mean gap per technique, so what each technique is worth
and what the estimator does not model yet is visible. The estimator models a GPU: the PEFT
records' CPU dropout noise (4 bytes per element for fp32 adapters) is also shown converted to
CUDA's 1-byte mask (``act_gpu``).

    .venv/bin/python scripts/compare_training.py [--shared ../shared] [--records]

Needs only the repository's own environment (``.venv``): no torch.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpusizer import estimate_report
from gpusizer.core.memory.training import stage_phases
from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.params import count_parameters
from gpusizer.core.pipeline.scenario import parse_scenario

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the records' scenarios live beside the tests that replay them
from tests.core.peft_records import peft_scenario, technique_scenario  # noqa: E402 (needs ROOT)

DATA = ROOT / "tests" / "core" / "data"
PARTS = ("weights", "gradients", "optimizer", "activations", "peak")
# act_gpu / peak_gpu: activations / peak with the CPU dropout noise as CUDA's 1-byte mask;
# states: model states at the optimizer step against an estimator formula (DeepSpeed)


def _gap(est: float, meas: float | None) -> float | None:
    return None if not meas else est / meas - 1.0


# --------------------------------------------------------------------------------------------
# scenarios


def peft_measured(rec: dict[str, Any]) -> dict[str, float]:
    m = rec["measured"]
    noise = m["activation_breakdown"].get("lora_dropout_noise", 0)
    return {
        "weights": m["weight_bytes"],
        "gradients": m["grad_bytes"],
        "optimizer": m["optimizer_state_bytes"],
        "activations": m["activation_bytes"],
        "act_gpu": m["activation_bytes"] - noise * 3 / 4,
        "peak": m["live_bytes_steady_state_iteration"]["peak_bytes"],
        "peak_gpu": m["live_bytes_steady_state_iteration"]["peak_bytes"] - noise * 3 / 4,
    }


def peft_tags(rec: dict[str, Any]) -> list[str]:
    i = rec["inputs"]
    tags = ["qlora" if i["workload"] == "qlora" else "lora"]
    tags += ["dropout>0"] if i["lora"]["lora_dropout"] > 0 else ["dropout=0"]
    tags += ["checkpointing"] if i["gradient_checkpointing"] else []
    tags += ["eager"] if i["attn_implementation"] == "eager" else []
    tags += ["kbit_prepare"] if i["kbit_prepare"] else []
    tags += ["no_double_quant"] if i.get("double_quant") is False else []
    tags += ["lm_head_target"] if "lm_head" in i["lora"]["target_modules"] else []
    tags.append("family:" + i["model_type"])
    return tags


def technique_measured(rec: dict[str, Any]) -> dict[str, float]:
    """The profiler's peak, except for bitsandbytes' optimizers, whose CPU backend allocates
    fp32 temporaries that CUDA's in-place blockwise kernel does not: there the dispatch
    tracker's peak (which sees the custom op's outputs only) is the closer one."""
    m = rec["measured"]
    live = m["live_bytes_profiler"]
    if "bnb" in rec["inputs"]["optimizer"] and m["live_bytes_dispatch_tracker"]:
        live = m["live_bytes_dispatch_tracker"]
    return {
        "weights": m["param_bytes"],
        "gradients": m["grad_bytes_after_backward"],
        "optimizer": m["optimizer_state_bytes"],
        "activations": m["activation_bytes"],
        "peak": live["peak_bytes"],
    }


def technique_tags(rec: dict[str, Any]) -> list[str]:
    i = rec["inputs"]
    tags = [f"loss:{i['loss']}", f"optimizer:{i['optimizer']}"]
    return tags + (["loss/optimizer records with checkpointing"] if i["gradient_checkpointing"] else [])


def published_measured(rec: dict[str, Any]) -> dict[str, float]:
    return {"peak": rec["figure_bytes"]} if rec["compare"] == "total" else {}


def published_states(rec: dict[str, Any], rep: dict[str, Any]) -> tuple[float, float] | None:
    """(estimate, figure) of the model states, for the estimator-formula records."""
    pg = rep["per_gpu"]
    states = pg["weights"] + pg["gradients"] + pg["optimizer"]
    if rec["compare"] == "model_states_per_param":  # what the optimizer step holds
        return step_bytes(rec["recipe_scenario"]) / rep["parameters"]["total"], rec["figure_bytes_per_param"]
    if rec["compare"] == "model_states":
        return states, rec["figure_bytes"]
    return None


def step_bytes(scenario: dict[str, Any]) -> float:
    """Tensor bytes alive at the optimizer step on the first GPU (model states and the step's
    temporaries: DeepSpeed's estimator counts its fp32 gradient partition there)."""
    s = parse_scenario(scenario)
    ph = stage_phases(s, resolve(s.model), count_parameters(s.model), True)
    return ph.totals["optimizer_step"]


def published_tags(rec: dict[str, Any]) -> list[str]:
    return [f"published:{rec['framework']}"] + [f"technique:{t}" for t in rec["techniques"]]


# --------------------------------------------------------------------------------------------
# comparison


SOURCES: list[tuple[str, str, Callable, Callable, Callable]] = [
    ("peft (calibration)", "peft-measured.json", peft_scenario, peft_measured, peft_tags),
    ("peft (extra)", "peft-extra-measured.json", peft_scenario, peft_measured, peft_tags),
    ("techniques", "techniques-measured.json", technique_scenario, technique_measured, technique_tags),
    (
        "published",
        "training-published.json",
        lambda r: r.get("recipe_scenario") or r["scenario"],
        published_measured,
        published_tags,
    ),
]


def compare(rec: dict[str, Any], scenario: Callable, measured: Callable) -> dict[str, Any]:
    """Estimate vs measured per component; ``peak`` is the tensor peak (no overhead) for
    measurements and the report's total for published figures (their scenario sets the
    overhead)."""
    rep = estimate_report(scenario(rec))
    pg = rep["per_gpu"]
    states = published_states(rec, rep) if "compare" in rec else None
    est = {
        "weights": pg["weights"],
        "gradients": pg["gradients"],
        "optimizer": pg["optimizer"],
        "activations": pg["activations"],
        "peak": pg["total"],
    }
    meas = measured(rec)
    if "paged" in rec.get("inputs", {}).get("optimizer", ""):
        # bitsandbytes' paged states fall back to ordinary buffers on a CPU; on CUDA they are
        # in unified memory, outside the allocator's peak: the estimate reports them as host
        # memory, so compare all states, and the peak without the paged ones
        est["optimizer"] += rep["host_memory_bytes"]
        meas["peak"] -= rep["host_memory_bytes"]
    row = {k: (est[k], meas.get(k), _gap(est[k], meas.get(k))) for k in PARTS}
    if "act_gpu" in meas:
        row["act_gpu"] = (est["activations"], meas["act_gpu"], _gap(est["activations"], meas["act_gpu"]))
        row["peak_gpu"] = (est["peak"], meas["peak_gpu"], _gap(est["peak"], meas["peak_gpu"]))
    if states is not None:
        row["states"] = (states[0], states[1], _gap(*states))
    return row


def _fmt(g: float | None) -> str:
    return "   -   " if g is None else f"{100 * g:+6.1f}%"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--shared",
        type=Path,
        default=ROOT.parent.parent / "shared",
        help="the shared/ folder (for calibration/peft-measured.json)",
    )
    ap.add_argument("--records", action="store_true", help="print every record's row")
    a = ap.parse_args(argv)
    cols = ("weights", "gradients", "optimizer", "activations", "act_gpu", "peak", "peak_gpu", "states")
    by_tag: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for title, fname, scen, meas, tags in SOURCES:
        path = DATA / fname if fname != "peft-measured.json" else a.shared / "calibration" / fname
        if not path.exists():
            print(f"# {title}: {path} missing")
            continue
        recs = json.loads(path.read_text())["records"]
        print(f"# {title}: {len(recs)} records ({path.name}); gap = estimate / measured - 1")
        if a.records:
            print(f"{'record':78s} " + " ".join(f"{c:>11s}" for c in cols))
        for rec in recs:
            if rec.get("scenario", True) is None or rec.get("compare") == "none":
                continue  # sourced only: no scenario or nothing comparable
            row = compare(rec, scen, meas)
            for t in ["all:" + title, *tags(rec)]:
                by_tag[t].append(row)
            if a.records:
                print(
                    f"{rec['id'][:78]:78s} "
                    + " ".join(f"{_fmt(row[c][2]) if c in row else '   -   ':>11s}" for c in cols)
                )
    print("\n# mean gap per technique (n records)")
    print(f"{'technique':42s} {'n':>3s} " + " ".join(f"{c:>11s}" for c in cols))
    for tag in sorted(by_tag):
        rows = by_tag[tag]
        means = []
        for c in cols:
            gs = [r[c][2] for r in rows if c in r and r[c][2] is not None]
            means.append(_fmt(sum(gs) / len(gs)) if gs else "   -   ")
        print(f"{tag:42s} {len(rows):3d} " + " ".join(f"{m:>11s}" for m in means))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
