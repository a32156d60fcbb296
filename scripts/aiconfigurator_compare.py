"""GPU Sizer beside NVIDIA's aiconfigurator on the published serving figures both can express.

The figures are those of tests/core/data/speed-figures.json that aiconfigurator's ``cli estimate``
states too: a fixed number of concurrent requests (``serving.load`` "steady") of one prompt and
output length, served by vLLM, SGLang or TensorRT-LLM on a GPU with its tables (H100 SXM, H200,
B200), a model it ships a config for; its metrics TTFT, TPOT and output tokens/s. Bursts and
queues (it has no queue model), llama.cpp, Apple, AMD and training are GPU Sizer's alone.

aiconfigurator is not a dependency: ``--run`` calls its CLI (``--aic PATH``, e.g. a venv with
``pip install aiconfigurator==0.12.0``) for every case and writes its answers to
tests/core/data/aiconfigurator-predictions.json; without ``--run`` the stored answers are read.
Its tables are of its own engine builds (vLLM 0.24.0, SGLang 0.5.14, TensorRT-LLM 1.3.0rc20 in
0.12.0), not the builds of the figures: the comparison is of the two tools as a buyer runs them.

    PYTHONPATH=src:. python scripts/aiconfigurator_compare.py            # the table
    PYTHONPATH=src:. python scripts/aiconfigurator_compare.py --run --aic /tmp/aicvenv/bin/aiconfigurator
"""

from __future__ import annotations

import json
import re
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

DATA = Path(__file__).parents[1] / "tests" / "core" / "data"
PREDICTIONS = DATA / "aiconfigurator-predictions.json"
WITHIN = 0.25

_QWEN8 = "--model-path Qwen/Qwen3-8B --system h100_sxm --isl 233 --osl 221 --tp-size 1"
_R1_H200 = (
    "--model-path deepseek-ai/DeepSeek-R1 --system h200_sxm --backend sglang --isl 922 --osl 922 "
    "--tp-size 8 --moe-tp-size 8 --moe-ep-size 1 --gemm-quant-mode fp8_block --moe-quant-mode fp8_block"
)
_R1_ADP = "--model-path deepseek-ai/DeepSeek-R1 --backend trtllm --isl 1024 --osl 2048 --tp-size 1 "
_R1_ADP += "--attention-dp-size 8 --moe-tp-size 1 --moe-ep-size 8"
# (record id, the replay labels it covers by metric, aiconfigurator's arguments)
CASES: tuple[tuple[str, dict[str, str], str], ...] = (
    *(
        (
            "gpustack-vllm-0.11.0-qwen3-8b-h100-sharegpt-c1-c8",
            {
                "tpot": f"mean TPOT (c={c})",
                "tokens": f"output tokens/s (c={c})",
                "ttft": f"mean TTFT (c={c})",
            },
            f"{_QWEN8} --backend vllm --batch-size {c}",
        )
        for c in (1, 2, 4, 8)
    ),
    (
        "gpustack-sglang-0.5.3-qwen3-8b-h100-sharegpt-c4",
        {
            "tpot": "mean TPOT (BF16, c=4)",
            "tokens": "output tokens/s (BF16, c=4)",
            "ttft": "mean TTFT (BF16, c=4)",
        },
        f"{_QWEN8} --backend sglang --batch-size 4",
    ),
    (
        "gpustack-sglang-0.5.3-qwen3-8b-h100-sharegpt-c4",
        {
            "tpot": "mean TPOT (FP8, c=4)",
            "tokens": "output tokens/s (FP8, c=4)",
            "ttft": "mean TTFT (FP8, c=4)",
        },
        f"{_QWEN8} --backend sglang --batch-size 4 --gemm-quant-mode fp8_block",
    ),
    (
        "gpustack-trtllm-1.2.0rc1-qwen3-8b-h100-sharegpt-c4",
        {"tpot": "mean TPOT (c=4)", "tokens": "output tokens/s (c=4)", "ttft": "mean TTFT (c=4)"},
        f"{_QWEN8} --backend trtllm --batch-size 4",
    ),
    *(
        (
            f"sglang-0.5.7-dsr1-0528-fp8-8xh200-tp8-c{c}-1k1k",
            {"tpot": f"mean TPOT (c={c})", "tokens": f"output tokens/s (c={c})"},
            f"{_R1_H200} --batch-size {c}",
        )
        for c in (8, 16, 32, 64)
    ),
    (
        "trtllm-dsr1-b200-maxtput-fp8kv",
        {"tokens": "output tokens/s (8 GPUs)"},
        f"{_R1_ADP} --system b200_sxm --batch-size 896 --gemm-quant-mode nvfp4 --moe-quant-mode nvfp4 "
        "--kvcache-quant-mode fp8",
    ),
    (
        "trtllm-dsr1-b200-maxtput-bf16kv",
        {"tokens": "output tokens/s (8 GPUs)"},
        f"{_R1_ADP} --system b200_sxm --batch-size 384 --gemm-quant-mode nvfp4 --moe-quant-mode nvfp4",
    ),
    (
        "trtllm-dsr1-h200-maxtput",
        {"tokens": "output tokens/s (8 GPUs)"},
        f"{_R1_ADP} --system h200_sxm --batch-size 128 --gemm-quant-mode fp8_block "
        "--moe-quant-mode fp8_block",
    ),
)
_FIELDS = {
    "ttft": r"TTFT:\s+([\d,.]+) ms",
    "tpot": r"TPOT:\s+([\d,.]+) ms",
    "tokens": r"tokens/s:\s+([\d,.]+)",
}


