"""vLLM's MXFP4 experts on Hopper at the measured times of the module it runs them through
(OpenAI's Triton kernels: core/speed/moe_measured.py; docs/evidence/serving.md, the section on
llm-d's gpt-oss prefill).

The table (src/gpusizer/presets/moe-module-times.json) is aiconfigurator 0.12.0's vLLM 0.24.0
``vllm_gptossmxfp4moe_triton_oaitritonmxfp4expertsmonolithic`` rows; no figure below set it. Out
of sample: the same collector's vLLM 0.19.0 table of the same shape (tests/core/data/
vllm-moe-measured.json) and llm-d's P/D run of gpt-oss-120b on H200 under vLLM 0.27.1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.serving import load
from gpusizer.core.speed.moe_measured import VLLM_OAI_TRITON_MXFP4, measured_module, module_seconds
from gpusizer.core.speed.step import StepModel
from gpusizer.core.speed.step_kernels import VENDOR_MOE
from tests.core.serving_step import serving_step

DATA = Path(__file__).parent / "data"
GPT_OSS_120B = (128, 2880, 2880, 4)


def _step(gpu: str = "h200-141gb", tp: int = 1, version: str = "0.27.1", **serving: Any) -> StepModel:
    d: dict[str, Any] = {
        "model": {"preset": "gpt-oss-120b"},
        "framework": serving.pop("framework", "vllm"),
        "hardware": {"gpu": gpu},
        "parallelism": {"tensor": tp},
        "workload": {"kind": "inference", "prompt_tokens": 5000, "generated_tokens": 250},
        "serving": {"concurrency": 1, "load": "steady", "engine_version": version, **serving},
    }
    return serving_step(d)


def _step_of(preset: str) -> StepModel:
    d: dict[str, Any] = {
        "model": {"preset": preset},
        "framework": "vllm",
        "hardware": {"gpu": "h200-141gb"},
        "workload": {"kind": "inference", "prompt_tokens": 1000, "generated_tokens": 100},
        "serving": {"concurrency": 1, "load": "steady", "engine_version": "0.27.1"},
    }
    return serving_step(d)


def test_the_table_names_its_source() -> None:
    doc = json.loads((Path(load.__file__).parents[2] / "presets" / "moe-module-times.json").read_text())
    assert doc["license"] == "Apache-2.0"
    assert "oaitritonmxfp4expertsmonolithic" in doc["source"] and "0.24.0" in doc["source"]
    for tp in (1, 2, 4, 8):
        assert len(measured_module(VLLM_OAI_TRITON_MXFP4, "h200-141gb", GPT_OSS_120B, tp, 1.2)) == 27
    assert len(measured_module(VLLM_OAI_TRITON_MXFP4, "h100-sxm-80gb", (32, 2880, 2880, 4), 1, 1.2)) == 27
    assert not measured_module(VLLM_OAI_TRITON_MXFP4, "gh200-96gb", GPT_OSS_120B, 1, 1.2)
    assert len(_step_of("gpt-oss-20b").moe_points) == 27


def test_between_and_beyond_the_measured_counts() -> None:
    pts = ((1.0, 1e-4), (3.0, 3e-4), (5.0, 4e-4))
    assert module_seconds(pts, 0.5) == 1e-4
    assert module_seconds(pts, 2.0) == pytest.approx(2e-4)
    assert module_seconds(pts, 4.0) == pytest.approx(3.5e-4)
    assert module_seconds(pts, 10.0) == pytest.approx(8e-4)


@pytest.mark.parametrize(
    ("gpu", "version", "framework", "measured"),
    [
        ("h200-141gb", "0.27.1", "vllm", True),  # release 0.21.0: Triton on sm90
        ("h100-sxm-80gb", "0.19.0", "vllm", True),
        ("h200-141gb", "0.11.0", "vllm", False),  # the PyPI wheel without triton_kernels: Marlin
        ("h200-141gb", "0.18.0", "vllm", True),  # 0.11.1's rules: triton_kernels in the build
        ("h100-sxm-80gb", "0.11.1", "vllm", True),
        ("b200-192gb", "0.27.1", "vllm", False),  # FlashInfer TRT-LLM on SM100
        ("gh200-96gb", "0.27.1", "vllm", False),  # Triton, but no table measured on it
        ("h200-141gb", "0.5.2", "sglang", True),  # its triton_kernel runner for gpt-oss off SM100
        ("b200-192gb", "0.5.2", "sglang", False),  # flashinfer_mxfp4 on SM100
    ],
)
def test_which_runs_take_the_measured_module(gpu: str, version: str, framework: str, measured: bool) -> None:
    assert bool(_step(gpu, version=version, framework=framework).moe_points) is measured


def test_lora_keeps_the_grouped_rates() -> None:
    # vLLM serves MXFP4 experts with LoRA adapters through TRITON_UNFUSED or Marlin
    # (select_mxfp4_moe_backend's LoRA branch), not the monolithic module measured
    assert not _step(lora={"adapters": 4, "max_loaded": 2}).moe_points


def test_no_tokens_no_module() -> None:
    # a rank with nothing to route (an attention-DP rank's padded wait asks for its own count)
    # reads the router's weights only, not a measured call (36 x 60 us at one token)
    m = _step()
    assert m._experts(0) < 0.05 * m._experts(1)


def test_the_5000_token_prefill_on_one_h200() -> None:
    """llm-d's prefill replica (TP 1, H200): the experts 104.4 ms over 36 layers (2.90 ms a layer,
    the measured 2,595 us at 4,096 and 3,307 at 6,144 tokens interpolated, less six kernel floors),
    were 129.8 ms at the grouped rates (3.60 ms a layer: 1.24x the measured module); the whole
    lone prefill 135.6 ms, was 161.0."""
    m = _step()
    assert m._experts(5000) * 1e3 == pytest.approx(104.4, abs=0.1)
    assert m.prefill_seconds(5000) * 1e3 == pytest.approx(135.6, abs=0.2)


def test_release_0_19s_table_of_the_same_shape_out_of_sample() -> None:
    """aiconfigurator's vLLM 0.19.0 table of gpt-oss-120b's experts on the H200 (TP 1,
    power_law_1.2; not read by the model): model / measured 0.86-1.04 at 16-16,384 tokens, the
    release gap between the two tables."""
    doc = json.loads((DATA / "vllm-moe-measured.json").read_text())
    (s,) = [x for x in doc["series"] if x["preset"] == "gpt-oss-120b" and x["tp"] == 1]
    m = _step(version="0.19.0")
    floors = VENDOR_MOE * m.rates.kernel_floor
    for tokens, ms in zip(s["tokens"], s["ms"], strict=True):
        model = (m._experts(tokens) / m.shape.moe_layers + floors) * 1e3
        assert 0.85 <= model / ms <= 1.05, tokens


def test_llmd_runs_on_the_triton_module(monkeypatch: pytest.MonkeyPatch) -> None:
    """llm-d's P/D run (tests/core/data/serving-features.json): with the measured module TTFT
    527 ms (+2 %) and ITL 8.07 ms (+9 %) against 518 and 7.38; at the grouped rates it read
    1,003 ms (+94 %) and 5.41 ms (-27 %): the decode's 52 tokens a layer at TP 4 ran 0.06 ms of
    experts against the module's 0.15, and the prefill 1.24x the module's time."""
    rows = json.loads((DATA / "serving-features.json").read_text())["disaggregated_measured"]
    (row,) = [r for r in rows if r["id"] == "llm-d-gpt-oss-120b-h200-8p1-2d4"]
    d: dict[str, Any] = {
        "model": {"preset": row["model"]},
        "framework": "vllm",
        "hardware": {"gpu": row["gpu"]},
        "parallelism": {"tensor": row["tensor"]},
        "workload": {"kind": "inference", "prompt_tokens": 5000, "generated_tokens": 250, "batch_size": 104},
        "serving": {"concurrency": 104, "load": "steady", "disaggregated": row["split"], **row["serving"]},
    }
    from gpusizer import estimate_report

    sv = estimate_report(d)["serving"]
    # 514 ms and 8.21 ms before vLLM's custom all-reduce took its measured times (the TP 4
    # decoders' 5-360 KB messages in 4.6-7.9 us against 8.1-9.5 us at alpha + bytes / beta;
    # core/speed/allreduce_measured.py): TTFT +1 %, ITL +9 % of the published
    # 524 ms before its NIXL connector's request path was priced (docs/evidence/serving.md §36: the
    # decode server's second API pass and the step that finds the KV read done): +14 % of the published
    # 589 ms before each API server's chat cost became its release's (no per-request template
    # parse after 0.11.0: 2 x 6.9 ms less, core/registry/chat_template_parse.py): +11 %
    # 577 ms before the run's completions route (its profile guide_pd-disaggregation_1.yaml,
    # llm-d-benchmark, 'api: type: completion'; docs/evidence/serving.md §52): +2 %
    assert sv["disaggregated_ttft_seconds"] * 1e3 == pytest.approx(527, abs=2)
    assert sv["disaggregated_tpot_seconds"] * 1e3 == pytest.approx(8.07, abs=0.02)
    monkeypatch.setattr(load, "measured_moe_kernel", lambda *_: "")
    d["serving"]["engine_version"] = "0.27.0"  # the same release's rules, past the answers kept
    sv = estimate_report(d)["serving"]
    assert sv["disaggregated_ttft_seconds"] * 1e3 == pytest.approx(
        1003, abs=3
    )  # 981 before the measured all-reduce; 996 before the NIXL request path; 1060 before the
    # chat cost per release (core/registry/chat_template_parse.py); 1049 before the completions route
    assert sv["disaggregated_tpot_seconds"] * 1e3 == pytest.approx(5.41, abs=0.02)


@pytest.mark.parametrize(
    ("gpu", "tp", "prompt", "generated", "measured_ms"),
    [
        # aiconfigurator-core 0.12.0 silicon_sample.csv (Apache-2.0), InferenceX result file
        # 2026-04-06.csv, image vllm/vllm-openai:v0.18.0, gpt-oss-120b, 32 users: row
        # 2026_04_06_gpt_oss_120b_h200_sxm_vllm_fp4_agg_1024x8192_c32_tp4_ep1_174, TPOT 6.77 ms
        ("h200-141gb", 4, 922, 7373, 6.77),
        # the same file's 1024 x 1024 row at TP 4 (..._1024x1024_c32_tp4_ep1_358): 7.16 ms
        ("h200-141gb", 4, 922, 922, 7.16),
    ],
)
def test_vllm_018_gpt_oss_on_hopper_decodes_at_the_triton_module(
    gpu: str, tp: int, prompt: int, generated: int, measured_ms: float
) -> None:
    # 0.18.0 runs 0.11.1's rules: OpenAI's Triton module on Hopper. On 0.11.0's Marlin and the
    # grouped rates these rows read 0.75 and 0.71 of the measured TPOT (experts 0.046 ms a layer
    # against the module's 0.105 at 32 tokens, TP 4); with the module 0.97 and 0.90. Tolerance 25 %.
    sc = {
        "model": {"preset": "gpt-oss-120b"},
        "framework": "vllm",
        "hardware": {"gpu": gpu},
        "workload": {"kind": "inference", "prompt_tokens": prompt, "generated_tokens": generated},
        "parallelism": {"tensor": tp},
        "serving": {"load": "steady", "concurrency": 32, "requests": 320, "length_spread": 0.11,
                    "engine_version": "0.18.0"},
    }  # fmt: skip
    sv = estimate(sc).serving
    assert sv is not None and sv.tpot_seconds
    assert sv.tpot_seconds * 1e3 == pytest.approx(measured_ms, rel=0.25)
    assert sv.tpot_seconds * 1e3 > 0.85 * measured_ms  # no longer the Marlin path's 0.71-0.75
