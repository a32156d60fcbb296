"""``serving.cpu_moe_layers`` in the Serving panel, next to -ngl: llama.cpp only, a count or
"all" (gui/layers_or_all.py; core/serving/cpu_moe.py)."""

from __future__ import annotations

from gpusizer.core.pipeline.scenario import parse_scenario

from .helpers import find

QWEN_5090 = {
    "model": {"preset": "qwen3-30b-a3b"},
    "framework": "llama.cpp",
    "workload": {"kind": "inference"},
    "precision": {"weights": "gguf_q4_k_m"},
    "hardware": {"gpu": "rtx-5090-32gb"},
    "serving": {"cpu_moe_layers": "all"},
}


def test_experts_field_reads_all_and_counts(window):
    window.state.set_scenario(parse_scenario(QWEN_5090))
    field = find(window, "spin_serving_cpu_moe")
    form = next(p for p in window.panels if p.title == "Serving").form
    assert not form.rows["serving.cpu_moe_layers"].isHidden()
    assert field.text_for(field.value()) == "all layers"
    field.lineEdit().setText("24")
    field.interpretText()
    window.state.flush()
    assert window.state.scenario.serving.cpu_moe_layers == 24
    field.lineEdit().setText("all")
    field.interpretText()
    window.state.flush()
    assert window.state.scenario.serving.cpu_moe_layers == "all"
    field.stepBy(1)  # "all" has no neighbour: nothing moves
    assert field.value() == "all"


def test_experts_field_refuses_text_with_the_field_named(window):
    window.state.set_scenario(parse_scenario(QWEN_5090))
    field = find(window, "spin_serving_cpu_moe")
    field.lineEdit().setText("-3")
    field.interpretText()
    assert field.error and field.value() == "all"


def test_experts_field_hidden_for_vllm(window):
    window.state.set_scenario(parse_scenario(dict(QWEN_5090, framework="vllm", serving={}, precision={})))
    form = next(p for p in window.panels if p.title == "Serving").form
    assert form.rows["serving.cpu_moe_layers"].isHidden()
    assert form.rows["serving.gpu_layers"].isHidden()  # as -ngl beside it
