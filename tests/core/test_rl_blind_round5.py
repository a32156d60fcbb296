"""Published RL step times replayed blind, round five (docs/evidence/rl.md, the section "A fifth
blind round of published RL step times"; records in tests/core/data/rl-time-blind5.json, each with
its source link, the quoted table, the settings read from the page's launcher and what had to be
assumed).

Two steps, not tuned to: verl run by the RLinf team as the baseline of RLinf's blog page
"Comparison with VeRL" (RLinf/RLinf docs/source-en/rst_source/blog/compare_with_verl.rst at
b3dca525): GRPO on the Boba math set with DeepSeek-R1-Distill-Qwen-1.5B on one node of 8 H100
(verl v0.5.0, 512 responses of mean 14,255 tokens up to a 27,648 cap, step 363.55 s) and with
DeepSeek-R1-Distill-Qwen-7B on 8 nodes of 8 GPUs (verl f252da3, 2,048 responses of mean 10,426
tokens, step 447.36 s). Nothing in the estimator was changed for them: on first replay they read
1.355 and 1.111 (``FIRST_REPLAY``). Read at verl's source, its SGLang engine before v0.6.0 is given
no ``enforce_eager``, so SGLang's CUDA graphs stay on (core/registry/rl_framework_releases_verl.py);
since that is modelled they read 0.668 and 0.602 (``RECORDED``)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import estimate_report
from tests.core.blind_replay import by_id, load, step_ratio, within, within_inverted
from tests.core.blind_replay import rl_step as _step

RECORDS: list[dict[str, Any]] = load("rl-time-blind5.json")

# estimate / published step on first replay (blind), as docs/evidence/rl.md records it: the
# rollout priced eager, verl's vLLM enforce_eager default then applied to SGLang too
FIRST_REPLAY = {
    "verl-rlinf-r1-distill-1.5b-8xh100": 1.355,
    "verl-rlinf-r1-distill-7b-64xh100": 1.111,
}
# since verl's SGLang rollout before v0.6.0 keeps SGLang's CUDA graphs (verl v0.3.0.post1 and
# v0.5.0 verl/workers/rollout/sglang_rollout/sglang_rollout.py: no disable_cuda_graph given),
# 0.668 and 0.602; since verl's Ulysses is modelled and stated (SP 2 and 4: the policy's
# all-to-alls, core/speed/train_ulysses.py) 0.672 and 0.605
RECORDED = {
    "verl-rlinf-r1-distill-1.5b-8xh100": 0.672,
    "verl-rlinf-r1-distill-7b-64xh100": 0.605,
}

SMALL = "verl-rlinf-r1-distill-1.5b-8xh100"
LARGE = "verl-rlinf-r1-distill-7b-64xh100"


def _record(record_id: str) -> dict[str, Any]:
    return by_id(RECORDS, record_id)


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
    ratio = step_ratio(record)
    assert ratio == pytest.approx(RECORDED[record["id"]], abs=0.02)


def test_the_count_within_25_percent_is_as_recorded() -> None:
    # docs/evidence/rl.md's convention (estimate / published within 0.75-1.25): 0 of 2, both short
    # (0.672, 0.605); on first replay 1 of 2 (the 7B at 1.111, the 1.5B long at 1.355). As
    # published / estimate (the bands' ratio) none either: 1.50 and 1.66
    ratios = {r["id"]: step_ratio(r) for r in RECORDS}
    assert not within(ratios)
    assert not within_inverted(ratios)
    first = within(FIRST_REPLAY)
    assert first == [LARGE]


# the estimate's phases (seconds): rollout, log-probs (old policy and reference), training;
# with Ulysses stated the log-probs and training take its all-to-alls (36.7 -> 37.2 and
# 66.3 -> 67.2 s at SP 2; 37.2 -> 37.7 and 69.9 -> 70.9 s at SP 4)
PHASES = {
    SMALL: (139.7, 37.2, 67.2),
    LARGE: (161.6, 37.7, 70.9),
}


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r["id"])
def test_the_passes_match_and_the_rollout_holds_the_gap(record: dict[str, Any]) -> None:
    # the estimate's phases (3 %) against the page's timers: training within 5 % of
    # update_actor on both (67.2 / 66.53, 70.9 / 73.01), the log-prob passes 0.89 of
    # old_log_prob + ref on the 7B (37.7 / 42.32); the rollout 0.54x (1.5B) and 0.50x (7B) the
    # published gen timer: the whole of each step's gap (docs/evidence/rl.md, the section's misses;
    # priced eager, as on first replay, it read 1.49x and 1.20x)
    report = estimate_report(record["scenario"])["rl"]
    phases = {p["name"]: p["seconds"] for p in report["phases"]}
    estimated = (phases["rollout"], phases["log_probs"], phases["training"])
    for est, pinned in zip(estimated, PHASES[record["id"]], strict=True):
        assert est == pytest.approx(pinned, rel=0.03), record["id"]
    timers = record["timers"]
    assert phases["training"] / timers["update_actor"] == pytest.approx(1.0, abs=0.05)
    assert phases["rollout"] < timers["gen"] * 0.6


def test_the_unpublished_settings_move_the_ratios_as_recorded() -> None:
    # the records' assumptions (0.02): the 1.5B run's engine is not printed (the launcher's SGLang;
    # verl's default vLLM, eager under enforce_eager, reads 1.453, 1.385 before its V1 rollout
    # returned each token's log-prob, verl's default since; the 7B run's GPU is not printed
    # (H800 0.622, A100 80 GB 1.038). Eager SGLang (rl.rollout.cuda_graphs false, as priced on
    # first replay) reads 1.355 and 1.111: the published rollouts lie between the two engine modes
    small, large = _record(SMALL), _record(LARGE)
    assert _ratio(small, engine="vllm", engine_version=None) == pytest.approx(1.453, abs=0.02)
    assert _ratio(large, gpu="h800-sxm-80gb") == pytest.approx(0.622, abs=0.02)
    assert _ratio(large, gpu="a100-sxm-80gb") == pytest.approx(1.038, abs=0.02)
    assert _ratio(small, cuda_graphs=False) == pytest.approx(FIRST_REPLAY[SMALL], abs=0.02)
    assert _ratio(large, cuda_graphs=False) == pytest.approx(FIRST_REPLAY[LARGE], abs=0.02)


def test_verls_sglang_rollout_keeps_sglangs_cuda_graphs_before_v060() -> None:
    # verl v0.3.0.post1 / v0.5.0 sglang_rollout.py build the engine with mem_fraction_static only
    # (no disable_cuda_graph, max_running_requests, chunked_prefill_size): the release's vLLM
    # knobs stay off an SGLang rollout; v0.6.0's async_sglang_server.py passes
    # disable_cuda_graph=enforce_eager (false) and max_running_requests=max_num_seqs (1024)
    from gpusizer.core.registry.rl_frameworks import RL_FRAMEWORKS

    verl = RL_FRAMEWORKS["verl"]
    for version in ("0.3.0", "0.5.0"):
        paths = {d.path for d in verl.release(version).applicable("sglang")}
        assert not paths & {"rollout.cuda_graphs", "rollout.max_sequences", "rollout.max_batched_tokens"}
        vllm = {d.path: d.value for d in verl.release(version).applicable("vllm")}
        assert vllm["rollout.cuda_graphs"] is False and vllm["rollout.max_sequences"] == 1024
    for version in ("0.6.0", "0.7.0"):
        sglang = {d.path: d.value for d in verl.release(version).applicable("sglang")}
        assert sglang["rollout.cuda_graphs"] is True and sglang["rollout.max_sequences"] == 1024
        assert "rollout.max_batched_tokens" not in sglang
