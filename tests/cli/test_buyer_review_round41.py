"""Three buyer-facing gaps left by the round-40 review (tests/cli/test_buyer_review_round40.py).

1. "nothing fits ... and the engine's own memory fraction (serving.memory_fraction) kept" for
   Llama 3.3 70B FP8 on 12 and 16 GB cards under vLLM said nothing of the lever: at vLLM's
   default ``gpu_memory_utilization`` (0.92 from 0.20, vllm/config/cache.py) the start-up check
   (vllm/v1/worker/gpu_worker.py ``init_device``: fraction x total must be free at start)
   refuses every count of 12 GB cards, where at 0.85 20 RTX 5070 hold a replica. The no-fit now
   carries ``fraction_lever`` (core/sizing/fraction_lever.py: the check, by how much, the
   fraction that would fit and on how many GPUs, or that none would) and io/wording.py words it.
2. ``rl.rollout.gpus`` took up to 2^53 and ``serving.disaggregated.prefill_gpus`` up to 10^6,
   where every parallel degree stops at 2^20: one bound now (core/limits.py MAX_GPU_COUNT).
3. The Need line named the count search's fewest layout without the offloads the variant turns
   on, where the Layout column ends ", offloaded checkpoints, optimizer offload"
   (core/sizing/option.py ``layout_label``): the Need line now uses the same fields.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer.cli import main
from gpusizer.core.limits import MAX_DEGREE, MAX_GPU_COUNT

DATA = Path(__file__).parent / "data" / "buyer"
PREFIX = "serve-llama-3.3-70b-fp8-500-prefix"


def case(name: str) -> dict[str, Any]:
    return json.loads((DATA / f"{name}.gpusizer.json").read_text())


def row(data: dict[str, Any], gpu: str) -> dict[str, Any]:
    return {o["gpu"]: o for o in gpusizer.compare_gpus(data, gpus=[gpu])}[gpu]


# --- 1. the memory fraction that would fit --------------------------------------------------


def test_a_12gb_no_fit_names_the_start_check_and_the_fraction_that_fits() -> None:
    """Round-40's finding: at vLLM's default 0.9 no count of RTX 5070 starts (each rank's CUDA
    context and NCCL buffers leave under a tenth of 12 GB free: vllm/v1/worker/gpu_worker.py
    ``init_device``), at 0.85 20 of them hold a replica (PP 20, the compare of that scenario
    with ``serving.memory_fraction`` 0.85 says "20 GPUs hold one replica")."""
    o = row(case(PREFIX), "rtx-5070-12gb")
    assert o["fits"] is False and o["unmet"] == "memory"
    lever = o["fraction_lever"]
    # the release's default: vLLM 0.20's gpu_memory_utilization 0.92 (core/registry/
    # engine_releases.py, vllm/config/cache.py); 0.90 does not start either
    assert lever["stated_fraction"] == 0.92 and lever["fraction"] == 0.85 and lever["gpus"] == 20
    assert lever["check"] == "start_free"
    # short: the engine's inverse (required_bytes) less the 12 GB card; 7.16 GiB on this base
    assert 5 * 2**30 < lever["short_bytes"] < 9 * 2**30, lever


def test_the_fraction_found_fits_when_stated() -> None:
    """The lever is the search's own answer at that fraction: stated, the no-fit becomes the
    practical cap's sentence naming the same 20 GPUs (core/sizing/advise.py)."""
    data = case(PREFIX)
    data["serving"]["memory_fraction"] = 0.85
    o = row(data, "rtx-5070-12gb")
    assert o["unmet"] == "practical_limit" and "20 GPUs hold one replica" in o["unmet_reason"]
    assert "fraction_lever" not in o


def test_no_fraction_below_a_low_stated_one_fits() -> None:
    """At 0.55 stated the grid below it is 0.5 alone (core/sizing/fraction_lever.py LOWEST),
    where the pool of a 12 GB rank holds no request: none would."""
    data = case(PREFIX)
    data["serving"]["memory_fraction"] = 0.55
    lever = row(data, "rtx-5070-12gb")["fraction_lever"]
    assert lever == {"stated_fraction": 0.55, "fraction": None, "gpus": None, "check": None, "short_bytes": 0}


