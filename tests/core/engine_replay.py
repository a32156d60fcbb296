"""Real engine startup logs (tests/core/data/engine-logs.json) as scenarios and the figures
they print. Each record's settings are its own (GPU, TP, memory fraction, max_model_len...);
the version is the record's, or the release whose rules its log format shows (record notes).
Logged numbers are read from the data file, not retyped. Records that cannot be replayed are
listed in ``UNCOVERED`` with the reason. ``python -m tests.core.engine_replay`` prints the
table (record, field, estimate, logged, error).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .engine_replay_moe import moe_replays
from .engine_replay_sglang import sglang_replays
from .replay_base import (
    LOGS,
    TOLERANCE,
    GiB,
    MiB,
    Replay,
    _vllm,
    _with,
    conc,
    gpu_mib,
    host_mib,
    kv,
    logged,
    logged_after,
    non_torch_v0,
    non_torch_v1,
    peak,
    tokens,
    w,
)

# test_engine_logs.py reads these from here
__all__ = ["LOGS", "REPLAYS", "TOLERANCE", "UNCOVERED", "GiB", "MiB", "logged", "logged_after", "table"]

V0_20K, V0_29K = "vllm-v0-rtx3090-llama31-8b-20k", "vllm-v0-rtx3090-llama31-8b-29k-refused"
PR_TP1, PR_TP2 = "vllm-v0-h100-llama3-8b-tp1", "vllm-v0-h100-llama3-8b-tp2"
V19 = "vllm-v1-0.19-h100-llama31-8b-tp{}"
QWEN19 = "vllm-v1-0.19-h100-qwen25-7b-tp1"
H200 = "vllm-v0-h200-llama-70b-util095"
QWEN235_VLLM, QWEN235_SGL = "vllm-v1-qwen3-235b-fp8-tp4-h100", "sglang-qwen3-235b-fp8-tp4-h100"
F405 = "vllm-v0-8xh100-llama31-405b-fp8-refused"
GPTQ = "vllm-v0-rtx3090-qwen15-7b-gptq-refused"
PP2 = "vllm-v1-0.15-pp2-5070ti-5090d-qwen3-coder-30b-a3b-fp8-refused"
TRT08 = "trtllm-0.8-a100-80gb-7b-smoothquant-b1"
V07_4060 = "vllm-v0-0.7-rtx4060-qwen25-7b-awq-refused"
V08_L40S = "vllm-v0-0.8-2xl40s-qwen25-32b-tp2"
QWEN25_32B = {
    "name": "Qwen2.5-32B",
    "layers": 64,
    "hidden_size": 5120,
    "attention_heads": 40,
    "kv_heads": 8,
    "ffn_hidden_size": 27648,
    "vocab_size": 152064,
    "qkv_bias": True,
    "max_context": 32768,
}
QWEN15_7B = {
    "name": "Qwen1.5-7B",
    "layers": 32,
    "hidden_size": 4096,
    "attention_heads": 32,
    "ffn_hidden_size": 11008,
    "vocab_size": 151936,
    "qkv_bias": True,
    "max_context": 32768,
}
COMMAND_R = {
    "name": "Command-R 35B",
    "layers": 40,
    "hidden_size": 8192,
    "attention_heads": 64,
    "ffn_hidden_size": 22528,
    "vocab_size": 256000,
    "tied_embeddings": True,
    "norm": "layernorm",
    "parallel_attention": True,
    "norms_per_layer": 1,
}
QWEN25_3B = {
    "name": "Qwen2.5-3B",
    "layers": 36,
    "hidden_size": 2048,
    "attention_heads": 16,
    "kv_heads": 2,
    "head_dim": 128,
    "ffn_hidden_size": 11008,
    "vocab_size": 151936,
    "tied_embeddings": True,
    "qkv_bias": True,
}
GEMMA_7B = {
    "name": "Gemma 7B",
    "family": "gemma",
    "layers": 28,
    "hidden_size": 3072,
    "attention_heads": 16,
    "head_dim": 256,
    "ffn_hidden_size": 24576,
    "vocab_size": 256000,
    "tied_embeddings": True,
    "activation": "gelu",
}


def _llama(
    model: dict[str, Any],
    weights: str,
    version: str = "b7000",
    gpu: str = "rtx-4090-24gb",
    kv_dtype: str = "bf16",
    pp: int = 1,
    **serving: Any,
) -> dict[str, Any]:
    return {
        "model": model,
        "workload": {"kind": "inference"},
        "framework": "llama.cpp",
        "precision": {
            "weights": weights,
            "kv_cache": kv_dtype,
            **({"quantization_rule": "gguf-f16"} if weights == "fp16" else {}),
        },
        "hardware": {"gpu": gpu},
        "parallelism": {"pipeline": pp},
        "serving": {"engine_version": version, **serving},
    }


def _replays() -> list[Replay]:
    v19: dict[str, Any] = {"max_context": 8192, "memory_fraction": 0.95}
    return [
        Replay(
            V0_20K,
            _vllm("llama-3.1-8b", "0.6.4", "rtx-3090-24gb", max_context=20000),
            [
                ("weights GiB", w, logged(V0_20K, "weights")),
                ("profile peak GiB", peak, logged(V0_20K, "peak_torch_memory") - logged(V0_20K, "weights")),
                ("non-torch GiB", non_torch_v0, logged(V0_20K, "non_torch_memory")),
                ("KV pool GiB", kv, logged(V0_20K, "kv_cache_size")),
                ("KV tokens", tokens, LOGS[V0_20K]["derived"]["kv_cache_tokens"]),
                ("max concurrency", conc, logged_after(V0_20K, "per request:", "max_concurrency")),
            ],
            fitted=("non-torch GiB",),
        ),
        Replay(
            V0_29K,
            _vllm("llama-3.1-8b", "0.6.4", "rtx-3090-24gb", max_context=29000),
            [
                ("profile peak GiB", peak, logged(V0_29K, "peak_torch_memory") - logged(V0_29K, "weights")),
                ("KV pool GiB", kv, logged(V0_29K, "kv_cache_size")),
                ("KV tokens", tokens, LOGS[V0_29K]["derived"]["kv_cache_tokens"]),
            ],
            starts=False,
        ),
        Replay(
            PR_TP1,
            _vllm("llama-3.1-8b", "0.6.5", max_context=8192),
            [
                ("weights GiB", w, logged(PR_TP1, "weights")),
                ("profile peak GiB", peak, logged(PR_TP1, "activation_peak")),
                ("non-torch GiB", non_torch_v0, logged(PR_TP1, "non_torch_memory")),
                ("KV pool GiB", kv, logged(PR_TP1, "kv_cache")),
            ],
            fitted=("non-torch GiB", "profile peak GiB"),
        ),
        Replay(
            PR_TP2,
            _vllm("llama-3.1-8b", "0.6.5", tp=2, max_context=8192),
            [
                ("weights GiB", w, logged(PR_TP2, "weights")),
                ("profile peak GiB", peak, logged(PR_TP2, "activation_peak")),
                ("non-torch GiB", non_torch_v0, logged(PR_TP2, "non_torch_memory")),
            ],
            fitted=("non-torch GiB",),
        ),
        Replay(
            H200,
            _with(_vllm("llama-3.1-70b", "0.6.4", "h200-141gb", tp=8, memory_fraction=0.95)),
            [
                ("weights + peak GiB", lambda r: w(r) + peak(r), logged(H200, "peak_torch_memory")),
                ("non-torch GiB", non_torch_v0, logged(H200, "non_torch_memory")),
                ("KV pool GiB", kv, logged(H200, "kv_cache_size")),
            ],
            fitted=("non-torch GiB",),
        ),
        *[
            Replay(
                V19.format(tp),
                _vllm("llama-3.1-8b", "0.19.0", tp=tp, **v19),
                [
                    ("weights GiB", w, logged(V19.format(tp), "weights")),
                    ("profile peak GiB", peak, logged(V19.format(tp), "activation_peak")),
                    ("non-torch GiB", non_torch_v1, logged(V19.format(tp), "non_torch")),
                ]
                + (
                    [
                        ("KV pool GiB", kv, logged(V19.format(1), "kv_cache")),
                        ("KV tokens", tokens, logged(V19.format(1), "kv_cache_tokens")),
                        (
                            "max concurrency",
                            conc,
                            logged_after(V19.format(1), "per request:", "max_concurrency"),
                        ),
                    ]
                    if tp == 1
                    else []
                ),
                fitted=("non-torch GiB", "profile peak GiB") if tp == 1 else ("non-torch GiB",),
            )
            for tp in (1, 2, 4)
        ],
        Replay(
            QWEN19,
            _vllm("qwen2.5-7b", "0.19.0", **v19),
            [
                ("weights GiB", w, logged(QWEN19, "weights")),
                ("profile peak GiB", peak, logged(QWEN19, "activation_peak")),
                ("non-torch GiB", non_torch_v1, logged(QWEN19, "non_torch")),
                ("KV pool GiB", kv, logged(QWEN19, "kv_cache")),
                ("KV tokens", tokens, logged(QWEN19, "kv_cache_tokens")),
            ],
        ),
        Replay(
            "vllm-v1-0.19-h100-llama31-8b-fp8-kv",
            _with(_vllm("llama-3.1-8b", "0.19.0", **v19), precision={"kv_cache": "fp8"}),
            [
                ("KV pool GiB", kv, logged("vllm-v1-0.19-h100-llama31-8b-fp8-kv", "kv_cache")),
                ("KV tokens", tokens, logged("vllm-v1-0.19-h100-llama31-8b-fp8-kv", "kv_cache_tokens")),
            ],
        ),
        Replay(
            "vllm-v1-0.19-h100-llama31-8b-runtime-fp8",
            _with(_vllm("llama-3.1-8b", "0.19.0", **v19), precision={"weights": "fp8"}),
            [
                ("weights GiB", w, logged("vllm-v1-0.19-h100-llama31-8b-runtime-fp8", "weights")),
                ("KV pool GiB", kv, logged("vllm-v1-0.19-h100-llama31-8b-runtime-fp8", "kv_cache")),
            ],
        ),
        Replay(
            QWEN235_VLLM,
            # July 2025 (0.9.2 / 0.10.0): the 0.9.1 rules (NCCL inside the budget)
            _with(_vllm("qwen3-235b-a22b", "0.9.1", tp=4, max_context=40960), precision={"weights": "fp8"}),
            [
                ("KV pool GiB", kv, logged(QWEN235_VLLM, "kv_cache")),
                # the smaller pool than SGLang's is the 0.10/0.11 sampler's sort (38 B per logit
                # of 1024 x 151,936 logits), not a profiling regression as first thought
                ("KV tokens", tokens, logged(QWEN235_VLLM, "kv_cache_tokens")),
            ],
        ),
        Replay(
            QWEN235_SGL,
            {
                "model": {"preset": "qwen3-235b-a22b"},
                "workload": {"kind": "inference"},
                "framework": "sglang",
                "precision": {"weights": "fp8"},
                "parallelism": {"tensor": 4},
                "serving": {"engine_version": "0.4.3", "memory_fraction": 0.93, "max_context": 40960},
            },
            [
                ("KV pool GiB (K + V)", kv, 2 * logged_after(QWEN235_SGL, "K size:", "kv_cache")),
                ("KV tokens", tokens, logged_after(QWEN235_SGL, "#tokens:", "kv_cache")),
            ],
        ),
        Replay(
            F405,
            _with(
                _vllm("llama-3.1-405b", "0.6.4", tp=8, max_context=131072),
                precision={"weights": "fp8", "quantization_rule": "meta-fp8"},
            ),
            [
                ("weights GiB", w, logged(F405, "weights")),
                ("KV tokens", tokens, LOGS[F405]["derived"]["kv_cache_tokens"]),
            ],
            starts=False,
            known={
                "KV tokens": "v0.5.3 counted more non-torch memory at TP 8 than the V0 rule "
                "(pool 4.77 GiB logged; the estimate is within 1 GiB of the "
                "refusal threshold and starts)",
                "starts": "as KV tokens",
            },
        ),
        Replay(
            GPTQ,
            {
                "model": QWEN15_7B,
                "workload": {"kind": "inference"},
                "framework": "vllm",
                "precision": {"weights": "gptq_int4"},
                "hardware": {"gpu": "rtx-3090-24gb"},
                "serving": {"engine_version": "0.6.4"},
            },
            [("KV tokens", tokens, logged_after(GPTQ, "stored in KV cache (", "error"))],
            starts=False,
        ),
        Replay(
            PP2,
            _with(
                _vllm(
                    "qwen3-30b-a3b",
                    "0.11.0",
                    "rtx-5070-ti-16gb",
                    pp=2,
                    memory_fraction=0.9,
                    max_context=262144,
                ),
                # Qwen3-Coder-30B-A3B's config.json: max_position_embeddings 262144 (the proxy
                # preset's Qwen3-30B-A3B has 40,960), the length vLLM took by default
                model={"preset": "qwen3-30b-a3b", "max_context": 262144},
                precision={"weights": "fp8"},
            ),
            [],
            starts=False,
        ),
        # V0 from 0.7.0: non-torch grows only outside torch's reserved memory (release 0.7.0)
        Replay(
            V07_4060,
            {
                "model": {"preset": "qwen2.5-7b"},
                "workload": {"kind": "inference"},
                "framework": "vllm",
                "precision": {"weights": "awq_int4"},
                "hardware": {"gpu": {"id": "rtx-4060-8gb", "name": "RTX 4060 8GB", "memory_bytes": 8 * GiB}},
                "serving": {"engine_version": "0.7.3", "memory_fraction": 0.7, "max_context": 4096},
            },
            [
                ("weights GiB", w, logged(V07_4060, "weights")),
                ("profile peak GiB", peak, logged(V07_4060, "activation_peak")),
            ],
            starts=False,
        ),
        Replay(
            V08_L40S,
            {
                "model": QWEN25_32B,
                "workload": {"kind": "inference"},
                "framework": "vllm",
                "hardware": {"gpu": "l40s-48gb"},
                "parallelism": {"tensor": 2},
                # V0 in a 0.8 release (VLLM_USE_V1=0 or a fallback): the 0.7.0 V0 rules
                "serving": {"engine_version": "0.7.0", "max_context": 10000},
            },
            [
                ("weights GiB", w, logged(V08_L40S, "weights")),
                ("profile peak GiB", peak, logged(V08_L40S, "activation_peak")),
                ("non-torch GiB", non_torch_v0, logged(V08_L40S, "non_torch_memory")),
                ("KV pool GiB", kv, logged(V08_L40S, "kv_cache")),
                ("KV tokens", tokens, LOGS[V08_L40S]["derived"]["kv_cache_tokens"]),
            ],
            fitted=("non-torch GiB",),
            known={
                "profile peak GiB": "the V0 sampler at 40 B per logit and the default 256 "
                "sequences is 1.45 GiB for Qwen's 152,064 vocabulary (vllm#13882, the same "
                "vocabulary at TP 1: 1.42 logged); 1.26 GiB is what 222 sequences would take, and "
                "max_num_seqs is not printed here; the pool is within 1 % (weights 0.2 GiB under)",
            },
        ),
        # TensorRT-LLM: the C++ runtime's free-memory fraction (the 0.19.0 rule; 0.8's default
        # 0.9 and the build's max_num_tokens / max_seq_len / max_batch_size given explicitly)
        Replay(
            TRT08,
            {
                "model": {"preset": "llama-2-7b"},
                "workload": {"kind": "inference"},
                "framework": "tensorrt-llm",
                "precision": {"weights": "int8", "kv_cache": "fp16"},
                "hardware": {"gpu": "a100-sxm-80gb"},
                # 0.8's engine build took max_seq_len 5,120 past Llama-2's 4,096 with a warning
                # (builder.py); the 1.x rules it is replayed on need TLLM_ALLOW_LONG_MAX_MODEL_LEN
                "serving": {
                    "max_sequences": 1,
                    "prefill_chunk_tokens": 4096,
                    "max_context": 5120,
                    "allow_long_context": True,
                },
            },
            [
                ("engine (weights) MiB", gpu_mib("weights"), logged_after(TRT08, "GPU", "engine_memory")),
                ("KV pool GiB", kv, logged_after(TRT08, "Allocate", "kv_cache_bytes") / GiB),
                ("KV tokens", tokens, logged_after(TRT08, "Using", "kv_cache_tokens")),
            ],
        ),
        # llama.cpp / Ollama
        Replay(
            "ollama-llama31-8b-q4km-full-offload-parallel4",
            _llama({"preset": "llama-3.1-8b"}, "gguf_q4_k_m", "ollama-0.5"),
            [
                ("GPU model buffer MiB", gpu_mib("weights"), 4403.49),
                ("CPU model buffer MiB", host_mib("weights"), 281.81),
                ("GPU KV MiB", gpu_mib("kv_cache"), 1024.0),
                ("GPU compute MiB", gpu_mib("temporary"), 560.0),
                ("host compute MiB", host_mib("temporary"), 24.01),
                ("host output MiB", host_mib("outputs"), 2.02),
            ],
            fitted=("GPU compute MiB", "host compute MiB"),
        ),
        Replay(
            "llamacpp-llama2-7b-f16-v100-perplexity",
            _llama({"preset": "llama-2-7b"}, "fp16", "b2500", max_context=2048, max_sequences=1),
            [
                ("GPU model buffer MiB", gpu_mib("weights"), 12603.02),
                ("CPU model buffer MiB", host_mib("weights"), 250.0),
                ("GPU KV MiB", gpu_mib("kv_cache"), 1024.0),
                ("GPU compute MiB", gpu_mib("temporary"), 164.0),
                ("host compute MiB", host_mib("temporary"), 12.0),
            ],
            fitted=("GPU compute MiB", "host compute MiB"),
        ),
        Replay(
            "llamacpp-llava7b-q4km-full-offload-model-buffers",
            _llama({"preset": "llama-2-7b"}, "gguf_q4_k_m", "b2500", max_context=2048, max_sequences=1),
            [
                ("GPU model buffer MiB", gpu_mib("weights"), 3820.94),
                ("CPU model buffer MiB", host_mib("weights"), 70.31),
            ],
        ),
        Replay(
            "llamacpp-mistral7b-q41-partial-25of33",
            _llama(
                {"preset": "mistral-7b"},
                "gguf_q4_1",
                "b2500",
                max_context=512,
                max_sequences=1,
                gpu_layers=25,
            ),
            [
                ("GPU model buffer MiB", gpu_mib("weights"), 3250.78),
                ("GPU KV MiB", gpu_mib("kv_cache"), 50.0),
                ("host KV MiB", host_mib("kv_cache"), 14.0),
                ("GPU compute MiB", gpu_mib("temporary"), 73.0),
            ],
            known={
                "GPU compute MiB": "partial offload: the split graph's GPU buffer holds more "
                "than the attention term (65 MiB)"
            },
        ),
        Replay(
            "llamacpp-llama31-8b-q4km-cpu-only-ollama",
            _llama({"preset": "llama-3.1-8b"}, "gguf_q4_k_m", "ollama-0.5", gpu_layers=0),
            [
                ("CPU model buffer MiB", host_mib("weights"), 4685.30),
                ("CPU KV MiB", host_mib("kv_cache"), 1024.0),
                ("CPU compute MiB", host_mib("temporary"), 560.01),
            ],
        ),
        Replay(
            "ollama-llama31-8b-f16-parallel4",
            _llama({"preset": "llama-3.1-8b"}, "fp16", "ollama-0.5", gpu_layers=0),
            [("CPU model buffer MiB", host_mib("weights"), 15317.02), ("KV cells (n_ctx)", tokens, 8192.0)],
        ),
        Replay(
            "llamacpp-qwen25-0.5b-rocm-32k",
            _llama({"preset": "qwen2.5-0.5b"}, "gguf_q4_0", max_context=32768, max_sequences=1),
            [
                ("CPU model buffer MiB", host_mib("weights"), 137.94),
                ("GPU model buffer MiB (file type assumed Q4_0)", gpu_mib("weights"), 327.57),
            ],
        ),
        Replay(
            "llamacpp-qwen25-coder-32b-2gpu-q8kv-32k",
            _llama(
                {"preset": "qwen3-32b"},
                "gguf_q4_k_m",
                "b2500",
                "rtx-3090-24gb",
                kv_dtype="gguf_q8_0",
                pp=2,
                max_context=32768,
                max_sequences=1,
            ),
            [("KV MiB, both GPUs", lambda r: 2 * r.mem.kv_cache / MiB, 4352.0)],
        ),
        Replay(
            "llamacpp-cmdr35b-4070ti-3090ti-full-offload",
            _llama(
                COMMAND_R, "gguf_q4_k_m", "b2500", "rtx-3090-24gb", pp=2, max_context=4096, max_sequences=1
            ),
            [
                ("KV MiB, both GPUs", lambda r: 2 * r.mem.kv_cache / MiB, 5120.0),
                ("CPU model buffer MiB (tied embedding, Q6_K)", host_mib("weights"), 1640.62),
            ],
        ),
        Replay(
            "llamacpp-qwen25-3b-rtx4080super-4k",
            _llama(QWEN25_3B, "gguf_q4_k_m", "b2500", "rtx-4080-16gb", max_context=4096, max_sequences=1),
            [("GPU KV MiB", gpu_mib("kv_cache"), 144.0), ("GPU compute MiB", gpu_mib("temporary"), 300.75)],
            fitted=("GPU compute MiB",),
        ),
        Replay(
            "llamacpp-gemma-perplexity-batch2048-compute",
            _llama(
                GEMMA_7B,
                "gguf_q4_k_m",
                "b2500",
                "a100-sxm-80gb",
                max_context=2048,
                max_sequences=1,
                prefill_chunk_tokens=2048,
            ),
            [("GPU compute MiB", gpu_mib("temporary"), 2025.0)],
        ),
    ]


REPLAYS = _replays() + moe_replays() + sglang_replays()

UNCOVERED = {
    "vllm-v0-h100-llama32-11b-vision-eager-64k": "multimodal profile (vision encoder, "
    "cross-attention): no such model here",
    "vllm-v0-2xl40s-nemotron49b-gptq-graphs": "only a CUDA-graph line (3.34 GiB against the "
    "1 GiB assumed); no Nemotron-49B preset",
    "vllm-v1-0.24-rtx5090-qwen36-35b-a3b-nvfp4": "hybrid Gated-DeltaNet model: needs the "
    "recurrent-state rule (models helper)",
    "sglang-ktransformers-qwen35-moe-2x4090": "ktransformers fork, experts on the CPU",
    "sglang-4xh200-as-80gb-tp4-eagle-pool-bug": "model not named; memory held back by hand",
    "ollama-mistral-large-123b-q3ks-radeon780m-gtt": "Q3_K_S file type not modelled; GTT carve-out",
}


@dataclass(frozen=True)
class Row:
    record: str
    name: str
    estimate: float
    logged: float
    error: float  # relative
    ok: bool  # within TOLERANCE (starts: equal)
    known: str  # why it is off, when it is known to be
    fitted: bool  # the logged value set a constant (in-sample)


def table(replays: list[Replay] | None = None) -> list[Row]:
    """Every replayed figure of every covered record (of ``replays``, else engine-logs.json's)."""
    rows = []
    for rp in REPLAYS if replays is None else replays:
        r = rp.run()
        for name, get, value in rp.checks:
            est = get(r)
            err = (est - value) / value if value else 0.0
            rows.append(
                Row(
                    rp.record,
                    name,
                    est,
                    value,
                    err,
                    abs(err) <= TOLERANCE,
                    rp.known.get(name, ""),
                    name in rp.fitted,
                )
            )
        rows.append(
            Row(
                rp.record,
                "starts",
                float(r.sv.starts),
                float(rp.starts),
                0.0,
                r.sv.starts == rp.starts,
                rp.known.get("starts", ""),
                False,
            )
        )
    return rows


if __name__ == "__main__":
    rows = table()
    for x in rows:
        flag = ("ok " if x.ok else "OFF") + ("*" if x.fitted else " ")
        print(
            f"{flag} {x.record:<62} {x.name:<46} {x.estimate:>12,.2f} {x.logged:>12,.2f} "
            f"{x.error:>+7.1%}" + (f"  ({x.known})" if x.known else "")
        )
    held = [x for x in rows if not x.fitted]
    print(
        f"{sum(x.ok for x in rows)}/{len(rows)} within {TOLERANCE:.0%}; without the "
        f"{len(rows) - len(held)} in-sample figures (*): {sum(x.ok for x in held)}/{len(held)}"
    )
