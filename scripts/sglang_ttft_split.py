"""SGLang's measured first tokens split into a fixed part and a part per prompt token, beside ours.

aiconfigurator 0.12.0's measured aggregated SGLang runs (``aiconfigurator_core/systems/
silicon_sample.csv``, NVIDIA, Apache-2.0; replayed as ``scripts/silicon_replay.py`` does) read
MoE first tokens 2-3x faster in ours than measured, dense ones near (docs/evidence/speed.md, the
section on aiconfigurator's measured serving runs). A first token at a fixed load is the prompt's
forward plus whatever the engine adds per request; across prompt lengths at the same users, a
line TTFT = fixed + per_token x prompt says which of the two is short in ours.

For every group of one GPU x model x precision x engine release x TP x client (InferenceX or
NVIDIA's own sweep) x users (InferenceX: the exact concurrency; NVIDIA's sweeps, whose
concurrency varies a little with the prompt: buckets of 4) with two prompt lengths or more, it
fits the line by least squares to the measured means and to ours of the same rows (prompt as the
client sent it: InferenceX draws 0.8-1.0 of the stated length, so 0.9 x it). Light loads only
(at most ``LIGHT`` users: above, queueing behind other prompts grows with the prompt and folds
into the per-token part). A group whose measured line has a negative fixed part is a stalled run
(several SGLang NVFP4 runs read 5-9 s at 4-32 users, speed.md's first finding) and is left out:
a rule on the measurements alone, never on ours.

    PYTHONPATH=src:. python scripts/sglang_ttft_split.py             # the table
    PYTHONPATH=src:. python scripts/sglang_ttft_split.py --write     # tests/core/data/sglang-ttft-split.json
    PYTHONPATH=src:. python scripts/sglang_ttft_split.py --backend trtllm   # the same split, another engine
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from silicon_replay import CSV, agg_rows, client, concurrency, engine_version, inferencex, replay

ROOT = Path(__file__).parents[1]
OUT = ROOT / "tests" / "core" / "data" / "sglang-ttft-split.json"
LIGHT = 16
CONTROLS = ("deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-R1")
# TensorRT-LLM on the same H200s and client: a dense model and another MoE, TP 8
H200_CONTROLS = ("meta-llama/Llama-3.1-70B", "openai/gpt-oss-120b")
KEPT = (
    "id", "silicon_data_source", "model_path", "system", "isl", "osl", "gemm_quant_mode",
    "moe_quant_mode", "batch_size", "tp_size", "attention_dp_size", "moe_ep_size", "silicon_ttft_ms",
    "silicon_tpot_ms",
)  # fmt: skip


def line(points: list[tuple[float, float]]) -> tuple[float, float] | None:
    """(fixed, per token) of the least-squares line through (prompt tokens, TTFT) points; None
    when every point has the same prompt."""
    n = len(points)
    mx, my = sum(p for p, _ in points) / n, sum(t for _, t in points) / n
    sxx = sum((p - mx) ** 2 for p, _ in points)
    if not sxx:
        return None
    slope = sum((p - mx) * (t - my) for p, t in points) / sxx
    return my - slope * mx, slope


def group_key(row: dict[str, str]) -> tuple[str, ...]:
    """GPU, model, precision, release, layout, client and users of a row (module docstring)."""
    users = concurrency(row) or 0
    load = str(users) if inferencex(row) else f"{users // 4 * 4}-{users // 4 * 4 + 3}"
    layout = f"tp{row['tp_size']}/ep{row['moe_ep_size'] or 1}"
    precision = f"{row['gemm_quant_mode'] or 'bf16'}/{row['moe_quant_mode'] or 'bf16'}"
    source = "InferenceX" if inferencex(row) else "NVIDIA sweep"
    version = engine_version(row) or "nightly"
    return (row["system"], row["model_path"], precision, version, layout, source, load)


def prompt(row: dict[str, str]) -> float:
    """Mean prompt tokens the row's client sent."""
    return float(client(row)[0])


def split(rows: list[dict[str, Any]], key: str) -> tuple[float, float] | None:
    """The line of ``key`` ("measured" or "estimate") TTFT, ms against prompt tokens."""
    return line([(prompt(d["row"]), d[key][0] * 1e3) for d in rows])


