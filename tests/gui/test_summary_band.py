"""The summary's band: the speed ranges in the serving line, the whisker's range on the usage
bar and the "How sure" line with its reasons in the tooltip."""

from __future__ import annotations

import html

import pytest

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.gui.charts.memory import MemoryChart
from gpusizer.gui.summary import SummaryHeader

VLLM = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}, "framework": "vllm"}


def test_how_sure_line_speed_band_and_whisker(qtbot) -> None:
    head = SummaryHeader()
    qtbot.addWidget(head)
    head.resize(1200, 200)
    est = estimate(VLLM)
    head.set_estimate(est)
    # vLLM at batch one on NVIDIA: 13 figures, a band of its own (docs/evidence/speed.md 13.1)
    # 74 engine-pool figures since the Gemma 3 SGLang log replays (serving.md section 41); 84
    # since the two blind rounds of start-up logs (serving.md sections 65 and 70); 128 since the
    # third (serving.md section 95); 161 since the vLLM 0.12-0.18 and SGLang start-up logs
    # (serving.md sections 118 and 119)
    assert head._how_sure_text == "How sure: memory measured (161) · speed validated (13)"
    assert "published figures of Llama 3.1 8B on H100 SXM 80GB" in head.how_sure.toolTip()
    assert "tokens/s each (" in head.serving.text()
    band = head.bar._band
    assert band is not None
    lo, hi = band
    assert lo < est.memory.total < hi


def test_how_sure_names_the_band_it_borrows(qtbot) -> None:
    head = SummaryHeader()
    qtbot.addWidget(head)
    vllm = {**VLLM, "serving": {"concurrency": 32, "load": "steady"}}
    head.set_estimate(estimate(vllm))
    # vLLM at large batch: under 12 figures of its own, so it takes the band of all engines at
    # large batch on NVIDIA and says so (scripts/evidence_bands.py, pooling; SGLang's, the example
    # here before, has its own band since its 42 figures; TensorRT-LLM at batch one before that)
    assert "band of" in head._how_sure_text
    assert "band of all engines' speed on NVIDIA, large batch:" in html.unescape(head.how_sure.toolTip())


def test_memory_chart_whisker_spans_the_band(qtbot) -> None:
    chart = MemoryChart()
    qtbot.addWidget(chart)
    est = estimate(VLLM)
    chart.update_from(est.scenario, est)
    assert chart.band is not None and chart.whisker.item.isVisible()
    ys = chart.whisker.item.yData
    assert min(ys) * chart.stack.scale == pytest.approx(chart.band[0])
    assert max(ys) * chart.stack.scale == pytest.approx(chart.band[1])
    assert any(row[0] == "peak band" for row in chart.data_rows())


def test_how_sure_line_of_an_rl_scenario_names_rl_regimes(qtbot) -> None:
    # RL post-training's own regimes (scripts/evidence_bands.py ``_rl``): verl's 20 counters with a
    # band of their own; of the 67 colocated published steps the 35 of dense policies (Qwen2.5 7B
    # is dense) with their own band, split from the MoE policies' 32 by the policy's kind (53,
    # 32 and 21 before NeMo RL's v0.7 table, docs/evidence/rl.md)
    import json
    from pathlib import Path

    from gpusizer.gui.breakdown import FiguresView

    data = Path(__file__).parents[1] / "core" / "data" / "rl-memory.json"
    rec = next(r for r in json.loads(data.read_text()) if r["id"] == "verl-grpo-lora-qwen2.5-7b-8xh100")
    head = SummaryHeader()
    qtbot.addWidget(head)
    est = estimate(rec["scenario"])
    head.set_estimate(est)
    # 39 dense colocated steps since verl's four blind steps (docs/evidence/rl.md section 52); 41
    # since the fourth blind RL round's two DeepScaleR steps (rl.md section 74, rl-time-blind4.json);
    # 43 since the fifth round's two verl steps (rl-time-blind5.json); 45 since the sixth round's two
    # SkyRL steps (rl-time-blind6.json); 53 since the seventh round's eight verl steps
    # (rl-time-blind7.json); 62 since the eighth round's nine verl Megatron steps
    # (rl-time-blind8.json); 64 since the ninth round's two verl PPO steps, and 22 memory figures
    # (20 before) with their two counters (rl-time-blind9.json); 66 since the eleventh round's two
    # SimpleRL-Zoo steps (rl-time-blind11.json) and 24 memory figures since the RL memory blind
    # round's two play-verl counters (rl-memory-blind.json); 77 since the twelfth round's eleven
    # Unsloth GRPO steps (rl-time-blind12.json)
    assert head._how_sure_text == "How sure: memory measured (24) · speed measured (77)"
    assert "RL steps, colocated, dense policy" in html.unescape(head.how_sure.toolTip())
    view = FiguresView()
    qtbot.addWidget(view)
    rows = dict(view._rows(est))
    assert rows["Time per step"].count("(") == 1 and "-" in rows["Time per step"]
