"""RL post-training (``workload.kind: "rl"``): the rl block, memory per phase, time per step,
the report and the CLI, and the errors that name the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusizer import estimate_report
from gpusizer.cli import main
from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.estimate import estimate, memory_only
from gpusizer.core.pipeline.rl_roles import rollout_scenario, trainer_scenario
from gpusizer.core.pipeline.rl_time import Decode, drain_seconds, rollout_seconds, step_seconds
from gpusizer.core.pipeline.scenario import parse_scenario

BASE = {
    "model": {"preset": "qwen2.5-7b"},
    "workload": {"kind": "rl"},
    "framework": "fsdp",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "parallelism": {"data": 8, "zero_stage": 3, "recompute": "full"},
}


def _sc(**rl: object) -> dict:
    return {**BASE, "rl": rl}


def _rep(**rl: object) -> dict:
    return estimate_report(_sc(**rl))


def test_the_report_has_phases_time_and_run() -> None:
    rep = _rep(steps=10, rollout={"prompts_per_step": 128, "samples_per_prompt": 8, "tensor": 2})
    rl = rep["rl"]
    assert [p["name"] for p in rl["phases"]] == ["rollout", "log_probs", "training", "weight_sync"]
    assert rl["roles"] == ["policy", "rollout", "reference", "reward_rule"]  # GRPO: no critic
    assert rl["responses_per_step"] == 128 * 8
    assert rl["rollout_replicas"] == 4  # 8 GPUs / TP 2
    # colocated: the phases and the moves between them add up to the step
    parts = rl["phases"] + rl["transitions"]
    assert sum(p["seconds"] for p in parts) == pytest.approx(rl["time_per_step_seconds"])
    assert sum(p["share"] for p in parts) == pytest.approx(1.0)
    assert rl["run_seconds"] == pytest.approx(10 * rl["time_per_step_seconds"])
    assert rl["tokens_generated_per_second"] == pytest.approx(
        rl["tokens_generated_per_step"] / rl["time_per_step_seconds"]
    )
    # the GPU's memory is the heaviest phase's, named
    heaviest = max(rl["phases"], key=lambda p: p["memory"]["total"])
    assert rep["per_gpu"]["total"] == heaviest["memory"]["total"]
    assert rep["peak_phase"] == rl["peak_phase"] == heaviest["name"]
    assert rl["cost"] is None or rl["cost"] > 0


def test_colocated_engine_sleeps_and_states_go_to_host() -> None:
    """Outside rollout the engine holds nothing (vLLM sleep mode level 1); during rollout the
    training states are on the host (verl param/optimizer offload)."""
    phases = {p["name"]: p for p in _rep()["rl"]["phases"]}
    assert phases["rollout"]["memory"]["optimizer"] == 0
    assert phases["rollout"]["memory"]["kv_cache"] > 0
    assert phases["training"]["memory"]["kv_cache"] == 0
    assert phases["rollout"]["host_memory_bytes"] > 0
    kept = {p["name"]: p for p in _rep(offload_states=False)["rl"]["phases"]}
    assert kept["rollout"]["memory"]["optimizer"] == phases["training"]["memory"]["optimizer"] > 0


def test_ppo_adds_a_critic_and_dapo_drops_the_reference() -> None:
    grpo, ppo, dapo = _rep(), _rep(algorithm="ppo"), _rep(algorithm="dapo")
    assert "critic" in ppo["rl"]["roles"] and "reference" not in dapo["rl"]["roles"]
    train = {r: {p["name"]: p for p in x["rl"]["phases"]}["training"] for r, x in (("g", grpo), ("p", ppo))}
    # the same model, with a one-output value head instead of Qwen2.5-7B's untied 152,064 x 3,584
    # LM head (core/pipeline/rl_critic_head.py): the critic's states are the policy's x 0.928 (its
    # 7.07e9 of 7.62e9 parameters), its update the policy's x 0.930 (its FLOPs a token); 2x both
    # before the value head
    assert train["p"]["memory"]["optimizer"] / train["g"]["memory"]["optimizer"] == pytest.approx(
        1.928, abs=0.002
    )
    assert train["p"]["seconds"] / train["g"]["seconds"] == pytest.approx(1.930, abs=0.002)
    assert dapo["rl"]["phases"][1]["seconds"] < grpo["rl"]["phases"][1]["seconds"]  # one forward fewer


def test_split_pools_overlap_up_to_the_slower() -> None:
    rl = _rep(placement="split", rollout={"gpus": 8, "tensor": 2})["rl"]
    sec = {p["name"]: p["seconds"] for p in rl["phases"]}
    slower = max(sec["rollout"], sec["log_probs"] + sec["training"])
    assert rl["time_per_step_seconds"] == pytest.approx(slower + sec["weight_sync"])
    assert rl["total_gpus"] == 16 and rl["rollout_gpus"] == 8
    pools = {p["name"]: p["pool"] for p in rl["phases"]}
    assert pools == {
        "rollout": "rollout",
        "log_probs": "training",
        "training": "training",
        "weight_sync": "rollout",
    }
    seq = _rep(placement="split", overlap=False, rollout={"gpus": 8, "tensor": 2})["rl"]
    assert seq["time_per_step_seconds"] == pytest.approx(sum(sec.values()))


def test_the_longest_tail_sets_the_rollout() -> None:
    def flat(b: int, c: float) -> float:
        return 0.01

    # one wave decodes until its longest response is cut at the cap, whatever the batch left
    d = Decode(responses=100, batch=100, prompt=100, mean=1000, longest=2000, prefill=1.0, step_at=flat)
    assert rollout_seconds(d) == pytest.approx(1.0 + 2000 * 0.01, rel=1e-3)

    def per_sequence(b: int, c: float) -> float:
        return 1e-3 * b

    # a step priced per live sequence sums to the tokens generated (responses x mean, the
    # spread's shape only redistributing them over steps) plus the longest one's run to the cap
    for mean in (300.0, 1000.0, 1900.0):
        tokens = drain_seconds(Decode(100, 100, 100, mean, 2000, 0.0, per_sequence), 100) / 1e-3
        assert 0.98 * 100 * mean <= tokens <= 100 * mean + 2000
    # two waves: the responses beyond one batch at the full batch's step, then the drain
    two = Decode(200, 100, 100, 1000, 2000, 1.0, flat)
    assert rollout_seconds(two) == pytest.approx(2 * 1.0 + 1000 * 0.01 + 2000 * 0.01, rel=1e-3)
    assert step_seconds({"rollout": 5, "log_probs": 1, "training": 2, "weight_sync": 1}, True) == 6
    assert step_seconds({"rollout": 5, "log_probs": 1, "training": 2, "weight_sync": 1}, False) == 9


def test_roles_scenarios() -> None:
    s = parse_scenario(_sc(prompt_tokens=256, rollout={"response_tokens": 1000, "response_spread": 1.0}))
    policy = trainer_scenario(s)
    assert policy.workload.kind == "full_finetune"
    assert policy.workload.sequence_length == 256 + 2000  # prompt + the longest response
    engine = rollout_scenario(s, 64)
    assert engine.framework == "vllm" and engine.workload.kind == "inference"
    assert engine.serving.memory_fraction == 0.5  # colocated beside the training states (verl)
    assert engine.serving.max_context == 2256


def test_packed_responses_fill_fewer_rows_than_padded_ones() -> None:
    """NeMo RL sequence_packing: a micro-batch row holds prompt + longest tokens of responses
    end to end, so 512 responses of 1,256 tokens fill 512 x 1256 / 2256 = 285.04 rows (286, then
    whole micro-batches on 8 ranks: 288); unpacked, each response is padded to 2,256 tokens."""
    rl = {"prompt_tokens": 256, "rollout": {"response_tokens": 1000, "response_spread": 1.0}}
    rl |= {"policy": {"mini_batch_size": 512}}
    packed = trainer_scenario(parse_scenario(_sc(**rl)))
    assert packed.workload.global_batch_size == 288
    assert packed.workload.training_tokens == 256 * 8 * 1256  # default 256 prompts x 8 samples
    rl["policy"] = {"mini_batch_size": 512, "sequence_packing": False}
    padded = trainer_scenario(parse_scenario(_sc(**rl)))
    assert padded.workload.global_batch_size == 512
    assert padded.workload.training_tokens == 256 * 8 * 2256


def test_memory_only_and_the_estimate_agree() -> None:
    s = parse_scenario(_sc())
    assert memory_only(s) == estimate(s).memory


@pytest.mark.parametrize(
    ("rl", "field"),
    [
        ({"reference": {"model": "llama-3.1-8b"}}, "rl.reference.model"),
        ({"reference": {"model": "nope"}}, "rl.reference.model"),
        ({"placement": "split"}, "rl.rollout.gpus"),
        ({"placement": "split", "rollout": {"gpus": 3, "tensor": 2}}, "rl.rollout.gpus"),
        ({"rollout": {"samples_per_prompt": 0}}, "rl.rollout.samples_per_prompt"),
        ({"rollout": {"prompts_per_step": -1}}, "rl.rollout.prompts_per_step"),
        ({"rollout": {"response_tokens": 0}}, "rl.rollout.response_tokens"),
        ({"prompt_tokens": 0}, "rl.prompt_tokens"),
        ({"algorithm": "dpo"}, "rl.algorithm"),
        ({"rollout": {"engine": "llamacpp"}}, "rl.rollout.engine"),
        ({"rollout": {"tensor": 3}}, "rl.rollout.tensor"),
    ],
)
def test_bad_input_names_the_field(rl: dict, field: str) -> None:
    with pytest.raises(ScenarioError) as err:
        parse_scenario(_sc(**rl))
    assert err.value.field == field, str(err.value)


@pytest.mark.parametrize(
    ("rl", "field"),
    [
        (
            {"rollout": {"prompts_per_step": 10**6, "samples_per_prompt": 10**4}},
            "rl.rollout.prompts_per_step",
        ),
        ({"rollout": {"engine": "sglang", "engine_version": "0.0.1"}}, "rl.rollout.engine_version"),
    ],
)
def test_the_roles_errors_name_the_rl_field(rl: dict, field: str) -> None:
    """The roles' own scenarios are parsed when the estimate builds them (the scenario parser
    cannot build them while validating: they are parsed by it)."""
    with pytest.raises(ScenarioError) as err:
        estimate_report(_sc(**rl))
    assert err.value.field == field, str(err.value)


def test_a_reference_of_another_vocabulary_names_both() -> None:
    with pytest.raises(ScenarioError, match=r"vocab_size .* vs the policy.s"):
        parse_scenario(_sc(reference={"model": "llama-3.1-8b"}))
    # DAPO runs no reference: any model there is ignored
    parse_scenario(_sc(algorithm="dapo", reference={"model": "llama-3.1-8b"}))


def test_the_cli_prints_and_exits_2_on_bad_input(tmp_path: Path, capsys) -> None:
    path = tmp_path / "rl.gpusizer.json"
    path.write_text(json.dumps(_sc()))
    assert main(["estimate", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rl"]["time_per_step_seconds"] > 0
    assert main(["estimate", str(path)]) == 0
    out = capsys.readouterr().out
    assert "RL grpo, colocated" in out and "time per step" in out
    path.write_text(json.dumps(_sc(placement="split")))
    assert main(["estimate", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "rl.rollout.gpus" in err[0]


def test_the_report_file_has_the_rl_step(tmp_path: Path) -> None:
    path = tmp_path / "rl.gpusizer.json"
    path.write_text(json.dumps(_sc()))
    assert main(["report", str(path), "--output", str(tmp_path / "rep")]) == 0
    text = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert "## RL step by phase" in text and "| rollout |" in text


def test_an_engine_that_would_not_start_is_said() -> None:
    rep = _rep(rollout={"memory_fraction": 0.01})
    assert any(a.startswith("the rollout engine would not start") for a in rep["assumptions"])


def test_the_assumptions_say_what_the_step_time_is_worth() -> None:
    """docs/evidence/rl.md section 8: the note is the RL regime's band (published steps ran
    above the estimate: colocated on its policy kind's own steps, 34 dense or 32 MoE; split on its
    own 38 since sections 2l and 2m, the v0.7 table, section 48's TRL step and the tenth blind
    round's two verl separate_async steps)."""
    assert any(a.startswith("RL steps like this have run 1.") for a in _rep()["assumptions"])
    split = _rep(placement="split", rollout={"gpus": 8, "tensor": 2})
    assert any("of 38 published RL steps, split pools" in a for a in split["assumptions"])


