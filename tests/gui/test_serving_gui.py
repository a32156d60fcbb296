"""Serving in the window: the Serving panel (inference only, the engine's defaults as special
text), the headline "N users at C tokens each", the memory chart's pool view and the users vs
context chart."""

from __future__ import annotations

from gpusizer.core.pipeline.scenario import parse_scenario
from tests.scenarios import vllm_serving

from .helpers import bar_labels, find
from .test_charts import make

VLLM_4090 = vllm_serving(gpu="rtx-4090-24gb", serving={"max_context": 16384})
LLAMA_70B = {
    "model": {"preset": "llama-3.1-70b"},
    "framework": "llama.cpp",
    "workload": {"kind": "inference"},
    "precision": {"weights": "gguf_q4_k_m"},
    "hardware": {"gpu": "rtx-4090-24gb"},
}


def _serving_panel(window):
    return next(p for p in window.panels if p.title == "Serving")


def test_serving_panel_shows_for_inference_with_engine_defaults(window):
    panel = _serving_panel(window)
    assert panel.box.isHidden()  # the default scenario trains (LoRA)
    window.state.edit_many({"workload.kind": "inference", "framework": "vllm"})
    window.state.flush()
    assert not panel.box.isHidden()
    fraction = find(window, "spin_serving_memory_fraction")
    assert fraction.specialValueText() == "vLLM default: 0.92"  # vllm 0.33.0 config/cache.py
    seqs = find(window, "spin_serving_max_sequences")
    assert seqs.specialValueText() == "vLLM default: 1,024"  # H100: >= 70 GiB, not A100
    versions = find(window, "combo_serving_engine_version")
    assert versions.findData("0.6.4") >= 0 and versions.itemData(0) is None


def test_serving_fields_edit_the_scenario(window):
    window.state.edit_many({"workload.kind": "inference", "framework": "vllm"})
    window.state.flush()
    find(window, "spin_serving_max_context").setValue(8192)
    window.state.flush()
    assert window.state.scenario.serving.max_context == 8192
    find(window, "spin_serving_max_context").setValue(None)  # back to the engine's default
    window.state.flush()
    assert window.state.scenario.serving.max_context is None
    combo = find(window, "combo_serving_engine_version")
    combo.setCurrentIndex(combo.findData("0.19.0"))
    assert window.state.scenario.serving.engine_version == "0.19.0"
    assert find(window, "spin_serving_memory_fraction").specialValueText().endswith("0.9")


def test_llama_cpp_shows_gpu_layers_and_the_headline_counts_users(window):
    window.state.set_scenario(parse_scenario(LLAMA_70B))
    assert not find(window, "spin_serving_gpu_layers").isHidden()
    text = window.summary.serving.text()
    assert "users at 1,280 tokens each" in text and "tokens/s" in text
    window.state.set_scenario(parse_scenario({**VLLM_4090, "serving": {}}))  # 131,072 default context
    assert "does not start" in window.summary.serving.text()
    assert "does not start" in window.summary.verdict.text()


def test_memory_chart_shows_the_pool_as_reserved(qtbot):
    chart = make(qtbot, "memory", VLLM_4090)
    assert bar_labels(chart) == ["reserved by vLLM"]
    assert chart.pool.budget_line.isVisible()
    assert "KV pool" in chart._title_text
    assert "of the KV pool" in chart.pool.label.toPlainText()
    offload = make(qtbot, "memory", LLAMA_70B)
    assert bar_labels(offload) == ["on the GPU"] and "system RAM" in offload._title_text


def test_users_vs_context_chart(qtbot):
    chart = make(qtbot, "capacity", VLLM_4090)
    c = chart.curve_data
    assert list(c.users) == sorted(c.users, reverse=True)  # fewer users as context grows
    assert chart.longest() is not None and c.users_at(1280) >= 16
    assert "your 16 fits" in chart._title_text
    rows = chart.data_rows()
    assert rows[0] == ["tokens_per_request", "requests_at_once"] and len(rows) > 10
    trains = make(qtbot, "capacity", {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "lora"}})
    assert trains.curve_data.engine  # a training scenario is shown as served


