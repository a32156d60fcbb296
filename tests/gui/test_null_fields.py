"""Fields whose null is a choice of its own ("engine default", "auto", "not set"): when the
scenario goes back to null (Edit > Undo, a file opened without the field) the widget shows that
choice again, and the scenario holds null. Each such widget in the panels is listed in CASES,
and a test checks that the list covers every one the window builds (gui/binding.py
``shows_none``), so a new nullable field gets the same check.

Before the binder selected a combo box's None-data item for null, Undo left "off (eager)" on
screen in the CUDA graphs row while the scenario held null, and so for every combo box whose
"default" item carries None (engine version, load, speculative decoding)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QComboBox

from gpusizer.gui.binding import Binding, shows_none
from gpusizer.gui.size_list_field import SizeListField
from tests.core.test_zero3_sub_group import BASELINE
from tests.scenarios import MOE_SPLIT, VLLM, vllm_serving
from tests.scenarios import RL_SPLIT as RL

_GIB, _MIB = 2**30, 2**20
LORA: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "workload": {"kind": "lora"},
    "hardware": {"gpu": "h100-sxm-80gb"},
}
CUSTOM = {
    **LORA,
    "model": {
        "name": "Custom",
        "layers": 32,
        "hidden_size": 4096,
        "attention_heads": 32,
        "ffn_hidden_size": 14336,
        "vocab_size": 128256,
    },
}
LLAMA_CPP = {**VLLM, "framework": "llama.cpp", "precision": {"weights": "gguf_q4_k_m"}}
LLAMA_MOE = {**LLAMA_CPP, "model": {"preset": "qwen3-30b-a3b"}}
MLX = {**VLLM, "framework": "mlx", "hardware": {"gpu": "apple-m4-max-128gb"}}
MLX_LORA = {**LORA, "framework": "mlx", "hardware": {"gpu": "apple-m4-max-128gb"}}
TRT = {**VLLM, "framework": "tensorrt-llm"}
V0 = {**VLLM, "serving": {"engine_version": "0.6.4"}}
PREFIX = {**VLLM, "serving": {"prefix": {"shared_tokens": 1024}}}
SPEC = {**VLLM, "serving": {"speculative": {"method": "ngram"}}}
TREE = {**VLLM, "serving": {"speculative": {"method": "eagle"}}}  # SGLang's tree fields: EAGLE's
LORAS = {**VLLM, "serving": {"lora": {"adapters": 4}}}
OFFLOAD = {**VLLM, "serving": {"prefix": {"shared_tokens": 1024}, "kv_offload": {"capacity_gb": 64}}}
SPLIT_SERVE = {**VLLM, "serving": {"disaggregated": {"prefill_gpus": 1, "decode_gpus": 1}}}
RL_SPEC = {**RL, "rl": {**RL["rl"], "rollout": {**RL["rl"]["rollout"], "speculative": {"method": "ngram"}}}}
RL_TREE = {**RL, "rl": {**RL["rl"], "rollout": {**RL["rl"]["rollout"], "speculative": {"method": "eagle"}}}}
MOE_TRAIN = {  # Qwen3-30B-A3B at NeMo RL v0.4.0's training layout: TP 2, EP 8 on 16 GPUs
    "model": {"preset": "qwen3-30b-a3b"},
    "framework": "megatron",
    "workload": {"kind": "pretraining"},
    "hardware": {"gpu": "h100-sxm-80gb"},
    "parallelism": {"tensor": 2, "expert": 8, "data": 8, "sequence_parallel": True},
}
DEEPSPEED = {**LORA, "framework": "deepspeed", "workload": {"kind": "pretraining"}}
# DeepSpeedExamples' bf16_master_weight baseline, ZeRO-3 on 4 H100 (the sub-group field's run)
ZERO3: dict[str, Any] = {
    **BASELINE["recipe_scenario"],
    "parallelism": {
        k: v for k, v in BASELINE["recipe_scenario"]["parallelism"].items() if k != "zero_sub_group_size"
    },
}
LORA_DPO = {**LORA, "workload": {"kind": "lora", "preference": {"method": "dpo"}}}
MOE_EP = vllm_serving("qwen3-30b-a3b", parallelism={"tensor": 2, "attention_data": 2})  # experts over 2
SGLANG_DEEPEP = {
    **vllm_serving("qwen3-30b-a3b", parallelism={"tensor": 2, "attention_data": 2, "expert": 2}),
    "framework": "sglang",
    "serving": {"moe_a2a_backend": "deepep_low_latency"},
}


class Case(NamedTuple):
    """``path`` is null in ``base``; ``value`` is one the scenario accepts there once the
    ``partner`` field (one that must be set with it) holds its value too."""

    path: str
    base: dict[str, Any]
    value: Any
    partner: tuple[str, Any] | None = None


SERVING = (
    Case("serving.engine_version", VLLM, "0.19.0"),
    Case("serving.memory_fraction", VLLM, 0.85),
    Case("serving.max_context", VLLM, 8192),
    Case("serving.max_sequences", VLLM, 64),
    Case("serving.prefill_chunk_tokens", VLLM, 2048),
    Case("serving.kv_block_tokens", VLLM, 32),
    Case("serving.concurrency", VLLM, 8),
    Case("serving.load", VLLM, "burst"),
    Case("serving.request_rate", VLLM, 2.0),
    Case("serving.requests", VLLM, 64),  # the run's rows (gui/panels/serving_load_rows.py)
    Case("serving.length_spread", VLLM, 0.5),
    Case("serving.mixed_prefill", VLLM, False),
    Case("serving.gpu_layers", LLAMA_CPP, 20),
    Case("serving.cpu_moe_layers", LLAMA_MOE, 24),
    Case("serving.cuda_graphs", VLLM, False),
    Case("serving.cuda_graph_batch_sizes", TRT, (1, 2, 4, 8)),
    Case("serving.async_output", V0, False),
    Case("serving.expert_balance", MOE_EP, 0.7),
    Case("serving.routing_simulation", MOE_EP, "uniform_random"),
    Case("serving.attention_backend", VLLM, "TRITON_ATTN"),
    Case("serving.frontend", VLLM, "ray_serve_llm"),
    Case("serving.moe_backend", MOE_EP, "flashinfer_cutlass"),
    Case("serving.redundant_experts", MOE_EP, 2),
    Case("serving.moe_a2a_backend", MOE_EP, "deepep_normal"),
    Case("serving.two_batch_overlap", SGLANG_DEEPEP, True),
    # SGLang's default Triton MoE tiles: null is "a tuned file" (docs/scenario-format.md)
    Case("serving.moe_default_config", {**MOE_EP, "framework": "sglang"}, True),
    Case("serving.moe_a2a_dispatch_tokens", SGLANG_DEEPEP, 256),
    Case("serving.step_latency_seconds", VLLM, 0.002),
    Case("serving.max_kv_size", MLX, 4096),
    Case("hardware.host_cpu", VLLM, "grace"),
    Case("serving.prefix.shared_tokens", VLLM, 1024),
    Case("serving.prefix.hit_rate", PREFIX, 0.5),
    Case("serving.prefix.turns", VLLM, 5),  # a multi-turn chat: each history its own prefix
    Case("serving.speculative.method", VLLM, "ngram"),
    Case("serving.speculative.num_tokens", SPEC, 3),
    Case("serving.speculative.acceptance_rate", SPEC, 0.6),
    Case("serving.speculative.topk", TREE, 1),  # 1: a chain, valid alone
    Case("serving.speculative.num_draft_tokens", TREE, 3),  # EAGLE's 2 drafts + 1: a chain's
    Case("serving.lora.adapters", VLLM, 4),
    Case("serving.lora.max_loaded", LORAS, 2),
    Case("serving.lora.rank", LORAS, 8),
    Case("serving.lora.active", LORAS, 2),
    Case("serving.kv_offload.capacity_gb", PREFIX, 64.0),
    Case("serving.kv_offload.bandwidth_gb_per_s", OFFLOAD, 100.0),
    Case("serving.kv_offload.medium", OFFLOAD, "disk"),  # null: host memory (offload_medium_row.py)
    # the two pools are set together: either alone is refused (decode_gpus: required)
    Case("serving.disaggregated.prefill_gpus", VLLM, 1, ("serving.disaggregated.decode_gpus", 2)),
    Case("serving.disaggregated.decode_gpus", VLLM, 1, ("serving.disaggregated.prefill_gpus", 2)),
    Case("serving.disaggregated.prefill_tensor", SPLIT_SERVE, 1),
    Case("serving.disaggregated.prefill_max_sequences", SPLIT_SERVE, 1),
    Case("serving.disaggregated.link_gb_per_s", SPLIT_SERVE, 25.0),
    Case("serving.disaggregated.connector", SPLIT_SERVE, "vllm-nixl"),
    Case("serving.disaggregated.arrival_burstiness", SPLIT_SERVE, 4.0),
    Case("serving.disaggregated.opening_burst", SPLIT_SERVE, True),
    Case("serving.disaggregated.prefill_queue", SPLIT_SERVE, "shared"),  # Dynamo's pull queue
    Case("serving.disaggregated.prefill_attention_data", MOE_SPLIT, 2),
    # experts spread over the prefill replica only with its own attention-DP ranks
    Case(
        "serving.disaggregated.prefill_expert",
        MOE_SPLIT,
        2,
        ("serving.disaggregated.prefill_attention_data", 2),
    ),
    Case("targets.users", VLLM, 50),
    Case("targets.min_tokens_per_second_per_user", VLLM, 10.0),
    Case("targets.max_ttft_seconds", VLLM, 1.0),
)
TRAINING = (
    Case("model.kv_heads", CUSTOM, 8),
    Case("model.head_dim", CUSTOM, 128),
    Case("model.mtp_layers", CUSTOM, 1),  # a custom block states none: unknown
    Case("workload.global_batch_size", LORA, 64),
    # Megatron-Core's expert TP: null is the TP (docs/scenario-format.md)
    Case("parallelism.expert_tensor", MOE_TRAIN, 1),
    # DeepSpeed's overlap_comm: null is its default for the stage (docs/scenario-format.md)
    Case("parallelism.overlap_comm", DEEPSPEED, True),
    # ZeRO-3's step by sub-groups: null is "not priced" (docs/scenario-format.md)
    Case("parallelism.zero_sub_group_size", ZERO3, 10**9),
    Case("workload.training_tokens", LORA, 10**9),
    Case("workload.lora_layers", LORA, 16),
    # MLX's own release: null is v0.24.0's rule (gui/panels/mlx_release_row.py)
    Case("workload.mlx_version", MLX_LORA, "0.29.0"),
    # the releases that set a MoE's expert adapters: null is the answer before each field
    # (gui/panels/lora_release_rows.py)
    Case("workload.transformers_version", {**LORA, "model": {"preset": "qwen3-30b-a3b"}}, "5.1.0"),
    Case(
        "workload.unsloth_version",
        {**LORA, "framework": "unsloth", "model": {"preset": "gpt-oss-20b"}},
        "2026.7.2",
    ),
    Case("workload.loss_chunks", LORA, 8),
    # a preference fine-tune: off is null; its reference's null is TRL's default
    Case("workload.preference", LORA, "dpo"),
    Case("workload.preference.reference", LORA_DPO, "precomputed"),
    Case("hardware.host_memory_bytes", LORA, 512 * _GIB),
    Case("hardware.gpu.price_per_hour", LORA, 2.5),
    Case("targets.max_training_days", LORA, 30.0),
    Case("targets.max_purchase_usd", LORA, 50_000.0),
    Case("compute.mfu", LORA, 0.4),
    Case("overhead.cuda_context_bytes", LORA, 500 * _MIB),
    Case("overhead.workspace_bytes", LORA, 256 * _MIB),
    Case("overhead.allocator_fraction", LORA, 0.05),
    Case("precision.master_weights", {**LORA, "precision": {"master_weights": None}}, "fp32"),
    Case("rl.overlap", RL, False),
    Case("rl.framework", RL, "verl"),
    Case("rl.framework_version", RL, "0.6.0", ("rl.framework", "verl")),
    Case("rl.rollout.weights", RL, "fp8"),
    Case("rl.sync_transport", RL, "collective"),
    Case("rl.refit_gather", RL, "full"),
    Case("rl.reference.model", RL, "qwen2.5-7b"),
    Case("rl.rollout.max_batched_tokens", RL, 4096),
    Case("rl.rollout.engine_version", RL, "0.8.3"),
    Case("rl.critic.model", RL, "qwen2.5-7b"),
    Case("rl.critic.remove_padding", RL, False),  # null: the framework's (rl_critic_padding.py)
    Case("rl.reward.model", RL, "qwen2.5-7b"),
    Case("rl.reward.verify_workers", RL, 8),
    # the launcher's evaluation inside the step timer (gui/panels/rl_eval_rows.py)
    Case("rl.eval.every_steps", RL, 20),
    Case("rl.eval.prompts", RL, 30, ("rl.eval.every_steps", 20)),
    Case("rl.eval.response_tokens", RL, 4096, ("rl.eval.every_steps", 20)),
    Case("rl.eval.max_response_tokens", RL, 16384, ("rl.eval.every_steps", 20)),
    # the RL panel's collapsible groups (gui/panels/rl_sections.py)
    Case("rl.policy.mini_batch_size", RL, 128),
    Case("rl.policy.micro_batch_size", RL, 2),
    Case("rl.policy.log_prob_micro_batch_size", RL, 8),
    Case("rl.prompt_cap", RL, 2048),  # null: the mean prompt (core/pipeline/rl_tokens.py)
    Case("rl.policy.hf_layer_ops", RL, "hf-fsdp1"),
    Case("rl.reference.enabled", RL, False),
    Case("rl.rollout.memory_fraction", RL, 0.5),
    Case("rl.rollout.max_sequences", RL, 512),
    Case("rl.rollout.cuda_graphs", RL, False),
    Case("rl.rollout.moe_backend", RL, "triton"),
    Case("rl.rollout.serves_adapter", RL, False),
    Case("rl.rollout.speculative.method", RL, "ngram"),
    Case("rl.rollout.speculative.num_tokens", RL_SPEC, 3),
    Case("rl.rollout.speculative.acceptance_rate", RL_SPEC, 0.6),
    Case("rl.rollout.speculative.topk", RL_TREE, 1),
    Case("rl.rollout.speculative.num_draft_tokens", RL_TREE, 3),
    Case("rl.host_link_gb_per_s", RL, 32.0),
    # a buyer's rows (gui/panels/buyer_rows.py): null is the device's share, the GPU's network,
    # the share from the GPU count, the activations' dtype
    Case("hardware.gpu_memory_fraction", MLX_LORA, 0.9),
    Case("hardware.network_gb_per_s", LORA, 25.0),
    Case("compute.effective_time_share", LORA, 0.5),
    Case("precision.matmuls", LORA, "fp8"),
)
CASES = SERVING + TRAINING


def _binding(window: Any, path: str) -> Binding:
    b = window.binder.binding_for(path)
    assert b is not None and b.path == path, f"no widget bound to {path}"
    return b


def _null_shown(b: Binding) -> str:
    """Empty when ``b``'s widget shows its null choice and would push null, else what it shows."""
    w: Any = b.widget
    if isinstance(w, QComboBox):
        ok = w.currentData() is None
        shown = w.currentText()
    elif isinstance(w, SizeListField):
        ok, shown = w.value() is None and w.edit.text() == "", w.edit.text()
    else:
        shown = w.lineEdit().text()
        ok = w.value() is None and shown == w.specialValueText()
    return "" if ok and b.to_state(b.getter()) is None else repr(shown)


