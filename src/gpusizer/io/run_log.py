"""Read what a user's own run printed: a vLLM (V0 and V1, 0.8-0.11 formats and later) or
SGLang startup log with the command that started it, a llama.cpp / Ollama log, ``llama-bench``
markdown or JSON, and ``vllm bench serve --save-result`` JSON (``gpusizer-cli check``).

Each reader keeps the settings the text states (model, engine release, tensor parallelism,
memory fraction, context) and the figures it measured, both with the line they came from.
Line formats: vLLM ``vllm/v1/worker/gpu_model_runner.py`` ("Model loading took X GiB"),
``gpu_worker.py`` ("Available KV cache memory"), ``v1/core/kv_cache_utils.py`` ("GPU KV cache
size: N tokens", "Maximum concurrency for N tokens per request"), ``engine/arg_utils.py``
(the V1 engine's config line); SGLang ``mem_cache/memory_pool.py`` ("KV Cache is allocated.
#tokens"); llama.cpp ``src/llama-model.cpp`` / ``llama-kv-cache.cpp`` (buffer sizes, n_ctx),
``tools/llama-bench`` (markdown and JSON printers); ``vllm/benchmarks/serve.py`` (result JSON).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import ScenarioError

NUM = r"(-?[\d,]*\.?\d+)"


@dataclass
class RunLog:
    """What a run printed: its engine, the settings it states and what it measured."""

    engine: str  # a framework id: vllm, sglang, llama.cpp
    kind: str  # "startup log", "llama-bench", "vllm bench serve"
    settings: dict[str, Any] = field(default_factory=dict)  # model, version, tp, ...
    measured: dict[str, float] = field(default_factory=dict)  # figure -> value (units in its name)

    def found(self) -> str:
        """What was read, in a phrase (for a refusal)."""
        parts = [f"{k} {v}" for k, v in self.settings.items()]
        parts += [f"{k} {v:,.2f}" for k, v in self.measured.items()]
        return f"{self.engine} {self.kind}: " + ("; ".join(parts) or "nothing usable")


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def _first(pattern: str, text: str) -> re.Match[str] | None:
    return re.search(pattern, text, re.MULTILINE)


def _all(pattern: str, text: str) -> set[str]:
    """Every value the pattern captures (its first group that matched)."""
    return {next(g for g in m.groups() if g is not None) for m in re.finditer(pattern, text, re.MULTILINE)}


def _one(pattern: str, text: str, what: str) -> str | None:
    """The single value ``pattern`` captures; refused when the text holds two runs."""
    values = _all(pattern, text)
    if len(values) > 1:
        raise ScenarioError("file", f"two runs in one file: {what} {' and '.join(sorted(values))}")
    return next(iter(values), None)


def _set(out: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        out[key] = value


def _measure(run: RunLog, key: str, pattern: str, text: str, scale: float = 1.0) -> None:
    m = _first(pattern, text)
    if m:
        run.measured[key] = _num(m.group(1)) * scale


def _vllm(text: str) -> RunLog:
    run = RunLog("vllm", "startup log")
    s = run.settings
    _set(
        s,
        "model",
        _one(r"(?:model='([^']+)'|vllm serve (\S+)|'model': '([^']+)')", text, "models") or _cmd_model(text),
    )
    _set(
        s,
        "version",
        _one(r"(?:LLM engine \(v|API server version |vLLM version )v?([\d.]+\d)", text, "versions"),
    )
    tp = _one(r"(?:tensor_parallel_size[=:'\" ]+|--tensor-parallel-size[ =]|-tp[ =])(\d+)", text, "TP sizes")
    _set(s, "tensor", int(tp) if tp else None)
    util = _one(
        r"(?:gpu_memory_utilization[ '\"=:(]+|--gpu-memory-utilization[ =])([\d.]+)", text, "fractions"
    )
    _set(s, "gpu_memory_utilization", float(util) if util else None)
    ctx = _one(
        r"(?:max_seq_len=|Using max model len |--max-model-len[ =]|'max_model_len': )(\d+)", text, "contexts"
    )
    _set(s, "max_model_len", int(ctx) if ctx else None)
    _measure(
        run,
        "weights GiB",
        rf"(?:Model loading took|model weights take|Loading model weights took) {NUM} ?Gi?B",
        text,
    )
    _measure(
        run, "KV cache GiB", rf"(?:Available KV cache memory:|reserved for KV Cache is) {NUM} ?GiB", text
    )
    _measure(run, "KV tokens", rf"GPU KV cache size: {NUM} tokens", text)
    _measure(run, "GPU blocks", rf"# (?:GPU|CUDA|cuda) blocks: {NUM}", text)
    _measure(run, "max concurrency", rf"Maximum concurrency for [\d,]+ tokens per request: {NUM}x", text)
    return run


def _cmd_model(text: str) -> str | None:
    m = _first(r"--model[ =](\S+)", text)
    return m.group(1) if m else None


def _sglang(text: str) -> RunLog:
    run = RunLog("sglang", "startup log")
    s = run.settings
    _set(s, "model", _one(r"(?:--model(?:-path)?[ =]|model_path=')([^\s']+)", text, "models"))
    tp = _one(r"(?:--tp(?:-size)?[ =]|tp_size=)(\d+)", text, "TP sizes")
    _set(s, "tensor", int(tp) if tp else None)
    frac = _one(r"(?:--mem-fraction-static[ =]|mem_fraction_static=)([\d.]+)", text, "fractions")
    _set(s, "mem_fraction_static", float(frac) if frac else None)
    _measure(run, "KV tokens", rf"KV Cache is allocated\. #tokens: {NUM}", text)
    # SGLang prints "K size: X GB" with GB = 1024**3 (mem_cache/memory_pool.py): GiB
    k, v = _first(rf"K size: {NUM} GB", text), _first(rf"V size: {NUM} GB", text)
    if k and v:
        run.measured["KV cache GiB"] = _num(k.group(1)) + _num(v.group(1))
    return run


def _llamacpp(text: str) -> RunLog:
    run = RunLog("llama.cpp", "startup log")
    s = run.settings
    _set(s, "model", _one(r"general\.name\s+str\s+=\s+(.+?)\s*$", text, "models"))
    _set(s, "file type", _one(r"file type\s+=\s+(.+?)\s*$", text, "file types"))
    _set(s, "device", _one(r"Device 0: ([^,]+),", text, "devices"))
    ctx = _one(r"n_ctx\s+=\s+(\d+)", text, "contexts")
    _set(s, "n_ctx", int(ctx) if ctx else None)
    seqs = _one(r"n_seq_max\s+=\s+(\d+)", text, "sequence counts")
    _set(s, "n_seq_max", int(seqs) if seqs else None)
    gpu0 = r"(?:CUDA|ROCm|Metal|Vulkan)0"  # the first GPU's buffers, by backend
    _measure(run, "GPU model buffer MiB", rf"{gpu0} (?:model )?buffer size =\s+{NUM} MiB", text)
    _measure(run, "GPU KV MiB", rf"{gpu0} KV buffer size =\s+{NUM} MiB", text)
    _measure(run, "GPU compute MiB", rf"{gpu0} compute buffer size =\s+{NUM} MiB", text)
    m = _first(r"offloaded (\d+)/(\d+) layers to GPU", text)
    if m:
        run.measured["layers offloaded"] = float(m.group(1))
        s["layers"] = int(m.group(2))
    if _first(_OLLAMA, text):
        _ollama_lines(run, text)
    return run


# Ollama's own placement line: llm/memory.go (v0.5: ``msg="offload to cuda"``) and
# llm/server.go (v0.11: ``msg=offload library=cuda``), its runner's command line (server.go
# "starting llama server": --ctx-size is num_ctx x parallel) and its version ("Listening on
# ... (version X)", routes.go)
_OLLAMA = r'msg="?offload(?: to \w+"| library=)'


def _mib(text: str, key: str) -> float | None:
    """An Ollama memory field (``memory.required.kv="896.0 MiB"``) in MiB."""
    m = _first(rf'{re.escape(key)}="{NUM} (B|KiB|MiB|GiB)"', text)
    return (
        None
        if m is None
        else _num(m.group(1)) * {"B": 2**-20, "KiB": 2**-10, "MiB": 1, "GiB": 1024}[m.group(2)]
    )


def _ollama_lines(run: RunLog, text: str) -> None:
    """What Ollama's placement line states, where the runner's own lines do not: the layers
    it placed on the GPUs and, when every layer is there, its KV cache (``memory.required.kv``)."""
    s = run.settings
    run.kind = "Ollama log"
    ver = _one(r"\(version ([\d.]+\d)\)", text, "versions")
    _set(s, "version", f"ollama-{ver}" if ver else None)
    ctx = _one(r"--ctx-size (\d+)", text, "contexts")
    par = _one(r"--parallel (\d+)", text, "parallel slots")
    if ctx and "n_ctx" not in s:
        s["n_ctx"] = int(ctx)
    if par and "n_seq_max" not in s:
        s["n_seq_max"] = int(par)
    placed = _one(r"layers\.offload=(\d+)", text, "placements")
    total = _one(r"layers\.model=(\d+)", text, "layer counts")
    if placed is None or total is None:
        return
    run.measured.setdefault("layers offloaded", float(placed))
    s.setdefault("layers", int(total))
    kv = _mib(text, "memory.required.kv")
    if kv is not None and placed == total:
        run.measured.setdefault("GPU KV MiB", kv)


def _bench_rows(text: str) -> list[dict[str, str]]:
    """llama-bench's markdown table as dicts (header names lowercased)."""
    rows = [
        [c.strip() for c in line.strip().strip("|").split("|")]
        for line in text.splitlines()
        if line.strip().startswith("|")
    ]
    if len(rows) < 3 or "t/s" not in rows[0]:
        return []
    return [dict(zip(rows[0], r, strict=False)) for r in rows[2:]]