def test_the_cli_sentence_says_the_lever(capsys: pytest.CaptureFixture[str]) -> None:
    """io/wording.py ``fraction_lever_words``, printed once on the Not offered line."""
    args = ["compare", str(DATA / f"{PREFIX}.gpusizer.json"), "--gpus", "rtx-5070-12gb", "h100-sxm-80gb"]
    assert main(args) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("Not offered (rtx-5070"))
    assert "(serving.memory_fraction) kept; at 0.92 the engine's start-up check" in line, line
    assert line.endswith("at serving.memory_fraction 0.85, 20 GPUs hold one replica"), line


def test_fitting_options_and_training_have_no_lever() -> None:
    """Byte-identical elsewhere: the key is in the JSON only on a serving memory no-fit."""
    assert "fraction_lever" not in row(case(PREFIX), "h100-sxm-80gb")
    data = case("pretrain-7b-1t-30days")
    data["model"] = {"preset": "llama-3.1-405b"}
    assert "fraction_lever" not in row(data, "rtx-3060-12gb")


# --- 2. one bound on GPU counts ---------------------------------------------------------------


def test_gpu_counts_share_the_parallel_degrees_bound() -> None:
    """2^20 GPUs (core/limits.py: a million GPUs, 5x xAI Colossus's announced 200,000)."""
    assert MAX_GPU_COUNT == MAX_DEGREE == 2**20


@pytest.mark.parametrize(
    ("name", "path", "value", "allowed"),
    [
        ("rl-llama-8b-split", ("rl", "rollout", "gpus"), 2**21, "0 to 1,048,576"),
        ("rl-llama-8b-split", ("rl", "rollout", "gpus"), 2**53, "0 to 1,048,576"),
        ("rl-llama-8b-split", ("rl", "rollout", "gpus"), -1, "0 to 1,048,576"),
        ("serve-deepseek-v3-pd", ("serving", "disaggregated", "prefill_gpus"), 2**20 + 1, "1 to 1,048,576"),
        ("serve-deepseek-v3-pd", ("serving", "disaggregated", "decode_gpus"), 0, "1 to 1,048,576"),
        ("serve-deepseek-v3-pd", ("serving", "disaggregated", "decode_gpus"), 1e7, "1 to 1,048,576"),
    ],
)
def test_a_gpu_count_out_of_range_is_one_line_exit_2(
    name: str,
    path: tuple[str, ...],
    value: float,
    allowed: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = case(name)
    block = data
    for key in path[:-1]:
        block = block[key]
    block[path[-1]] = value
    f = tmp_path / "s.gpusizer.json"
    f.write_text(json.dumps(data))
    assert main(["estimate", str(f)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert f"{'.'.join(path)}: a GPU count must be {allowed}" in err, err


def test_a_bool_or_string_count_is_still_refused_as_before(tmp_path: Path) -> None:
    data = case("rl-llama-8b-split")
    for bad in (True, "8"):
        data["rl"]["rollout"]["gpus"] = bad
        f = tmp_path / "s.gpusizer.json"
        f.write_text(json.dumps(data))
        assert main(["estimate", str(f)]) == 2


# --- 3. the Need line's layout names the offloads ---------------------------------------------


def test_the_need_layout_names_the_offloads_the_option_uses() -> None:
    """OLMo-2-7B-class pre-training on RTX 4090s: 4 bought, 3 needed, both with the ladder's
    checkpoint and optimizer offload (the option's note: "turned on gradient checkpointing,
    offloaded checkpoints and optimizer offload"); before, the Need layout read
    "TP 1 x PP 3 x DP 1 (ZeRO 0), recompute full" without them."""
    o = row(case("pretrain-7b-1t-30days"), "rtx-4090-24gb")
    assert o["layout"].endswith(", offloaded checkpoints, optimizer offload"), o["layout"]
    assert o["needed_gpus"] == 3
    assert o["needed_layout"].endswith(", offloaded checkpoints, optimizer offload"), o["needed_layout"]
