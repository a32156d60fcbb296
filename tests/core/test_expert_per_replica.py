"""``parallelism.expert_per_replica``: N independent engines of TP with EP inside, as vLLM's users
run ``--tensor-parallel-size 8 --enable-expert-parallel`` per engine behind a router
(core/serving/expert_per_replica.py; docs/scenario-format.md; docs/evidence/serving.md, the
section on independent TP x EP engines).

Each replica is the ``data`` 1 engine: memory per GPU identical to the byte, its step identical
(the requests per replica, as under any ``data``). The Anyscale MI325X aggregated runs (2, 3 and
4 replicas of vLLM TP 8 with ``enable_expert_parallel``, tests/core/data/
speed-figures-heldout.json) state one replica at its share of the rate because ``data`` N could
not say independent engines; restated as N replicas with the field, every replayed figure is the
same number (the records' 15 of 52 within 25 % unchanged)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import plan
from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.estimate import estimate
from tests.core.test_expert_in_tensor import QWEN

FIELD = "parallelism.expert_per_replica"
HELDOUT = Path(__file__).parent / "data" / "speed-figures-heldout.json"
AGG = "anyscale-2026-mi325x-qwen3-235b-fp8-agg-"


def _with(par: dict[str, Any], **top: Any) -> dict[str, Any]:
    s = copy.deepcopy(QWEN)
    s["parallelism"] = par
    s.update(top)
    return s


@pytest.mark.parametrize("framework", ["vllm", "sglang", "tensorrt-llm"])
def test_each_replica_is_the_data_one_engine(framework: str) -> None:
    """Memory per GPU to the byte, first token and per-user speed the same, tokens/s N times."""
    hw = {"gpu": "h200-141gb", "gpus_per_node": 8}
    one = estimate(_with({"tensor": 8, "expert": 8}, framework=framework, hardware=hw))
    par = {"tensor": 8, "expert": 8, "data": 4, "expert_per_replica": True}
    four = estimate(_with(par, framework=framework, hardware=hw))
    assert four.gpus == 4 * one.gpus == 32
    assert four.memory.total == one.memory.total
    assert one.serving is not None and four.serving is not None
    assert four.serving.ttft_seconds == one.serving.ttft_seconds
    assert four.serving.tokens_per_second_per_user == one.serving.tokens_per_second_per_user
    assert four.serving.tokens_per_second == pytest.approx(4 * one.serving.tokens_per_second, rel=1e-12)
    assert four.scenario.parallelism.expert_per_replica is True  # echoed as set


def test_nineteen_engines_are_stated_only_with_the_field() -> None:
    """serving.md section 111 "Not done (a)": TP 8, EP 8 at data 19 read as one engine's EP = TP
    x DP is refused (19 does not divide into 8); with the field it is 19 engines, 152 GPUs."""
    with pytest.raises(ScenarioError, match=r"parallelism\.expert"):
        estimate(_with({"tensor": 8, "expert": 8, "data": 19}))
    got = estimate(_with({"tensor": 8, "expert": 8, "data": 19, "expert_per_replica": True}))
    assert got.gpus == 152
    assert got.memory.total == estimate(QWEN).memory.total


def test_without_the_field_the_one_engine_reading_stays() -> None:
    """``expert`` 8 at ``data`` 8 without the field is EP over the replicas (one engine), as
    before; the field makes it 8 engines: other memory, other step."""
    ep_dp = estimate(_with({"tensor": 8, "expert": 8, "data": 8}))
    engines = estimate(_with({"tensor": 8, "expert": 8, "data": 8, "expert_per_replica": True}))
    assert ep_dp.scenario.parallelism.expert_per_replica is False
    assert engines.memory.total == estimate(QWEN).memory.total
    assert ep_dp.serving is not None and engines.serving is not None
    assert engines.serving.ttft_seconds != ep_dp.serving.ttft_seconds


PRETRAIN = {"kind": "pretraining", "sequence_length": 4096}
REFUSALS = [
    ("training", {"framework": "megatron", "workload": PRETRAIN}, FIELD),
    ("dense", {"model": {"preset": "llama-3.1-8b"}}, FIELD),
    ("llama.cpp", {"framework": "llama.cpp", "precision": {"weights": "gguf_q4_k_m"}}, FIELD),
    ("redundant", {"serving": {"redundant_experts": 8}}, FIELD),
]


@pytest.mark.parametrize(("case", "top", "field"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_refused_naming_the_field(case: str, top: dict[str, Any], field: str) -> None:
    par = {"tensor": 8, "expert": 8 if case != "dense" else 1, "data": 2, "expert_per_replica": True}
    with pytest.raises(ScenarioError) as err:
        estimate(_with(par, **top))
    assert err.value.field == field and "allowed: true or false" in str(err.value), err.value


def test_expert_must_divide_tensor() -> None:
    with pytest.raises(ScenarioError) as err:
        estimate(_with({"tensor": 4, "expert": 8, "data": 2, "expert_per_replica": True}))
    assert err.value.field == "parallelism.expert"
    assert "must divide tensor (4)" in str(err.value) and "allowed: 1, 2, 4" in str(err.value)


def _agg_records() -> list[dict[str, Any]]:
    data = json.loads(HELDOUT.read_text())
    records = data if isinstance(data, list) else data["records"]
    return [r for r in records if r["id"].startswith(AGG)]


def test_anyscale_replicas_restated_with_the_field_replay_the_same() -> None:
    """anyscale/pd-amd-blogpost results/qwen3_235b/agg_{2,3,4}x_* at 0b33c9d8: N x vLLM TP 8 +
    ``enable_expert_parallel`` (Ray Serve num_replicas N). The records replay one replica at
    ``request_rate`` R / N; restated as ``data`` N with the field (the rate per replica, as
    ``serving.request_rate`` is under any ``data``), the first replay of each record's first
    file gives the same figure to 1e-9, and the GPUs are the record's count."""
    seen = 0
    for r in _agg_records():
        n = int(r["id"][len(AGG)])  # "2x-tp8ep8-..." -> 2 replicas
        e = r["replay"][0]
        s = copy.deepcopy(e["scenario"])
        s["parallelism"] = {"tensor": 8, "expert": 8, "data": n, "expert_per_replica": True}
        stated, restated = estimate(e["scenario"]), estimate(s)
        assert restated.gpus == r["gpu"]["count"] == 8 * n
        assert stated.serving is not None and restated.serving is not None
        got = getattr(restated.serving, e["metric"])
        assert got == pytest.approx(getattr(stated.serving, e["metric"]), rel=1e-9), r["id"]
        seen += 1
    assert seen == 5  # five configurations of 2-4 replicas


