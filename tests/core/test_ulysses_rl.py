"""verl's FSDP workers run Ulysses sequence parallelism: ``parallelism.context`` of an RL policy
under ``rl.framework: verl`` on ``framework: fsdp`` splits the heads (core/model/context_algorithm.py;
volcengine/verl v0.3.0.post1-v0.7.0 verl/models/transformers/monkey_patch.py
``_ulysses_flash_attention_forward``: all-to-alls of q, k, v before flash attention and of its
output after it; verl/utils/ulysses.py ``SeqAllToAll``; verl/workers/fsdp_workers.py: dp = world /
sp). Priced by core/speed/train_ulysses.py; checked by core/pipeline/validate_context.py."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import ScenarioError, estimate_report
from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.context_algorithm import CARRIED, context_splits_heads, ulysses_widths
from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.rl_roles import paced_policy, trainer_scenario
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.rl_frameworks import RL_FRAMEWORKS
from gpusizer.core.speed.collectives import all_to_all_seconds
from gpusizer.core.speed.train_layer import layer_communication, layer_compute, layer_context

RECORDS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "rl-time-blind5.json").read_text(encoding="utf-8")
)
# verl v0.5.0, DeepSeek-R1-Distill-Qwen-1.5B (12 heads, 2 k/v heads) at Ulysses 2 on 8 H100
SMALL = next(r for r in RECORDS if r["id"] == "verl-rlinf-r1-distill-1.5b-8xh100")["scenario"]


def _at(context: int, framework: str | None = "verl", data: int | None = None) -> dict[str, Any]:
    s = copy.deepcopy(SMALL)
    s["parallelism"].update(context=context, data=data or 8 // context)
    if framework is None:
        s["rl"].pop("framework_version")
    s["rl"]["framework"] = framework
    return s


def test_only_verls_fsdp_workers_split_the_heads() -> None:
    # verl's Megatron workers take Megatron-Core's ring CP; OpenRLHF ring-flash-attention; NeMo
    # RL's DTensor path torch context_parallel: none registered
    assert RL_FRAMEWORKS["verl"].ulysses_on == ("fsdp",)
    assert "monkey_patch.py" in RL_FRAMEWORKS["verl"].ulysses_source
    assert all(not f.ulysses_on for k, f in RL_FRAMEWORKS.items() if k != "verl")


def test_the_policy_trainer_carries_the_head_split() -> None:
    s = parse_scenario(_at(2))
    assert context_splits_heads(s)
    assert trainer_scenario(s).parallelism.heads_split is True
    assert paced_policy(s).parallelism.heads_split is True
    plain = parse_scenario(_at(1, framework=None, data=8))
    assert not context_splits_heads(plain) and trainer_scenario(plain).parallelism.heads_split is None


@pytest.mark.parametrize(
    ("context", "words"),
    [
        (8, "must divide attention_heads (12) under verl's PyTorch FSDP workers"),
        # 12 heads split 3 ways, but 2 k/v heads neither split nor repeat evenly over 3
        # (verl apply_monkey_patch: "num_key_value_heads ... or vise versa")
        (3, "must divide kv_heads (2) or be a multiple of it under verl's PyTorch FSDP workers"),
    ],
)
def test_verl_context_must_split_the_heads(context: int, words: str) -> None:
    with pytest.raises(ScenarioError) as err:
        estimate_report(_at(context, data=1))
    assert err.value.field == "parallelism.context" and words in err.value.message


def test_without_verl_the_fsdp_context_stays_ring_attention() -> None:
    # the same layout with rl.framework null: FSDP's own context (torch context_parallel), whose
    # load-balanced chunks need 2 x context to divide the packed row (14,375 tokens)
    with pytest.raises(ScenarioError) as err:
        estimate_report(_at(3, framework=None, data=1))
    assert "ring attention" in err.value.message and "heads" not in err.value.message


def test_the_widths_repeat_the_kv_heads_below_the_degree() -> None:
    # verl repeat_kv: max(sp // kv_heads, 1) copies; 1.5B: q 12 x 128, k/v 2 x 128
    arch = resolve(parse_scenario(SMALL).model)
    assert ulysses_widths(arch, 2, False) == (1536, 1536, 256)
    assert ulysses_widths(arch, 4, False) == (1536, 1536, 512)  # 2 k/v heads repeated twice


def test_the_all_to_alls_per_layer() -> None:
    # forward q, k, v and the output, backward their gradients, the forward's again under the
    # record's full recompute: 3 x four all-to-alls of T x width x 2 bytes (bf16) each
    policy = trainer_scenario(parse_scenario(_at(2)))
    c, _ = layer_context(policy, scenario_gpu(policy))
    t = c.tokens
    assert c.cp == 2 and c.recompute == "full" and c.ulysses == (1536, 1536, 256)
    one = sum(all_to_all_seconds(c.cp_link, t * w * 2, 2) for w in (1536, 1536, 256, 256))
    comm = layer_communication(c, layer_compute(c), 0.0)
    assert comm.cp_communication == pytest.approx(3 * one, rel=1e-9)
    assert c.cp_link.kind == "nvlink"  # the SP group inside the node


def test_a_scenario_cannot_state_the_carried_key() -> None:
    # the trainer dict's key is taken off only by code-built role dicts (parse_role_dict)
    bad = {"model": {"preset": "llama-3.1-8b"}, CARRIED: True}
    with pytest.raises(ScenarioError) as err:
        parse_scenario(bad)
    assert CARRIED in err.value.field or CARRIED in err.value.message


def test_context_one_reads_as_before() -> None:
    # the record's layout before Ulysses was stated (data 8, 2 responses a micro-batch): the step
    # ratio recorded then, 0.668 (tests/core/test_rl_blind_round5.py's history), unchanged
    s = _at(1, data=8)
    s["workload"]["micro_batch_size"] = s["rl"]["policy"]["micro_batch_size"] = 2
    step = float(estimate_report(s)["rl"]["time_per_step_seconds"])
    assert step / 363.55 == pytest.approx(0.668, abs=0.0005)


def test_deepspeeds_context_takes_the_same_all_to_alls() -> None:
    # Llama 3.1 8B at 8,192 tokens, context 4 on H100 (one node): DeepSpeed's Ulysses exposes its
    # all-to-alls (5,031 tokens/s a GPU, 5,125 under the ring all-gather hidden by attention);
    # FSDP's ring attention hides its K/V all-gather behind the local sub-attention
    def report(fw: str) -> dict[str, Any]:
        return estimate_report(
            {
                "model": {"preset": "llama-3.1-8b"},
                "framework": fw,
                "workload": {"sequence_length": 8192},
                "parallelism": {"context": 4, "data": 2},
            }
        )

    ds, fsdp = report("deepspeed"), report("fsdp")
    assert ds["training_step"]["cp_communication_seconds"] == pytest.approx(0.00749, rel=0.01)
    assert ds["training_step"]["tokens_per_second_per_gpu"] == pytest.approx(5031, rel=0.005)
    assert fsdp["training_step"]["cp_communication_seconds"] == 0.0
