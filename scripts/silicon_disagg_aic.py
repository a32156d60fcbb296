"""aiconfigurator's own answers for the disaggregated rows of its ``silicon_sample.csv``.

Runs in aiconfigurator 0.12.0's own environment (the ``aiconfigurator`` wheel; GPU Sizer is not
needed): each row with stated pools goes to its ``cli_estimate`` with the row's fields, as
ai-dynamo/aiconfigurator ``tools/regression_v2/run_silicon.py`` calls it, at the measured
engine version's database where it loads, else its default. Writes ``{id: [ttft_ms, tpot_ms,
version]}`` or ``{id: "its refusal"}`` for ``silicon_disagg_replay.py --aiconfigurator``.

    AICVENV/bin/python scripts/silicon_disagg_aic.py OUT.json [--csv PATH]
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import sys
from pathlib import Path
from typing import Any

from silicon_disagg_replay import CSV

AIC_FIELDS = tuple(
    f"{stage}_{k}"
    for stage in ("prefill", "decode")
    for k in (
        "tp_size",
        "pp_size",
        "attention_dp_size",
        "moe_tp_size",
        "moe_ep_size",
        "batch_size",
        "num_workers",
    )
)


def predict_aic(path: Path, out: Path) -> None:
    """aiconfigurator's TTFT and TPOT (ms) of every disaggregated row with stated pools, or
    its error (run in aiconfigurator's environment; module docstring)."""
    from aiconfigurator.cli.api import cli_estimate

    got: dict[str, Any] = {}
    for row in csv.DictReader(path.open(newline="")):
        if row["mode"] != "disagg" or not row["decode_num_workers"]:
            continue
        args = {
            "model_path": row["model_path"],
            "system_name": row["system"],
            "mode": "disagg",
            "backend_name": row["backend"],
            "backend_version": row["backend_version"] or None,
            "isl": int(row["isl"]),
            "osl": int(row["osl"]),
            "gemm_quant_mode": row["gemm_quant_mode"] or None,
            "moe_quant_mode": row["moe_quant_mode"] or None,
            **{k: int(row[k]) for k in AIC_FIELDS if row.get(k)},
        }
        for version in (args["backend_version"], None):
            try:
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                    r = cli_estimate(**{**args, "backend_version": version})
                got[row["id"]] = [round(r.ttft, 3), round(r.tpot, 4), version]
                break
            except Exception as e:  # its refusals are findings: kept as text
                got[row["id"]] = f"{type(e).__name__}: {str(e)[:160]}"
    out.write_text(json.dumps(got, indent=1) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--csv", type=Path, default=CSV)
    a = ap.parse_args()
    if not a.csv.is_file():
        print(f"--csv: no such file: {a.csv}", file=sys.stderr)
        return 2
    predict_aic(a.csv, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
