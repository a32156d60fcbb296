"""Training techniques as scenario fields: validation, profile defaults, the report's
assumptions and host memory, sweeps and variants with them, and the advisor turning them on.
(The numbers themselves are checked against measurements in test_peft_measured.py,
test_techniques_measured.py and test_published_training.py.)"""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import ScenarioError, estimate_report
from gpusizer.core.memory.training import stage_phases
from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.params import count_parameters
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.optimizers import OPTIMIZER_KINDS
from gpusizer.core.sizing.solver import plan
from gpusizer.core.views.sweep import sweep, vary
from gpusizer.core.views.variants import variants

GiB = 2**30
L8 = {"preset": "llama-3.1-8b"}


def _report(**blocks: Any) -> dict[str, Any]:
    return estimate_report({"model": L8, **blocks})


def test_defaults_are_the_contract_defaults() -> None:
    sc = _report()["scenario"]
    assert sc["workload"]["loss"] == "full" and sc["workload"]["loss_chunks"] is None
    assert sc["workload"]["lora_dropout"] == 0.0 and sc["workload"]["kbit_prepare"] is False
    assert sc["parallelism"]["optimizer_in_backward"] is False
    assert sc["parallelism"]["activation_offload"] == "none"
    assert sc["hardware"]["host_memory_bytes"] is None
    assert _report()["host_memory_bytes"] == 0


@pytest.mark.parametrize(
    ("blocks", "field"),
    [
        ({"workload": {"loss": "linear"}}, "workload.loss"),
        ({"workload": {"loss_chunks": 0}}, "workload.loss_chunks"),
        ({"workload": {"lora_dropout": 1.0}}, "workload.lora_dropout"),
        ({"parallelism": {"activation_offload": "disk"}}, "parallelism.activation_offload"),
        ({"parallelism": {"activation_offload": "checkpoints"}}, "parallelism.activation_offload"),
        (
            {"parallelism": {"optimizer_in_backward": True}, "workload": {"global_batch_size": 8}},
            "parallelism.optimizer_in_backward",
        ),
        ({"precision": {"optimizer": "paged_lion"}}, "precision.optimizer"),
        ({"hardware": {"host_memory_bytes": 0}}, "hardware.host_memory_bytes"),
    ],
)
def test_bad_technique_names_the_field(blocks: dict[str, Any], field: str) -> None:
    with pytest.raises(ScenarioError) as err:
        _report(**blocks)
    assert err.value.field == field


def test_paged_optimizers_are_registered() -> None:
    assert {"paged_adamw", "paged_adamw_8bit"} <= set(OPTIMIZER_KINDS)
    with pytest.raises(ScenarioError, match="paged_adamw_8bit"):
        _report(precision={"optimizer": "nope"})


def test_profile_defaults_fill_only_what_is_left_out() -> None:
    # torchtune's recipe defaults (core/frameworks.py) fill the echo; a field the user set stays
    rep = _report(framework="torchtune", workload={"kind": "lora"}, precision={"master_weights": "fp32"})
    sc = rep["scenario"]
    assert sc["precision"]["master_weights"] == "fp32"
    assert sc["precision"]["optimizer_states"] == "bf16"
    # recipe configs since torchtune v0.6.0 (PR #2531): LinearCrossEntropyLoss
    assert sc["workload"]["loss"] == "linear_chunked" and sc["parallelism"]["recompute"] == "full"
    again = estimate_report(sc)
    assert again["scenario"] == sc and again["per_gpu"] == rep["per_gpu"]
    unsloth = _report(framework="unsloth", workload={"kind": "qlora"})["scenario"]
    assert unsloth["workload"]["loss"] == "fused"
    assert unsloth["parallelism"]["activation_offload"] == "checkpoints"


def test_assumptions_name_each_technique() -> None:
    rep = _report(
        workload={"kind": "qlora", "loss": "chunked", "lora_dropout": 0.05, "kbit_prepare": True},
        precision={"optimizer": "paged_adamw_8bit"},
        parallelism={"recompute": "full", "activation_offload": "checkpoints", "optimizer_in_backward": True},
    )
    text = " | ".join(rep["assumptions"])
    for phrase in (
        "chunked cross-entropy",
        "LoRA dropout 0.05",
        "prepare_model_for_kbit",
        "optimizer step in backward",
        "8-bit optimizer states",
        "paged optimizer states",
        "activation offload",
        "host RAM",
    ):
        assert phrase in text


