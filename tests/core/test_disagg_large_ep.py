"""Large-scale P/D DeepSeek figures (attention DP and wide expert parallelism) replayed
(tests/core/data/disagg-large-ep.json; docs/evidence/serving.md, the sections 'Disaggregated,
round 15: large-scale expert parallelism' and 'DeepEP's exchange'). Tolerance: the issue's 25 %
on every figure.

The SGLang team's 96-H100 prefill servers (LMSYS blog 2025-05-05: EP32 over 4 nodes, 16,384
tokens a rank a batch, DeepEP's normal kernels) read 0.57-0.62 of the published 50-58k tokens/s
a node with the exchange the run set (``serving.moe_a2a_backend`` "deepep_normal": FP8 once per
destination node at the DeepEP README's rates), 0.14-0.16 with the 16-bit copy per expert; the
rest is the busiest rank of an unbalanced router where the run placed experts by EPLB (its
balance published only as a chart) and overlapped the exchange with compute (two-batch
overlap); its simulated-perfect-EPLB prefill (random experts, a balance of 0.994 by arithmetic)
0.86. With the overlap and EPLB's placement of the replicas both modelled they read 1.64-1.77,
fast: the overlap gained more in ours than the blog measured; with the overlap staged as SGLang
stages it 1.31-1.33, still fast, and the simulated-perfect-EPLB row 1.13, within; with EPLB's
hierarchical policy, which SGLang takes for DeepSeek's 8 expert groups over the 4 prefill nodes,
1.22-1.25, within. Ant Group's
H20 deployment (LMSYS blog 2025-09-26): the TP 8 prefill node within (1.07), the DP16/EP16 MTP
decode with DeepEP's low-latency kernels over the post's four 400 Gb/s NICs a node 0.78-1.01 at
the load balance the post states (``serving.expert_balance``; 0.71-0.96 without). Each figure's
settings and what the scenario cannot express are in the data file beside its source."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.presets import model_presets

DATA = json.loads((Path(__file__).parent / "data" / "disagg-large-ep.json").read_text())
ROWS = DATA["rows"]
TOL = 0.25  # the bar


def _ours(row: dict[str, Any], scenario: dict[str, Any] | None = None) -> float:
    """Ours as the row's measure reads it (tokens/s): a prefill server's input tokens over a
    burst's makespan a node (output 1: the engine's tokens/s is requests/s), or a decode rank's
    batch over the split's time per output token."""
    sv = estimate_report(scenario or row["scenario"])["serving"]
    if row["measure"] == "input_tokens_per_second_per_node":
        prompt = row["scenario"]["workload"]["prompt_tokens"]
        return float(sv["tokens_per_second"]) * prompt / row["nodes"]
    return row["batch_per_gpu"] / float(sv["disaggregated_tpot_seconds"])


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["id"])
def test_large_ep_figure(row: dict[str, Any]) -> None:
    """Each figure within 25 % or not, as docs/evidence/serving.md states it."""
    ours = _ours(row)
    assert (ours == pytest.approx(row["published"], rel=TOL)) is row["within"], (ours, row["id"])


def _with(row: dict[str, Any], **serving: Any) -> dict[str, Any]:
    """The row's scenario with ``serving`` fields replaced."""
    sc = json.loads(json.dumps(row["scenario"]))
    sc["serving"].update(serving)
    return sc