def test_split_advice_names_the_fastest_split_of_the_same_gpus() -> None:
    rl = _rep(placement="split", rollout={"gpus": 8, "tensor": 2})["rl"]
    options = rl["split_options"]
    assert {o["rollout_gpus"] + o["training_gpus"] for o in options} == {16}  # the same GPUs
    assert all(o["rollout_gpus"] % 2 == 0 for o in options)  # whole engines of TP 2
    best = min(options, key=lambda o: o["time_per_step_seconds"])
    assert rl["best_rollout_gpus"] == best["rollout_gpus"]
    mine = next(o for o in options if o["rollout_gpus"] == 8)
    assert mine["time_per_step_seconds"] == pytest.approx(rl["time_per_step_seconds"])
    assert "split_options" not in _rep()["rl"]  # colocated: one pool, nothing to split


def test_detokenising_in_the_step_adds_each_generated_token() -> None:
    from gpusizer.core.pipeline.rl_time import DETOKENIZE_SECONDS_PER_TOKEN

    # source: vLLM PR #818 (Llama 70B, 4 A100, 500 requests, 128-token prompts in a 512-token
    # context): the tokenizer took 3.8 - 1.4 = 2.4 s of the steps, 12.5 us a token at 384 each
    assert pytest.approx(12.5e-6) == DETOKENIZE_SECONDS_PER_TOKEN

    def flat(batch: int, context: float) -> float:
        return 0.01

    plain = Decode(100, 100, 100, 1000, 2000, 1.0, flat)
    serial = Decode(100, 100, 100, 1000, 2000, 1.0, flat, DETOKENIZE_SECONDS_PER_TOKEN)
    assert rollout_seconds(serial) - rollout_seconds(plain) == pytest.approx(100 * 1000 * 12.5e-6)
    # off by default (NeMo RL v0.3.1 and v0.6.0 skip the tokenizer; AsyncLLM runs its own process)
    base = {"model": {"preset": "qwen2.5-7b"}, "workload": {"kind": "rl"}}
    on = {**base, "rl": {"rollout": {"detokenize_in_step": True}}}
    seconds = [
        {p["name"]: p["seconds"] for p in estimate_report(s)["rl"]["phases"]}["rollout"] for s in (base, on)
    ]
    assert seconds[1] > seconds[0]