def test_a_version_between_releases_shows_as_itself(window):
    # vLLM 0.10.0 is not a documented release: its rules are 0.9.2's (core/engines.release; 0.9.2
    # is a row since its chat route stopped parsing the template per request,
    # core/registry/chat_template_parse.py), and the field shows the version the scenario names,
    # not "current release"
    window.state.set_scenario({**VLLM_4090, "serving": {"engine_version": "0.10.0"}})
    window.state.flush()
    combo = find(window, "combo_serving_engine_version")
    assert combo.currentData() == "0.10.0"
    assert any("defaults of release 0.9.2" in a for a in window.state.estimate.assumptions)


def test_prefix_and_speculative_fields_edit_the_scenario(window):
    """Prefix caching and speculative decoding from the panel: set, then back to off."""
    window.state.edit_many({"workload.kind": "inference", "framework": "vllm"})
    window.state.flush()
    hit = find(window, "spin_serving_prefix_hit_rate")
    assert not hit.isVisibleTo(window)
    find(window, "spin_serving_prefix_tokens").setValue(1024)
    window.state.flush()
    assert window.state.scenario.serving.prefix.shared_tokens == 1024
    assert hit.isVisibleTo(window)
    assert window.state.estimate.serving.prefix_cached_tokens > 0
    combo = find(window, "combo_serving_speculative")
    combo.setCurrentIndex(combo.findData("eagle3"))
    window.state.flush()
    assert window.state.estimate.serving.speculative_method == "eagle3"
    assert "eagle3: 3 draft tokens" in window.summary.serving.text()
    assert "prefix cache" in window.summary.serving.text()
    assert find(window, "spin_serving_acceptance").isVisibleTo(window)
    combo.setCurrentIndex(combo.findData(None))
    find(window, "spin_serving_prefix_tokens").setValue(None)
    window.state.flush()
    assert window.state.estimate.serving.speculative_method is None
    assert window.state.estimate.serving.prefix_cached_tokens == 0


def test_lora_fields_edit_the_scenario(window):
    window.state.edit_many({"workload.kind": "inference", "framework": "vllm"})
    window.state.flush()
    assert not find(window, "spin_serving_lora_loaded").isVisibleTo(window)
    find(window, "spin_serving_lora_adapters").setValue(8)
    window.state.flush()
    assert window.state.estimate.serving.lora_adapters == 8
    assert find(window, "spin_serving_lora_loaded").isVisibleTo(window)
    assert "LoRA" in window.summary.serving.text()
    find(window, "spin_serving_lora_active").setValue(0)
    window.state.flush()
    assert window.state.estimate.serving.lora_active == 0
    find(window, "spin_serving_lora_adapters").setValue(None)
    window.state.flush()
    assert window.state.estimate.serving.lora_adapters == 0


def test_kv_offload_field_needs_a_prefix(window):
    # without a prefix the tier is accepted (llm-d's tiered prefix cache) and nothing loads from it
    window.state.edit_many({"workload.kind": "inference", "framework": "vllm"})
    window.state.flush()
    find(window, "spin_serving_kv_offload").setValue(64.0)
    window.state.flush()
    assert window.state.error is None
    assert window.state.estimate.serving.kv_offload_load_seconds == 0
    assert window.state.estimate.serving.kv_offload_capacity_tokens > 0
    find(window, "spin_serving_prefix_tokens").setValue(512)
    window.state.flush()
    assert window.state.error is None
    assert window.state.estimate.serving.kv_offload_load_seconds > 0
    assert find(window, "spin_serving_kv_offload_bw").isVisibleTo(window)