def test_lmsys_prefill_with_deepep_normal_and_two_batch_overlap() -> None:
    """The three 96-H100 prefill figures (1K, 2K, 4K) as the command ran them (DeepEP's normal
    kernels, two-batch overlap, 32 redundant experts placed by EPLB's hierarchical policy, the
    preset's 8 expert groups over the 4 nodes: core/speed/eplb_hierarchical.py) read 1.22, 1.25
    and 1.25 of the published, within (1.31, 1.33, 1.32 under the global policy), with the
    overlap staged as SGLang stages it (core/speed/step_tbo.py ``prefill_layers``; 1.64-1.77
    with each exchange hidden behind the other micro-batch's whole computation and the global
    policy); without the overlap 0.88, 0.90, 0.93 (0.94, 0.96, 0.99 under the global policy). With
    the replicas drawn as experts of their own (before EPLB's placement was modelled) 0.94-0.99
    with the overlap, 0.59-0.64 without: the unbalanced router (2.9-3.0x the mean rank's pairs,
    where EPLB's global policy leaves 1.05-1.06x and its hierarchical one 1.15-1.16x) offset the
    overlap's overshoot. With the 16-bit copy per expert over the NIC as well 0.36-0.39. At a
    perfect balance (not counted) 0.96-1.01 without the overlap and 1.34-1.35 with it (1.67-1.80
    before): ours' overlap gains +34-39 % where the blog's own ablation measured +27-35 %, on a
    base at 0.88-0.93
    (docs/evidence/serving.md, the sections 'Two-batch overlap', EPLB's placement and what
    two-batch overlap leaves unhidden)."""
    rows = [r for r in ROWS if r["id"].startswith("lmsys") and "perfect" not in r["id"]]
    assert all(r["scenario"]["serving"]["two_batch_overlap"] for r in rows)
    for serving, want in (
        ({}, [1.22, 1.25, 1.25]),
        ({"two_batch_overlap": None}, [0.88, 0.9, 0.93]),
        ({"two_batch_overlap": None, "moe_a2a_backend": None}, [0.36, 0.37, 0.39]),
        ({"two_batch_overlap": None, "expert_balance": 1.0}, [0.96, 0.99, 1.01]),
        ({"expert_balance": 1.0}, [1.34, 1.35, 1.34]),
    ):
        got = [round(_ours(r, _with(r, **serving)) / r["published"], 2) for r in rows]
        assert got == want, (serving, got)


def test_lmsys_simulated_perfect_eplb() -> None:
    """The profile table's 'SGLang + Simulated Perfect EPLB' prefill (59,337 a node at 4,096 in,
    16,384 tokens a rank: random expert selection) at the balance that routing gives by
    arithmetic (0.994; the data file's notes), with the run's two-batch overlap staged as SGLang
    stages it: 1.13, within (1.52 with each exchange behind the other micro-batch's whole
    computation); 0.86 without the overlap, 0.38 with the 16-bit copy per expert as well."""
    row = next(r for r in ROWS if r["id"].endswith("simulated-perfect-eplb"))
    assert _ours(row) / row["published"] == pytest.approx(1.13, abs=0.01)
    one = _ours(row, _with(row, two_batch_overlap=None)) / row["published"]
    assert one == pytest.approx(0.855, abs=0.01)
    before = _ours(row, _with(row, two_batch_overlap=None, moe_a2a_backend=None)) / row["published"]
    assert before == pytest.approx(0.38, abs=0.01)


def test_lmsys_eplb_against_its_simulated_perfect_balance() -> None:
    """The published check of EPLB's residual imbalance (LMSYS 2025-05-05 profile table: 'SGLang
    (Default) 50,302', 'SGLang + Simulated Perfect EPLB 59,337' a node at 4,096 in, 16,384 tokens
    a rank; 0.85), nothing set from it: ours' 4K EPLB row over ours' simulated-perfect row 0.94
    with EPLB's hierarchical policy, as SGLang places DeepSeek's 8 groups over 4 nodes (0.99 under
    the global policy, which leaves the busiest rank 1.05x where the hierarchical one leaves
    1.15x: tests/core/test_eplb_placement.py). Still above the published: the request-level
    spread beyond independent pairs is not modelled (docs/evidence/serving.md, the section on
    EPLB's hierarchical policy)."""
    perfect = next(r for r in ROWS if r["id"].endswith("simulated-perfect-eplb"))
    eplb = next(r for r in ROWS if r["id"] == "lmsys-96xh100-prefill-ep32-4096")
    assert _ours(eplb) / _ours(perfect) == pytest.approx(0.935, abs=0.01)
    assert _ours(eplb) / _ours(perfect) > 50302 / 59337  # the stated direction of the miss
    no_groups = json.loads(json.dumps(eplb["scenario"]))
    no_groups["model"] = _without_groups("deepseek-v3")
    assert _ours(eplb, no_groups) / _ours(perfect) == pytest.approx(0.99, abs=0.01)


