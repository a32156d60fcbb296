"""The serving fill weighs TP with the routed experts held whole inside it (EP = TP x DP: vLLM
``--enable-expert-parallel``, SGLang ``--ep-size``; core/sizing/layout_tpep.py), priced by the
estimator's own ``parallelism.expert``.

The case: Qwen/Qwen3-235B-A22B-FP8 (128 x 128 blocks, ``fp8-block``) at TP 8 is refused by vLLM
(vllm-project/vllm#17569: "The output_size of gate's and up's weight = 192 is not divisible by
weight quantization block_n = 128") and runs with ``--enable-expert-parallel`` (the thread's fix;
docs/evidence/serving.md, the block-FP8 TP section). Before this the search never priced that
layout; now it is among the layouts weighed on one 8-GPU server.
"""

from __future__ import annotations

from typing import Any

from gpusizer import estimate_report, plan
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.sizing.layout_tpep import EP_NONE, EP_REPLICAS, EP_WHOLE, expert_modes, expert_span

BLOCK = {"weights": "fp8", "quantization_rule": "fp8-block"}
SPREAD = (EP_REPLICAS, EP_NONE)


def _s(preset: str = "qwen3-235b-a22b", framework: str = "vllm", **extra: Any) -> dict[str, Any]:
    return {
        "model": {"preset": preset},
        "framework": framework,
        "precision": dict(BLOCK) if framework != "llama.cpp" else {"weights": "gguf_q4_k_m"},
        "workload": {"kind": "inference", "prompt_tokens": 2048, "generated_tokens": 512},
        "targets": {"users": 16},
        **extra,
    }


def test_tp8_with_the_experts_whole_is_weighed_at_the_estimators_speed() -> None:
    got = plan(_s(), gpus=["h100-sxm-80gb"], alternatives=12)
    rows = {r["layout"]: r for r in got}
    row = rows.get("TP 8 x PP 1 x DP 1, EP 8")
    assert row is not None, sorted(rows)
    # its speed is the estimator's at parallelism tensor 8, expert 8, data 1, 16 requests
    est = estimate_report(
        _s(
            hardware={"gpu": "h100-sxm-80gb", "gpus_per_node": 8},
            parallelism={"tensor": 8, "expert": 8},
            workload={"kind": "inference", "prompt_tokens": 2048, "generated_tokens": 512, "batch_size": 16},
        )
    )
    ratio = row["tokens_per_second"] / est["serving"]["tokens_per_second"]
    assert abs(ratio - 1) < 1e-6  # the same estimate, not a second model of it
    # vLLM refuses plain TP 8 on this checkpoint (1536 / 8 = 192): never offered
    assert "TP 8 x PP 1 x DP 1" not in rows


def test_weighed_only_where_the_engine_has_the_switch() -> None:
    moe = parse_scenario(_s())
    assert expert_modes(moe, 8, SPREAD) == (*SPREAD, EP_WHOLE)
    assert expert_modes(moe, 1, SPREAD) == SPREAD  # at TP 1 it is EP over the replicas
    assert expert_modes(moe, 8, (EP_NONE,)) == (EP_NONE,)  # dense, or EP refused (LoRA experts)
    cpp = parse_scenario(_s("qwen3-30b-a3b", "llama.cpp"))
    assert expert_modes(cpp, 2, SPREAD) == SPREAD  # llama.cpp has no expert parallelism


def test_ep_divides_the_experts() -> None:
    moe = parse_scenario(_s())  # 128 routed experts
    assert expert_span(moe, 8, 2) == 16
    assert expert_span(moe, 8, 3) is None  # vLLM asserts EP divides the experts