def _value_shown(b: Binding, value: Any) -> bool:
    got = b.getter()
    return bool(got == value or (isinstance(value, tuple) and got is not None and tuple(got) == value))


def _set(b: Binding, value: Any) -> None:
    """Edit through the widget, as a user does."""
    w: Any = b.widget
    if isinstance(w, QComboBox):
        w.setCurrentIndex(w.findData(value))
    else:
        w.setValue(value)


def _check(window: Any, case: Case, file: Path) -> list[str]:
    """Set ``case.value``, Undo, Redo, Undo, then open a file without it: what went wrong."""
    state, b = window.state, _binding(window, case.path)
    undo, redo = (window.findChild(QAction, n) for n in ("action_undo", "action_redo"))
    state.set_scenario(case.base)
    if state.value(case.path) is not None or _null_shown(b):
        return [f"{case.path}: not null in its base ({state.value(case.path)!r}, shows {_null_shown(b)})"]
    if case.partner is not None:  # refused alone: the form keeps it until the pair is valid
        _set(_binding(window, case.partner[0]), case.partner[1])
        state.flush()
    _set(b, case.value)
    state.flush()
    if state.error is not None or not _value_shown(b, case.value):
        return [f"{case.path}: {case.value!r} not taken ({state.error})"]
    out = []
    undo.trigger()
    if state.value(case.path) is not None or _null_shown(b):
        out.append(f"{case.path}: after Undo holds {state.value(case.path)!r}, shows {_null_shown(b)}")
    redo.trigger()
    if not _value_shown(b, case.value):
        out.append(f"{case.path}: after Redo shows {b.getter()!r}, not {case.value!r}")
    file.write_text(json.dumps(case.base), encoding="utf-8")
    assert window.files.open_path(file, ask=False)
    if state.value(case.path) is not None or _null_shown(b):
        out.append(f"{case.path}: after Open holds {state.value(case.path)!r}, shows {_null_shown(b)}")
    return out


