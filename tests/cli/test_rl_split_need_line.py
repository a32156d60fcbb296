"""The "GPUs needed" line of a split RL run counts both pools (io/wording.py ``need_phrase``):
before, GRPO of Qwen3 8B split read "4 × H100 ... bought as 1 × ... (8 GPUs, 4 spare ...)",
the rollout pool's 8 GPUs left out of the count a buyer reads (docs/evidence/advice.md, "The
window, a visual pass 2"). The advisor's own figures stand: needed_gpus 4 and gpus 8 are the
training pool's, rl_total_gpus 16 every GPU bought (core/sizing/rl_notes.py)."""

from __future__ import annotations

from pathlib import Path

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.sizing.gpus_needed import gpus_needed
from gpusizer.io.scenario_file import load_scenario
from gpusizer.io.wording import gpus_needed_spans, plain

BUYER = Path(__file__).parent / "data" / "buyer"


def _line(name: str) -> tuple[str, dict[str, object]]:
    s = load_scenario(BUYER / f"{name}.gpusizer.json")
    option = gpus_needed(s)
    assert option is not None
    return plain(gpus_needed_spans(estimate(s), option)), option.as_dict()


def test_split_rl_need_is_both_pools() -> None:
    line, o = _line("rl-qwen3-8b-split-7days")
    # the advisor's counts are unchanged: 4 training GPUs needed, a server of 8 bought, and the
    # rollout pool's 8 (rl.rollout.gpus) beside it
    assert (o["needed_gpus"], o["gpus"], o["rl_total_gpus"]) == (4, 8, 16)
    assert line.startswith("12 × H100 SXM 80GB (4 training + 8 rollout); "), line
    assert "the training pool bought as 1 × " in line and "and the rollout's 8: 16 in all" in line


def test_colocated_rl_need_is_unchanged() -> None:
    # colocated: one pool holds both, rl_total_gpus is the count bought, the line as before
    line, o = _line("rl-qwen3-8b-colocated-500")
    assert o["rl_total_gpus"] == o["gpus"] and " rollout)" not in line, line
    assert "the training pool" not in line, line
