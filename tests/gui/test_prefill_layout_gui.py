"""Fields of the prefill pool's own layout and of the RL policy in the window
(docs/scenario-format.md): ``serving.disaggregated.prefill_attention_data`` and
``.prefill_expert`` in the Serving panel, shown once a prefill pool is set where the engine has
attention data parallelism and the model routes experts; ``rl.policy.moe_permute_fusion`` in
the RL roles panel, shown for a MoE policy that Megatron or Megatron-Bridge trains. Each edit
reaches the scenario, and a bad value shows its message beside its field while the scenario
keeps its last valid value."""

from __future__ import annotations

from typing import Any

from tests.scenarios import MOE_SPLIT

from .helpers import error_text, find, mismatches, open_rl_sections, set_scenario

# Qwen3-30B-A3B GRPO under Megatron with short sequences at micro-batch 1 on a Grace host, whose
# eager MoE layers the host paces (core/speed/train_host.py)
RL_MOE: dict[str, Any] = {
    "model": {"preset": "qwen3-30b-a3b"},
    "workload": {"kind": "rl", "micro_batch_size": 1},
    "framework": "megatron",
    "hardware": {"gpu": "h100-sxm-80gb", "host_cpu": "grace"},
    "parallelism": {"tensor": 2, "expert": 4, "data": 4, "recompute": "full"},
    "rl": {"prompt_tokens": 128, "rollout": {"tensor": 4, "prompts_per_step": 64, "response_tokens": 128}},
}
ATTN, EXPERT = "spin_serving_prefill_attention_data", "spin_serving_prefill_expert"


def _shown(window: Any, name: str) -> bool:
    return bool(find(window, name).isVisibleTo(window))


def test_prefill_layout_rows_show_where_they_apply(window) -> None:
    set_scenario(window, {**MOE_SPLIT, "serving": {}})
    assert not _shown(window, ATTN) and not _shown(window, EXPERT)  # no prefill pool
    set_scenario(window, MOE_SPLIT)
    assert _shown(window, ATTN) and _shown(window, EXPERT)
    assert find(window, ATTN).specialValueText() == "the layout's"
    assert "enable_attention_dp" in find(window, ATTN).toolTip()
    dense = {**MOE_SPLIT, "model": {"preset": "llama-3.1-8b"}}
    set_scenario(window, dense)
    assert not _shown(window, ATTN) and not _shown(window, EXPERT)  # no experts to spread
    # llama.cpp runs no P/D split (core/registry/serving_support.py): refused beside the pool
    set_scenario(window, MOE_SPLIT)
    window.state.edit_many({"framework": "llama.cpp", "precision.weights": "gguf_q4_k_m"})
    window.state.flush()
    assert window.state.error is not None
    assert window.state.error.field == "serving.disaggregated.prefill_gpus"
    assert not _shown(window, ATTN)  # nor attention data parallelism


def test_prefill_attention_dp_and_experts_reach_the_scenario(window) -> None:
    set_scenario(window, MOE_SPLIT)
    base = window.state.estimate.serving.disaggregated_ttft_seconds
    find(window, ATTN).setValue(2)
    window.state.flush()
    find(window, EXPERT).setValue(2)
    window.state.flush()
    assert window.state.error is None, window.state.error
    split = window.state.scenario.serving.disaggregated
    assert split.prefill_attention_data == 2 and split.prefill_expert == 2
    assert mismatches(window.binder) == []
    # each prefill rank now runs TP 1 on its own requests: its own step model, another first token
    assert window.state.estimate.serving.disaggregated_ttft_seconds != base
    assert "attention DP 2, EP 2" in window.summary.serving.text()


def test_a_bad_prefill_layout_shows_beside_its_field(window) -> None:
    wide = {"prefill_gpus": 4, "decode_gpus": 4}
    set_scenario(window, {**MOE_SPLIT, "parallelism": {"tensor": 4}, "serving": {"disaggregated": wide}})
    find(window, ATTN).setValue(3)  # does not divide the prefill replica's TP 4
    window.state.flush()
    message = error_text(window, ATTN)
    assert "must divide the prefill replica's tensor (prefill_tensor) (4)" in message, message
    assert window.state.scenario.serving.disaggregated.prefill_attention_data is None  # kept
    find(window, ATTN).setValue(None)
    # experts EP inside the pool's TP 4 is a layout the engines run (docs/evidence/serving.md
    # section 62); 3 divides neither the pool's ranks nor its TP
    find(window, EXPERT).setValue(3)
    window.state.flush()
    assert "allowed: 1, 2, 4" in error_text(window, EXPERT), error_text(window, EXPERT)
    assert window.state.scenario.serving.disaggregated.prefill_expert is None  # kept
    assert error_text(window, ATTN) == ""
    find(window, EXPERT).setValue(None)
    window.state.flush()
    assert window.state.error is None and error_text(window, EXPERT) == ""
    find(window, EXPERT).setValue(2048)  # above the schema's 1-1024
    window.state.flush()
    assert "1024" in error_text(window, EXPERT).replace(",", ""), error_text(window, EXPERT)
    assert window.state.scenario.serving.disaggregated.prefill_expert is None


def test_moe_permute_fusion_from_the_rl_panel(window) -> None:
    set_scenario(window, RL_MOE)
    open_rl_sections(window)  # the knob sits in a collapsible group
    box = find(window, "check_rl_moe_permute_fusion")
    assert box.isVisibleTo(window) and not box.isChecked()
    unfused = window.state.estimate.rl["time_per_step_seconds"]
    assert "grpo_math_1B.yaml" in box.toolTip()
    box.setChecked(True)
    window.state.flush()
    assert window.state.error is None, window.state.error
    assert window.state.scenario.rl.policy.moe_permute_fusion is True
    # fewer host ops a MoE layer: the host-paced passes end sooner (core/speed/train_host.py)
    assert window.state.estimate.rl["time_per_step_seconds"] < unfused
    set_scenario(window, {**RL_MOE, "framework": "fsdp", "parallelism": {"data": 8, "zero_stage": 3}})
    assert not box.isVisibleTo(window)  # FSDP: no host-op inventory
    set_scenario(
        window, {**RL_MOE, "model": {"preset": "qwen2.5-7b"}, "parallelism": {"tensor": 2, "data": 4}}
    )
    assert not box.isVisibleTo(window)  # a dense policy: no MoE layer to permute for
    held = {**RL_MOE, "framework": "fsdp", "parallelism": {"data": 8, "zero_stage": 3}}
    set_scenario(window, {**held, "rl": {**RL_MOE["rl"], "policy": {"moe_permute_fusion": True}}})
    assert box.isVisibleTo(window) and box.isChecked()  # held: shown, so it can be cleared
