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
The benchmark readers are io/run_bench.py's, the shared line matchers io/run_lines.py's.
"""

from __future__ import annotations

import json
import re

from ..core.errors import ScenarioError
from .run_bench import bench_json, bench_rows, bench_serve_text, llama_bench
from .run_lines import NUM, RunLog, first, measure, number, one, put

__all__ = ["RunLog", "read_run"]


def _vllm(text: str) -> RunLog:
    run = RunLog("vllm", "startup log")
    s = run.settings
    put(
        s,
        "model",
        one(r"(?:model='([^']+)'|vllm serve (\S+)|'model': '([^']+)')", text, "models") or _cmd_model(text),
    )
    put(
        s,
        "version",
        one(r"(?:LLM engine \(v|API server version |vLLM version )v?([\d.]+\d)", text, "versions"),
    )
    tp = one(r"(?:tensor_parallel_size[=:'\" ]+|--tensor-parallel-size[ =]|-tp[ =])(\d+)", text, "TP sizes")
    put(s, "tensor", int(tp) if tp else None)
    util = one(
        r"(?:gpu_memory_utilization[ '\"=:(]+|--gpu-memory-utilization[ =])([\d.]+)", text, "fractions"
    )
    put(s, "gpu_memory_utilization", float(util) if util else None)
    ctx = one(
        r"(?:max_seq_len=|Using max model len |--max-model-len[ =]|'max_model_len': )(\d+)", text, "contexts"
    )
    put(s, "max_model_len", int(ctx) if ctx else None)
    measure(
        run,
        "weights GiB",
        rf"(?:Model loading took|model weights take|Loading model weights took) {NUM} ?Gi?B",
        text,
    )
    measure(run, "KV cache GiB", rf"(?:Available KV cache memory:|reserved for KV Cache is) {NUM} ?GiB", text)
    measure(run, "KV tokens", rf"GPU KV cache size: {NUM} tokens", text)
    measure(run, "GPU blocks", rf"# (?:GPU|CUDA|cuda) blocks: {NUM}", text)
    measure(run, "max concurrency", rf"Maximum concurrency for [\d,]+ tokens per request: {NUM}x", text)
    return run


def _cmd_model(text: str) -> str | None:
    m = first(r"--model[ =](\S+)", text)
    return m.group(1) if m else None


def _sglang(text: str) -> RunLog:
    run = RunLog("sglang", "startup log")
    s = run.settings
    put(s, "model", one(r"(?:--model(?:-path)?[ =]|model_path=')([^\s']+)", text, "models"))
    tp = one(r"(?:--tp(?:-size)?[ =]|tp_size=)(\d+)", text, "TP sizes")
    put(s, "tensor", int(tp) if tp else None)
    frac = one(r"(?:--mem-fraction-static[ =]|mem_fraction_static=)([\d.]+)", text, "fractions")
    put(s, "mem_fraction_static", float(frac) if frac else None)
    measure(run, "KV tokens", rf"KV Cache is allocated\. #tokens: {NUM}", text)
    # SGLang prints "K size: X GB" with GB = 1024**3 (mem_cache/memory_pool.py): GiB
    k, v = first(rf"K size: {NUM} GB", text), first(rf"V size: {NUM} GB", text)
    if k and v:
        run.measured["KV cache GiB"] = number(k.group(1)) + number(v.group(1))
    return run


def _llamacpp(text: str) -> RunLog:
    run = RunLog("llama.cpp", "startup log")
    s = run.settings
    put(s, "model", one(r"general\.name\s+str\s+=\s+(.+?)\s*$", text, "models"))
    put(s, "file type", one(r"file type\s+=\s+(.+?)\s*$", text, "file types"))
    put(s, "device", one(r"Device 0: ([^,]+),", text, "devices"))
    ctx = one(r"n_ctx\s+=\s+(\d+)", text, "contexts")
    put(s, "n_ctx", int(ctx) if ctx else None)
    seqs = one(r"n_seq_max\s+=\s+(\d+)", text, "sequence counts")
    put(s, "n_seq_max", int(seqs) if seqs else None)
    gpu0 = r"(?:CUDA|ROCm|Metal|Vulkan)0"  # the first GPU's buffers, by backend
    measure(run, "GPU model buffer MiB", rf"{gpu0} (?:model )?buffer size =\s+{NUM} MiB", text)
    measure(run, "GPU KV MiB", rf"{gpu0} KV buffer size =\s+{NUM} MiB", text)
    measure(run, "GPU compute MiB", rf"{gpu0} compute buffer size =\s+{NUM} MiB", text)
    m = first(r"offloaded (\d+)/(\d+) layers to GPU", text)
    if m:
        run.measured["layers offloaded"] = float(m.group(1))
        s["layers"] = int(m.group(2))
    if first(_OLLAMA, text):
        _ollama_lines(run, text)
    return run


# Ollama's own placement line: llm/memory.go (v0.5: ``msg="offload to cuda"``) and
# llm/server.go (v0.11: ``msg=offload library=cuda``), its runner's command line (server.go
# "starting llama server": --ctx-size is num_ctx x parallel) and its version ("Listening on
# ... (version X)", routes.go)
_OLLAMA = r'msg="?offload(?: to \w+"| library=)'


def _mib(text: str, key: str) -> float | None:
    """An Ollama memory field (``memory.required.kv="896.0 MiB"``) in MiB."""
    m = first(rf'{re.escape(key)}="{NUM} (B|KiB|MiB|GiB)"', text)
    return (
        None
        if m is None
        else number(m.group(1)) * {"B": 2**-20, "KiB": 2**-10, "MiB": 1, "GiB": 1024}[m.group(2)]
    )


def _ollama_lines(run: RunLog, text: str) -> None:
    """What Ollama's placement line states, where the runner's own lines do not: the layers
    it placed on the GPUs and, when every layer is there, its KV cache (``memory.required.kv``)."""
    s = run.settings
    run.kind = "Ollama log"
    ver = one(r"\(version ([\d.]+\d)\)", text, "versions")
    put(s, "version", f"ollama-{ver}" if ver else None)
    ctx = one(r"--ctx-size (\d+)", text, "contexts")
    par = one(r"--parallel (\d+)", text, "parallel slots")
    if ctx and "n_ctx" not in s:
        s["n_ctx"] = int(ctx)
    if par and "n_seq_max" not in s:
        s["n_seq_max"] = int(par)
    placed = one(r"layers\.offload=(\d+)", text, "placements")
    total = one(r"layers\.model=(\d+)", text, "layer counts")
    if placed is None or total is None:
        return
    run.measured.setdefault("layers offloaded", float(placed))
    s.setdefault("layers", int(total))
    kv = _mib(text, "memory.required.kv")
    if kv is not None and placed == total:
        run.measured.setdefault("GPU KV MiB", kv)


def read_run(text: str) -> RunLog:
    """The run a text states; ScenarioError ("file") when no reader recognises it."""
    # a fixture's or a user's note of where the lines came from is not a line of the run
    text = "\n".join(line for line in text.splitlines() if not line.startswith("# source:"))
    stripped = text.lstrip()
    if stripped[:1] in "[{":
        try:
            run = bench_json(json.loads(stripped))
        except json.JSONDecodeError:
            run = None
        if run is not None:
            return run
    if bench_rows(text):
        return llama_bench(text)
    if "Serving Benchmark Result" in text:
        return bench_serve_text(text)
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