def test_disaggregated_pools_from_the_panel(window):
    window.state.edit_many({"workload.kind": "inference", "framework": "vllm"})
    window.state.flush()
    find(window, "spin_serving_prefill_gpus").setValue(1)
    find(window, "spin_serving_decode_gpus").setValue(1)
    window.state.flush()
    assert window.state.error is None
    assert window.state.estimate.serving.disaggregated_decode_gpus == 1
    assert "split P/D" in window.summary.serving.text()


def test_prefill_tensor_from_the_panel(window):
    """The prefill pool's own tensor width: shown once a prefill pool is set."""
    window.state.edit_many({"workload.kind": "inference", "framework": "vllm", "parallelism.tensor": 2})
    window.state.flush()
    assert not find(window, "spin_serving_prefill_tensor").isVisibleTo(window)
    find(window, "spin_serving_prefill_gpus").setValue(2)
    find(window, "spin_serving_decode_gpus").setValue(2)
    find(window, "spin_serving_prefill_tensor").setValue(1)
    window.state.flush()
    assert window.state.error is None
    assert find(window, "spin_serving_prefill_tensor").isVisibleTo(window)
    assert window.state.scenario.serving.disaggregated.prefill_tensor == 1


def test_features_chart_draws_with_and_without(qtbot):
    """The features chart: two curves when a feature is set, the gain at the scenario's users."""
    scenario = {**VLLM_4090, "serving": {"max_context": 16384, "speculative": {"method": "eagle3"}}}
    chart = make(qtbot, "features", scenario)
    c = chart.data
    assert c.active == ("speculative",) and len(c.users) == len(c.without)
    assert c.with_features[0] > c.without[0]  # one user: speculative decoding helps most
    assert "with speculative" in chart._title_text
    plain = make(qtbot, "features", VLLM_4090)
    assert not plain.data.active and "no serving feature set" in plain._title_text


def test_features_chart_draws_the_split_beside_the_aggregated_curve(qtbot):
    """``serving.disaggregated``: the split's output tokens/s (its decode pool's) is a curve of
    its own beside the aggregated one, its two pools named in the legend and the title, and a
    column of its own in the chart's data; a scenario without a split keeps its two columns."""
    split = {"max_context": 16384, "disaggregated": {"prefill_gpus": 1, "decode_gpus": 1}}
    chart = make(qtbot, "features", {**VLLM_4090, "serving": split})
    c = chart.data
    assert len(c.split) == len(c.users) and c.split_gpus == (1, 1)
    # at 64 users the decode pool's one card holds those whose KV fits, the rest wait
    assert c.split[c.users.index(16)] > c.without[c.users.index(16)] > 0 and all(v > 0 for v in c.split)
    assert "split P/D on 1 prefill + 1 decode GPU:" in chart._title_text
    assert chart.data_rows()[0][-1] == "tokens_per_second_split"
    assert make(qtbot, "features", VLLM_4090).data_rows()[0] == [
        "users",
        "tokens_per_second_with",
        "tokens_per_second_without",
    ]


def test_max_kv_size_shows_for_mlx_only_and_caps_the_cache(window):
    """mlx-lm's --max-kv-size (core/memory/kv_cap.py): a field only where the engine has it."""
    window.state.set_scenario(parse_scenario({**VLLM_4090, "serving": {}}))
    assert not find(window, "spin_serving_max_kv_size").isVisibleTo(window)
    mlx = {
        "model": {"preset": "qwen3-8b"},
        "framework": "mlx",
        "workload": {"kind": "inference", "prompt_tokens": 32000},
        "hardware": {"gpu": "apple-m4-max-128gb"},
    }
    window.state.set_scenario(parse_scenario(mlx))
    spin = find(window, "spin_serving_max_kv_size")
    assert spin.isVisibleTo(window)
    whole = window.state.estimate.memory.kv_cache
    spin.setValue(4096)
    window.state.flush()
    assert window.state.scenario.serving.max_kv_size == 4096
    assert window.state.estimate.memory.kv_cache < whole / 4
