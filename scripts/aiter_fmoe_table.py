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

And the one CDNA3 block-FP8 table at a fine-grained TP-8 slice:
``aiter/configs/model_configs/a8w8_blockscale_tuned_fmoe_glm5_1.csv`` as of c16d44b9 (2026-08-18,
"fix(fmoe): retune GLM-5 FP8 decode kernels", the file's last change before the mirror's
e4048607; first added by ROCm/aiter PR #3422, "Add GLM-5.1 FP8 blockscale GEMM/FMoE tunings for
gfx942 (MI300X/MI325)", whose serving check ran on "MI300X x8 (gfx942, cu_num 304)"), ``cu_num``
304, GLM-5.1's 256 routed experts of 6144 x 2048 at TP 8 (``inter_dim`` 256) with its one shared
expert fused (``expert`` 257, ``topk`` 9: FSE=1), ``QuantType.per_1x128``, SiLU. Filed under both
``cu_num`` 304 parts (the MI300X and the MI325X: AITER keys its tables by ``cu_num``, so both run
the same kernel). Rows whose ``us`` is 0 (4 and 8 tokens: a16 kernels the retune selected
without a time) are left out; the step interpolates between 2 and 16 tokens.

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


GLM51_COMMIT = "c16d44b93a"
GLM51_PATH = "aiter/configs/model_configs/a8w8_blockscale_tuned_fmoe_glm5_1.csv"
GLM51_GPUS = {"304": ("mi300x-192gb", "mi325x-256gb")}  # cu_num 304: both gfx942 parts
# GLM-5.1: 256 routed experts of 2,048 columns, top 8, hidden 6,144 (its config.json), one shared
# expert fused in (257 experts, top 9), at TP 8 (inter_dim 256)
GLM51 = {"experts": 257, "hidden": 6144, "intermediate": 2048, "top_k": 9}
GLM51_KEEP = {
    "expert": "257",
    "topk": "9",
    "inter_dim": "256",
    **{k: v for k, v in KEEP.items() if k[0] in "qa"},
}


def _csv(git_dir: str, commit: str, path: str) -> list[dict[str, str]]:
    text = subprocess.run(
        ["git", f"--git-dir={git_dir}", "show", f"{commit}:{path}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return list(csv.DictReader(io.StringIO(text)))


def _series(head: dict[str, object], pts: dict[int, float]) -> dict[str, object]:
    toks = sorted(pts)
    return {**head, "routing": "random", "tokens": toks, "ms": [round(pts[t], 6) for t in toks]}


def rows(git_dir: str) -> list[dict[str, object]]:
    """The kept rows as one series per (GPU, TP): tokens ascending, ``us`` as ms."""
    series: dict[tuple[str, int], dict[int, float]] = {}
    for r in _csv(git_dir, COMMIT, PATH):
        if r["cu_num"] not in GPUS or any(r[k] != v for k, v in KEEP.items()):
            continue
        tp = FULL_INTER // int(r["inter_dim"])
        series.setdefault((GPUS[r["cu_num"]], tp), {})[int(r["token"])] = float(r["us"]) / 1e3
    out = []
    for (gpu, tp), pts in sorted(series.items()):
        head = {"gpu": gpu, "experts": 512, "hidden": 2048, "intermediate": FULL_INTER, "top_k": 10, "tp": tp}
        out.append(_series(head, pts))
    return out + glm51_rows(git_dir)


def glm51_rows(git_dir: str) -> list[dict[str, object]]:
    """GLM-5.1's TP-8 slice on ``cu_num`` 304 (module docstring), one series per gfx942 part."""
    pts: dict[int, float] = {}
    for r in _csv(git_dir, GLM51_COMMIT, GLM51_PATH):
        if r["cu_num"] in GLM51_GPUS and all(r[k] == v for k, v in GLM51_KEEP.items()) and float(r["us"]):
            pts[int(r["token"])] = float(r["us"]) / 1e3
    return [_series({"gpu": gpu, **GLM51, "tp": 8}, pts) for gpu in GLM51_GPUS["304"]]


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
        "shared expert, no token sort; and aiter/configs/model_configs/a8w8_blockscale_tuned_fmoe_glm5_1.csv "
        f"at {GLM51_COMMIT} (ROCm/aiter PR #3422 and its retunes): cu_num 304 (MI300X, MI325X), GLM-5.1's "
        "256 routed experts of 6144 x 2048 at TP 8 with its shared expert fused (257 experts, top 9), "
        "QuantType.per_1x128 FP8, SiLU, rows with a recorded us",
    )