def test_every_widget_that_can_show_null_is_checked(window) -> None:
    nullable = {b.path for b in window.binder.bindings if shows_none(b.widget)}
    assert nullable == {c.path for c in CASES}


@pytest.mark.parametrize("cases", [SERVING, TRAINING], ids=["serving", "training"])
def test_undo_and_open_bring_back_the_null_choice(window, tmp_path, cases) -> None:
    failures = [f for case in cases for f in _check(window, case, tmp_path / "base.gpusizer.json")]
    assert failures == []


def test_off_policy_steps_returns_to_its_default_of_one(window, tmp_path) -> None:
    """``rl.off_policy_steps`` is not nullable (default 1, docs/scenario-format.md): Undo and a
    file without it show 1 again through the same binder path."""
    state = window.state
    spin: Any = _binding(window, "rl.off_policy_steps").widget
    state.set_scenario(RL)
    spin.setValue(8)
    state.flush()
    assert state.scenario.rl.off_policy_steps == 8
    window.findChild(QAction, "action_undo").trigger()
    assert state.scenario.rl.off_policy_steps == 1 and spin.value() == 1
    window.findChild(QAction, "action_redo").trigger()
    assert spin.value() == 8
    path = tmp_path / "rl.gpusizer.json"
    path.write_text(json.dumps(RL), encoding="utf-8")
    assert window.files.open_path(path, ask=False)
    assert state.scenario.rl.off_policy_steps == 1 and spin.value() == 1


