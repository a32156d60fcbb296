"""RL post-training in ``plan`` and ``compare_gpus``: the layout search sizes the RL work by the
kind's own memory (every phase colocated, the training pool's phases split), and each option
carries the step time of its layout and every GPU of the run."""

from __future__ import annotations

import gpusizer

from .rl_figures import FIGURES

BASE = {
    "model": {"preset": "qwen2.5-7b"},
    "workload": {"kind": "rl"},
    "framework": "fsdp",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "parallelism": {"data": 8, "zero_stage": 3, "recompute": "full"},
}
ROLLOUT = {"prompts_per_step": 128, "samples_per_prompt": 8, "tensor": 2}


def _options(**rl: object) -> dict[str, dict]:
    rows = gpusizer.compare_gpus({**BASE, "rl": rl}, gpus=["h100-sxm-80gb", "gh200-96gb"])
    return {o["gpu"]: o for o in rows}


def test_colocated_options_hold_every_phase() -> None:
    for o in _options(rollout=ROLLOUT).values():
        assert o["fits"]
        # the whole peak (rollout engine or training) keeps the 10 % margin: the training-only
        # shortcut once let a GH200 pair through at -1.4 GiB headroom
        assert o["headroom_bytes"] >= o["margin_bytes"]
        assert o["rl_time_per_step_seconds"] > 0 and o["rl_total_gpus"] == o["gpus"]
        assert o["rl_run_seconds"] == o["rl_time_per_step_seconds"] * 100
        assert o["time_seconds"] is None  # the run is rl_run_seconds, not training tokens


def test_split_sizes_the_training_pool_beside_its_rollout_pool() -> None:
    rows = _options(placement="split", rollout={**ROLLOUT, "gpus": 4})
    for o in rows.values():
        assert o["fits"]
        assert o["rl_total_gpus"] == o["gpus_in_layout"] + 4  # the rollout pool added
        assert o["rl_best_rollout_gpus"] is not None  # the fastest split of the same GPUs
        assert any("rollout pool's 4 GPUs come on top" in n for n in o["notes"])
        # the training pool's phases fit with the margin (the engine's own GPUs hold its
        # memory fraction of 0.9 by design)
        redo = gpusizer.estimate_report(
            {
                **BASE,
                "hardware": o["hardware"],
                "parallelism": o["parallelism"],
                "rl": {"placement": "split", "rollout": {**ROLLOUT, "gpus": 4}},
                **{k: v for k, v in o["scenario_changes"].items() if "." not in k},
            }
        )
        train = max(p["memory"]["total"] for p in redo["rl"]["phases"] if p["pool"] == "training")
        assert train <= o["capacity_bytes"] - o["margin_bytes"] or o["scenario_changes"]


def test_other_kinds_carry_no_rl_fields() -> None:
    o = gpusizer.compare_gpus({**BASE, "workload": {"kind": "full_finetune"}}, gpus=["h100-sxm-80gb"])[0]
    assert o["rl_time_per_step_seconds"] is None and o["rl_total_gpus"] is None


def test_a_deadline_grows_the_count_until_the_rl_run_meets_it() -> None:
    rl = {"rollout": ROLLOUT, "steps": 100}
    scenario = {**BASE, "rl": rl}
    fewest = gpusizer.compare_gpus(scenario, gpus=["h100-sxm-80gb"])[0]
    # a deadline of half the fewest's run: more GPUs, and the run (steps x step) within it
    days = fewest["rl_run_seconds"] / 2 / 86400
    timed = gpusizer.compare_gpus(
        {**scenario, "targets": {"max_training_days": days}}, gpus=["h100-sxm-80gb"]
    )[0]
    assert timed["targets_met"] is True and timed["gpus"] > fewest["gpus"]
    assert timed["rl_run_seconds"] / timed["effective_time_share"] <= days * 86400
    # one no count can meet: the fewest shown, the target named
    never = {**scenario, "targets": {"max_training_days": 1e-6}}
    missed = gpusizer.compare_gpus(never, gpus=["h100-sxm-80gb"])[0]
    assert missed["targets_met"] is False and missed["gpus"] == fewest["gpus"]
    assert "deadline" in missed["unmet_reason"]


def test_each_gpu_is_searched_for_its_own_engine_share() -> None:
    # DeepSeek V3 colocated (NeMo RL's recipe): the engine holds 0.6 of each GPU, so a search
    # shared with a 192 GB B200 once found nothing that fits an 80 GB H100
    figure = next(f for f in FIGURES if f.name == "v0.6 DeepSeek V3, 256 H100")
    rows = {
        o["gpu"]: o for o in gpusizer.compare_gpus(figure.scenario(), gpus=["b200-192gb", "h100-sxm-80gb"])
    }
    assert rows["h100-sxm-80gb"]["fits"] and rows["b200-192gb"]["fits"]
