"""An option for a GPU is the same whether that GPU is compared alone or in the whole catalog
(developers' guide, "Advice": a buyer would not sign an answer that changes with the list of
GPUs compared). Count, need, the fewest that hold the model, layout, techniques and figures
must agree; only the rank and the Pareto flag, which are relative to the other rows, may not.

Two answers broke it (docs/evidence/advice.md, the buyer review's "left as found"):
DeepSeek-R1 FP8 under SGLang for 1,000 users read "6 B200s would hold the model" in the
catalog and 5 alone (the shared layout search sized every GPU from the first GPU's engine,
core/sizing/search.py), and QLoRA of a 70B within 2 days read 8 A40s at TP 8 in the catalog and
2 A40s with checkpointing alone (the deadline fill tried a lighter technique only when its
memory check ran after the queue, core/sizing/fill.py)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer.core.pipeline.estimate import clear_caches

DATA = Path(__file__).parent.parent / "cli" / "data" / "buyer"
RELATIVE = {"rank", "pareto"}  # set by the other rows of the table
CASES = {
    "serve-deepseek-r1-fp8-1000": ("b200-192gb", "h200-141gb", "mi300x-192gb"),
    "qlora-70b-control": ("a40-48gb", "mi325x-256gb", "rtx-4090-24gb"),
    "serve-llama-3.3-70b-fp8-200": ("h100-sxm-80gb", "l40s-48gb"),
    "pretrain-1b-100b": ("a40-48gb", "b200-192gb"),
    "full-ft-8b-8k-1b-week": ("h100-sxm-80gb", "rtx-4090-24gb"),
}


def _case(name: str) -> dict[str, Any]:
    return json.loads((DATA / f"{name}.gpusizer.json").read_text())


@cache
def _catalog(name: str) -> dict[str, dict[str, Any]]:
    clear_caches()
    return {o["gpu"]: o for o in gpusizer.compare_gpus(_case(name))}


@pytest.mark.parametrize(("name", "gpu"), [(n, g) for n, gpus in CASES.items() for g in gpus])
def test_an_option_does_not_depend_on_the_gpus_compared(name: str, gpu: str) -> None:
    in_catalog = _catalog(name)[gpu]
    clear_caches()  # no answer kept from the catalog's search (core/sizing/advise_all._ADVICE)
    (alone,) = gpusizer.compare_gpus(_case(name), gpus=[gpu])
    differ = {k: (in_catalog.get(k), alone.get(k)) for k in in_catalog.keys() | alone.keys() - RELATIVE}
    differ = {k: v for k, v in differ.items() if k not in RELATIVE and v[0] != v[1]}
    assert differ == {}, f"{gpu}: (catalog, alone) {differ}"


def test_the_two_reported_answers() -> None:
    # the figures the buyer review found changing with the list, as each now reads either way
    r1 = _catalog("serve-deepseek-r1-fp8-1000")
    assert r1["b200-192gb"]["min_gpus"] == 5 and r1["h200-141gb"]["min_gpus"] == 6
    a40 = _catalog("qlora-70b-control")["a40-48gb"]
    assert a40["gpus"] == 2 and a40["scenario_changes"].get("parallelism.recompute") == "full", a40["layout"]
    assert a40["targets_met"] is True


# RL's colocated engine holds its share of each GPU, so each GPU is searched alone; the search's
# work budget (core/sizing/work.py) was the call's, and the catalog's first GPUs spent what its
# later ones needed: the DGX Spark read "nothing fits" in the catalog and 56 GPUs with selective
# recompute alone. Each GPU now has its own budget: eight GPUs compared together (enough to
# spend one call's budget at the engine width as set: 6,296 units each for the 48 and 80 GB
# cards, 40,000 in all), three of them each as alone; before, the DGX Spark's notes differed.
RL_CASE = "rl-qwen3-30b-a3b-colocated"
RL_TOGETHER = (
    "a100-sxm-80gb",
    "a40-48gb",
    "dgx-spark-128gb",
    "h100-pcie-80gb",
    "h100-sxm-80gb",
    "l40-48gb",
    "l40s-48gb",
    "rtx-6000-ada-48gb",
)
RL_GPUS = ("a40-48gb", "h100-sxm-80gb", "dgx-spark-128gb")


@cache
def _rl_together() -> dict[str, dict[str, Any]]:
    clear_caches()
    return {o["gpu"]: o for o in gpusizer.compare_gpus(_case(RL_CASE), gpus=list(RL_TOGETHER))}


@pytest.mark.parametrize("gpu", RL_GPUS)
def test_an_rl_option_does_not_depend_on_the_gpus_compared(gpu: str) -> None:
    together = _rl_together()[gpu]
    clear_caches()
    (alone,) = gpusizer.compare_gpus(_case(RL_CASE), gpus=[gpu])
    differ = {k: (together.get(k), alone.get(k)) for k in together.keys() | alone.keys()}
    differ = {k: v for k, v in differ.items() if k not in RELATIVE and v[0] != v[1]}
    assert differ == {}, f"{gpu}: (together, alone) {differ}"