def test_paged_states_leave_the_gpu_for_host_memory() -> None:
    # bitsandbytes pages the states of tensors of 1e5+ elements (all of Llama 3.1 8B's
    # matrices; its 4,096-wide norms stay): 2 x (1 + 4/256) B per parameter in host RAM.
    eight = _report(
        workload={"kind": "full_finetune"}, precision={"optimizer": "adamw_8bit", "master_weights": None}
    )
    paged = _report(
        workload={"kind": "full_finetune"},
        precision={"optimizer": "paged_adamw_8bit", "master_weights": None},
    )
    assert paged["per_gpu"]["optimizer"] + paged["host_memory_bytes"] == pytest.approx(
        eight["per_gpu"]["optimizer"], rel=1e-9
    )
    assert paged["per_gpu"]["optimizer"] < 0.001 * eight["per_gpu"]["optimizer"]
    assert paged["host_memory"]["per_gpu_bytes"] == paged["host_memory_bytes"]


def test_host_ram_that_does_not_suffice_is_said() -> None:
    blocks = {
        "workload": {"kind": "full_finetune"},
        "precision": {"optimizer": "paged_adamw", "master_weights": None},
        "parallelism": {"data": 8},
    }
    ok = _report(**blocks, hardware={"host_memory_bytes": 2**40})
    short = _report(**blocks, hardware={"host_memory_bytes": 16 * GiB})
    assert ok["host_memory"]["fits"] is True and short["host_memory"]["fits"] is False
    assert short["host_memory"]["per_node_bytes"] == 8 * short["host_memory_bytes"]
    assert any("host RAM does not suffice" in a for a in short["assumptions"])
    assert _report(**blocks)["host_memory"]["fits"] is None  # RAM not given: not checked


def test_offload_moves_layer_inputs_to_host() -> None:
    base = {"workload": {"kind": "lora", "sequence_length": 8192}, "parallelism": {"recompute": "full"}}
    kept = _report(**base)
    off = _report(
        workload=base["workload"], parallelism={"recompute": "full", "activation_offload": "checkpoints"}
    )
    layers = 32 * 8192 * 4096 * 2  # 32 layer inputs in bf16
    assert off["host_memory_bytes"] == pytest.approx(layers, rel=1e-9)
    assert kept["per_gpu"]["activations"] - off["per_gpu"]["activations"] == pytest.approx(
        layers * 31 / 32, rel=1e-9
    )


SWEPT = [
    {
        "workload": {"kind": "lora", "loss": "chunked", "lora_dropout": 0.1},
        "parallelism": {"recompute": "full", "activation_offload": "checkpoints"},
    },
    {
        "workload": {"kind": "full_finetune", "loss": "chunked", "compile_loss": True},
        "precision": {"optimizer": "paged_adamw_8bit", "master_weights": None},
        "parallelism": {"recompute": "full", "optimizer_in_backward": True},
    },
    {"workload": {"kind": "qlora", "kbit_prepare": True, "lora_dropout": 0.05}, "framework": "torchtune"},
    {"workload": {"kind": "lora", "loss": "fused"}},  # not one polynomial: the slow path
    {"model": {"preset": "gemma-2-9b"}, "workload": {"kind": "lora"}},  # window 4096
]


@pytest.mark.parametrize("blocks", SWEPT)
@pytest.mark.parametrize("axis", ["sequence_length", "batch_size"])
def test_sweeps_with_techniques_match_direct_estimates(blocks: dict[str, Any], axis: str) -> None:
    scenario = {"model": L8, **blocks}
    values = list(range(512, 512 * 40, 512)) if axis == "sequence_length" else list(range(1, 17))
    result, base = sweep(scenario, axis, values), parse_scenario(scenario)
    for i in range(0, len(values), 5):
        mem = estimate(vary(base, axis, values[i])).memory
        assert result.totals[i] == pytest.approx(mem.total, rel=1e-9, abs=2)