def test_the_binder_pushes_null_to_plain_qt_widgets_without_an_edit(qtbot) -> None:
    """The binder's own path, on plain Qt widgets: null selects the None-data item wherever it
    sits (not a separator, which has no data either), a spin box's special value text shows at
    its minimum, and neither push emits a signal, so a refresh records no edit."""
    from PySide6.QtWidgets import QSpinBox

    from gpusizer.gui.binding import Binder
    from gpusizer.gui.state import ScenarioState

    state = ScenarioState(VLLM, merge_ms=0)
    binder = Binder(state)
    box = QComboBox()
    box.addItem("on", True)
    box.insertSeparator(1)
    box.addItem("off", False)
    box.addItem("engine default", None)
    spin = QSpinBox()
    spin.setRange(0, 4096)
    spin.setSpecialValueText("engine default")
    for w in (box, spin):
        qtbot.addWidget(w)
    binder.bind(box, "serving.cuda_graphs")
    binder.bind(spin, "serving.max_sequences")
    assert box.currentIndex() == 3 and spin.value() == 0 and spin.text() == "engine default"
    box.setCurrentIndex(2)
    spin.setValue(64)
    state.flush()
    assert state.scenario.serving.cuda_graphs is False and state.scenario.serving.max_sequences == 64
    emitted: list[object] = []
    box.currentIndexChanged.connect(emitted.append)
    spin.valueChanged.connect(emitted.append)
    steps = state.undo_stack.count()
    state.undo_stack.undo()
    state.undo_stack.undo()
    assert state.scenario.serving.cuda_graphs is None and state.scenario.serving.max_sequences is None
    assert box.currentIndex() == 3 and spin.value() == 0 and spin.text() == "engine default"
    assert emitted == [] and state.undo_stack.count() == steps  # shown, not edited
    state.shutdown()


