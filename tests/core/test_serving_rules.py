"""Engine rules one by one (core/engines.py, kv_pool.py, offload.py, serving.py) and the
per-module precision rules (core/quant_rules.py). Sources and tolerances beside each assertion;
the real-log replay is in test_engine_logs.py, published speeds in test_serving_speed.py."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.presets import gpu_spec
from gpusizer.core.model.result import Estimate, Serving
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.report import scenario_model
from gpusizer.core.registry.engines import GiB
from gpusizer.core.speed.roofline import step_ops


def _vllm(
    version: str | None = None,
    preset: str = "llama-3.1-8b",
    gpu: str = "h100-sxm-80gb",
    tp: int = 1,
    weights: str = "bf16",
    **serving: Any,
) -> dict[str, Any]:
    sv = {**({"engine_version": version} if version else {}), **serving}
    return {
        "model": {"preset": preset},
        "workload": {"kind": "inference"},
        "framework": "vllm",
        "hardware": {"gpu": gpu},
        "parallelism": {"tensor": tp},
        "precision": {"weights": weights},
        "serving": sv,
    }


def _sv(sc: dict[str, Any]) -> Any:
    return estimate(sc).serving


# --- vLLM defaults by version -----------------------------------------------------------------


def test_vllm_memory_fraction_by_version() -> None:
    # vllm config/cache.py: gpu_memory_utilization 0.9 up to 0.19.0, 0.92 from 0.20.0 (exact).
    assert _sv(_vllm("0.19.0")).memory_fraction == 0.9
    assert _sv(_vllm("0.20.0")).memory_fraction == 0.92
    assert _sv(_vllm()).engine_version == "0.33.0"  # the current release is the default


def test_vllm_batch_defaults_by_gpu() -> None:
    # vllm 0.11.0 _set_default_args / 0.33.0 get_batch_defaults (OpenAI server): >= 70 GiB and
    # not A100: 1024 sequences, 8192 batched tokens; A100 and small GPUs 256 / 2048; from
    # 0.33.0, >= 160 GiB: 16384 batched tokens (exact).
    h100 = _sv(_vllm("0.19.0"))
    assert (h100.max_sequences, h100.prefill_chunk_tokens) == (1024, 8192)
    a100 = _sv(_vllm("0.19.0", gpu="a100-sxm-80gb", max_context=8192))
    assert (a100.max_sequences, a100.prefill_chunk_tokens) == (256, 2048)
    b200 = _sv(_vllm("0.33.0", gpu="b200-192gb"))
    assert b200.prefill_chunk_tokens == 16384
    # V0 (0.6.x): chunked prefill only above max_model_len 32,768, else max(len, 2048)
    assert _sv(_vllm("0.6.4", max_context=20000)).prefill_chunk_tokens == 20000
    assert _sv(_vllm("0.6.4", max_context=65536)).prefill_chunk_tokens == 2048


def test_cuda_graphs_enter_the_pool_from_0_20() -> None:
    # 0.19.0 envs.py VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS "0": graphs come out of the
    # headroom; 0.20.0 "1": determine_available_memory subtracts them. At the same fraction the
    # pools differ by the graph memory (1 GiB assumed), exactly.
    old = _sv(_vllm("0.19.0", memory_fraction=0.92))
    new = _sv(_vllm("0.20.0", memory_fraction=0.92))
    assert old.kv_pool_bytes - new.kv_pool_bytes == pytest.approx(GiB, abs=2)
    eager = _sv(_vllm("0.20.0", memory_fraction=0.92, cuda_graphs=False))
    assert eager.kv_pool_bytes == pytest.approx(old.kv_pool_bytes, abs=2)


def test_sampler_peak_is_not_split_by_tensor_parallelism() -> None:
    # Issue 11 / vllm PR #10511: the profile peak is the sampler on max_num_seqs x vocabulary
    # fp32 rows, 1.26 GiB for Llama-3-8B at TP 1 and the same at TP 2 (within 5 %).
    one = estimate(_vllm("0.6.5", max_context=8192)).memory
    two = estimate(_vllm("0.6.5", tp=2, max_context=8192)).memory
    assert one.temporary == two.temporary > 0
    assert one.temporary / GiB == pytest.approx(1.26, rel=0.05)


def test_non_torch_memory_grows_with_tensor_parallelism() -> None:
    # vllm PR #10511 (V0): non-torch 1.79 GiB at TP 1, 3.58 GiB at TP 2 (NCCL + custom
    # all-reduce buffers inside the budget): overhead less graphs, within 1 %.
    one = estimate(_vllm("0.6.5", max_context=8192)).memory
    two = estimate(_vllm("0.6.5", tp=2, max_context=8192)).memory
    assert (one.overhead - GiB) / GiB == pytest.approx(1.79, rel=0.01)
    assert (two.overhead - GiB) / GiB == pytest.approx(3.58, rel=0.01)


# --- pools: invariants and refusals -----------------------------------------------------------


def test_pool_shrinks_as_weights_grow() -> None:
    fp8, bf16 = _sv(_vllm(weights="fp8")), _sv(_vllm())
    big = _sv(_vllm(preset="qwen3-32b"))
    assert fp8.kv_pool_bytes > bf16.kv_pool_bytes > big.kv_pool_bytes


def test_concurrency_falls_as_max_context_grows() -> None:
    values = [_sv(_vllm(max_context=c)) for c in (4096, 16384, 65536, 131072)]
    conc = [v.max_concurrency for v in values]
    assert conc == sorted(conc, reverse=True)
    assert len({v.kv_capacity_tokens for v in values}) == 1  # the pool is the same
    # vLLM: num_blocks / cdiv(max_model_len, 16): 4x the context, a quarter of the users
    assert conc[0] / conc[2] == pytest.approx(16, rel=0.01)


def test_refusal_names_the_largest_context_that_fits() -> None:
    # Llama-3.1-8B on an RTX 4090 at vLLM's default max_model_len (the model's 131,072): one
    # request needs 16 GiB of KV cache, more than the pool: vLLM refuses to start.
    rep = estimate_report(_vllm(gpu="rtx-4090-24gb"))
    assert rep["serving"]["starts"] is False and rep["fits"] is False
    assert "largest context" in rep["serving"]["reason"]
    fits = estimate_report(_vllm(gpu="rtx-4090-24gb", max_context=8192))
    assert fits["serving"]["starts"] and fits["fits"]


def test_sglang_default_fraction_formula() -> None:
    # sglang 0.5.3 server_args.py, worked example in docs/evidence/serving.md §2.1: H100 80 GB at
    # TP 1: reserved 512 + 8192 x 1.5 + 256 x 2 + 128 = 13,440 MiB -> 0.834 (our device total is
    # cudaMemGetInfo's 81,047 MiB: 0.834 to 0.001).
    from gpusizer.core.model.presets import gpu_spec
    from gpusizer.core.pipeline.scenario import parse_scenario
    from gpusizer.core.serving.engine_settings import engine_settings
    from gpusizer.core.serving.rules import sglang_fraction

    s = parse_scenario({**_vllm(), "framework": "sglang", "serving": {"engine_version": "0.5.3"}})
    gpu = gpu_spec("h100-sxm-80gb")
    assert sglang_fraction(s, gpu, engine_settings(s, gpu)) == pytest.approx(0.834, abs=0.001)


def test_unknown_engine_version_is_a_scenario_error() -> None:
    with pytest.raises(ScenarioError) as err:
        estimate(_vllm("0.1"))  # older than every documented release
    assert err.value.field == "serving.engine_version" and "0.33.0" in str(err.value)


# --- speed --------------------------------------------------------------------------------------


def test_concurrency_defaults_to_the_batch_and_is_capped_by_max_sequences() -> None:
    sc = {**_vllm(max_context=8192), "workload": {"kind": "inference", "batch_size": 64}}
    assert _sv(sc).concurrency == _sv(sc).running == 64
    capped = _sv({**sc, "serving": {"max_context": 8192, "max_sequences": 16}})
    assert capped.running == 16 and capped.ttft_seconds > _sv(sc).ttft_seconds / 4


def test_smaller_prefill_chunks_lengthen_time_to_first_token() -> None:
    # vLLM V1 schedules at most max_num_batched_tokens per step (§7.3): one prompt of 32,768
    # tokens takes 4 steps at 8,192 and 16 at 2,048, each paying the step cost and reading the
    # weights again: the 12 extra steps cost at least 12 step costs (exact lower bound).
    sc = {**_vllm(max_context=40000), "workload": {"kind": "inference", "prompt_tokens": 32768}}
    big = _sv({**sc, "serving": {"max_context": 40000, "prefill_chunk_tokens": 8192}})
    small = _sv({**sc, "serving": {"max_context": 40000, "prefill_chunk_tokens": 2048}})
    assert small.ttft_seconds - big.ttft_seconds >= 12 * big.prefill_step_overhead_seconds - 1e-9


def test_step_latency_override_and_cost_per_million_tokens() -> None:
    sc = _vllm(max_context=8192)
    base = _sv(sc)
    slow = _sv({**sc, "serving": {"max_context": 8192, "step_latency_seconds": 0.01}})
    assert slow.decode_step_overhead_seconds == slow.prefill_step_overhead_seconds == 0.01
    # the override replaces a graph-replayed decode step's floors and host cost
    extra = 0.01 - base.decode_step_overhead_seconds
    assert slow.tpot_seconds - base.tpot_seconds == pytest.approx(extra, rel=1e-6)
    # H100 at the catalog's $/GPU-hour (3.99, per system): $ per million output tokens =
    # price x GPUs / tokens per hour
    price = gpu_spec("h100-sxm-80gb").price_per_hour
    assert price is not None
    assert base.cost_per_million_tokens == pytest.approx(
        price / 3600 / base.tokens_per_second * 1e6, rel=1e-9
    )


def test_expert_parallel_decode_reads_the_experts_of_the_whole_group() -> None:
    # Under EP the all-to-all sends every EP rank's tokens to an expert's GPU, so a GPU reads
    # the distinct experts of EP x batch tokens: E(1 - (1 - k/E)^(B x EP)) / EP (exact).
    sc = {
        **_vllm(preset="deepseek-v3", gpu="h200-141gb", tp=1, weights="fp8"),
        "parallelism": {"tensor": 1, "expert": 8, "data": 8},
    }
    _, m = scenario_model(sc)
    sh = m.shape
    ops = {name: b for name, _, b, _ in step_ops(sh, 16, 1, 1024, True)}
    acts = 16 * (2 * sh.hidden + sh.moe_act) * sh.ab * sh.moe_layers
    shared = sh.shared_w * sh.shared_b * sh.moe_layers
    distinct = 256 * (1 - (1 - 8 / 256) ** (16 * 8))
    expect = distinct * sh.expert_w / 8 * sh.expert_b * sh.moe_layers
    assert ops["experts"] - acts - shared == pytest.approx(expect, rel=1e-9)


def _block(est: Estimate) -> Serving:
    """The serving block of an inference estimate."""
    assert est.serving is not None
    return est.serving


def test_huggingface_serving_is_launch_bound_at_batch_one() -> None:
    # transformers runs the model op by op (core/speed/step_kernels.py EAGER_LAYER: 43 kernels a
    # layer, 24 us a launch): an 8B decodes at the launches' pace, 32 x 43 + 4 kernels x 24 us
    # = 33 ms, above the bandwidth roofline (Fireworks: 30 tokens/s for LLaMA-7B without graphs)
    sc = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}}
    est = estimate(sc)
    sv = _block(est)
    assert sv.tpot_seconds == pytest.approx((32 * 43 + 4) * 24e-6, rel=1e-9)  # the floors hide in it
    assert sv.tpot_seconds > est.compute.decode_seconds_per_token
    assert sv.kv_pool_bytes == est.memory.kv_cache


# --- llama.cpp offload and unified memory -------------------------------------------------------


def _llama(gpu: str, **serving: Any) -> dict[str, Any]:
    return {
        "model": {"preset": "llama-3.1-70b"},
        "workload": {"kind": "inference"},
        "framework": "llama.cpp",
        "precision": {"weights": "gguf_q4_k_m"},
        "hardware": {"gpu": gpu},
        "serving": {"max_context": 8192, **serving},
    }


def test_partial_offload_splits_vram_and_ram_and_slows_decode() -> None:
    # llama.cpp: the layers that do not fit stay in system RAM (load_tensors); a decode step
    # reads them at the host's bandwidth (80 GB/s assumed), so the speed is bounded by it.
    part = estimate(_llama("rtx-4090-24gb"))
    full = estimate(_llama("h100-sxm-80gb"))
    assert (_block(part).gpu_layers or 0) < 81 == _block(full).gpu_layers
    assert _block(part).host_memory_bytes > 15 * GiB > _block(full).host_memory_bytes
    assert part.memory.total <= part.capacity_bytes
    assert _block(part).tpot_seconds > 15 * GiB / 80e9  # >= 15 GiB of layers read from RAM
    assert _block(part).tokens_per_second_per_user < _block(full).tokens_per_second_per_user / 3
    fewer = estimate(_llama("rtx-4090-24gb", gpu_layers=20))
    assert _block(fewer).host_memory_bytes > _block(part).host_memory_bytes


def test_explicit_gpu_layers_that_do_not_fit_refuse() -> None:
    rep = estimate_report(_llama("rtx-4090-24gb", gpu_layers=81))
    assert rep["serving"]["starts"] is False and "cudaMalloc" in rep["serving"]["reason"]


def test_unified_memory_reads_host_layers_at_its_own_bandwidth() -> None:
    # On unified memory the "host" RAM is the GPU's: the 70B model fits in an M4 Max's share.
    mac = estimate(_llama("apple-m4-max-128gb"))
    assert _block(mac).gpu_layers == 81 and _block(mac).starts


def test_ollama_context_defaults_by_version() -> None:
    # ollama: num_ctx 2048 (v0.5) -> 4096 (v0.6.7) -> by VRAM (v0.17: >= 23 GiB -> 32768).
    sc = {
        "model": {"preset": "llama-3.1-8b"},
        "workload": {"kind": "inference"},
        "framework": "llama.cpp",
        "precision": {"weights": "gguf_q4_k_m"},
        "hardware": {"gpu": "rtx-4090-24gb"},
    }
    ctx = {
        v: _sv({**sc, "serving": {"engine_version": v}}).max_context
        for v in ("ollama-0.5", "ollama-0.6.7", "ollama-0.17")
    }
    assert ctx == {"ollama-0.5": 2048, "ollama-0.6.7": 4096, "ollama-0.17": 32768}


# --- per-module precision -----------------------------------------------------------------------


def _weights(**precision: Any) -> int:
    return estimate(
        {"model": {"preset": "llama-3.1-405b"}, "workload": {"kind": "inference"}, "precision": precision}
    ).memory.weights


def test_meta_fp8_recipe_quantises_only_middle_mlps() -> None:
    # Llama 3 paper §6.2: FP8 in the MLPs, not attention, not the first and last blocks. vLLM
    # issue #6746 loads 57.75 GiB per rank at TP 8: 462 GiB in all (ours within 2 %).
    meta = _weights(weights="fp8", quantization_rule="meta-fp8")
    assert _weights(weights="fp8") < meta < _weights(weights="bf16")
    assert meta / GiB == pytest.approx(8 * 57.75, rel=0.02)


def test_gguf_q4_k_m_is_4_89_bits_per_weight() -> None:
    # llama.cpp quantize README: Llama 3 8B Q4_K_M is 4.89 bpw (per-tensor types, 1 %).
    est = estimate(
        {
            "model": {"preset": "llama-3.1-8b"},
            "workload": {"kind": "inference"},
            "precision": {"weights": "gguf_q4_k_m"},
        }
    )
    assert est.memory.weights * 8 / est.parameters_total == pytest.approx(4.89, rel=0.01)


def test_mxfp4_experts_only_as_gpt_oss_ships() -> None:
    # gpt-oss: MXFP4 routed experts, attention/router/embedding/LM head 16-bit. On Mixtral's
    # shape: experts at 4.25 bits, everything else 2 B (exact).
    sc = {
        "model": {"preset": "mixtral-8x7b"},
        "workload": {"kind": "inference"},
        "precision": {"weights": "mxfp4"},
    }
    est = estimate(sc)
    assert "mxfp4-experts" in " ".join(est.assumptions)
    from gpusizer.core.model.params import count_parameters
    from gpusizer.core.pipeline.scenario import parse_scenario

    counts = count_parameters(parse_scenario(sc).model)
    experts = counts.expert_params
    expect = experts * 4.25 / 8 + (counts.total - experts) * 2
    assert est.memory.weights == pytest.approx(expect, rel=1e-9)


def test_module_override_and_errors() -> None:
    plain = _weights(weights="fp8")
    emb_fp8 = _weights(weights="fp8", modules={"embedding": "fp8", "lm_head": "fp8"})
    assert plain - emb_fp8 == pytest.approx(2 * 128_256 * 16_384, rel=1e-6)
    with pytest.raises(ScenarioError) as err:
        _weights(weights="fp8", quantization_rule="nope")
    assert err.value.field == "precision.quantization_rule"
    with pytest.raises(ScenarioError) as err:
        _weights(weights="fp8", modules={"kitchen": "fp8"})
    assert err.value.field == "precision.modules"


# --- registries: one entry each ------------------------------------------------------------------


def test_a_registered_quantisation_rule_and_engine_are_used() -> None:
    from dataclasses import replace

    from gpusizer.core.registry import frameworks, quant_rules
    from gpusizer.core.registry.engine_releases import VLLM

    rule = quant_rules.register(
        quant_rules.QuantRule("dummy-all-but-head", "Dummy", {"lm_head": "unquantised"})
    )
    profile = frameworks.register(
        replace(
            frameworks.FRAMEWORKS["vllm"],
            id="dummy-engine",
            label="Dummy engine",
            releases=(replace(VLLM[-1], version="1.0", memory_fraction=0.5),),
        )
    )
    try:
        plain = _weights(weights="fp8", quantization_rule="uniform")
        head16 = _weights(weights="fp8", quantization_rule=rule.id)
        assert head16 - plain == pytest.approx(128_256 * 16_384, rel=1e-6)  # the head at 2 B
        sv = _sv({**_vllm(), "framework": profile.id})
        assert sv.memory_fraction == 0.5 and sv.engine_version == "1.0"
    finally:
        quant_rules.QUANT_RULES.pop(rule.id, None)
        frameworks.FRAMEWORKS.pop(profile.id, None)


@pytest.mark.parametrize(
    ("framework", "asked", "applies"),
    [
        ("vllm", "0.6.5", "0.6.5"),  # a documented release: itself
        ("vllm", "0.8.2", "0.8.0"),  # between 0.8.0 and 0.8.3: the older one's rules
        ("vllm", "v0.10.2", "0.10.1"),
        ("vllm", "0.10.0", "0.9.2"),  # 0.9.2: where the chat route stops parsing its template per request
        ("vllm", "0.6.6", "0.6.5"),
        ("vllm", "0.6.4.post1", "0.6.4"),  # a post release keeps its release's rules
        ("vllm", "0.40.0", "0.33.0"),  # newer than the table: the newest documented
        ("sglang", "0.4.6.post4", "0.4.3"),
        ("llama.cpp", "b4000", "b2824"),
        ("llama.cpp", "ollama-0.9.2", "ollama-0.7"),
        ("llama.cpp", "ollama-0.6.5", "ollama-0.6.3"),
        ("llama.cpp", "ollama-0.12.3", "ollama-0.11.5"),  # gpt-oss's graph of v0.11.5 (its entry)
    ],
)
def test_a_version_takes_the_newest_documented_release_not_newer(framework, asked, applies) -> None:
    # core/engines.release: the release table lists only versions whose defaults differ
    rep = estimate_report(
        {
            "model": {"preset": "llama-3.1-8b"},
            "workload": {"kind": "inference"},
            "framework": framework,
            "serving": {"engine_version": asked},
        }
    )
    assert rep["serving"]["engine_version"] == applies
    said = f"{asked}: the defaults of release {applies}" if asked != applies else f"{applies} defaults"
    assert any(said in a for a in rep["assumptions"])


@pytest.mark.parametrize(
    ("framework", "asked"),
    [("vllm", "0.5.4"), ("vllm", "banana"), ("llama.cpp", "ollama-0.4"), ("vllm", "b4000")],
)
def test_a_version_older_than_every_release_is_refused(framework, asked) -> None:
    with pytest.raises(ScenarioError, match=r"serving\.engine_version.*documented releases"):
        estimate_report(
            {
                "model": {"preset": "llama-3.1-8b"},
                "workload": {"kind": "inference"},
                "framework": framework,
                "serving": {"engine_version": asked},
            }
        )


def test_a_huge_engine_version_is_refused_in_one_line() -> None:
    # hostile input: a 10,000-character version never reaches the assumptions or the window
    with pytest.raises(ScenarioError, match=r"serving\.engine_version.*at most 40"):
        estimate(_vllm("1." * 5000 + "1"))


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("max_sequences", "8"),  # a string is not a count (strict, as every scenario block)
        ("max_sequences", True),
        ("max_context", 10**30),  # beyond core/limits.MAX_TOKENS
        ("step_latency_seconds", 1e308),  # made the time NaN (0 x inf)
        ("host_bandwidth_gb_per_s", 1e-300),
        ("gpu_layers", 10**9),
    ],
)
def test_serving_values_are_bounded_and_strict(field: str, value: Any) -> None:
    with pytest.raises(ScenarioError) as err:
        estimate(_vllm(**{field: value}))
    assert err.value.field == f"serving.{field}"