def test_the_advice_offers_engines_with_ep_within_each() -> None:
    """MiniMax-M2 ``fp8-block`` (1536 / 8 = 192: plain TP 8 refused) on A100 SXM 40GB, 200
    users, 1.5 s first token, 30 tokens/s each (the buyer case with the checkpoint's block
    rule; serving.md section 111). Before that section: TP 4 x PP 2 x DP 9, 72 GPUs (one engine
    TP 8, EP 8 x DP 8 timed 2.04 s first token, too slow); after it: 8 engines of TP 8 with EP 8,
    64 GPUs, 1.43 s. Since vLLM V1's pipeline micro-batches each take a token budget (2,048 on
    this card; serving.md section 121) a TP 4 x PP 2 engine of 34 users takes two prompt chunks a
    pipeline step beside one pass of its decodes (1.13 s, 2.45 s before), so 6 of them, 48 GPUs,
    meet the targets; engines with EP within each are offered beside them."""
    s = {
        "model": {"preset": "minimax-m2"},
        "framework": "vllm",
        "precision": {"weights": "fp8", "quantization_rule": "fp8-block"},
        "workload": {"kind": "inference", "prompt_tokens": 4096, "generated_tokens": 1024},
        "serving": {"max_context": 16384},
        "targets": {"users": 200, "max_ttft_seconds": 1.5, "min_tokens_per_second_per_user": 30},
    }
    rows = plan(s, gpus=["a100-sxm-40gb"], alternatives=2)
    assert rows[0]["layout"] == "TP 4 x PP 2 x DP 6" and rows[0]["gpus"] == 48
    assert rows[0]["ttft_seconds"] == pytest.approx(1.133, abs=0.001)
    engines = "TP 4 x PP 2 x DP 6, EP 4 within each engine (6 engines of TP 4 with EP 4)"
    assert rows[1]["layout"] == engines and rows[1]["gpus"] == 48
