"""A buyer's reading of ``compare`` and ``plan``, round 43 (docs/evidence/rl.md, the round-43
section): what round 42 left open.

1. "Not-offered rows show 1-GPU runs of thousands of days, because the offloaded optimizer
   steps every micro-batch." The speed model steps it once per optimizer step, as DeepSpeed
   (``engine.step()`` at ``is_gradient_accumulation_boundary()``) and FSDP's loops do; the
   rows are one micro-batch a step because ``workload.global_batch_size`` unset is the
   micro-batch times the data-parallel GPUs (Megatron-LM's default). A note now says so
   (core/sizing/offload_note.py); no figure moves.
2. Machines with no cloud price (a Mac Studio, a workstation) ranked among themselves by speed:
   the $9,499 M3 Ultra above the $5,999 one serving the user as fast. They now rank by their
   purchase price among those that meet the targets (core/sizing/compare_rank.py
   ``purchase_rank``), said in the Why.
3. A one-user serving case with ``targets.users`` unset counted every replica a multi-GPU unit
   makes room for: an 8-GPU MI325X platform read 8 x batch 1, 1,127 tokens/s, ranked 9th.
   The load is now the stated ``workload.batch_size`` (core/sizing/served.py ``load_users``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer.cli import main
from tests.cli.buyer_cases import case

DATA = Path(__file__).parent / "data" / "buyer"


def rows(data: dict[str, Any], *gpus: str, **options: Any) -> list[dict[str, Any]]:
    return gpusizer.compare_gpus(data, gpus=list(gpus), **options)


# --- 1. the offloaded optimizer steps once per optimizer step --------------------------------


def _step(global_batch: int | None) -> dict[str, Any]:
    s = {
        "model": {"preset": "llama-3.2-3b"},
        "framework": "deepspeed",
        "workload": {"kind": "pretraining", "sequence_length": 4096, "global_batch_size": global_batch},
        "parallelism": {"offload_optimizer": True, "recompute": "full"},
        "hardware": {"gpu": "rtx-a6000-48gb"},
    }
    return gpusizer.estimate_report(s)["training_step"]


def test_the_host_optimizer_is_charged_once_per_global_batch() -> None:
    # DeepSpeed deepspeed/runtime/engine.py: step() takes the model step (ZeRO-Offload's CPU
    # Adam) only at is_gradient_accumulation_boundary(); the micro-batches before only add
    # their gradients. So 64 micro-batches a step pay one host step, not 64
    one, many = _step(None), _step(64)
    assert one["microbatches"] == 1 and many["microbatches"] == 64
    assert many["optimizer_seconds"] == pytest.approx(one["optimizer_seconds"], rel=1e-9)
    # the compute scales with the micro-batches, the host step does not: more tokens a second
    assert many["tokens_per_second_per_gpu"] > 3 * one["tokens_per_second_per_gpu"]


def test_a_one_micro_batch_step_says_why_its_run_is_long() -> None:
    # Llama 3.2 3B on 300B tokens, one RTX A6000 (the search turns on optimizer offload to hold
    # it): "1 GPU trains it in 5,011.6 days" with the host's Adam 4.8 of a 5.9 s step every
    # 4,096 tokens, as the scenario states no global batch (Megatron-LM arguments.py: global
    # batch = micro-batch x DP when unset). The figure stands; the note says why
    o = rows(case("pretrain-3b-300b-3weeks"), "rtx-a6000-48gb")[0]
    assert o["time_seconds"] / 86400 == pytest.approx(5011.6, abs=0.1)  # unchanged
    said = [n for n in o["notes"] if "offloaded to the CPU steps after every micro-batch" in n]
    assert len(said) == 1 and "workload.global_batch_size" in said[0] and "4,096 tokens" in said[0]


def test_a_stated_global_batch_has_no_such_note() -> None:
    data = case("pretrain-3b-300b-3weeks")
    data["workload"]["global_batch_size"] = 256
    o = rows(data, "rtx-a6000-48gb")[0]
    assert not any("steps after every micro-batch" in n for n in o["notes"])


# --- 2. the unpriced rank by purchase price ---------------------------------------------------

MACS = ("apple-m3-ultra-512gb", "apple-m3-ultra-256gb", "apple-m4-max-128gb")


def test_the_cheaper_mac_that_serves_as_fast_ranks_first() -> None:
    # Llama 3.1 8B 4-bit, one user, MLX: both M3 Ultras serve 116.2 tokens/s; no cloud rents
    # either, so the cost per million tokens is unknown; a buyer buys the $5,999 one
    # (Apple's list prices, the catalog's sourced purchase prices)
    got = rows(case("local-llama-8b-mlx"), *MACS)
    assert [o["gpu"] for o in got] == ["apple-m3-ultra-256gb", "apple-m3-ultra-512gb", "apple-m4-max-128gb"]
    first, second = got[0], got[1]
    speed = second["tokens_per_second_per_user"]
    assert first["tokens_per_second_per_user"] == pytest.approx(speed, rel=0.01)
    assert first["purchase_cost"] == 5999 and second["purchase_cost"] == 9499
    assert "ranked among the unpriced by its purchase, $5,999" in first["layout_reason"]
    assert "by its purchase price: $5,999" in first["unmet_reason"]
    # the M4 Max misses the default first-token target: after both, no purchase clause
    assert got[2]["default_target_met"] is False
    assert "purchase" not in (got[2]["layout_reason"] or "")


def test_owned_basis_still_ranks_by_cost_per_million_tokens() -> None:
    # owning prices every Mac: the cost per million tokens ranks them, no purchase clause
    got = rows(case("local-llama-8b-mlx"), *MACS, basis="owned")
    assert all(o["cost_per_million_tokens"] is not None for o in got[:2])
    assert not any("ranked among the unpriced" in (o["layout_reason"] or "") for o in got)
    costs = [o["cost_per_million_tokens"] for o in got[:2]]
    assert costs == sorted(costs)


def test_the_priced_still_come_before_the_unpriced() -> None:
    # a rented RTX 3090 has a cost per million tokens; the DGX Spark only a purchase price
    got = rows(case("local-qwen3-30b-a3b-llamacpp"), "dgx-spark-128gb", "rtx-3090-24gb")
    assert [o["gpu"] for o in got] == ["rtx-3090-24gb", "dgx-spark-128gb"]


# --- 3. with targets.users unset the stated batch is the load --------------------------------


def test_one_users_platform_counts_one_users_tokens() -> None:
    # Qwen3 30B-A3B Q4_K_M on llama.cpp, batch_size 1, no targets.users: the MI325X platform's
    # 8 GPUs ran 8 replicas at batch 1, 1,127 tokens/s, $3.84 a million tokens, 9th of the
    # list above single cards that serve the user as fast. Its Tok/s is now the one request's
    got = rows(case("local-qwen3-30b-a3b-llamacpp"), "mi325x-256gb", "rtx-3090-24gb", "rtx-4090-24gb")
    by = {o["gpu"]: o for o in got}
    mi = by["mi325x-256gb"]
    assert mi["gpus"] == 8 and mi["needed_gpus"] == 1
    # one request at 146 tokens/s per user draws ~141 tokens/s (prefill between), not 8 x 141
    assert mi["tokens_per_second"] < 1.2 * mi["tokens_per_second_per_user"]
    assert any("the 1 request stated (workload.batch_size; no targets.users)" in n for n in mi["notes"])
    # the single cards that serve the user come first
    assert [o["gpu"] for o in got][-1] == "mi325x-256gb"
    assert mi["cost_per_million_tokens"] > 5 * by["rtx-3090-24gb"]["cost_per_million_tokens"]


def test_stated_users_keep_their_meaning() -> None:
    # targets.users 8 asks for eight users: the platform serves them at 8 replicas, as before
    data = case("local-qwen3-30b-a3b-llamacpp")
    data["targets"] = {"users": 8}
    mi = rows(data, "mi325x-256gb")[0]
    assert mi["tokens_per_second"] == pytest.approx(1127, rel=0.02)  # round 42's figure


def test_a_single_gpu_row_is_unchanged() -> None:
    # one replica on one card: the stated batch fills its slots, nothing to scale (113.1 and
    # 92 tokens/s in round 42's table)
    o = rows(case("local-qwen3-30b-a3b-llamacpp"), "rtx-3090-24gb")[0]
    assert o["gpus"] == 1
    assert o["tokens_per_second_per_user"] == pytest.approx(113.1, abs=0.05)
    assert o["tokens_per_second"] == pytest.approx(92, abs=0.5)


def test_compare_text_says_the_purchase_order(capsys: pytest.CaptureFixture[str]) -> None:
    path = DATA / "local-llama-8b-mlx.gpusizer.json"
    assert main(["compare", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Why (apple-m3-ultra-256gb): the fewest that hold it" in out
    assert out.index("Apple M3 Ultra 256GB") < out.index("Apple M3 Ultra 512GB")