def _llama_bench(text: str) -> RunLog:
    run = RunLog("llama.cpp", "llama-bench")
    models = set()
    for row in _bench_rows(text):
        models.add(row.get("model", ""))
        test = row.get("test", "").replace(" ", "")  # "pp 512" (2024 builds) = "pp512"
        run.measured[f"{test} tokens/s"] = _num(row["t/s"].split("±")[0].strip())
        m = re.search(r"(Q\d_K - \w+|Q\d_\d|BF16|F16)", row.get("model", ""))
        _set(run.settings, "file type", m.group(1) if m else None)
        _set(run.settings, "backend", row.get("backend"))
        _set(run.settings, "size", row.get("size"))
    if len(models) > 1:
        raise ScenarioError("file", f"two runs in one file: models {' and '.join(sorted(models))}")
    _set(run.settings, "model", next(iter(models), None))
    return run


def _bench_json(data: Any) -> RunLog | None:
    if isinstance(data, list) and data and isinstance(data[0], dict) and "avg_ts" in data[0]:
        run = RunLog("llama.cpp", "llama-bench")
        for r in data:
            test = f"pp{r['n_prompt']}" if r.get("n_prompt") else f"tg{r.get('n_gen', 0)}"
            run.measured[f"{test} tokens/s"] = float(r["avg_ts"])
            _set(run.settings, "model", r.get("model_type"))
            _set(run.settings, "device", r.get("gpu_info"))
            m = re.search(r"(Q\d_K - \w+|Q\d_\d|BF16|F16)", str(r.get("model_type", "")))
            _set(run.settings, "file type", m.group(1) if m else None)
        return run
    if isinstance(data, dict) and "mean_ttft_ms" in data:
        run = RunLog("vllm", "vllm bench serve")
        s = run.settings
        _set(s, "model", data.get("model_id"))
        _set(s, "max_concurrency", data.get("max_concurrency"))
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


