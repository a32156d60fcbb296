"""Independent TP x EP engines (``parallelism.expert_per_replica``, core/serving/expert_per_replica.py)
in the fewest-GPUs layout search and in a P/D split's pools (docs/evidence/serving.md, the section
on the search and the pools weighing independent TP x EP engines).

The fewest-GPUs search (core/sizing/layout_search.py) weighs one engine of TP with the experts
whole inside it (EP = TP, DP 1: core/sizing/layout_tpep.py ``one_engine_layouts``) wherever the
serving fill weighs EP_WHOLE / EP_ENGINES, so the "GPUs needed" line and the count the targets
need read the same engines; such a layout loses every tie in GPU count, so the answers the search
already found stand. A P/D pool of such engines is each engine priced as the ``data`` 1 one;
a prefill replica narrower than the stated span runs its engine's switch over its own TP (vLLM
``--enable-expert-parallel`` at TP T, DP 1: EP T), as Anyscale's P/D configs pass
``enable_expert_parallel`` to every prefill and decode instance
(anyscale/pd-amd-blogpost@b103f718 ``serve_configs/pd/qwen235b_1p2d_tp8.yaml``).
"""

from __future__ import annotations

import copy
import math
from types import SimpleNamespace
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.architecture import resolve
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.serving.disagg_prefill import prefill_scenario
from gpusizer.core.sizing import layout_evaluator, layout_search, search
from gpusizer.core.sizing.disagg_split import propose_split
from gpusizer.core.sizing.layout_space import Layout, layout_space
from gpusizer.core.sizing.layout_tpep import one_engine_layouts
from tests.cli.buyer_cases import compared
from tests.core.disagg_anyscale import DATA, scenario
from tests.core.test_expert_in_tensor import QWEN

BLOCK = {"weights": "fp8", "quantization_rule": "fp8-block"}  # Qwen3-*-FP8's 128 x 128 blocks
SPLIT = {"prefill_gpus": 16, "decode_gpus": 16}
H200 = {"gpu": "h200-141gb", "gpus_per_node": 8}
ONE_EACH = {"prefill_gpus": 8, "decode_gpus": 8}


def _serve(preset: str = "qwen3-235b-a22b", framework: str = "vllm", **top: Any) -> dict[str, Any]:
    s = {
        "model": {"preset": preset},
        "framework": framework,
        "precision": dict(BLOCK) if framework != "llama.cpp" else {"weights": "gguf_q4_k_m"},
        "workload": {"kind": "inference", "prompt_tokens": 2048, "generated_tokens": 512},
    }
    return s | top


def _engines(sc: dict[str, Any]) -> list[tuple[int, int]]:
    s = parse_scenario(sc)
    space = layout_space(s, resolve(s.model), 8, (s.parallelism.recompute,), 64)
    return [(lay.tp, lay.pp) for lay in one_engine_layouts(s, space.shapes)]


def test_one_engine_layouts_where_the_fill_weighs_the_experts_whole() -> None:
    """TP 2, 4, 8 (above 1, dividing the 128 experts) at every PP of the space, EP = TP, DP 1."""
    got = _engines(_serve())
    assert {t for t, _ in got} == {2, 4, 8} and (8, 1) in got and (8, 2) in got
    s = parse_scenario(_serve())
    space = layout_space(s, resolve(s.model), 8, ("none",), 64)
    lay = one_engine_layouts(s, space.shapes)[0]
    assert (lay.ep, lay.dp, lay.er) == (lay.tp, 1, False)  # one engine: EP_WHOLE at DP 1


@pytest.mark.parametrize(
    "sc",
    [
        _serve(framework="llama.cpp"),  # no expert parallelism inside TP
        _serve("llama-3.1-70b"),  # dense
        _serve(serving={"redundant_experts": 32}),  # refused on this layout
        _serve(framework="megatron", workload={"kind": "lora", "sequence_length": 2048}),  # training
        # vLLM runs no EP under LoRA on the experts (vllm/lora/layers/fused_moe.py)
        _serve("gpt-oss-120b", precision={"weights": "mxfp4"}, serving={"lora": {"adapters": 4, "rank": 16}}),
    ],
    ids=["llama.cpp", "dense", "redundant", "training", "moe-lora"],
)
def test_no_one_engine_layouts_where_the_fill_weighs_none(sc: dict[str, Any]) -> None:
    assert _engines(sc) == []


