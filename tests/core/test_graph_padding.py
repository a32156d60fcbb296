"""CUDA graph padding (``serving.cuda_graph_batch_sizes``; docs/evidence/speed.md section 37).

TensorRT-LLM's PyTorch backend with ``cuda_graph_config.enable_padding`` runs a generation-only
batch as the captured graph of the smallest size that holds it, the rows above the batch dummy
requests ("If true, batches are rounded up to the nearest cuda_graph_batch_size",
tensorrt_llm/llmapi/llm_args.py ``CudaGraphConfig``, 1.0; model_engine.py
``_round_up_batch_size``); trtllm-bench turns padding on (``get_settings``:
``cuda_graph_config`` ``{"padding_enabled": True, "max_batch_size": max_batch_size}``) and the
perf overview's ``llm_options.yml`` lists the sizes it captured.
"""

from __future__ import annotations

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.estimate import estimate
from tests.core.replay_steps import replay_scenario, step_of, tokens_per_second

# The perf overview's llm_options.yml (TensorRT-LLM 1.0, perf-overview.md at 00f37686), dense and MoE
PAGE_SIZES = [1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 512, 1024, 2048, 4096, 8192]
MAV_H200 = "trtllm-1.0-mav-fp8-h200-x8-tp8-1000-1000"


def test_a_batch_replays_the_smallest_captured_size_that_holds_it() -> None:
    step = step_of(replay_scenario(MAV_H200, "serving"))
    assert step.costs.graph_sizes == tuple(PAGE_SIZES)
    assert [step.graph_rows(d) for d in (1, 3, 188, 256, 375, 600)] == [1, 4, 256, 256, 384, 1024]
    assert step.graph_rows(9000) == 0  # above the largest: no graph, the step runs eager
    plain = step_of(replay_scenario(MAV_H200, "serving", cuda_graph_batch_sizes=None))
    assert plain.costs.graph_sizes == () and plain.graph_rows(188) == 188


def test_padded_rows_cost_every_row_but_the_cache() -> None:
    # 188 requests a rank (Maverick FP8 on 8 x H200, 128/4096: 1,500 requests over 8 ranks)
    # replay the 256 graph: the projections, experts, collectives and LM head of 256 rows, the
    # cache of the 188 real ones (a dummy request holds no context)
    step = step_of(replay_scenario(MAV_H200, "serving"))
    plain = step_of(replay_scenario(MAV_H200, "serving", cuda_graph_batch_sizes=None))
    ctx = 188 * step.positions(2176)
    padded = step.seconds(188, ctx, sampled=188)
    assert padded == pytest.approx(plain.seconds(256, ctx, sampled=256), rel=1e-12)
    assert padded > plain.seconds(188, ctx, sampled=188)
    # prompt steps and eager steps are not padded
    assert step.seconds(188, ctx, 1024, 1, 5e5, 1024, 189) == plain.seconds(188, ctx, 1024, 1, 5e5, 1024, 189)
    assert step.seconds(188, ctx, graph=False) == plain.seconds(188, ctx, graph=False)


def test_padding_slows_the_moe_rows_that_pad_most() -> None:
    # Qwen3-235B FP8 on 8 x H100, 1000/1000 (section 37): the decodes of ~217 a rank pad to
    # 256; estimate / published output tokens/s 1.25 without padding, 1.16 with (14,898 published;
    # 1.32 and 1.245 at the CUTLASS shares, before the module was read at its measured times,
    # core/speed/moe_measured.py ``group_module``; 1.285 and 1.22 before those shares, section 49)
    rid = "trtllm-1.0-q235-fp8-h100-x8-tp8-1000-1000"
    with_pad = tokens_per_second(replay_scenario(rid, "serving")) / 14898
    without = tokens_per_second(replay_scenario(rid, "serving", cuda_graph_batch_sizes=None)) / 14898
    assert without == pytest.approx(1.247, abs=0.01)
    assert with_pad == pytest.approx(1.156, abs=0.01)


@pytest.mark.parametrize("bad", [[0], ["8"], [], [True], [8.5]])
def test_bad_sizes_name_the_field(bad: list[object]) -> None:
    s = {"model": {"preset": "llama-3.1-8b"}, "framework": "tensorrt-llm", "workload": {"kind": "inference"}}
    with pytest.raises(ScenarioError, match=r"serving\.cuda_graph_batch_sizes"):
        estimate({**s, "serving": {"cuda_graph_batch_sizes": bad}})