def light_groups(
    done: list[dict[str, Any]], backend: str = "sglang"
) -> dict[tuple[str, ...], list[dict[str, Any]]]:
    """The replayed rows of ``backend`` at light load, by group, with two prompt lengths or more
    and a measured line that is not a stalled run (module docstring)."""
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = defaultdict(list)
    for d in done:
        if d["row"]["backend"] == backend and (concurrency(d["row"]) or 0) <= LIGHT:
            groups[group_key(d["row"])].append(d)
    out = {}
    for key, rows in groups.items():
        fit = split(rows, "measured")
        if fit and fit[0] > 0:
            out[key] = rows
    return out


def table(groups: dict[tuple[str, ...], list[dict[str, Any]]]) -> list[str]:
    """Markdown rows: measured and our fixed part (ms) and part per prompt token (us)."""
    lines = [
        "| GPU | model | precision | release | layout | client | users | rows | measured fixed ms, "
        "us/token | ours fixed ms, us/token | ours / measured: fixed, per token |",
        "|---|---|---|---|---|---|---|---:|---|---|---|",
    ]
    for key in sorted(groups):
        rows = groups[key]
        m, o = split(rows, "measured"), split(rows, "estimate")
        assert m and o
        cells = " | ".join(key)
        lines.append(
            f"| {cells} | {len(rows)} | {m[0]:.0f}, {m[1] * 1e3:.1f} | {o[0]:.0f}, {o[1] * 1e3:.1f} | "
            f"{o[0] / m[0]:.2f}, {o[1] / m[1]:.2f} |"
        )
    return lines


def _groups_json(groups: dict[tuple[str, ...], list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [
        {
            "key": list(key),
            "rows": [{"csv": {k: d["row"][k] for k in KEPT}, "scenario": d["scenario"]} for d in rows],
        }
        for key, rows in sorted(groups.items())
    ]


def data_file(
    groups: dict[tuple[str, ...], list[dict[str, Any]]], controls: dict[tuple[str, ...], list[dict[str, Any]]]
) -> dict[str, Any]:
    """tests/core/data/sglang-ttft-split.json: each group's rows as the CSV states them, with
    the scenario replayed; ``controls`` the same split of TensorRT-LLM's DeepSeek runs on the
    same GPUs, client and loads (another engine, its own scheduler and kernels)."""
    return {
        "source": "aiconfigurator 0.12.0 wheel (PyPI aiconfigurator-core 0.12.0, NVIDIA, Apache-2.0): "
        "aiconfigurator_core/systems/silicon_sample.csv, mode agg, backend sglang",
        "license": "Apache-2.0",
        "selection": f"scripts/sglang_ttft_split.py light_groups(): at most {LIGHT} users, two prompt "
        "lengths or more in a group, measured fixed part positive",
        "groups": _groups_json(groups),
        "controls": _groups_json(controls),
    }


def controls() -> dict[tuple[str, ...], list[dict[str, Any]]]:
    """TensorRT-LLM's light-load groups: DeepSeek on H200 and B200 (the same split, another
    engine), and on the same H200s at TP 8 a dense model and another MoE (``H200_CONTROLS``)."""
    models = CONTROLS + H200_CONTROLS
    done, _ = replay([r for r in agg_rows() if r["backend"] == "trtllm" and r["model_path"] in models])
    out = {}
    for key, rows in light_groups(done, "trtllm").items():
        deepseek = key[1] in CONTROLS and key[0] in ("h200_sxm", "b200_sxm")
        other = key[1] in H200_CONTROLS and key[0] == "h200_sxm" and key[4] == "tp8/ep1"
        if deepseek or other:
            out[key] = rows
    return out


def main(argv: list[str]) -> int:
    if not CSV.is_file():
        print(f"sglang_ttft_split: no CSV at {CSV} (pip install aiconfigurator-core==0.12.0)")
        return 2
    backend = argv[argv.index("--backend") + 1] if "--backend" in argv[:-1] else "sglang"
    done, _ = replay([r for r in agg_rows() if r["backend"] == backend])
    groups = light_groups(done, backend)
    print("\n".join(table(groups)))
    if "--write" in argv and backend == "sglang":
        OUT.write_text(json.dumps(data_file(groups, controls()), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
