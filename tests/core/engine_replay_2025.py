"""Engine startup logs of 2025-26 (tests/core/data/engine-logs-2025.json) replayed field by
field, as tests/core/engine_replay.py does for engine-logs.json: each record in its own
settings, the release whose rules its log shows, the logged number read from the data file.
Ollama's records are replayed against Ollama's own estimate (core/serving/ollama_estimate.py),
which is what its ``msg=offload`` line prints. Trainer records: tests/core/training_replay.py.
``python -m tests.core.engine_replay_2025`` prints the table.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.params import count_parameters
from gpusizer.core.serving.engine_settings import engine_settings
from gpusizer.core.serving.kv_pool import forward_peak
from gpusizer.core.serving.offload import offload_model
from gpusizer.core.serving.ollama_estimate import OllamaEstimate, ollama_estimate, projector

from .replay_base import GiB, MiB, Replay, Run, _vllm, non_torch_v0, tokens, w

DATA = Path(__file__).parent / "data" / "engine-logs-2025.json"
LOGS = {r["id"]: r for r in json.loads(DATA.read_text())}
_UNIT = {"GiB": GiB, "MiB": MiB, "B": 1, "GB": GiB}


def printed(record: str, field: str) -> float:
    """A logged size as Ollama prints it ("1.3 GiB", "298.5 MiB"), in bytes."""
    m = re.search(r"([\d.]+)\s*(GiB|MiB|GB|B)", LOGS[record]["logged"][field])
    assert m, (record, field)
    return float(m.group(1)) * _UNIT[m.group(2)]


def human_bytes2(size: float) -> str:
    """A size in bytes as Ollama's offload line prints it: ``format.HumanBytes2`` (ollama
    format/bytes.go; llm/memory.go v0.5-v0.11 prints every ``memory.*`` field with it), one
    decimal of GiB from 1 GiB, of MiB from 1 MiB, of KiB from 1 KiB, else whole bytes."""
    for unit, scale in (("GiB", GiB), ("MiB", MiB), ("KiB", 1024)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{int(size)} B"


def prints_as_logged(record: str, check: str, estimate_mib: float) -> bool:
    """Whether an Ollama check's estimate (MiB) prints as the log printed the figure: "1.2 GiB"
    stands for any size in [1.15, 1.25) GiB, so an estimate inside that step reproduces the
    figure to the precision it was published in. False for a figure Ollama's offload line
    did not print (llama.cpp's own buffer lines print two decimals of MiB)."""
    rec = LOGS.get(record, {})
    text = rec.get("logged", {}).get("memory." + check.removesuffix(" MiB"))
    if rec.get("engine") != "ollama" or not check.endswith(" MiB") or not isinstance(text, str):
        return False
    return human_bytes2(estimate_mib * MiB) == text.strip()


def offloaded(record: str) -> float:
    m = re.search(r"layers\.offload=(\d+)", LOGS[record]["logged"]["layers"])
    assert m, record
    return float(m.group(1))


def first_number(record: str, field: str) -> float:
    m = re.search(r"[\d,]*\.?\d+", LOGS[record]["logged"][field])
    assert m, (record, field)
    return float(m.group(0).replace(",", ""))


def _estimate(r: Run) -> OllamaEstimate:
    s, gpu = r.est.scenario, r.est.gpu
    arch, counts = resolve(s.model), count_parameters(s.model)
    st = engine_settings(s, gpu, fitted_context=True, ubatch_prefill=True)
    assert st.release is not None
    m = offload_model(s, arch, counts)
    return ollama_estimate(
        s, arch, m.blocks, m.output, gpu, st.release, r.em.max_context, projector(s, counts)
    )


def graph_full(r: Run) -> float:
    return _estimate(r).graph_full / MiB


def graph_partial(r: Run) -> float:
    return _estimate(r).graph_partial / MiB


def ollama_kv(r: Run) -> float:
    return _estimate(r).kv_total / MiB


def ollama_layers(r: Run) -> float:
    return float(_estimate(r).layers)


def required_full(r: Run) -> float:
    """memory.required.full: the plan on the GPUs and what overflows to system RAM."""
    return _estimate(r).required_full / MiB


def planned(r: Run) -> float:
    """memory.required.partial: the VRAM Ollama plans over its GPUs."""
    return sum(_estimate(r).allocations) / MiB


def _body(r: Run) -> float:
    """The profile forward pass's peak (what a rank that does not sample measures)."""
    s, gpu = r.est.scenario, r.est.gpu
    st = engine_settings(s, gpu)
    return forward_peak(s, resolve(s.model), st.profile_tokens)


def worker_peak(r: Run) -> float:
    """V0 samples on the driver rank only (worker/model_runner.py: the other ranks return
    before the sampler), so a non-driver worker's profile peak is the forward pass."""
    return _body(r) / GiB


def worker_pool(r: Run) -> float:
    """A non-driver worker's own KV budget: the driver's pool plus the sampler it does not
    run (the executor then takes the smallest block count of all ranks)."""
    return (r.sv.kv_pool_bytes + max(r.mem.activations, r.mem.temporary) - _body(r)) / GiB


def _free(gib: float) -> dict[str, Any]:
    """A GPU known only by the free memory Ollama printed."""
    return {"gpu": {"id": "card", "name": f"{gib} GiB free", "memory_bytes": int(gib * GiB)}}


def _ollama(preset: str, release: str, free: float, ctx: int, slots: int, **extra: Any) -> dict[str, Any]:
    sc: dict[str, Any] = {
        "model": {"preset": preset},
        "workload": {"kind": "inference"},
        "framework": "llama.cpp",
        "precision": {"weights": extra.pop("weights", "gguf_q4_k_m")},
        "hardware": _free(free),
        "serving": {"engine_version": release, "max_context": ctx, "max_sequences": slots},
    }
    return {**sc, **extra}


def _mib(record: str, field: str) -> float:
    return printed(record, field) / MiB


H200_QWEN = "ollama-h200-qwen25-0.5b-ctx2048x4-full"
OSS_4060 = "ollama-0.11-rtx4060ti-gpt-oss-20b-ctx8192-partial-23of25"
DS_671 = "ollama-24gib-deepseek-671b-q4-partial-5of62"
G3_12000 = "ollama-0.11-11gib-gemma3-12b-ollama-engine-48of49"
G3_9791 = "ollama-0.6-14.5gib-gemma3-12b-parallel4-full"
G3_10341 = "ollama-0.6.5-11.5gib-gemma3-12b-ctx2048-full"
FOUR_22 = "ollama-4x22gib-80layer-gqa8-ctx64000-partial"
R1_4090 = "vllm-v0-0.7-2x4090-tp2-r1-distill-qwen-14b-131k-refused"
OSS_3090 = "vllm-v1-0.10-gptoss-image-rtx3090-gpt-oss-20b-weights"
SGL_355 = "sglang-mi355x-qwen3-30b-a3b-bf16-mfs0911-aiter"
QWEN25_14B = {
    "name": "DeepSeek-R1-Distill-Qwen-14B (Qwen2.5-14B)",
    "family": "qwen2",
    "layers": 48,
    "hidden_size": 5120,
    "attention_heads": 40,
    "kv_heads": 8,
    "ffn_hidden_size": 13824,
    "vocab_size": 152064,
    "qkv_bias": True,
    "max_context": 131072,
}


def _weights(part: str) -> Any:
    """memory.weights.*: the blocks, the output layer (and final norm) as the GGUF stores them
    (llama.cpp's per-tensor types, core/registry/quant_rules.py), added up as the release's
    log line does (ollama_estimate.py ``weights_logged``: to v0.6.0 with every block's KV)."""

    def get(r: Run) -> float:
        total, rep, out = _estimate(r).weights
        return {"repeating": rep, "nonrepeating": out, "total": total}[part] / MiB

    return get


def _weight_checks(record: str, parts: tuple[str, ...] = ("repeating", "nonrepeating", "total")) -> list:
    return [(f"weights.{p} MiB", _weights(p), _mib(record, f"memory.weights.{p}")) for p in parts]


def _graph_checks(record: str, full: bool = True) -> list[tuple[str, Any, float]]:
    out = [
        ("graph.full MiB", graph_full, _mib(record, "memory.graph.full")),
        ("graph.partial MiB", graph_partial, _mib(record, "memory.graph.partial")),
        ("required.kv MiB", ollama_kv, _mib(record, "memory.required.kv")),
    ]
    if full:  # the whole plan: weights, KV and graphs on the GPUs and in RAM
        out.append(("required.full MiB", required_full, _mib(record, "memory.required.full")))
    return out


def replays_2025() -> list[Replay]:
    return [
        Replay(
            H200_QWEN,
            _ollama("qwen2.5-0.5b", "ollama-0.5", 139.2, 2048, 4),
            [
                *_graph_checks(H200_QWEN),
                *_weight_checks(H200_QWEN),  # v0.5: total = blocks + KV, repeating = total - output
                ("layers offloaded", ollama_layers, offloaded(H200_QWEN)),
                ("required.partial MiB", planned, _mib(H200_QWEN, "memory.required.partial")),
            ],
        ),
        Replay(
            OSS_4060,
            _ollama("gpt-oss-20b", "ollama-0.11", 15.6, 8192, 1, precision={"weights": "mxfp4"}),
            [
                *_graph_checks(OSS_4060),
                *_weight_checks(OSS_4060),
                ("layers offloaded", ollama_layers, offloaded(OSS_4060)),
                ("required.partial MiB", planned, _mib(OSS_4060, "memory.required.partial")),
            ],
        ),
        Replay(
            DS_671,
            _ollama("deepseek-v3", "ollama-0.5", 23.3, 2048, 1),
            [
                *_graph_checks(DS_671),
                *_weight_checks(DS_671),
                ("layers offloaded", ollama_layers, offloaded(DS_671)),
                ("required.partial MiB", planned, _mib(DS_671, "memory.required.partial")),
            ],
            # v0.5 counts blk.0 up (three small dense blocks, then Q6_K-down MoE blocks);
            # llama.cpp then offloads the last five MoE blocks: cudaMalloc fails (the issue)
            starts=False,
        ),
        Replay(
            G3_12000,
            _ollama("gemma-3-12b", "ollama-0.11", 11.1, 8192, 1),
            [
                *_graph_checks(G3_12000),
                *_weight_checks(G3_12000),
                ("layers offloaded", ollama_layers, offloaded(G3_12000)),
            ],
        ),
        Replay(
            G3_9791,
            _ollama("gemma-3-12b", "ollama-0.6.1", 14.5, 2048, 4),  # v0.6.1-0.6.2 (its note)
            [
                *_graph_checks(G3_9791),
                *_weight_checks(G3_9791, ("repeating", "nonrepeating")),
                ("layers offloaded", ollama_layers, offloaded(G3_9791)),
                ("required.partial MiB", planned, _mib(G3_9791, "memory.required.partial")),
            ],
        ),
        Replay(
            G3_10341,
            _ollama("gemma-3-12b", "ollama-0.6.5", 11.5, 2048, 1),
            [
                ("required.kv MiB", ollama_kv, _mib(G3_10341, "memory.required.kv")),
                ("layers offloaded", ollama_layers, offloaded(G3_10341)),
                ("required.partial MiB", planned, _mib(G3_10341, "memory.required.partial")),
            ],
        ),
        Replay(
            FOUR_22,
            _ollama(
                "llama-3.1-70b",
                "ollama-0.5",
                22.0,
                64000,
                1,
                parallelism={"pipeline": 4},
                weights="gguf_q8_0",
            ),
            _graph_checks(FOUR_22, full=False),  # the file's type is not named
        ),
        Replay(
            R1_4090,
            {
                **_vllm("qwen2.5-7b", "0.7.0", "rtx-4090-24gb", tp=2, memory_fraction=0.98),
                "model": QWEN25_14B,
            },
            [
                ("weights GiB", w, first_number(R1_4090, "weights")),
                ("non-torch GiB", non_torch_v0, first_number(R1_4090, "non_torch_memory")),
                (
                    "profile peak GiB (rank 1)",
                    worker_peak,
                    first_number(R1_4090, "activation_peak"),
                ),
                ("KV pool GiB (rank 1)", worker_pool, first_number(R1_4090, "kv_cache")),
                ("KV tokens (the smallest rank's)", tokens, float(LOGS[R1_4090]["derived"]["kv_tokens"])),
            ],
            starts=False,
            known={
                "non-torch GiB": "release 0.7.0 takes 0.30 GiB at TP 2 (2 x L40S, vllm#15815); "
                "an RTX 4090 has no GPU peer access, so vLLM's custom all-reduce (two 8 MiB "
                "cudaMalloc IPC buffers) is off and NCCL's connection buffers sit in host memory "
                "(shared-memory transport): ~0.05 GiB less; the catalog has no peer-access field",
                "profile peak GiB (rank 1)": "the printing worker (rank 1) does not sample; at TP 2 "
                "vLLM's Qwen2MLP keeps gate_up until it returns and RowParallelLinear adds the down "
                "output and the out-of-place all-reduce's (2 x 2,048 x 5,120 x 2 B more, 0.16 GiB) "
                "beside cuBLAS's workspace; the forward-peak rule counts the FFN tensors only",
            },
        ),
        Replay(
            OSS_3090,
            _vllm("gpt-oss-20b", "0.10.0", "rtx-3090-24gb"),
            [("weights GiB (as stored: no Marlin before 0.10.1)", w, first_number(OSS_3090, "weights"))],
        ),
        Replay(
            SGL_355,
            {  # Qwen3-30B-A3B-Instruct-2507 (the PR's command): 262,144 tokens of context
                **_vllm("qwen3-30b-a3b", "0.5.23", "mi355x-288gb", memory_fraction=0.911, max_context=262144),
                "framework": "sglang",
                # its config.json: max_position_embeddings 262144 (the proxy preset's 40,960 is
                # Qwen3-30B-A3B's), which SGLang's get_context_length takes as the length
                "model": {"preset": "qwen3-30b-a3b", "max_context": 262144},
            },
            [
                ("weights GiB", w, 56.98),
                ("KV tokens", tokens, 1669816.0),
            ],
            known={
                "KV tokens": "the log is sglang#18263's own build (an open PR, not a release): "
                "it takes the AITER decode workspace (51.75 GiB at 3,261 request slots, "
                "core/serving/aiter.py, test_aiter_workspace_*) out of the pool budget. "
                "Released SGLang allocates it after the pool (0.4.9 - 0.5.x with the fraction "
                "x 0.85: 1.80 M tokens), which is what the estimate follows",
            },
        ),
    ]


REPLAYS_2025 = replays_2025()
_SERVING_UNCOVERED = {
    "ollama-2gpu-11.5+4.6gib-49layer-projector-partial": "two unequal GPUs and an unnamed "
    "vision model (projector not modelled)",
    "sglang-8xh200-tp8-deepseek-v4-pro-fp8-mfs088-refused": "DeepSeek-V4-Pro: no preset",
    "vllm-v0-0.8-rtx3090xN-deepseek-moe-wna16-util099": "the model and the parallel layout are "
    "not in the excerpt (only the RTX 3090's 23.58 GiB x 0.99 = 23.35 GiB budget, which the "
    "catalog's total reproduces)",
    "vllm-v1-0.20-vs-0.21-a100-gemma4-31b-awq-kv-tokens": "Gemma 4: no preset; approximate figures",
    "vllm-v1-0.17-rocm-2xmi300x-minimax-m2-tp2": "MiniMax-M2: no preset; a summary, not log lines",
    "llamacpp-apple-m5-max-recommended-working-set": "a device line only (no model)",
    "vllm-v1-2x3090-tp2-qwen36-27b-int4-fp8kv-262k-p2p-on": "Qwen3.6-27B (hybrid Gated "
    "DeltaNet, AutoRound int4): no preset",
    "vllm-v1-2x3090-tp2-qwen36-27b-int4-fp8kv-262k-p2p-off": "as the p2p-on record",
    "vllm-v1-0.20-2x3090-tp2-qwen36-27b-dflash-188k": "Qwen3.6-27B with a DFlash drafter: no preset",
}


def uncovered_2025() -> dict[str, str]:
    """Records not replayed here, with the reason (the trainers' in training_replay.py)."""
    from .training_replay import TRAINING_REPLAYS, TRAINING_UNCOVERED

    trained = {r.record for r in TRAINING_REPLAYS}
    return {**_SERVING_UNCOVERED, **{k: v for k, v in TRAINING_UNCOVERED.items() if k not in trained}}


if __name__ == "__main__":
    from .engine_replay import table

    rows = table(REPLAYS_2025)
    for x in rows:
        flag = "ok " if x.ok else "OFF"
        print(f"{flag} {x.record:<58} {x.name:<44} {x.estimate:>14,.2f} {x.logged:>14,.2f} {x.error:+7.1%}")
    print(f"{sum(x.ok for x in rows)}/{len(rows)} within 10%")
