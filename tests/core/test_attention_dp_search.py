"""Attention-DP layouts in the advice's search (core/sizing/layout_adp.py, core/sizing/adp_count.py)
and the registry of the engines that run them (core/registry/attention_dp.py). Each test says
why a buyer expects it."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.attention_dp import ATTENTION_DP, AttentionDP, register, support
from gpusizer.core.registry.frameworks import FRAMEWORKS
from gpusizer.core.registry.table import DuplicateId
from gpusizer.core.sizing.gpus_needed import gpus_needed
from gpusizer.core.sizing.layout_adp import adp_widths
from gpusizer.core.sizing.solver import plan

DATA = Path(__file__).parent / "data"
H100 = ["h100-sxm-80gb"]


def _decode() -> dict[str, Any]:
    """The SGLang team's 72 x H100 decode (tests/core/data/disagg-large-ep-decode.json, first row:
    DeepSeek-V3, 18,432 users of 2,000 + 100 tokens, DeepEP low-latency, 32 redundant experts) as
    one aggregated engine: no P/D split and no two-batch overlap stated."""
    rows = json.loads((DATA / "disagg-large-ep-decode.json").read_text(encoding="utf-8"))["rows"]
    sc = copy.deepcopy(rows[0]["scenario"])
    sc["serving"].pop("disaggregated")
    sc["serving"].pop("two_batch_overlap")
    return sc


def test_the_registry_holds_the_engines_with_the_switch() -> None:
    """Every engine profile with an attention-DP switch has an entry and no other: the search
    reads the registry, the estimate's checks the profile, and the two must agree."""
    flagged = {p.id for p in FRAMEWORKS.values() if p.attention_data_flag}
    assert set(ATTENTION_DP) == flagged == {"sglang", "vllm", "tensorrt-llm"}
    assert all(e.source for e in ATTENTION_DP.values())
    with pytest.raises(DuplicateId):
        register(AttentionDP("sglang", "--enable-dp-attention", "divides", "again"))


def test_rank_counts_follow_each_engine() -> None:
    """SGLang asserts dp > 1 and tp % dp == 0 (server_args.py); TensorRT-LLM's
    enable_attention_dp sets the ranks to the TP size (NVIDIA Dynamo docs); vLLM's DP ranks of
    TP N / A (its docs): the rank counts each runs on an engine of 8 GPUs."""
    sglang, trt, vllm = support("sglang"), support("tensorrt-llm"), support("vllm")
    assert sglang is not None and trt is not None and vllm is not None
    assert [a for a in range(1, 9) if sglang.runs(8, a)] == [2, 4, 8]
    assert [a for a in range(1, 9) if trt.runs(8, a)] == [8]
    assert [a for a in range(1, 9) if vllm.runs(8, a)] == [2, 4, 8]
    assert support("llama.cpp") is None


def test_the_widths_divide_the_physical_experts_and_skip_dense_models() -> None:
    """EP must divide routed + redundant experts (the engines assert it): DeepSeek-V3 with 32
    replicas is tried at 72 ranks, not 64; a dense model, training, or an engine without the
    switch has none (their docs offer attention DP for MoE models only)."""
    s = parse_scenario(_decode())
    widths = adp_widths(s, 4096)
    assert 72 in widths and 64 not in widths and all(288 % n == 0 for n in widths)
    assert len(widths) == 17  # the divisors of 288 from 2 up
    served = {"workload": {"kind": "inference"}}
    dense = parse_scenario({"model": {"preset": "llama-3.1-70b"}, "framework": "sglang", **served})
    assert adp_widths(dense, 4096) == []
    cpp = parse_scenario({"model": {"preset": "qwen3-30b-a3b"}, "framework": "llama.cpp", **served})
    assert adp_widths(cpp, 4096) == []
    trained = parse_scenario({"model": {"preset": "qwen3-30b-a3b"}, "workload": {"kind": "lora"}})
    assert adp_widths(trained, 4096) == []