def test_the_engines_log_probs_and_their_copy_add_each_generated_token() -> None:
    from gpusizer.core.pipeline.rl_time import (
        COPY_SECONDS_PER_TOKEN,
        LOGPROBS_SECONDS_PER_TOKEN,
        host_seconds_per_token,
    )

    # source: vLLM PR #57442 (Qwen3-4B, one L20, 512 concurrent 256-token requests): 4,130 tok/s
    # without log-probs, 3,922 with logprobs=0, 12.8 us a generated token; PyTorch PR #32841's
    # table: a scalar tensor assignment v[0] = 1 at 7.04 us. Exact to the quoted figures.
    assert pytest.approx(12.84e-6, rel=1e-3) == LOGPROBS_SECONDS_PER_TOKEN
    assert pytest.approx(7.04e-6) == COPY_SECONDS_PER_TOKEN
    assert host_seconds_per_token(False, False, False) == 0.0
    assert host_seconds_per_token(True, True, True) == pytest.approx(12.5e-6 + 12.84e-6 + 7.04e-6, rel=1e-3)
    # the copy is one PyTorch op: on a Grace host at its op_dispatch (TransformerEngine #2053:
    # 37.08 / 13.48 us a torch Linear forward, 2.75x); the engine's log-prob output is not scaled
    grace = 37.08 / 13.48
    on_grace = host_seconds_per_token(False, True, True, grace)
    assert on_grace == pytest.approx(12.84e-6 + 7.04e-6 * grace, rel=1e-3)
    # off by default: serving answers and other frameworks' RL steps are untouched
    base = {"model": {"preset": "qwen2.5-7b"}, "workload": {"kind": "rl"}}
    runs = [base] + [{**base, "rl": {"rollout": {k: True}}} for k in ("returns_logprobs", "copies_logprobs")]
    seconds = [{p["name"]: p["seconds"] for p in estimate_report(s)["rl"]["phases"]}["rollout"] for s in runs]
    # the defaults: prompts x samples x mean response, over the replicas
    tokens = 256 * 8 * 1024 / estimate_report(base)["rl"]["rollout_replicas"]
    assert seconds[1] - seconds[0] == pytest.approx(tokens * LOGPROBS_SECONDS_PER_TOKEN, rel=1e-6)
    assert seconds[2] - seconds[0] == pytest.approx(tokens * COPY_SECONDS_PER_TOKEN, rel=1e-6)