def run_aiconfigurator(aic: str) -> dict[str, Any]:
    """Every case's TTFT (s), TPOT (s) and output tokens/s from aiconfigurator's CLI."""
    out: dict[str, Any] = {"tool": "", "cases": []}
    version = subprocess.run([aic, "version"], capture_output=True, text=True, check=False)
    out["tool"] = (
        (version.stdout or version.stderr).strip().splitlines()[-1] if version.returncode == 0 else aic
    )
    for record, labels, args in CASES:
        cmd = [aic, "cli", "estimate", *args.split(), "--log-level", "ERROR"]
        text = subprocess.run(cmd, capture_output=True, text=True, check=False).stdout
        got: dict[str, float] = {}
        for key, pattern in _FIELDS.items():
            m = re.search(pattern, text)
            if m:
                v = float(m.group(1).replace(",", ""))
                got[key] = v / 1000 if key in ("ttft", "tpot") else v
        backend = re.search(r"Backend:\s+(\S+ \([^)]*\))", text)
        out["cases"].append(
            {
                "record": record,
                "labels": labels,
                "args": args,
                "backend": backend.group(1) if backend else "",
                **got,
            }
        )
    return out


def _published() -> dict[tuple[str, str], tuple[float, dict[str, Any], str, bool]]:
    """(published, scenario, metric, whether it set a GPU Sizer constant) per figure."""
    records = json.loads((DATA / "speed-figures.json").read_text())
    return {
        (r["id"], e["label"]): (e["published"], e["scenario"], e["metric"], "sets" in e)
        for r in records
        for e in r.get("replay", [])
    }


def _ours(scenario: dict[str, Any], metric: str) -> float:
    from gpusizer.core.pipeline.estimate import estimate

    sv = estimate(scenario).serving
    assert sv is not None
    return float(getattr(sv, metric))


Row = tuple[str, float, float, float, bool]


def rows(predictions: dict[str, Any]) -> list[Row]:
    """(figure, published, GPU Sizer, aiconfigurator, whether the figure set a GPU Sizer
    constant) for every figure of every case; times in seconds, throughput in tokens/s."""
    pub = _published()
    out = []
    for case in predictions["cases"]:
        for key, label in case["labels"].items():
            if key not in case:
                continue
            published, scenario, metric, sets = pub[(case["record"], label)]
            out.append((f"{case['record']} | {label}", published, _ours(scenario, metric), case[key], sets))
    return out


def summary(table: list[Row]) -> dict[str, dict[str, float]]:
    """Per tool: figures within 25 %, and the median of |estimate / published - 1|."""
    out = {}
    for i, tool in ((2, "gpusizer"), (3, "aiconfigurator")):
        errors = [abs(float(row[i]) / row[1] - 1) for row in table]
        out[tool] = {
            "figures": float(len(errors)),
            "within": float(sum(e <= WITHIN for e in errors)),
            "median_error": statistics.median(errors),
        }
    return out


def main(argv: list[str]) -> int:
    if "--run" in argv:
        aic = argv[argv.index("--aic") + 1] if "--aic" in argv else "aiconfigurator"
        PREDICTIONS.write_text(json.dumps(run_aiconfigurator(aic), indent=1) + "\n")
    predictions = json.loads(PREDICTIONS.read_text())
    table = rows(predictions)
    print("| figure | published | GPU Sizer | aiconfigurator |")
    print("| --- | ---: | ---: | ---: |")
    for name, pub, ours, peer, sets in table:
        print(f"| {name}{' (sets)' if sets else ''} | {pub:.4g} | {ours / pub:.2f} | {peer / pub:.2f} |")
    for what, part in (("all", table), ("out of sample", [r for r in table if not r[4]])):
        for tool, s in summary(part).items():
            line = (
                f"{s['within']:.0f} of {s['figures']:.0f} within 25 %, median error {s['median_error']:.1%}"
            )
            print(f"{what}: {tool}: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