def test_the_72_gpu_decode_gets_its_attention_dp_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, the search's plain layouts held the 18,432 users only as 61 pipeline stages (64
    H100s bought; at this writing a 930.5 s first token, 744 tokens/s). SGLang runs the
    deployment as one engine of 72 attention-DP ranks, 256 users and 4 of the 288 experts a GPU
    (LMSYS 2025-05-05); the search now prices it: 72 x H100 (9 servers; at this writing 367.1 s,
    2,455 tokens/s, a third of the cost per token), taken over the 64 because it is no later to
    the first token, no longer end to end and serves more tokens a GPU (core/sizing/adp_count.py).
    The first token is what the queue implies, not the layout's fault: 18,432 users in a closed
    loop each wait 18,432 x 100 tokens over the engine's tokens/s a request (Little's law), and
    the first token plus 99 tokens at the time per token is that (within 1 %). Both miss the
    default target: 18,432 users at 5 tokens/s are 92,160 tokens/s. The figures are compared, not
    pinned, so that a change of the speed model moves both sides."""
    got = plan(_decode(), gpus=H100)[0]
    assert got["gpus"] == 72 and got["needed_gpus"] == 72
    assert got["layout"] == "TP 72 x PP 1 x DP 1, EP 72, attention DP 72"
    assert got["parallelism"]["attention_data"] == 72
    assert got["unmet"] == "targets" and got["default_target_met"] is False
    end_to_end = got["ttft_seconds"] + 99 * got["tpot_seconds"]
    assert end_to_end == pytest.approx(18432 * 100 / got["tokens_per_second"], rel=0.01)
    reason = got["layout_reason"]
    assert reason.startswith("9 x NVIDIA HGX / DGX H100 8-GPU server: the fewest an attention-DP engine")
    assert "attention DP 72: each GPU its own attention and requests, the experts over all 72" in reason
    needed = gpus_needed(parse_scenario(_decode()))
    assert needed is not None and needed.gpus == 72 and needed.layout == got["layout"]
    monkeypatch.delitem(ATTENTION_DP, "sglang")
    old = plan(_decode() | {"name": "no attention DP in the search"}, gpus=H100)[0]
    assert (old["gpus"], old["layout"]) == (64, "TP 1 x PP 61 x DP 1")
    assert got["ttft_seconds"] <= old["ttft_seconds"]
    assert end_to_end <= old["ttft_seconds"] + 99 * old["tpot_seconds"]
    assert got["tokens_per_second"] / 72 > 2 * old["tokens_per_second"] / 64


def test_without_the_engine_entry_the_answer_is_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same scenario on an engine whose entry does not run attention DP keeps the plain
    answer given before the search weighed it: 64 H100s at TP 1 x PP 61 (930.5 s at this
    writing), the count the memory alone sets."""
    monkeypatch.delitem(ATTENTION_DP, "sglang")
    sc = _decode() | {"name": "no attention DP in the search, again"}  # not an answer kept above
    got = plan(sc, gpus=H100)[0]
    assert (got["gpus"], got["needed_gpus"], got["layout"]) == (64, 61, "TP 1 x PP 61 x DP 1")


def test_a_dense_models_plan_is_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dense model gains nothing from attention DP in these engines' docs: its plan with the
    registry is its plan with the registry emptied, field for field."""
    sc = {
        "model": {"preset": "llama-3.1-70b"},
        "framework": "sglang",
        "workload": {"kind": "inference", "prompt_tokens": 2000, "generated_tokens": 200},
        "serving": {"concurrency": 64},
    }
    gpus = ["h100-sxm-80gb", "l40s-48gb"]
    with_registry = plan(sc, gpus=gpus)
    for engine in list(ATTENTION_DP):
        monkeypatch.delitem(ATTENTION_DP, engine)
    assert plan(sc | {"name": "emptied"}, gpus=gpus) == with_registry


def test_attention_dp_ranks_may_span_nodes() -> None:
    """Under attention DP only the ranks' attention TP (tensor / attention_data) is tensor-parallel
    traffic; the experts' exchange crosses nodes as EP over replicas does (SGLang's --tp 72 --dp 72
    over 9 nodes): accepted without allow_cross_node_tensor_parallel. Plain TP 16 on 8-GPU nodes
    is still refused, and so is attention TP 16."""
    sc = _decode()
    sc["hardware"] = {"gpu": "h100-sxm-80gb"}
    assert estimate_report(sc)["fits"]
    for par in ({"tensor": 16}, {"tensor": 32, "attention_data": 2, "expert": 32}):
        bad = copy.deepcopy(sc)
        bad["parallelism"] = par
        bad["serving"]["redundant_experts"] = None
        with pytest.raises(ScenarioError) as err:
            estimate_report(bad)
        assert err.value.field == "parallelism.tensor"
