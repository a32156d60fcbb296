"""``gpusizer-cli check``: a user's own run (io/run_log.py) beside the estimate of the scenario it
states, figure by figure (estimate / measured), with the evidence of that scenario's regime.

The scenario is built only from what the run states (model, engine release, tensor parallelism,
memory fraction, context, quantisation named in the model id or GGUF file type) and what the
user adds (``--gpu``, ``--model``): a run that does not state its model or GPU is refused with
what was read and what is missing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..core.errors import ScenarioError
from ..core.model.architecture import resolve
from ..core.model.params import count_parameters
from ..core.model.presets import model_presets
from ..core.model.result import Estimate
from ..core.pipeline.estimate import estimate
from ..core.pipeline.report import report_from_estimate
from ..core.pipeline.scenario import model_spec
from ..core.registry.engines import cuda_total_bytes
from ..core.serving.context_limit import derived_context
from ..core.serving.engine_memory import engine_memory
from .evidence_text import how_sure
from .run_log import RunLog

GiB, MiB = 2**30, 2**20
# Words a checkpoint name carries beside its model (instruct tunes, quantised uploads)
_SUFFIXES = ("-instruct", "-chat", "-it", "-hf", "-fp8", "-awq", "-gptq", "-int4", "-int8", "-2507", "-gguf")
_QUANT = (("fp8", "fp8"), ("awq", "awq_int4"), ("gptq", "gptq_int4"), ("nvfp4", "nvfp4"))
_GGUF = {
    "Q4_K - Medium": "gguf_q4_k_m",
    "Q5_K - Medium": "gguf_q5_k_m",
    "Q8_0": "gguf_q8_0",
    "Q4_0": "gguf_q4_0",
    "Q6_K": "gguf_q6_k",
    "F16": "fp16",
    "BF16": "bf16",
}


def _key(name: str) -> str:
    """A model name as a lookup key: the id's last part, lowercased, spaces as dashes, the
    organisation's word and an upload's suffixes dropped (``Meta-Llama-3.1-8B-Instruct`` ->
    ``llama-3.1-8b``)."""
    k = name.rstrip("/").split("/")[-1].lower().replace(" ", "-").replace("_", "-")
    k = re.sub(r"^meta-", "", k)
    changed = True
    while changed:
        changed = False
        for s in _SUFFIXES:
            if k.endswith(s):
                k, changed = k[: -len(s)], True
    return k


def preset_for(name: str) -> str | None:
    """The preset a model name (HF id, path or GGUF general.name) names, if any."""
    key = _key(name)
    for pid, data in model_presets().items():
        hf = str(data.get("source_url", "")).split("huggingface.co/")[-1].split("/blob")[0]
        if key in (pid, _key(hf), _key(str(data.get("name", "")))):
            return pid
    return None


def scenario_of(
    run: RunLog, gpu: str | None = None, model: str | dict[str, Any] | None = None
) -> dict[str, Any]:
    """The scenario the run states; ScenarioError naming what is missing. ``model``: a preset id,
    or a scenario ``model`` block (an architecture the catalog lacks, docs/scenario-format.md)."""
    s = run.settings
    preset = model or (preset_for(str(s["model"])) if s.get("model") else None)
    missing = []
    if preset is None:
        missing.append(f"a model this catalog knows (read: {s.get('model', 'none')}; pass --model PRESET)")
    if gpu is None:
        missing.append("the GPU (no log names it reliably; pass --gpu ID, see gpusizer-cli gpus)")
    if not run.measured:
        missing.append("a measured figure")
    if missing:
        raise ScenarioError("file", f"found {run.found()}; missing {', '.join(missing)}")
    sc: dict[str, Any] = {
        "model": dict(preset) if isinstance(preset, dict) else {"preset": preset},
        "workload": {"kind": "inference"},
        "framework": run.engine,
        "hardware": {"gpu": gpu},
        "parallelism": {"tensor": int(s.get("tensor", 1))},
        "serving": {},
    }
    _engine_settings(run, sc)
    return sc


def _engine_settings(run: RunLog, sc: dict[str, Any]) -> None:
    s, sv, w = run.settings, sc["serving"], sc["workload"]
    name = str(s.get("model", "")).lower()
    quant = next((q for word, q in _QUANT if word in name), None)
    if run.engine == "llama.cpp":
        quant = _GGUF.get(str(s.get("file type", "")), quant)
        seqs = int(s.get("n_seq_max", 1))
        if s.get("n_ctx"):
            sv["max_context"], sv["max_sequences"] = int(s["n_ctx"]) // seqs, seqs
    if quant:
        sc["precision"] = {"weights": quant}
    if s.get("version"):
        sv["engine_version"] = s["version"]
    fraction = s.get("gpu_memory_utilization") or s.get("mem_fraction_static")
    if fraction:
        sv["memory_fraction"] = fraction
    if s.get("max_model_len"):
        sv["max_context"] = took = int(s["max_model_len"])
        # the run started at this length, so its engine took it: past a proxy preset's length
        # (Qwen3-VL-30B-A3B's 262,144 read as Qwen3-30B-A3B's 40,960) the engine's check
        # (core/serving/context_limit.py) is passed as the run passed it
        if took > (derived_context(model_spec(sc["model"])) or took):
            sv["allow_long_context"] = True
    if s.get("max_concurrency"):
        sv["concurrency"] = w["batch_size"] = int(s["max_concurrency"])
    if s.get("load"):  # every request sent at once (vllm bench serve's default rate, inf)
        sv["load"] = s["load"]
    for k in ("prompt_tokens", "generated_tokens"):
        if s.get(k):
            w[k] = int(s[k])


@dataclass(frozen=True)
class Row:
    figure: str
    measured: float
    estimate: float

    @property
    def ratio(self) -> float | None:
        """estimate / measured; None unless both are positive (an overspent budget is
        negative: its ratio means nothing)."""
        return self.estimate / self.measured if self.measured > 0 and self.estimate > 0 else None


def _available_gib(est: Estimate) -> float:
    """vLLM V1's "Available KV cache memory": the budget less what it reserves (negative when
    overspent, the engine then refuses to start), from the engine memory the estimate's pool
    came from (one attention-DP rank's, core/pipeline/work_serving.py) where it kept one."""
    s = est.scenario
    em = est.engine or engine_memory(s, resolve(s.model), count_parameters(s.model), est.gpu)[0]
    return ((em.fraction or 0.0) * cuda_total_bytes(est.gpu) - em.reserved_bytes) / GiB


def _pool_gib(est: Estimate) -> float:
    """The KV pool an engine log states (SGLang's "KV Cache is allocated"), GiB."""
    return (est.serving.kv_pool_bytes if est.serving is not None else 0) / GiB


# What each engine's log calls its KV cache figure: vLLM prints the budget it has left for the
# cache ("Available KV cache memory"), the others the pool they allocated.
_KV_FIGURE = {"vllm": _available_gib}


def _estimates(est: Estimate) -> dict[str, float]:
    """Each figure a reader may measure, as the estimate gives it (same names and units)."""
    m, sv, w = est.memory, est.serving, est.scenario.workload
    out = {
        "weights GiB": m.weights / GiB,
        "GPU model buffer MiB": m.weights / MiB,
        "GPU KV MiB": m.kv_cache / MiB,
        "GPU compute MiB": m.temporary / MiB,
    }
    if sv is None:
        return out
    out |= {
        "KV cache GiB": _KV_FIGURE.get(est.scenario.framework, _pool_gib)(est),
        "KV tokens": float(sv.kv_capacity_tokens),
        "max concurrency": sv.max_concurrency,
        "layers offloaded": float(sv.gpu_layers or 0),
        "mean_ttft_ms": sv.ttft_seconds * 1e3,
        "mean_tpot_ms": sv.tpot_seconds * 1e3,
        "output_throughput": sv.tokens_per_second,
    }
    if sv.ttft_seconds:
        out[f"pp{w.prompt_tokens} tokens/s"] = w.prompt_tokens / sv.ttft_seconds
    out[f"tg{w.generated_tokens} tokens/s"] = sv.tokens_per_second_per_user
    return out


def check(
    run: RunLog,
    gpu: str | None = None,
    model: str | dict[str, Any] | None = None,
    version: str | None = None,
    tensor: int | None = None,
) -> dict[str, Any]:
    """The run's scenario, its estimate and the figures side by side (``rows``: figure,
    measured, estimate, ratio) with the report's evidence block; ``version`` and ``tensor``
    (tensor-parallel GPUs): what the log does not print, from where the run is described."""
    if version and not run.settings.get("version"):
        run.settings["version"] = version
    if tensor and not run.settings.get("tensor"):
        run.settings["tensor"] = tensor
    sc = scenario_of(run, gpu, model)
    if run.kind == "llama-bench":
        _bench_workload(run, sc)
    est = estimate(sc)
    have = _estimates(est)
    rows = [Row(k, v, have[k]) for k, v in run.measured.items() if k in have]
    rep = report_from_estimate(est, roofline=False)
    return {
        "engine": run.engine,
        "kind": run.kind,
        "settings": run.settings,
        "scenario": sc,
        "rows": rows,
        "report": rep,
    }


def _bench_workload(run: RunLog, sc: dict[str, Any]) -> None:
    """llama-bench times one prompt (ppN) and N generated tokens (tgN) at batch one."""
    for k in run.measured:
        m = re.match(r"(pp|tg)(\d+) ", k)
        if m:
            sc["workload"]["prompt_tokens" if m.group(1) == "pp" else "generated_tokens"] = int(m.group(2))
    n = sc["workload"].get("prompt_tokens", 512) + sc["workload"].get("generated_tokens", 128)
    sc["serving"] |= {"max_context": n, "max_sequences": 1}


def check_text(result: dict[str, Any]) -> str:
    """The comparison as the CLI prints it."""
    settings = ", ".join(f"{k} {v}" for k, v in result["settings"].items())
    lines = [f"{result['engine']} {result['kind']}: {settings}"]
    if result["engine"] != "llama.cpp" and not result["settings"].get("version"):
        lines.append("  the log prints no engine release: the latest's rules (--engine-version sets one)")
    lines.append("")
    lines.append(f"  {'figure':<24}{'your run':>14}{'estimate':>14}{'estimate/run':>14}")
    for r in result["rows"]:
        ratio = f"{r.ratio:,.3f}" if r.ratio is not None else "-"
        lines.append(f"  {r.figure:<24}{r.measured:>14,.2f}{r.estimate:>14,.2f}{ratio:>14}")
    lines += ["", "  " + how_sure(result["report"])]
    return "\n".join(lines)