def _found(monkeypatch: pytest.MonkeyPatch, engines: bool) -> Layout | None:
    """The search's answer on one 8-GPU H200 server where only an engine of TP 8 with EP 8
    inside holds (the evaluator's memory seam puts every other layout over the GPU), with or
    without the one-engine layouts weighed."""
    real = layout_evaluator._memory

    def memory(s: Any) -> Any:
        p = s.parallelism
        if (p.tensor, p.expert, p.data, p.pipeline, p.attention_data) == (8, 8, 1, 1, 1):
            return real(s)
        return SimpleNamespace(total=math.inf, activations=0)

    monkeypatch.setattr(layout_evaluator, "_memory", memory)
    if not engines:
        monkeypatch.setattr(layout_search, "one_engine_layouts", lambda s, shapes: [])
    s = parse_scenario(_serve(hardware=dict(H200)))
    target = search.catalog_targets(s, ["h200-141gb"])
    ev = layout_search.Evaluator(s, target[0].hardware)
    found, _ = layout_search.solve(s, target, ev, 1, 64)
    got = found["h200-141gb"]
    return got[0][1] if got else None


def test_the_search_answers_with_one_engine_where_only_it_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, the fewest-GPUs search had no answer where only the engine of TP 8 with EP 8
    inside holds (the count the targets need weighed it, the need did not); now it answers that
    engine, one replica of the data-1 engine. On the MoE buyer cases no row moved (the section's
    table): a TP x PP layout of the same GPUs held wherever the engine did, and the engine
    loses that tie."""
    assert _found(monkeypatch, engines=False) is None
    monkeypatch.undo()
    lay = _found(monkeypatch, engines=True)
    assert lay is not None
    assert (lay.tp, lay.pp, lay.ep, lay.dp, lay.gpus) == (8, 1, 8, 1, 8)


def test_a_tie_keeps_the_plain_layout() -> None:
    """Preference: the one-engine layout weighed ``last`` is after every plain layout of the
    same GPU count (layout_search._try)."""
    from gpusizer.core.sizing.layout_order import RECOMPUTE, layout_preference

    s = parse_scenario(_serve())
    one = (len(RECOMPUTE), *layout_preference(Layout(8, 1, 1, 8), s.profile))
    plain = layout_preference(Layout(4, 2, 1, 1), s.profile)
    assert plain < one


def _pd(par: dict[str, Any], split: dict[str, Any] | None = None) -> dict[str, Any]:
    s = copy.deepcopy(QWEN)
    s["parallelism"] = par
    s["hardware"] = dict(H200)
    s["serving"] = {"disaggregated": dict(split or SPLIT)}
    return s


def _pools(sc: dict[str, Any]) -> tuple[float, ...]:
    r = estimate(sc)
    v = r.serving
    assert v is not None
    return (r.memory.total, v.disaggregated_ttft_seconds, v.disaggregated_tpot_seconds, v.tokens_per_second)


def test_pd_pools_of_engines_are_the_data_one_engines() -> None:
    """2 x 8 prefill and 2 x 8 decode GPUs of vLLM TP 8 with EP 8: with the field each pool's
    replica is the data-1 engine's, every figure identical (to the byte and to the float)."""
    one = _pools(_pd({"tensor": 8, "expert": 8}))
    field = _pools(_pd({"tensor": 8, "expert": 8, "expert_per_replica": True}))
    assert field == one


def test_a_narrower_prefill_replica_runs_its_own_span() -> None:
    """prefill_tensor 4 beside TP 8, EP 8 engines: the prefill engine's switch over its own TP
    (EP 4), priced as prefill_expert 4 states it. Before, the stated span 8 stood unchecked on a
    TP 4 replica (first token 2.23 s against 0.66 s at EP 4 here)."""
    field = {"tensor": 8, "expert": 8, "expert_per_replica": True}
    own = _pools(_pd(field, {**SPLIT, "prefill_tensor": 4}))
    stated = _pools(_pd(field, {**SPLIT, "prefill_tensor": 4, "prefill_expert": 4}))
    assert own == stated
    s = parse_scenario(_pd(field, {**SPLIT, "prefill_tensor": 4}))
    spec = s.serving.disaggregated
    assert spec is not None
    assert prefill_scenario(s, spec).parallelism.expert == 4