def _without_groups(preset: str) -> dict[str, Any]:
    """The preset's model block stated in full with no expert groups (EPLB's global policy)."""
    block = {k: v for k, v in model_presets()[preset].items() if k not in ("id", "aliases", "notes")}
    block["moe"] = {**block["moe"], "expert_groups": 0}
    return block


def test_ant_prefill_insensitive_to_the_unstated_settings() -> None:
    """Ant Group's TP 8 H20 prefill node: the memory fraction the post does not state (0.88 to
    0.95) and the KV cache's precision (16-bit or FP8) leave ours' input throughput unchanged, so
    the fraction set to let the engine start chooses nothing (16.5k published, ours -3 %; +7 %
    before MLA's down-projections were read whole on every rank, core/model/mla_whole.py)."""
    row = next(r for r in ROWS if r["id"] == "ant-h20-prefill-tp8-4096")
    base = _ours(row)
    assert base / row["published"] == pytest.approx(0.97, abs=0.02)  # was 1.07
    for fraction in (0.88, 0.95):
        for kv in (None, "fp8"):
            sc = json.loads(json.dumps(row["scenario"]))
            sc["serving"]["memory_fraction"] = fraction
            if kv:
                sc["precision"] = {"kv_cache": kv}
            assert _ours(row, sc) == pytest.approx(base, rel=1e-6)


def test_ant_decode_with_the_stated_balance() -> None:
    """The DP16/EP16 decode over two H20 nodes with MTP and DeepEP's low-latency kernels (as the
    run set them; the post's H20 nodes carry four 400 Gb/s NICs for eight GPUs, so the README's
    rates at half), at the post's stated load balance (above 70 %: ``serving.expert_balance``
    0.7, its bound): 0.78, 0.79 and 1.01 of the published at 48, 32 and 12 sequences a GPU
    (0.77, 0.77, 0.95 with the 16-bit copy per expert over the NIC; 0.89, 0.90, 1.12 at the
    catalog's NIC a GPU, 1.13 before the per-linear quant count). Without the balance ours
    takes the busiest rank of its power-law router (1.7-1.8x the mean rank's tokens where the
    post's EPLB holds it under 1.43x) and reads 0.71, 0.73 and 0.95 (0.74 and 0.96 while block
    FP8 counted a flat 6 quant kernels a DeepSeek layer, not 5 dense / 7 MoE,
    core/speed/step_kernels.py ``block_fp8_quants``); at a perfect balance 0.88, 0.89, 1.11, so
    every balance the post allows keeps the three within 25 % (docs/evidence/serving.md, round 15
    and the section 'DeepEP's exchange')."""
    rows = [r for r in ROWS if r["id"].startswith("ant-h20-decode")]
    assert all(r["scenario"]["serving"]["moe_a2a_backend"] == "deepep_low_latency" for r in rows)
    assert [round(_ours(r) / r["published"], 2) for r in rows] == [0.78, 0.79, 1.01]
    for serving, want in (
        ({"expert_balance": None}, [0.71, 0.73, 0.95]),
        ({"expert_balance": 1.0}, [0.88, 0.89, 1.11]),
        ({"moe_a2a_backend": None}, [0.77, 0.77, 0.95]),
    ):
        got = [round(_ours(r, _with(r, **serving)) / r["published"], 2) for r in rows]
        assert got == want, (serving, got)
    catalog_nic = []
    for r in rows:
        sc = _with(r)
        del sc["hardware"]["network_gb_per_s"]
        catalog_nic.append(round(_ours(r, sc) / r["published"], 2))
    assert catalog_nic == [0.89, 0.90, 1.12]


