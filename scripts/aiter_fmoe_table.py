"""Copy AITER's measured fused-MoE times on CDNA4 out of ROCm/aiter's tuned fmoe table into the
package's data (src/gpusizer/presets/moe-module-times.json, through scripts/moe_module_json.py),
as the ``aiter-fp8-block`` module of core/speed/moe_measured.py.

ROCm/aiter's tuner (csrc/ck_gemm_moe_2stages_codegen/gemm_moe_tune.py) times every candidate
kernel of a shape and keeps the fastest, writing one row per (``cu_num``, ``token``,
``model_dim``, ``inter_dim``, ``expert``, ``topk``, activation, dtypes, ``q_type``) with its time
``us`` (a 1-stage ASM kernel's, or stage 1 + stage 2); ``aiter.fused_moe`` looks the row up at run
time. Its inputs: ``torch.randn`` router scores through ``fused_topk`` (a uniform routing in
expectation), no router GEMM, no shared expert (``expert`` = the routed experts; a shape with one
expert more and ``topk`` + 1 is the shared expert fused in), the token sort outside the time.

The rows kept: ``aiter/configs/model_configs/qwen3next_80b_fp8_tuned_fmoe.csv`` at 9617dfb9 (the
file's first commit, 2026-04-23, "Add Qwen3-Next-80B-A3B FP8 fMoE tuned configs for MI355X":
"MI355X (gfx950, 256 CU). Covers TP1/TP2/TP4 with FSE=0 and FSE=1"), ``cu_num`` 256, SiLU,
``QuantType.per_1x128`` (128 x 128 block-FP8 weights, activations quantised per 1 x 128), the
routed experts alone (512 experts, top 10; FSE=0), ``inter_dim`` 512 / 256 / 128 = Qwen3-Next's
512 split over TP 1 / 2 / 4. No other file of the repository's history holds a block-FP8 shape a
replayed AMD figure runs (docs/evidence/speed.md, the section on AITER's tuned fmoe tables).

    PYTHONPATH=src:. /work/main/.venv/bin/python scripts/aiter_fmoe_table.py /work/.mirror/ROCm+aiter/repo
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).parents[1] / "src" / "gpusizer" / "presets" / "moe-module-times.json"

KERNEL = "aiter-fp8-block"
COMMIT = "9617dfb90980f9eb012693a99de7b65ccb885361"
PATH = "aiter/configs/model_configs/qwen3next_80b_fp8_tuned_fmoe.csv"
GPUS = {"256": "mi355x-288gb"}  # cu_num: catalog GPU (the commit names the MI355X)
FULL_INTER = 512  # Qwen3-Next-80B-A3B's moe_intermediate_size (its config.json)
KEEP = {"expert": "512", "topk": "10", "q_type": "QuantType.per_1x128", "act_type": "ActivationType.Silu"}


def rows(git_dir: str) -> list[dict[str, object]]:
    """The kept rows as one series per (GPU, TP): tokens ascending, ``us`` as ms."""
    text = subprocess.run(
        ["git", f"--git-dir={git_dir}", "show", f"{COMMIT}:{PATH}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    series: dict[tuple[str, int], dict[int, float]] = {}
    for r in csv.DictReader(io.StringIO(text)):
        if r["cu_num"] not in GPUS or any(r[k] != v for k, v in KEEP.items()):
            continue
        tp = FULL_INTER // int(r["inter_dim"])
        series.setdefault((GPUS[r["cu_num"]], tp), {})[int(r["token"])] = float(r["us"]) / 1e3
    out = []
    for (gpu, tp), pts in sorted(series.items()):
        head = {"gpu": gpu, "experts": 512, "hidden": 2048, "intermediate": FULL_INTER, "top_k": 10, "tp": tp}
        toks = sorted(pts)
        out.append({**head, "routing": "random", "tokens": toks, "ms": [round(pts[t], 6) for t in toks]})
    return out


def write(name: str, series: list[dict[str, object]], source: str) -> None:
    """Replace the kernel table ``name`` with ``series`` and record its ``source`` (the layout of
    scripts/moe_module_json.py ``write``, which needs pandas for its other readers)."""
    doc = json.loads(OUT.read_text())
    doc["kernels"][name] = series
    doc.setdefault("sources", {})[name] = source
    OUT.write_text(json.dumps(doc, indent=None, separators=(",", ":")) + "\n")
    print(f"{len(series)} series -> {OUT}")


if __name__ == "__main__":
    write(
        KERNEL,
        rows(sys.argv[1]),
        f"ROCm/aiter {PATH} at {COMMIT[:8]} (MIT): cu_num 256 (MI355X), Qwen3-Next-80B-A3B's routed "
        "experts (2048 x 512 split over TP 1 / 2 / 4, 512 experts, top 10), QuantType.per_1x128 "
        "FP8, SiLU, the tuner's fastest kernel's us; random router scores, no router GEMM, no "
        "shared expert, no token sort",
    )