def test_a_recipe_or_kind_switch_that_sets_null_shows_the_null_choice(window) -> None:
    """Presets that come with a switch: a framework's recipe defaults (torchtune keeps no fp32
    master copy: ``FrameworkProfile.scenario_defaults``) and a kind's own defaults on its first
    visit (gui/kind_switch.py) set fields back to null; the widgets follow, and Undo brings the
    values back."""
    state = window.state
    undo, redo = (window.findChild(QAction, n) for n in ("action_undo", "action_redo"))
    state.set_scenario({**LORA, "precision": {"master_weights": "fp32"}, "workload": {"kind": "lora"}})
    master = _binding(window, "precision.master_weights")
    framework: Any = _binding(window, "framework").widget
    framework.setCurrentIndex(framework.findData("torchtune"))
    assert state.scenario.framework == "torchtune" and state.scenario.precision.master_weights is None
    assert _null_shown(master) == ""
    undo.trigger()
    assert master.getter() == "fp32" and state.scenario.precision.master_weights == "fp32"
    redo.trigger()
    assert _null_shown(master) == ""
    state.set_scenario({**LORA, "workload": {"kind": "lora", "lora_layers": 16, "loss_chunks": 8}})
    kind: Any = _binding(window, "workload.kind").widget
    kind.setCurrentIndex(kind.findData("qlora"))  # first visit: QLoRA's own defaults
    chunks, layers = _binding(window, "workload.loss_chunks"), _binding(window, "workload.lora_layers")
    assert state.scenario.workload.loss_chunks is None and _null_shown(chunks) == ""
    assert state.scenario.workload.lora_layers is None and _null_shown(layers) == ""
    kind.setCurrentIndex(kind.findData("lora"))  # LoRA's settings come back
    assert chunks.getter() == 8 and layers.getter() == 16
    undo.trigger()
    assert state.scenario.workload.kind == "qlora" and _null_shown(chunks) == ""