def test_a_prefill_span_that_its_engine_cannot_run_names_the_field() -> None:
    field = {"tensor": 8, "expert": 8, "expert_per_replica": True}
    with pytest.raises(ScenarioError, match=r"parallelism\.expert_per_replica true") as e:
        estimate(_pd(field, {**SPLIT, "prefill_tensor": 4, "prefill_expert": 8}))
    assert e.value.field == "serving.disaggregated.prefill_expert"
    assert "allowed: 1, 2, 4" in e.value.message


def test_without_the_field_the_pools_are_unchanged() -> None:
    """The field off: prefill_scenario keeps the stated span (as before this change)."""
    s = parse_scenario(_pd({"tensor": 8, "expert": 8}, {**SPLIT, "prefill_tensor": 4}))
    spec = s.serving.disaggregated
    assert spec is not None
    assert prefill_scenario(s, spec).parallelism.expert == 8


def test_anyscale_pd_runs_restated_with_the_field_replay_the_same() -> None:
    """anyscale/pd-amd-blogpost serve_configs/pd/qwen235b_*_tp8.yaml: every prefill and decode
    instance vLLM TP 8 + ``enable_expert_parallel``. The records state ``tensor`` 8, ``expert`` 8
    (one engine a replica); restated with the field the first run of each of the seven
    configurations replays the same first token and time per token (rel 1e-12)."""
    for config in DATA["configs"]:
        run = config["runs"][0]
        sc = scenario(config, run)
        restated = copy.deepcopy(sc)
        restated["parallelism"]["expert_per_replica"] = True
        a, b = estimate_report(sc)["serving"], estimate_report(restated)["serving"]
        for key in ("disaggregated_ttft_seconds", "disaggregated_tpot_seconds"):
            assert b[key] == pytest.approx(a[key], rel=1e-12), (config["folder"], key)


def test_the_proposed_split_weighs_narrower_prefill_engines() -> None:
    """Qwen3-235B-A22B-FP8 (128 x 128 blocks) on H200 as 2 engines of vLLM TP 8 with EP 8, 64
    users, 8k prompts, 2 s first token, 20 tokens/s each. Before, a prefill replica narrower than
    EP 8 was not weighed (the stated span 8 does not divide TP 4): 1P1D at TP 8, 16 GPUs, first
    token 0.58 s. Now the prefill engine at TP 4 runs EP 4 (its switch over its own TP, as each
    instance of Anyscale's P/D configs passes ``enable_expert_parallel``; Dynamo's Qwen3-235B
    disagg recipe runs prefill workers narrower than its TP 4 x EP 4 decode worker): 1P at TP 4 +
    1D at TP 8, 12 GPUs, first token 1.02 s, the targets met."""
    sc = {
        "model": {"preset": "qwen3-235b-a22b"},
        "framework": "vllm",
        "hardware": dict(H200),
        "precision": {**BLOCK, "kv_cache": "fp8"},
        "workload": {"kind": "inference", "prompt_tokens": 8192, "generated_tokens": 1024, "batch_size": 32},
        "parallelism": {"tensor": 8, "expert": 8, "data": 2, "expert_per_replica": True},
        "serving": {
            "concurrency": 32,
            "max_context": 16384,
            "disaggregated": {"prefill_gpus": 8, "decode_gpus": 8},
        },
        "targets": {"users": 64, "max_ttft_seconds": 2.0, "min_tokens_per_second_per_user": 20},
    }
    got = propose_split(parse_scenario(sc), 128)
    assert got is not None and got.targets_met
    assert (got.prefill, got.prefill_tensor, got.decode, got.per) == (1, 4, 1, 8)
    assert got.ttft_seconds == pytest.approx(1.024, abs=0.001)


def test_the_one_engine_layouts_leave_the_work_budget_where_it_was() -> None:
    """Kimi K2.5 INT4 for 64 users (the buyer case): its catalog search stops at the work limit
    before and after. Charged to it, the one-engine layouts (1,830 tries, 2,213 units) moved the
    cut and left the last GPUs no search: V100 32GB, T4 and Ryzen AI Max+ 395 read "nothing
    fits". Outside it, each keeps its count (24, 192, 7 GPUs), as before this change."""
    # the catalog compare of tests/cli/test_buyer_review_round51.py's runs-in-time check, shared
    rows = {r["gpu"]: r for r in compared("serve-kimi-k2.5-int4-eagle3")}
    got = {g: rows[g]["gpus"] for g in ("v100-sxm2-32gb", "t4-16gb", "ryzen-ai-max-395-128gb")}
    assert got == {"v100-sxm2-32gb": 24, "t4-16gb": 192, "ryzen-ai-max-395-128gb": 7}