def _bench_serve_text(text: str) -> RunLog:
    run = RunLog("vllm", "vllm bench serve")
    s = run.settings
    _set(s, "model", _one(r"vllm bench serve.*?--model[ =](\S+)", text, "models"))
    conc = _first(r"Maximum request concurrency:\s+(\d+)", text)
    n = _first(rf"Successful requests:\s+{NUM}", text)
    if conc:
        s["max_concurrency"] = int(conc.group(1))
    elif n and not _first(r"Traffic request rate:\s+\d", text):  # the default rate, inf: all at once
        s["max_concurrency"], s["load"] = round(_num(n.group(1))), "burst"
    for key, label in (
        ("prompt_tokens", "Total input tokens"),
        ("generated_tokens", "Total generated tokens"),
    ):
        total = _first(rf"{label}:\s+{NUM}", text)
        if n and total and _num(n.group(1)) > 0:
            s[key] = round(_num(total.group(1)) / _num(n.group(1)))
    for key, label in _SERVE_LINES.items():
        _measure(run, key, rf"{label}\s+{NUM}", text)
    return run


def read_run(text: str) -> RunLog:
    """The run a text states; ScenarioError ("file") when no reader recognises it."""
    # a fixture's or a user's note of where the lines came from is not a line of the run
    text = "\n".join(line for line in text.splitlines() if not line.startswith("# source:"))
    stripped = text.lstrip()
    if stripped[:1] in "[{":
        try:
            run = _bench_json(json.loads(stripped))
        except json.JSONDecodeError:
            run = None
        if run is not None:
            return run
    if _bench_rows(text):
        return _llama_bench(text)
    if "Serving Benchmark Result" in text:
        return _bench_serve_text(text)
    readers = (
        (r"sglang\.launch_server|KV Cache is allocated|sglang\.srt", _sglang),
        (
            r"vllm serve|LLM engine \(v|vLLM API server|GPU KV cache size|# (?:GPU|CUDA) blocks|"
            r"Model loading took|model weights take",
            _vllm,
        ),
        (
            r"llama_model_loader|llm_load_tensors|load_tensors:|llama_kv_cache|llama_context|" + _OLLAMA,
            _llamacpp,
        ),
    )
    for pattern, reader in readers:
        if re.search(pattern, text):
            return reader(text)
    raise ScenarioError(
        "file",
        "cannot place this file: no vLLM, SGLang, llama.cpp or Ollama startup lines, llama-bench table "
        "or vllm bench serve JSON found",
    )
