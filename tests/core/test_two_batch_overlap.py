"""``serving.two_batch_overlap``: SGLang's ``--enable-two-batch-overlap`` (core/speed/step_tbo.py;
docs/evidence/serving.md, the section 'Two-batch overlap'). The engine's split and stages are
python/sglang/srt/two_batch_overlap.py and operations_strategy.py; the gains checked are the
LMSYS blog 2025-05-05's own TBO ablation ('Ablation Study: Two-batch Overlap'), published
figures none of ours was fitted to."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.registry.moe_a2a import MOE_A2A_BACKENDS, Exchange
from gpusizer.core.speed.step_tbo import (
    DEEPEP_NORMAL_SMS,
    decode_layers,
    overlapped,
    prefill_layers,
    sm_legs,
    tbo_for,
)
from tests.core.test_disagg_large_ep import ROWS as PREFILL_ROWS
from tests.core.test_disagg_large_ep import _ours as _prefill
from tests.core.test_disagg_large_ep_decode import ROWS as DECODE_ROWS


def _scenario(**serving: Any) -> dict[str, Any]:
    """DeepSeek-V3 on 16 H100 (two nodes), attention DP 16, EP 16, SGLang, DeepEP auto."""
    sv = {"concurrency": 256, "load": "burst", "engine_version": "0.4.3", "moe_a2a_backend": "deepep_auto"}
    return {
        "model": {"preset": "deepseek-v3"},
        "framework": "sglang",
        "hardware": {"gpu": "h100-sxm-80gb", "allow_cross_node_tensor_parallel": True},
        "parallelism": {"tensor": 16, "attention_data": 16, "expert": 16},
        "workload": {"kind": "inference", "prompt_tokens": 1024, "generated_tokens": 64, "batch_size": 256},
        "serving": {**sv, **serving},
    }


def test_null_and_false_change_nothing() -> None:
    """Unset, null and false give the same report, byte for byte (the echoed scenario aside,
    which keeps the false): one batch, as before."""

    def answers(**serving: Any) -> str:
        report = estimate_report(_scenario(**serving))
        return json.dumps({k: v for k, v in report.items() if k != "scenario"})

    base = answers()
    assert answers(two_batch_overlap=None) == base
    assert answers(two_batch_overlap=False) == base
    on = answers(two_batch_overlap=True)
    assert on != base
    assert "two-batch overlap (SGLang --enable-two-batch-overlap)" in json.dumps(on)
    assert "two-batch overlap" not in base


def test_the_overlap_rule() -> None:
    """Each micro-batch's exchange hides behind the other's computation up to the longer of the
    two: an exchange shorter than the computation costs nothing, a longer one its excess."""
    assert overlapped(1.0, 0.4) == 2.0
    assert overlapped(1.0, 1.0) == 2.0
    assert overlapped(1.0, 1.5) == 3.0
    assert overlapped(0.0, 0.5) == 1.0


def test_prompt_gemms_on_the_sms_deepep_leaves() -> None:
    """In a prompt step the GEMMs run on ``SMs - 20`` (SGLang's deep_gemm_num_sms, DeepEP's
    Buffer.num_sms): 132 / 112 on an H100 SXM; a GPU not listed keeps its rate. DeepSeek-V3's
    MoE layers are 58 of its 61."""
    assert DEEPEP_NORMAL_SMS == 20
    t = tbo_for("h100-sxm-80gb", 61, 58)
    assert t.prompt_gemm_scale == pytest.approx(132 / 112)
    assert t.moe_share == pytest.approx(58 / 61)
    assert tbo_for("b200-192gb", 61, 58).prompt_gemm_scale == 1.0


def _bad(**changes: Any) -> dict[str, Any]:
    sc = _scenario(two_batch_overlap=True)
    for key, value in changes.items():
        section, field = key.split("__")
        sc[section][field] = value
    return sc


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"framework__": "vllm"}, "framework sglang, not vLLM"),
        ({"serving__moe_a2a_backend": None}, "set serving.moe_a2a_backend to a deepep_ id"),
        ({"serving__moe_a2a_backend": "none"}, "set serving.moe_a2a_backend to a deepep_ id"),
        ({"serving__two_batch_overlap": "on"}, "boolean"),
    ],
)
def test_bad_input_names_the_field(changes: dict[str, Any], words: str) -> None:
    """Another engine, no DeepEP backend, not a boolean: refused, naming the field."""
    if "framework__" in changes:
        sc = _scenario(two_batch_overlap=True)
        sc["framework"] = "vllm"
        sc["serving"]["moe_a2a_backend"] = "deepep_low_latency"
    else:
        sc = _bad(**changes)
    with pytest.raises(ScenarioError) as err:
        estimate_report(sc)
    assert err.value.field == "serving.two_batch_overlap"
    assert words in str(err.value)


def test_experts_on_one_rank_refused() -> None:
    """Nothing to overlap where the experts sit on one rank (or a dense model)."""
    sc = _scenario(two_batch_overlap=True, moe_a2a_backend=None)
    sc["parallelism"] = {"tensor": 8}
    sc["hardware"].pop("allow_cross_node_tensor_parallel")
    with pytest.raises(ScenarioError) as err:
        estimate_report(sc)
    assert err.value.field == "serving.two_batch_overlap"


def _prefill_gain(row: dict[str, Any], balance: float | None) -> float:
    """Ours with over without the overlap on the row's prefill server at 8,192 tokens a rank a
    batch (the vanilla run's most: 'each device processes up to 8,192 tokens before
    encountering out-of-memory')."""
    out = []
    for tbo in (True, None):
        sc = json.loads(json.dumps(row["scenario"]))
        sc["serving"].update(two_batch_overlap=tbo, prefill_chunk_tokens=8192, expert_balance=balance)
        out.append(_prefill(row, sc))
    return out[0] / out[1]


def test_the_blogs_prefill_gain_checked() -> None:
    """Published (LMSYS 2025-05-05): 'TBO achieves a 27% to 35% throughput increase compared to
    the vanilla setup, even when processing the same token count per device'. Ours at the same
    8,192 tokens a rank, each exchange hidden only behind the stage SGLang's prefill strategy
    runs beside it (core/speed/step_tbo.py ``prefill_layers``) and the prompt attention on the
    SMs DeepEP's normal kernels leave as the GEMMs are: +34-39 % with the busiest rank EPLB's
    hierarchical placement of the 32 replicas leaves (1K, 2K, 4K; +32-39 % under its global
    policy, core/speed/eplb_hierarchical.py), +31-38 % at a perfect balance; +74-79 %
    while each exchange hid behind the other micro-batch's whole computation. The 1K and 2K
    rows 2-4 points above the published range: the comm kernels' slowdown beside the GEMMs
    ('Both DeepSeek and SGLang have a communication time slower than unit test results, while
    the latter is achievable when disabling TBO') is not modelled."""
    rows = [r for r in PREFILL_ROWS if r["id"].startswith("lmsys") and "perfect" not in r["id"]]
    router = [round(_prefill_gain(r, None), 2) for r in rows]
    perfect = [round(_prefill_gain(r, 1.0), 2) for r in rows]
    assert router == [1.39, 1.38, 1.34]
    assert perfect == [1.38, 1.36, 1.31]
    assert all(1.27 <= g <= 1.35 + 0.05 for g in router + perfect)  # the published, or just above


def _decode(batch: int, balance: float | None, tbo: bool | None) -> float:
    """Tokens/s a node of the 96-H100 decode (EP72, DeepEP low-latency) at ``batch`` a rank."""
    row = DECODE_ROWS[0]
    sc = json.loads(json.dumps(row["scenario"]))
    sv = sc["serving"]
    sv.update(two_batch_overlap=tbo, cuda_graph_batch_sizes=[batch], concurrency=batch * 72)
    sv["expert_balance"] = balance
    sc["workload"]["batch_size"] = batch * 72
    return 8 * batch / float(estimate_report(sc)["serving"]["disaggregated_tpot_seconds"])


def test_the_blogs_decode_gains_checked() -> None:
    """Published: 'The speedup reaches 25.5% at 256 tokens'; below a threshold 'between 64 and
    128 tokens' TBO 'yields minimal or negative gains (e.g., -27% at 32 tokens/device)'. Ours,
    DeepEP's send and receive kernels on the compute stream and only the flight between them
    hidden, behind the stages SGLang's decode strategy runs beside it (core/speed/step_tbo.py
    ``decode_layers``: the dispatch's flight behind the shared experts and the other's attention
    ``op_prepare``, the combine's behind its ``op_core``), at a perfect balance: +28 % at 256
    (published +25.5 %; +29 % while block FP8 counted a flat 6 quant kernels a DeepSeek layer, not
    5 dense / 7 MoE), -26 % at 32 (published -27 %), the gain crossing 1 between 64 (0.90)
    and 128 (1.08) as published. With EPLB's placement of the 32 replicas (the busiest rank
    1.12x the mean at 256 a rank) +29 % at 256 and -24 % at 32. Each exchange hidden behind the
    other micro-batch's whole computation, the rule before, read +60 % and -22 % (+54 % and -19 %
    with EPLB's placement)."""
    gains = {b: _decode(b, 1.0, True) / _decode(b, 1.0, None) for b in (256, 128, 64, 32)}
    assert {b: round(g, 2) for b, g in gains.items()} == {256: 1.28, 128: 1.08, 64: 0.90, 32: 0.74}
    assert gains[64] < 1.0 < gains[128]
    assert gains[256] == pytest.approx(1.255, abs=0.05) and gains[32] == pytest.approx(0.73, abs=0.05)
    router = [round(_decode(b, None, True) / _decode(b, None, None), 2) for b in (256, 32)]
    assert router == [1.29, 0.76]


LOW_LATENCY = MOE_A2A_BACKENDS["deepep_low_latency"]


def _ll_exchange(tokens: float = 128, busy: float = 1.0, network: bool = True) -> Exchange:
    """DeepEP's low-latency test defaults (tests/test_low_latency.py: 128 tokens a rank, hidden
    7,168, top-8, FP8 dispatch, BF16 combine) over EP 16 on two 8-GPU nodes."""
    return Exchange(
        tokens=tokens, hidden=7168, top_k=8, ranks=16, node_ranks=8, network=network,
        nvlink_beta=370e9, network_scale=1.0, alpha=47e-6, busy_rank=busy, busy_node=busy,
        fp8=True, act_b=2,
    )  # fmt: skip


def test_the_send_and_receive_kernels_as_measured() -> None:
    """DeepEP PR 425's test log (two 8-GPU Hopper nodes over RDMA, the test's defaults; the mean
    of the seven ranks shown): 'Dispatch send/recv time: 36.4 + 32.5 us | Combine send/recv
    time: 40.1 + 10.2 us'. The rates transcribe them: at the test's own shape they give them
    back (tolerance 0.1 us, the rounding). Checked beside them, not set from it: the LMSYS
    blog's 'unit tests with DeepEP reveal a potential of 0.06ms occupying SMs' for the dispatch
    at its 96-H100 decode (128 tokens a micro-batch): 68.9 us here, 1.15x."""
    x = _ll_exchange()
    legs = LOW_LATENCY.legs(x, extend=False)
    disp, comb = sm_legs(x, legs)
    assert disp * 1e6 == pytest.approx(36.4 + 32.5, abs=0.1)
    assert comb * 1e6 == pytest.approx(40.1 + 10.2, abs=0.1)
    assert disp / 60e-6 == pytest.approx(1.15, abs=0.01)
    # the receive kernels copy what the busiest rank received; the send what the rank sends
    busy_d, busy_c = sm_legs(_ll_exchange(busy=2.0), LOW_LATENCY.legs(_ll_exchange(busy=2.0), False))
    assert busy_d * 1e6 == pytest.approx(36.4 + 2 * 32.5, abs=0.1)
    assert busy_c * 1e6 == pytest.approx(2 * 40.1 + 10.2, abs=0.1)
    # inside one NVLink domain the kernels copy every byte themselves: nothing in flight
    nvl = _ll_exchange(network=False)
    assert sm_legs(nvl, LOW_LATENCY.legs(nvl, False)) == LOW_LATENCY.legs(nvl, False)


def test_the_legs_sum_to_the_exchange() -> None:
    """The backends' (dispatch, combine) add up to the exchange the step charges without the
    overlap, for both kernel families, over the network and inside a node."""
    for backend in (LOW_LATENCY, MOE_A2A_BACKENDS["deepep_normal"]):
        for network in (True, False):
            x = _ll_exchange(tokens=4096, busy=1.3, network=network)
            assert sum(backend.legs(x, True)) == pytest.approx(backend.seconds(x, True), rel=1e-12)
    assert MOE_A2A_BACKENDS["none"].legs(_ll_exchange(), True) == (0.0, 0.0)


def test_the_decode_stages() -> None:
    """SGLang's decode strategy: the send and receive kernels in series with the computation;
    the dispatch's flight hidden behind the shared experts and the other micro-batch's
    ``op_prepare``, the combine's behind its ``op_core``; what is left waited out."""
    stages = (10.0, 20.0, 2.0, 30.0)  # op_prepare, op_core, shared experts, routed experts
    busy = 2.0 * (62.0 + 3.0 + 4.0)
    assert decode_layers(stages, (3.0 + 12.0, 4.0 + 20.0), (3.0, 4.0)) == busy  # all hidden
    assert decode_layers(stages, (3.0 + 15.0, 4.0 + 25.0), (3.0, 4.0)) == busy + 2.0 * (3.0 + 5.0)


def test_the_prefill_stages() -> None:
    """SGLang's prefill strategy: the normal kernels one at a time on their stream, a dispatch
    after its attention and before its experts, a combine after its experts and before the
    layer's output. Short exchanges hide whole; a dispatch longer than the other micro-batch's
    attention stalls the experts; a long combine stalls the next layer."""
    layers = 4
    assert prefill_layers(5.0, 1.0, 5.0, (1.0, 1.0), layers) == layers * 2 * 11.0
    stalled = prefill_layers(5.0, 1.0, 5.0, (8.0, 1.0), layers)
    assert stalled > layers * 2 * 11.0
    # one layer: both attentions (10), A's experts wait for its dispatch (to 13) and B's for
    # its own, queued behind A's (to 21), then the shared experts
    assert prefill_layers(5.0, 1.0, 5.0, (8.0, 1.0), 1) == 10.0 + 3.0 + 5.0 + 3.0 + 5.0 + 1.0 + 1.0