def test_ant_decode_needs_the_fp8_cache_to_hold_its_batch() -> None:
    """48 sequences of 4,096 + 1,536 tokens a rank do not fit a 16-bit MLA pool on an H20 in
    ours (37 do), so the stated batch implies the stack's FP8 MLA cache (the post's 'FP8 Q/KV')."""
    row = next(r for r in ROWS if r["id"].endswith("bs48"))
    sc = json.loads(json.dumps(row["scenario"]))
    sc.pop("precision")
    assert estimate_report(sc)["serving"]["running"] < 48
    assert estimate_report(row["scenario"])["serving"]["running"] == 48


def _lmsys_decode(tensor: int) -> dict[str, Any]:
    users = 256 * tensor
    return {
        "model": {"preset": "deepseek-v3"},
        "framework": "sglang",
        "hardware": {"gpu": "h100-sxm-80gb", "allow_cross_node_tensor_parallel": True},
        "parallelism": {"tensor": tensor, "attention_data": tensor, "expert": tensor},
        "workload": {
            "kind": "inference",
            "prompt_tokens": 2000,
            "generated_tokens": 100,
            "batch_size": users,
        },
        "serving": {
            "concurrency": users,
            "load": "steady",
            "engine_version": "0.4.3",
            "max_context": 4500,
            "memory_fraction": 0.835,
            "disaggregated": {
                "prefill_gpus": 32,
                "decode_gpus": tensor,
                "prefill_tensor": 32,
                "prefill_attention_data": 32,
                "prefill_expert": 32,
            },
        },
    }


def test_lmsys_decode_ep72_cannot_be_stated() -> None:
    """The 22.3k decode figure ran 72 ranks with 288 physical experts (256 + 32 redundant):
    the scenario refuses the layout, so the figure is recorded as not replayed."""
    with pytest.raises(ScenarioError):
        estimate_report(_lmsys_decode(72))


def test_lmsys_decode_nearest_layout_not_counted() -> None:
    """Not counted: the same 256 sequences a GPU on 8 decode nodes (EP64, four experts a GPU as
    the run held) read 5,539 tokens/s a node against 22,282 (0.25); the decode step's MoE exchange
    is 0.30 of its 0.37 s (docs/evidence/serving.md, round 15). With the run's DeepEP low-latency
    kernels (``--deepep-mode low_latency``) 0.30, still not counted (the section 'DeepEP's
    exchange')."""
    sv = estimate_report(_lmsys_decode(64))["serving"]
    per_node = 8 * 256 / sv["disaggregated_tpot_seconds"]
    assert per_node / 22282 == pytest.approx(0.25, abs=0.02)
    sc = _lmsys_decode(64)
    sc["serving"]["moe_a2a_backend"] = "deepep_low_latency"
    per_node = 8 * 256 / estimate_report(sc)["serving"]["disaggregated_tpot_seconds"]
    assert per_node / 22282 == pytest.approx(0.30, abs=0.02)


def test_counted_figures() -> None:
    """Eight figures counted under the disaggregated speed evidence, eight within 25 % (five
    before two-batch overlap was stated: the three 96-H100 prefill figures came within, the
    simulated-perfect-EPLB one left it, fast; seven until EPLB's placement was modelled, which
    took the three prefill figures out, fast with the overlap's overshoot; four until the
    overlap was staged as SGLang stages it, which brings the simulated-perfect-EPLB one back;
    five until EPLB's hierarchical policy was modelled, which brings the three prefill ones in)."""
    counted = [r["within"] for r in ROWS if r["counted"]]
    assert (len(counted), sum(counted)) == (8, 8)
    assert len(DATA["not_replayed"]) == 5
