"""The RL roles panel: shown for the RL kind only; its fields edit the scenario's ``rl`` block
and the estimate follows."""

from __future__ import annotations

from gpusizer.gui.panels import RLPanel
from gpusizer.io.wording import duration

from .helpers import open_rl_sections


def _panel(window) -> RLPanel:
    return next(p for p in window.panels if isinstance(p, RLPanel))


def test_the_rl_panel_follows_the_kind_and_edits_the_block(window, qtbot) -> None:
    panel = _panel(window)
    assert not panel.box.isVisibleTo(window)
    window.state.edit("workload.kind", "rl", immediate=True)
    window.state.flush()
    assert window.state.error is None, window.state.error
    assert panel.box.isVisibleTo(window)
    window.state.edit("rl.algorithm", "ppo", immediate=True)
    window.state.edit("rl.rollout.samples_per_prompt", 4, immediate=True)
    window.state.flush()
    assert window.state.error is None, window.state.error
    s = window.state.scenario
    assert s.rl is not None and s.rl.algorithm == "ppo" and s.rl.rollout.samples_per_prompt == 4
    qtbot.waitUntil(
        lambda: window.state.estimate is not None and window.state.estimate.rl is not None, timeout=10000
    )
    assert "critic" in window.state.estimate.rl["roles"]
    qtbot.waitUntil(lambda: panel.phases.text().startswith("Time per step"), timeout=10000)
    assert not panel.form.rows["rl.rollout.gpus"].isVisibleTo(window)  # colocated: no rollout pool
    assert "sleep, wake and state moves" in panel.phases.text()  # the moves between phases
    window.state.edit("rl.rollout.sleep_level", 2, immediate=True)
    window.state.flush()
    assert window.state.error is None and window.state.scenario.rl.rollout.sleep_level == 2
    window.state.edit("rl.placement", "split", immediate=True)
    window.state.flush()
    assert panel.form.rows["rl.rollout.gpus"].isVisibleTo(window)
    open_rl_sections(window)  # the sleep level is one of the moves between phases
    assert not panel.knobs.between_section.form.rows["rl.rollout.sleep_level"].isVisibleTo(window)
    assert panel.phases.text().startswith("Time per step")


def test_a_bad_rl_field_is_an_error_not_a_crash(window, qtbot) -> None:
    window.state.edit("workload.kind", "rl", immediate=True)
    window.state.edit("rl.rollout.engine", "sglang", immediate=True)
    window.state.edit("rl.rollout.engine_version", "0.0.1", immediate=True)
    window.state.flush()
    qtbot.waitUntil(lambda: window.state.error is not None, timeout=10000)
    assert "rl.rollout.engine_version" in str(window.state.error)


def test_the_figures_give_the_rl_step_and_run_not_the_training_phase(window) -> None:
    """The key figures of an RL scenario are the step (every phase and move) and the run; the
    policy's training alone is one phase of the step (core/pipeline/rl_plan.py)."""
    window.state.set_scenario(
        {
            "model": {"preset": "qwen2.5-7b"},
            "workload": {"kind": "rl"},
            "framework": "fsdp",
            "hardware": {"gpu": "h100-sxm-80gb"},
            "parallelism": {"data": 8, "zero_stage": 3, "recompute": "full"},
            "rl": {"steps": 10, "rollout": {"prompts_per_step": 128, "samples_per_prompt": 8, "tensor": 2}},
        }
    )
    window.state.flush()
    rl = window.state.estimate.rl
    values = window.figures.values
    assert "Training time" not in values and "Time per step" in values and "Run (10 steps)" in values
    # with the band of RL's published colocated steps (docs/evidence/rl.md section 8)
    assert values["Time per step"].text().startswith(duration(rl["time_per_step_seconds"]) + " (")
