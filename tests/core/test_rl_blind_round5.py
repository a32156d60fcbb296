"""Published RL step times replayed blind, round five (docs/evidence/rl.md, the section "A fifth
blind round of published RL step times"; records in tests/core/data/rl-time-blind5.json, each with
its source link, the quoted table, the settings read from the page's launcher and what had to be
assumed).

Two steps, not tuned to: verl run by the RLinf team as the baseline of RLinf's blog page
"Comparison with VeRL" (RLinf/RLinf docs/source-en/rst_source/blog/compare_with_verl.rst at
b3dca525): GRPO on the Boba math set with DeepSeek-R1-Distill-Qwen-1.5B on one node of 8 H100
(verl v0.5.0, 512 responses of mean 14,255 tokens up to a 27,648 cap, step 363.55 s) and with
DeepSeek-R1-Distill-Qwen-7B on 8 nodes of 8 GPUs (verl f252da3, 2,048 responses of mean 10,426
tokens, step 447.36 s). Nothing in the estimator was changed for them; the ratios below are what it
gave on first replay."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report

RECORDS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "rl-time-blind5.json").read_text(encoding="utf-8")
)

# estimate / published step on first replay (blind), as docs/evidence/rl.md records it
RECORDED = {
    "verl-rlinf-r1-distill-1.5b-8xh100": 1.355,
    "verl-rlinf-r1-distill-7b-64xh100": 1.111,
}

SMALL = "verl-rlinf-r1-distill-1.5b-8xh100"
LARGE = "verl-rlinf-r1-distill-7b-64xh100"


def _step(scenario: dict[str, Any]) -> float:
    return float(estimate_report(scenario)["rl"]["time_per_step_seconds"])


def _record(record_id: str) -> dict[str, Any]:
    return next(r for r in RECORDS if r["id"] == record_id)


def _ratio(record: dict[str, Any], **rollout: Any) -> float:
    """The record's step ratio with ``rollout`` fields changed (``gpu`` the hardware)."""
    scenario = copy.deepcopy(record["scenario"])
    gpu = rollout.pop("gpu", None)
    if gpu:
        scenario["hardware"]["gpu"] = gpu
    scenario["rl"]["rollout"].update(rollout)
    return _step(scenario) / record["measured"]["step"]


def test_every_record_names_its_source_settings_and_assumptions() -> None:
    for record in RECORDS:
        assert record["source"].startswith("https://"), record["id"]
        assert record["settings_source"].startswith("https://github.com/"), record["id"]
        assert record["quote"] and record["settings"] and record["assumptions"], record["id"]
        assert record["counted"] and set(record["measured"]) == {"step"}
        assert record["timers"], record["id"]
    assert len({r["id"] for r in RECORDS}) == len(RECORDS) == len(RECORDED)


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r["id"])
def test_each_step_is_as_recorded(record: dict[str, Any]) -> None:
    # source: the record's link and quoted table; tolerance 0.02 of the ratio (drift of the model,
    # not accuracy: the count below says how many are within 25 %)
    ratio = _step(record["scenario"]) / record["measured"]["step"]
    assert ratio == pytest.approx(RECORDED[record["id"]], abs=0.02)


def test_the_count_within_25_percent_is_as_recorded() -> None:
    # docs/evidence/rl.md's convention (estimate / published within 0.75-1.25): 1 of 2, the 7B
    # step at 1.111; the 1.5B step long at 1.355. As published / estimate (the bands' ratio) the
    # same one holds: 0.90 and 0.74
    ratios = {r["id"]: _step(r["scenario"]) / r["measured"]["step"] for r in RECORDS}
    assert [k for k, v in ratios.items() if abs(v - 1) <= 0.25] == [LARGE]
    assert [k for k, v in ratios.items() if 0.75 <= 1 / v <= 1.25] == [LARGE]


# the estimate's phases (seconds): rollout, log-probs (old policy and reference), training
PHASES = {
    SMALL: (389.3, 36.7, 66.3),
    LARGE: (389.4, 37.2, 69.9),
}


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r["id"])
def test_the_passes_match_and_the_rollout_holds_the_gap(record: dict[str, Any]) -> None:
    # the estimate's phases (3 %) against the page's timers: training within 5 % of
    # update_actor on both (66.3 / 66.53, 69.9 / 73.01), the log-prob passes 0.88 of
    # old_log_prob + ref on the 7B (37.2 / 42.32); the rollout 1.49x (1.5B) and 1.20x (7B) the
    # published gen timer: the whole of each step's gap (docs/evidence/rl.md, the section's misses)
    report = estimate_report(record["scenario"])["rl"]
    phases = {p["name"]: p["seconds"] for p in report["phases"]}
    estimated = (phases["rollout"], phases["log_probs"], phases["training"])
    for est, pinned in zip(estimated, PHASES[record["id"]], strict=True):
        assert est == pytest.approx(pinned, rel=0.03), record["id"]
    timers = record["timers"]
    assert phases["training"] / timers["update_actor"] == pytest.approx(1.0, abs=0.05)
    assert phases["rollout"] > timers["gen"] * 1.15


def test_the_unpublished_settings_move_the_ratios_as_recorded() -> None:
    # the records' assumptions (0.02): the 1.5B run's engine is not printed (the launcher's SGLang;
    # verl's default vLLM reads 1.385); the 7B run's GPU is not printed (H800 1.117, A100 80 GB
    # 1.344). With CUDA graphs on (SGLang's own default, which verl v0.3-v0.5 leave alone: their
    # sglang_rollout.py passes no disable_cuda_graph; the estimator applies verl's enforce_eager
    # default to every engine) both steps read short instead: 0.668 and 0.601
    small, large = _record(SMALL), _record(LARGE)
    assert _ratio(small, engine="vllm", engine_version=None) == pytest.approx(1.385, abs=0.02)
    assert _ratio(large, gpu="h800-sxm-80gb") == pytest.approx(1.117, abs=0.02)
    assert _ratio(large, gpu="a100-sxm-80gb") == pytest.approx(1.344, abs=0.02)
    assert _ratio(small, cuda_graphs=True) == pytest.approx(0.668, abs=0.02)
    assert _ratio(large, cuda_graphs=True) == pytest.approx(0.601, abs=0.02)
