"""The advice searches the rollout engine's width (``rl.rollout.tensor``) as it searches training
layouts: powers of two up to the node, the fewest GPUs then the fastest step
(core/sizing/engine_width.py)."""

from __future__ import annotations

from typing import Any

import pytest

import gpusizer
from gpusizer.core.registry.workloads import WORKLOAD_KINDS
from gpusizer.core.sizing.option import option_edits

# GRPO of a 70B with verl's FSDP backend and the rollout width left at its default (TP 1)
GRPO_70B: dict[str, Any] = {
    "model": {"preset": "llama-3.3-70b"},
    "workload": {"kind": "rl", "micro_batch_size": 1},
    "framework": "fsdp",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "rl": {"algorithm": "grpo", "steps": 200},
}
SERVERS = ["h100-sxm-80gb", "h200-141gb", "b200-192gb"]


@pytest.fixture(scope="module")
def servers() -> dict[str, dict[str, Any]]:
    return {o["gpu"]: o for o in gpusizer.compare_gpus(GRPO_70B, gpus=SERVERS)}


@pytest.mark.parametrize("gpu", SERVERS)
def test_a_70b_grpo_fits_servers_at_a_wider_rollout_engine(servers: dict[str, dict], gpu: str) -> None:
    # before: "at rl.rollout.tensor 1, the rollout engine would not start" on all three: the
    # engine's 141 GB of 16-bit weights need more than its half of any of them
    o = servers[gpu]
    assert o["fits"] and o["unmet"] is None, o["unmet_reason"]
    width = o["rl_rollout_tensor"]
    assert width in (2, 4, 8)
    assert o["scenario_changes"]["rl.rollout.tensor"] == width
    assert any(n.startswith(f"rollout engine at TP {width} (rl.rollout.tensor") for n in o["notes"])


def test_the_h100_width_holds_the_weights_in_the_engines_half(servers: dict[str, dict]) -> None:
    # NeMo RL's grpo_math_70B_megatron.yaml (v0.3.0) runs vLLM at TP 4 on H100s: 131.4 GiB of
    # 16-bit weights / 4 = 32.9 GiB in the engine's 39.8 GiB half of an H100's 79.65 GiB; at
    # TP 2 (65.7 GiB) it cannot start, so the width chosen is at least the recipe's
    assert servers["h100-sxm-80gb"]["rl_rollout_tensor"] >= 4


def test_the_option_applied_reproduces_it(servers: dict[str, dict]) -> None:
    o = servers["h100-sxm-80gb"]
    edits = option_edits(o)
    rl = {**GRPO_70B["rl"], "rollout": {"tensor": edits.pop("rl.rollout.tensor")}}
    data = {**GRPO_70B, "rl": rl, "parallelism": edits.pop("parallelism"), "hardware": edits.pop("hardware")}
    for path, value in edits.items():
        block, _, name = path.partition(".")
        data[block] = {**data.get(block, {}), name: value}
    report = gpusizer.estimate_report(data)
    assert report["fits"]
    assert report["rl"]["time_per_step_seconds"] == pytest.approx(o["rl_time_per_step_seconds"], rel=1e-9)


def test_an_answer_that_fits_as_set_keeps_its_width() -> None:
    # GRPO of Qwen3 8B fits an H100 server at TP 1 (the default): every width fits the same 8
    # GPUs and the one as set is not the slower, so nothing is changed behind the user's back
    s = {**GRPO_70B, "model": {"preset": "qwen3-8b"}}
    o = gpusizer.compare_gpus(s, gpus=["h100-sxm-80gb"])[0]
    assert o["fits"] and o["gpus"] == 8
    width = o["rl_rollout_tensor"]
    assert ("rl.rollout.tensor" in o["scenario_changes"]) == (width != 1)


def test_only_a_kind_with_an_engine_of_its_own_searches_a_width() -> None:
    assert [k.id for k in WORKLOAD_KINDS.values() if k.engine_width] == ["rl"]
    s = {
        "model": {"preset": "qwen3-8b"},
        "workload": {"kind": "full_finetune", "sequence_length": 4096, "training_tokens": 1.0e9},
        "hardware": {"gpu": "h100-sxm-80gb"},
    }
    assert gpusizer.compare_gpus(s, gpus=["h100-sxm-80gb"])[0]["rl_rollout_tensor"] is None


def test_the_gpus_needed_line_names_the_rollout_width() -> None:
    from gpusizer.core.pipeline.estimate import estimate
    from gpusizer.core.pipeline.scenario import parse_scenario
    from gpusizer.core.sizing.gpus_needed import gpus_needed
    from gpusizer.io.wording import gpus_needed_spans

    s = parse_scenario({**GRPO_70B, "parallelism": {"data": 8}})
    option = gpus_needed(s)
    assert option is not None and option.rl_rollout_tensor is not None
    text = "".join(t for t, _ in gpus_needed_spans(estimate(s), option))
    assert f"rollout TP {option.rl_rollout_tensor}" in text
