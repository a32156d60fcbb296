"""Apple unified-memory GPUs in an RL compare: the rollout engine (vLLM or SGLang) has no build
that drives an Apple GPU (core/registry/frameworks.py ``runs_on``: vLLM's install docs list CUDA,
ROCm and XPU; on macOS it runs on the CPU), so the runs_on rule leaves them out with that reason
instead of "the targets need more than 4,096 GPUs" in a scenario with no target. And a kind whose
engine holds a share of each GPU weighs each GPU's savings rungs with that GPU's own evaluator."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

import gpusizer
from gpusizer.core.cancel import CancelToken
from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.frameworks import FRAMEWORKS
from gpusizer.core.sizing.advise import Ask
from gpusizer.core.sizing.advise_all import advise_catalog
from gpusizer.core.sizing.compare import left_out_gpus, left_out_line
from gpusizer.core.sizing.search import catalog_targets

# GRPO of Qwen3 8B with the default framework (Hugging Face: it runs on Apple GPUs too)
GRPO_8B: dict[str, Any] = {
    "model": {"preset": "qwen3-8b"},
    "workload": {"kind": "rl", "micro_batch_size": 1},
    "hardware": {"gpu": "h100-sxm-80gb"},
    "rl": {"algorithm": "grpo", "steps": 200},
}
MACS = ["apple-m3-ultra-256gb", "apple-m3-ultra-512gb", "apple-m4-max-128gb"]


def test_an_rl_compare_leaves_the_macs_out_naming_the_rollout_engine() -> None:
    # before: the M3 Ultras read "practical_limit: 1 GPU holds one replica, but the targets
    # need more than the 4,096 GPUs the search buys at most" and the M4 Max was offered
    rows = gpusizer.compare_gpus(GRPO_8B, gpus=["h100-sxm-80gb", *MACS])
    assert [o["gpu"] for o in rows] == ["h100-sxm-80gb"]
    assert left_out_gpus(GRPO_8B, MACS) == MACS
    line = left_out_line(GRPO_8B, MACS)
    assert line is not None and "vLLM (rl.rollout.engine) runs on NVIDIA, AMD and Intel GPUs only" in line


def test_an_rl_estimate_on_a_mac_names_the_engine_field() -> None:
    with pytest.raises(ScenarioError) as err:
        gpusizer.estimate_report({**GRPO_8B, "hardware": {"gpu": "apple-m3-ultra-256gb"}})
    assert err.value.field == "rl.rollout.engine"
    assert "vLLM runs on NVIDIA, AMD and Intel GPUs" in str(err.value)


def test_other_kinds_still_offer_the_macs() -> None:
    lora = {
        "model": {"preset": "qwen3-8b"},
        "workload": {"kind": "lora"},
        "hardware": {"gpu": "h100-sxm-80gb"},
    }
    assert left_out_gpus(lora, MACS) == []


def test_each_gpu_weighs_its_rungs_with_its_own_share(monkeypatch: pytest.MonkeyPatch) -> None:
    # The mechanism behind the wrong reason: the savings rungs of a GPU the layout search had not
    # searched per rung were weighed with the catalog's first GPU's evaluator; the RL engine
    # holds a share of each GPU, so a 12 GB card's share refused a 256 GB Mac's rungs. With the
    # engine's rule set aside (vLLM pretended to run on Apple GPUs), the Mac after the card
    # fits one GPU, as its memory alone does.
    vllm = FRAMEWORKS["vllm"]
    monkeypatch.setitem(FRAMEWORKS, "vllm", replace(vllm, runs_on=(*vllm.runs_on, "Apple")))
    s = parse_scenario(GRPO_8B)
    by_id = {g.id: g for g in catalog_targets(s, ["rtx-3060-12gb", "apple-m3-ultra-256gb"])}
    catalog = [by_id["rtx-3060-12gb"], by_id["apple-m3-ultra-256gb"]]
    mac = advise_catalog(s, catalog, Ask(), CancelToken())[1][0][0]
    assert mac.fits and mac.gpus == 1, mac.unmet_reason