def test_variants_keep_the_techniques() -> None:
    plain = {b.key: b.total for b in variants({"model": L8, "workload": {"kind": "lora"}}).bars}
    tuned = variants(
        {"model": L8, "framework": "torchtune", "parallelism": {"activation_offload": "checkpoints"}}
    )
    bars = {b.key: b.total for b in tuned.bars}
    for key in ("pretraining", "lora", "qlora"):
        assert bars[key] < plain[key]
    assert bars["inference_fp16"] == plain["inference_fp16"]


def test_advisor_turns_techniques_on_and_says_so() -> None:
    # Llama 3.1 8B LoRA at 8,192 tokens does not fit one RTX 4090 as set (full loss, no
    # recompute); with a fused loss and gradient checkpointing it does (no spare margin
    # asked, so that only the techniques decide). The option names them (scenario_changes,
    # its reason and a note) and, put back, fits.
    workload: dict[str, Any] = {"kind": "lora", "sequence_length": 8192}
    sc = {"model": L8, "workload": workload, "hardware": {"gpus_per_node": 1}}
    opts = plan(sc, gpus=["rtx-4090-24gb"], max_gpus=1, margin=0.0)
    assert len(opts) == 1
    o = opts[0]
    changes = o["scenario_changes"]
    assert changes.get("workload.loss") == "fused" and o["workload"] == {"loss": "fused"}
    assert o["parallelism"]["recompute"] == changes.get("parallelism.recompute", "none")
    assert "with a fused loss" in o["layout_reason"]
    assert any("scenario_changes" in n for n in o["notes"])
    back = {**sc, "parallelism": o["parallelism"], "hardware": o["hardware"]}
    back["workload"] = {**workload, "loss": "fused"}
    assert _report(**{k: v for k, v in back.items() if k != "model"})["fits"]


def test_a_registered_optimizer_is_accepted_and_used() -> None:
    # One registry entry (core/optimizers.py): validation and the state rules read it.
    from gpusizer.core.registry import optimizers

    kind = optimizers.OptimizerKind("dummy_adam", "Dummy Adam", 3, step_counter=True)
    optimizers.register(kind)
    try:
        three = _report(
            workload={"kind": "full_finetune"},
            precision={"optimizer": "dummy_adam", "master_weights": None, "optimizer_states": "fp32"},
        )
        two = _report(
            workload={"kind": "full_finetune"},
            precision={"optimizer": "adamw", "master_weights": None, "optimizer_states": "fp32"},
        )
        params = two["parameters"]["trainable"]
        assert three["per_gpu"]["optimizer"] - two["per_gpu"]["optimizer"] == 4 * params
    finally:
        OPTIMIZER_KINDS.pop(kind.id, None)
    with pytest.raises(ScenarioError) as err:
        _report(precision={"optimizer": "dummy_adam"})
    assert err.value.field == "precision.optimizer"


def test_loss_projected_per_chunk_holds_one_chunk_of_logits() -> None:
    # torchtune LinearCrossEntropyLoss (core/loss.py): the same saved bytes as the chunked loss,
    # but the forward holds one chunk's 16-bit logits instead of all of them. Llama 3.1 8B at
    # 2 x 2,048 tokens, bf16: the forward's total drops by 2 B x T x V x (1 - 1/8) = 920 MB,
    # nothing else changes (exact: both rules are closed forms).
    phases = {}
    for loss in ("chunked", "linear_chunked"):
        s = parse_scenario(
            {
                "model": {"preset": "llama-3.1-8b"},
                "framework": "torchtune",
                "workload": {
                    "kind": "full_finetune",
                    "micro_batch_size": 2,
                    "sequence_length": 2048,
                    "loss": loss,
                },
            }
        )
        phases[loss] = stage_phases(s, resolve(s.model), count_parameters(s.model), False)
    chunked, linear = phases["chunked"], phases["linear_chunked"]
    assert linear.activations == chunked.activations
    drop = chunked.totals["forward"] - linear.totals["forward"]
    assert drop == pytest.approx(2 * (2 * 2048) * 128256 * (1 - 1 / 8), rel=1e-9)
    assert {k: v for k, v in linear.totals.items() if k != "forward"} == {
        k: v for k, v in chunked.totals.items() if k != "forward"
    }


def test_unknown_loss_names_the_allowed_ones() -> None:
    with pytest.raises(ScenarioError, match="linear_chunked"):
        _report(workload={"kind": "full_finetune", "loss": "linear"})
