"""The scenario fields that had no control in the window: ``workload.mlx_version`` (the Workload
panel's "MLX release", MLX training only), ``serving.disaggregated.prefill_queue`` (the Serving
panel's "Prefill queue", with a prefill pool), and what a framework switch does with the fields
only one framework takes (gui/panels/framework_fields.py): a held MLX release or max KV size
goes back to null with the switch, the status bar says so, Undo brings it back.

Figures are the core's own (tests/core/test_mlx_release.py: 16 layers x 2 rows x 32 heads x
1,024^2 x 2 B more activations from MLX 0.25.0; core/serving/disagg_pull.py: a shared queue
changes the split's first token only): the GUI tests check that each control reaches the
scenario and the answer, not the figures again."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QAction

from gpusizer.core.pipeline.estimate import estimate
from tests.scenarios import VLLM

from .helpers import error_text, find, mismatches, row_visible, set_scenario

MLX_LORA: dict[str, Any] = {  # tests/core/test_mlx_release.py's run: Llama 3.2 1B, all 16 layers
    "model": {"preset": "llama-3.2-1b"},
    "framework": "mlx",
    "hardware": {"gpu": "apple-m3-ultra-256gb"},
    "workload": {"kind": "lora", "micro_batch_size": 2, "sequence_length": 1024},
    "precision": {"weights": "bf16"},
}
MLX_SERVE: dict[str, Any] = {
    "model": {"preset": "qwen3-8b"},
    "framework": "mlx",
    "workload": {"kind": "inference", "prompt_tokens": 32000},
    "hardware": {"gpu": "apple-m4-max-128gb"},
}
# Llama 3.1 8B under vLLM at a batch of 16 on H100s, one prefill and three decode GPUs: 16 users
# at one prefill replica queue either way; two prefill replicas share them
SPLIT: dict[str, Any] = {**VLLM, "serving": {"disaggregated": {"prefill_gpus": 2, "decode_gpus": 2}}}


def _framework(window: Any, framework: str) -> None:
    box = find(window, "combo_framework")
    box.setCurrentIndex(box.findData(framework))
    window.state.flush()


def test_mlx_release_shows_for_mlx_training_only(window) -> None:
    box = find(window, "combo_mlx_version")
    set_scenario(window, {**MLX_LORA, "framework": "huggingface"})
    assert not row_visible(box)
    set_scenario(window, MLX_SERVE)
    assert not row_visible(box)  # serving reads no MLX release
    set_scenario(window, MLX_LORA)
    assert row_visible(box) and box.currentData() is None
    assert "PR #2054" in box.toolTip() and "0.24.0" in box.toolTip()


def test_mlx_release_reaches_the_scenario_and_the_activations(window) -> None:
    set_scenario(window, MLX_LORA)
    before = window.state.estimate.memory.activations
    box = find(window, "combo_mlx_version")
    box.setCurrentIndex(box.findData("0.29.0"))
    window.state.flush()
    assert window.state.error is None, window.state.error
    assert window.state.scenario.workload.mlx_version == "0.29.0"
    # 16 layers x 2 rows x 32 heads x 1024^2 x 2 B of attention probabilities added
    # (tests/core/test_mlx_release.py); from 0.24.2 the loss on 16-bit logits holds less
    # (core/registry/loss_kinds.py ``mlx_16bit``, tests/core/test_mlx_loss.py): the window's
    # answer is the core's for the same scenario, exactly
    after = window.state.estimate.memory.activations
    assert after == estimate(window.state.scenario).memory.activations
    assert 0 < after - before < 16 * 2 * 32 * 1024**2 * 2
    assert mismatches(window.binder) == []
    box.setCurrentIndex(box.findData(None))
    window.state.flush()
    assert window.state.scenario.workload.mlx_version is None
    assert window.state.estimate.memory.activations == before


def test_a_file_release_not_listed_is_shown_as_it_is(window) -> None:
    set_scenario(window, {**MLX_LORA, "workload": {**MLX_LORA["workload"], "mlx_version": "0.29.3"}})
    box = find(window, "combo_mlx_version")
    assert box.currentText() == "0.29.3" and mismatches(window.binder) == []


def test_switching_away_from_mlx_clears_the_release(window) -> None:
    held = {**MLX_LORA, "workload": {**MLX_LORA["workload"], "mlx_version": "0.29.0"}}
    set_scenario(window, held)
    said: list[str] = []
    window.state.notice.connect(said.append)
    _framework(window, "huggingface")
    assert window.state.error is None, window.state.error  # before: refused naming the field
    assert window.state.scenario.framework == "huggingface"
    assert window.state.scenario.workload.mlx_version is None
    assert not row_visible(find(window, "combo_mlx_version"))
    assert any("MLX release 0.29.0" in s and "cleared" in s for s in said), said
    window.findChild(QAction, "action_undo").trigger()
    assert window.state.scenario.framework == "mlx"
    assert window.state.scenario.workload.mlx_version == "0.29.0"


def test_switching_serving_away_from_mlx_clears_the_max_kv_size(window) -> None:
    set_scenario(window, {**MLX_SERVE, "serving": {"max_kv_size": 4096}})
    said: list[str] = []
    window.state.notice.connect(said.append)
    _framework(window, "llama.cpp")  # on the Mac too
    assert window.state.error is None, window.state.error
    assert window.state.scenario.framework == "llama.cpp"
    assert window.state.scenario.serving.max_kv_size is None
    assert not row_visible(find(window, "spin_serving_max_kv_size"))
    assert any("max KV size 4096" in s for s in said), said


def test_a_file_holding_a_refused_field_shows_it_beside_its_row(window) -> None:
    """Held under a framework that refuses it (an edit, a script's file): the row shows, with
    the refusal beside it, so it can be cleared there."""
    set_scenario(window, VLLM)
    spin = find(window, "spin_serving_max_kv_size")
    window.state.edit("serving.max_kv_size", 4096, immediate=True)
    assert window.state.error is not None and window.state.error.field == "serving.max_kv_size"
    assert row_visible(spin) and "mlx" in error_text(window, "spin_serving_max_kv_size")
    spin.setValue(None)  # blank: the whole context
    window.state.flush()
    assert window.state.error is None and window.state.scenario.serving.max_kv_size is None


def test_other_switches_bring_the_profile_defaults_only(window) -> None:
    """A switch that refuses nothing held makes the edits it made before the field (the
    profile's defaults, core/memory/techniques.py ``profile_edits``) and says nothing more."""
    from gpusizer.core.memory.techniques import profile_edits
    from gpusizer.gui.panels.framework_fields import framework_edits

    set_scenario(window, {**MLX_LORA, "framework": "huggingface", "hardware": {"gpu": "h100-sxm-80gb"}})
    said: list[str] = []
    window.state.notice.connect(said.append)
    for framework in ("torchtune", "unsloth", "deepspeed", "mlx"):
        assert framework_edits(window.state)(framework) == profile_edits(framework)
    _framework(window, "torchtune")
    assert window.state.error is None and window.state.scenario.framework == "torchtune"
    assert not any("cleared" in s for s in said)


def test_prefill_queue_shows_with_a_prefill_pool(window) -> None:
    box = find(window, "combo_disaggregated_prefill_queue")
    set_scenario(window, VLLM)
    assert not row_visible(box)
    set_scenario(window, SPLIT)
    assert row_visible(box) and box.currentData() is None
    assert "Dynamo" in box.toolTip() and "JetStream" in box.toolTip()
    rate = {**SPLIT, "serving": {**SPLIT["serving"], "load": "rate", "request_rate": 2.0}}
    set_scenario(window, rate)
    assert not row_visible(box)  # the stated arrivals' own split: not read


def test_prefill_queue_reaches_the_scenario_and_the_first_token(window) -> None:
    set_scenario(window, SPLIT)
    base = window.state.estimate.serving
    box = find(window, "combo_disaggregated_prefill_queue")
    box.setCurrentIndex(box.findData("shared"))
    window.state.flush()
    assert window.state.error is None, window.state.error
    assert window.state.scenario.serving.disaggregated.prefill_queue == "shared"
    sv = window.state.estimate.serving
    assert sv.disaggregated_ttft_seconds != base.disaggregated_ttft_seconds
    assert sv.disaggregated_tpot_seconds == base.disaggregated_tpot_seconds
    assert sv.ttft_seconds == base.ttft_seconds  # the aggregated answer
    assert mismatches(window.binder) == []


def test_a_kind_switch_takes_the_kinds_own_framework_and_release(window) -> None:
    """The release belongs to how a kind is done (gui/kind_switch.py ``kind_paths``): QLoRA's
    first visit takes its default framework with no release, instead of keeping MLX because the
    release held would be refused elsewhere; LoRA's settings come back with it."""
    held = {**MLX_LORA, "workload": {**MLX_LORA["workload"], "mlx_version": "0.29.0"}}
    set_scenario(window, held)
    kind = find(window, "combo_workload_kind")
    kind.setCurrentIndex(kind.findData("qlora"))
    window.state.flush()
    assert window.state.error is None, window.state.error
    assert window.state.scenario.framework == "huggingface"
    assert window.state.scenario.workload.mlx_version is None
    kind.setCurrentIndex(kind.findData("lora"))
    window.state.flush()
    assert window.state.scenario.framework == "mlx"
    assert window.state.scenario.workload.mlx_version == "0.29.0"
