"""The section of docs/evidence/advice.md that shows an option the same whether its GPU is compared
alone or in the whole catalog (scripts/advice_table.py writes it; tests:
tests/core/test_compare_consistency.py)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import gpusizer
from gpusizer.core.pipeline.estimate import clear_caches

CASES = (
    ("serve-deepseek-r1-fp8-1000", ("b200-192gb", "h200-141gb")),
    ("qlora-70b-control", ("a40-48gb",)),
)

TEXT = """## An option does not depend on the GPUs compared

The two answers left as found above changed with the list of GPUs compared; both are fixed at
their source, and `tests/core/test_compare_consistency.py` holds every option field (but the
table's rank and Pareto flag) equal, compared alone or in the catalog, over five buyer cases
and twelve GPUs.

- **The fewest that hold a served model** (g): the catalog's shared layout search weighed every
  GPU's layouts by the peaks of its first GPU (an A10, which keeps DeepSeek-R1's FP8 weights in
  another format, under another memory share of SGLang): B200 read 6 and H200 8 "would hold the
  model" in the catalog, 5 and 6 alone. A served model is now searched on each GPU with that
  GPU's own engine (`core/sizing/search.py`), starting from the layouts the shared search found
  for it (`layout_search.solve`'s `seed`), which only spares the layouts they already beat.
- **A deadline's technique** (d): the deadline fill tried a lighter-memory rung (gradient
  checkpointing) only where a layout of fewer units was turned away for memory after it was
  queued; the catalog's evaluator, having seen more layouts, turned DP 2 away by its bound
  before, and A40 read 8 GPUs at TP 8 (the catalog) or 2 with checkpointing (alone). Every
  shape no DP holds is now counted, timed only at its widest DP on fewer units than the
  answer, by its speed ceiling first (`core/sizing/fill.py`): 2 A40s either way.
"""


def _row(o: dict[str, Any]) -> str:
    changes = ", ".join(f"{k} {v}" for k, v in sorted(o["scenario_changes"].items())) or "none"
    need = o["needed_gpus"]
    count = f"{need} / {o['gpus']}" if need and need != o["gpus"] else str(o["gpus"])
    return f"{count} | {o['min_gpus']} | {o['layout']} | {changes}"


def consistency(buyer: Path) -> str:
    """The section: per case and GPU, the option in the catalog beside the option alone."""
    out = [TEXT]
    head = "| GPU | compared | GPUs need / bought | would hold | layout | techniques |"
    for name, gpus in CASES:
        scenario = json.loads((buyer / f"{name}.gpusizer.json").read_text())
        clear_caches()
        t0 = time.perf_counter()
        catalog = {o["gpu"]: o for o in gpusizer.compare_gpus(scenario)}
        took = time.perf_counter() - t0
        out += [f"`{name}.gpusizer.json`, the catalog compared in {took:.2f} s", "", head, "|" + "---|" * 6]
        for gpu in gpus:
            clear_caches()  # no answer kept from the catalog's search
            (alone,) = gpusizer.compare_gpus(scenario, gpus=[gpu])
            out.append(f"| {alone['gpu_name']} | catalog | {_row(catalog[gpu])} |")
            out.append(f"| {alone['gpu_name']} | alone | {_row(alone)} |")
        out.append("")
    return "\n".join(out)
