"""The headroom a report states agrees with its verdict (core/serving/start_headroom.py): where
the serving engine does not start, it is the card's shortfall against the smallest card the
engine starts on (``serving.required_bytes``), not the memory it would hold had it started.

The case: Llama 3.3 70B FP8 with EAGLE-3 on 10 RTX 5080 16GB at vLLM 0.20's default 0.92
(vllm/config/cache.py). vLLM V1's ``init_device`` (vllm/v1/worker/gpu_worker.py) refuses:
free at start 13.93 GiB < 0.92 x total 14.19 GiB (0.08 of the card cannot hold the 1.49 GiB of
CUDA context and NCCL). The peak had it started is 16.83 GB of the card's 17.09 GB: the report
read +0.26 GB of headroom, which looked like a fit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import gpusizer
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.serving.start_headroom import stated_headroom
from gpusizer.io.estimate_text import text_report
from gpusizer.io.wording import fit_of, fit_of_report, room_word, verdict_line

BUYER = Path(__file__).resolve().parents[1] / "cli" / "data" / "buyer"
GB = 10**9


def chat(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((BUYER / "serve-70b-chat.gpusizer.json").read_text())
    return data | changes


REFUSED = chat(hardware={"gpu": "rtx-5080-16gb"}, parallelism={"pipeline": 10})


def test_an_engine_that_does_not_start_states_its_shortfall() -> None:
    """Report: ``headroom_bytes`` is the card (17.09 GB) less the smallest card vLLM starts on
    with this layout (the start-up check's inverse, 20.51 GB: (1.49 GiB of context and NCCL) /
    0.08 + the driver's), -3.42 GB; before, +0.26 GB."""
    rep = gpusizer.estimate_report(REFUSED)
    assert rep["fits"] is False and not rep["serving"]["starts"]
    cap, need = rep["gpu"]["memory_bytes"], rep["serving"]["required_bytes"]
    assert rep["per_gpu"]["total"] < cap  # the peak had it started: under the card
    assert rep["headroom_bytes"] == cap - need
    assert -3.45 * GB < rep["headroom_bytes"] < -3.40 * GB


def test_the_verdict_words_the_shortfall_once_on_every_surface() -> None:
    """The window's headline, the report's line and the CLI text say the same (io/wording.py):
    the engine does not start, how much card it lacks, then vLLM's words."""
    est = estimate(parse_scenario(REFUSED))
    line = verdict_line(fit_of(est))
    assert "the engine does not start, 3.18 GiB more per GPU would start it: free memory" in line
    assert line == verdict_line(fit_of_report(gpusizer.estimate_report(REFUSED)))
    assert "3.18 GiB (3.42 GB) more per GPU would start it" in text_report(gpusizer.estimate_report(REFUSED))
    # the capacity the line names is the card's, not the peak plus the stated headroom
    assert line.startswith("15.68 GiB of 15.92 GiB per GPU")
    assert room_word(fit_of(est)) == "short to start by"


def test_an_engine_that_starts_keeps_its_headroom() -> None:
    """Where the engine starts (10 RTX 5080 at 0.90: the fraction the lever names) or the peak
    is over the card, the headroom is capacity less the peak, as before."""
    ok = chat(
        hardware={"gpu": "rtx-5080-16gb"},
        parallelism={"pipeline": 10},
        serving=chat()["serving"] | {"memory_fraction": 0.9},
    )
    est = estimate(parse_scenario(ok))
    assert est.serving is not None and est.serving.starts
    assert stated_headroom(est) == est.headroom_bytes == est.capacity_bytes - est.memory.total
    assert room_word(fit_of(est)) == "headroom"
    over = estimate(parse_scenario(chat(hardware={"gpu": "rtx-5080-16gb"})))  # one card: the peak is over
    assert stated_headroom(over) == over.headroom_bytes < 0
    assert room_word(fit_of(over)) == "short by"
