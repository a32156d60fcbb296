"""Dump the answers of every preset x workload kind: ``estimate_report`` and ``plan``.

A refactor that changes no answer leaves the dump byte-identical (the check that a refactor
preserves behaviour)::

    python scripts/answer_dump.py --out before.json      # on the old commit
    python scripts/answer_dump.py --out after.json       # on the new one
    cmp before.json after.json

``--plan`` adds ``gpusizer.plan`` for every case (slower: about a minute); ``--compare`` adds
``compare_gpus`` for a few buyer cases.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from typing import Any

import gpusizer
from gpusizer.core.model.presets import model_presets
from gpusizer.core.registry.workloads import WORKLOAD_KINDS

RECIPES: dict[str, dict[str, Any]] = {
    "default": {},
    "megatron": {"framework": "megatron"},
    "deepspeed": {"framework": "deepspeed"},
    "vllm": {"framework": "vllm"},
}
COMPARE_CASES: dict[str, dict[str, Any]] = {
    "70b-serve-50-users-8k": {
        "model": {"preset": "llama-3.1-70b"},
        "workload": {"kind": "inference", "batch_size": 50, "prompt_tokens": 7168, "generated_tokens": 1024},
        "framework": "vllm",
    },
    "deepseek-v3-serve": {"model": {"preset": "deepseek-v3"}, "workload": {"kind": "inference"}},
    "8b-lora": {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "lora"}},
    "70b-pretrain-1t": {
        "model": {"preset": "llama-3.1-70b"},
        "workload": {"kind": "pretraining", "training_tokens": 10**12},
    },
}


def _safe(fn: Any, *args: Any, **kw: Any) -> Any:
    try:
        return fn(*args, **kw)
    except gpusizer.ScenarioError as exc:
        return {"error": str(exc)}


def dump(with_plan: bool, with_compare: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for preset in sorted(model_presets()):
        for kind in WORKLOAD_KINDS:
            for recipe, extra in RECIPES.items():
                if (recipe == "vllm") != (kind == "inference") and recipe != "default":
                    continue
                scen = {"model": {"preset": preset}, "workload": {"kind": kind}, **extra}
                key = f"{preset}|{kind}|{recipe}"
                out[key] = {"estimate": _safe(gpusizer.estimate_report, scen)}
                if with_plan:
                    out[key]["plan"] = _safe(gpusizer.plan, scen)
    if with_compare:
        for name, scen in COMPARE_CASES.items():
            out[f"compare|{name}"] = _safe(gpusizer.compare_gpus, scen)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--plan", action="store_true")
    ap.add_argument("--compare", action="store_true")
    a = ap.parse_args(argv)
    data = dump(a.plan, a.compare)
    pathlib.Path(a.out).write_text(json.dumps(data, indent=1, sort_keys=True, default=str) + "\n")
    print(f"{len(data)} cases -> {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
