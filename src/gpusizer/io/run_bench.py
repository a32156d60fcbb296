"""Benchmark output of a user's run (``gpusizer-cli check``): ``llama-bench`` markdown or JSON
(llama.cpp ``tools/llama-bench``, its markdown and JSON printers) and ``vllm bench serve``'s
printed result or ``--save-result`` JSON (``vllm/benchmarks/serve.py``).
"""

from __future__ import annotations

import re
from typing import Any

from ..core.errors import ScenarioError
from .run_lines import NUM, RunLog, first, measure, number, one, put


def bench_rows(text: str) -> list[dict[str, str]]:
    """llama-bench's markdown table as dicts (header names lowercased)."""
    rows = [
        [c.strip() for c in line.strip().strip("|").split("|")]
        for line in text.splitlines()
        if line.strip().startswith("|")
    ]
    if len(rows) < 3 or "t/s" not in rows[0]:
        return []
    return [dict(zip(rows[0], r, strict=False)) for r in rows[2:]]


def llama_bench(text: str) -> RunLog:
    run = RunLog("llama.cpp", "llama-bench")
    models = set()
    for row in bench_rows(text):
        models.add(row.get("model", ""))
        test = row.get("test", "").replace(" ", "")  # "pp 512" (2024 builds) = "pp512"
        run.measured[f"{test} tokens/s"] = number(row["t/s"].split("±")[0].strip())
        m = re.search(r"(Q\d_K - \w+|Q\d_\d|BF16|F16)", row.get("model", ""))
        put(run.settings, "file type", m.group(1) if m else None)
        put(run.settings, "backend", row.get("backend"))
        put(run.settings, "size", row.get("size"))
    if len(models) > 1:
        raise ScenarioError("file", f"two runs in one file: models {' and '.join(sorted(models))}")
    put(run.settings, "model", next(iter(models), None))
    return run


def bench_json(data: Any) -> RunLog | None:
    if isinstance(data, list) and data and isinstance(data[0], dict) and "avg_ts" in data[0]:
        run = RunLog("llama.cpp", "llama-bench")
        for r in data:
            test = f"pp{r['n_prompt']}" if r.get("n_prompt") else f"tg{r.get('n_gen', 0)}"
            run.measured[f"{test} tokens/s"] = float(r["avg_ts"])
            put(run.settings, "model", r.get("model_type"))
            put(run.settings, "device", r.get("gpu_info"))
            m = re.search(r"(Q\d_K - \w+|Q\d_\d|BF16|F16)", str(r.get("model_type", "")))
            put(run.settings, "file type", m.group(1) if m else None)
        return run
    if isinstance(data, dict) and "mean_ttft_ms" in data:
        run = RunLog("vllm", "vllm bench serve")
        s = run.settings
        put(s, "model", data.get("model_id"))
        put(s, "max_concurrency", data.get("max_concurrency"))
        n = data.get("num_prompts") or data.get("completed") or 0
        if not data.get("max_concurrency") and str(data.get("request_rate")) == "inf" and n:
            # the default rate, inf, and no cap: every request at once, as the printed result reads
            s["max_concurrency"], s["load"] = int(n), "burst"
        if n:
            s["prompt_tokens"] = round(data.get("total_input_tokens", 0) / n)
            s["generated_tokens"] = round(data.get("total_output_tokens", 0) / n)
        for key in ("mean_ttft_ms", "mean_tpot_ms", "output_throughput"):
            if isinstance(data.get(key), (int, float)):
                run.measured[key] = float(data[key])
        return run
    return None


# ``vllm bench serve``'s printed result (vllm/benchmarks/serve.py: "Serving Benchmark Result"), the
# form users paste; the same figures as the --save-result JSON
_SERVE_LINES = {
    "mean_ttft_ms": r"Mean TTFT \(ms\):",
    "mean_tpot_ms": r"Mean TPOT \(ms\):",
    "output_throughput": r"Output token throughput \(tok/s\):",
}


def bench_serve_text(text: str) -> RunLog:
    run = RunLog("vllm", "vllm bench serve")
    s = run.settings
    put(s, "model", one(r"vllm bench serve.*?--model[ =](\S+)", text, "models"))
    conc = first(r"Maximum request concurrency:\s+(\d+)", text)
    n = first(rf"Successful requests:\s+{NUM}", text)
    if conc:
        s["max_concurrency"] = int(conc.group(1))
    elif n and not first(r"Traffic request rate:\s+\d", text):  # the default rate, inf: all at once
        s["max_concurrency"], s["load"] = round(number(n.group(1))), "burst"
    for key, label in (
        ("prompt_tokens", "Total input tokens"),
        ("generated_tokens", "Total generated tokens"),
    ):
        total = first(rf"{label}:\s+{NUM}", text)
        if n and total and number(n.group(1)) > 0:
            s[key] = round(number(total.group(1)) / number(n.group(1)))
    for key, label in _SERVE_LINES.items():
        measure(run, key, rf"{label}\s+{NUM}", text)
    return run
