"""The search with the serving fields the layouts carry: ``serving.moe_a2a_backend`` (DeepEP's
exchange, core/registry/moe_a2a.py), ``serving.redundant_experts`` (core/model/redundant.py) and
a stated attention-DP layout (core/sizing/stated.py). Each test says why a buyer expects it."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.architecture import resolve
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.attention_dp import ATTENTION_DP
from gpusizer.core.sizing.compare import left_out_gpus, left_out_line, size_gpus
from gpusizer.core.sizing.gpus_needed import gpus_needed
from gpusizer.core.sizing.layout_space import layout_space
from gpusizer.core.sizing.solver import plan
from gpusizer.io.wording import gpus_needed_spans, plain

DATA = Path(__file__).parent / "data"
NVLINK = "DeepEP low-latency (serving.moe_a2a_backend) needs NVIDIA GPUs joined by NVLink"


def _a2a(backend: str | None = "deepep_low_latency", **serving: Any) -> dict[str, Any]:
    """DeepSeek-V3 FP8 under SGLang for 256 users, 2,000 prompt and 100 output tokens."""
    sc: dict[str, Any] = {
        "model": {"preset": "deepseek-v3"},
        "framework": "sglang",
        "workload": {"kind": "inference", "prompt_tokens": 2000, "generated_tokens": 100},
        "hardware": {"gpu": "h100-sxm-80gb"},
        "precision": {"weights": "fp8"},
        "serving": {"concurrency": 256, **serving},
    }
    if backend is not None:
        sc["serving"]["moe_a2a_backend"] = backend
    return sc


def _gpus(options: list[dict[str, Any]]) -> list[str]:
    return [o["gpu"] for o in options if o.get("fits")]


def test_deepep_does_not_refuse_every_layout() -> None:
    """SGLang runs DeepEP's low-latency kernels on H100 SXM (the SGLang team's 96 x H100
    deployment, LMSYS blog 2025-05-05), and the estimate at an EP layout there fits: so the
    search must find H100 SXM options too. The first GPU of the list (an RTX 5070, no NVLink)
    was the search's shared probe and refused every layout for every GPU."""
    sc = _a2a()
    p = {"tensor": 8, "pipeline": 2, "data": 1}
    assert estimate(parse_scenario({**sc, "parallelism": p})).fits
    got = plan(sc, gpus=["rtx-5070-12gb", "h100-sxm-80gb", "h200-141gb"])
    assert {"h100-sxm-80gb", "h200-141gb"} <= set(_gpus(got))


def test_gpus_deepep_cannot_run_on_are_left_out_with_the_reason() -> None:
    """A buyer who states DeepEP gets no "does not fit" for a GPU DeepEP cannot run on (no
    NVLink, not NVIDIA: deepseek-ai/DeepEP README "Requirements"), but the reason, as for a GPU
    the framework does not run on; an H100 SXM stays."""
    sc, ids = _a2a(), ["h100-sxm-80gb", "l40s-48gb", "mi300x-192gb", "apple-m3-ultra-512gb"]
    assert left_out_gpus(sc, ids) == ["l40s-48gb", "mi300x-192gb", "apple-m3-ultra-512gb"]
    line = left_out_line(sc, ids)
    assert line == (
        "Left out: apple-m3-ultra-512gb: SGLang runs on NVIDIA, AMD and Intel GPUs only. "
        f"Left out: l40s-48gb, mi300x-192gb: {NVLINK}."
    )
    assert [o["gpu"] for o in size_gpus(sc, gpus=ids)] == ["h100-sxm-80gb"]


def test_without_the_backend_nothing_more_is_left_out() -> None:
    """The field unset, or on a dense model or a training run (never read there), leaves out
    only what the framework does not run on: those answers are as before."""
    ids = ["l40s-48gb", "mi300x-192gb", "apple-m3-ultra-512gb"]
    assert left_out_gpus(_a2a(None), ids) == ["apple-m3-ultra-512gb"]
    dense = _a2a() | {"model": {"preset": "llama-3.1-8b"}, "precision": {}}
    assert left_out_gpus(dense, ids) == ["apple-m3-ultra-512gb"]


def _qwen(par: dict[str, int]) -> dict[str, Any]:
    return {
        "model": {"preset": "qwen3-30b-a3b"},
        "framework": "sglang",
        "workload": {"kind": "inference", "prompt_tokens": 512, "generated_tokens": 64},
        "hardware": {"gpu": "l40s-48gb"},
        "parallelism": par,
        "serving": {"concurrency": 8, "moe_a2a_backend": "deepep_normal"},
    }


def test_experts_on_one_rank_do_not_read_the_backend() -> None:
    """Where the experts sit on one rank no token is exchanged (the step model asks the backend
    only at EP above 1, core/speed/step_model.py ``_a2a``): a PCIe GPU estimates there, the
    field kept and not read; where the experts span ranks the refusal names the field."""
    assert estimate_report(_qwen({"tensor": 2}))["per_gpu"]["total"] > 0
    with pytest.raises(ScenarioError) as err:
        estimate_report(_qwen({"tensor": 1, "data": 2, "expert": 2}))
    assert err.value.field == "serving.moe_a2a_backend" and "NVLink" in str(err.value)


def test_redundant_experts_set_the_expert_degrees_tried() -> None:
    """SGLang asserts (routed + redundant) % EP == 0 (FusedMoE): with 32 replicas of
    DeepSeek-V3's 256 experts the SGLang team ran EP 72 (288 = 72 x 4, LMSYS 2025-05-05), which
    the search must try; EP 64 the engine refuses, so the search skips it rather than pricing
    a deployment without the replicas stated. Without the field the degrees are as before."""
    s = parse_scenario(_a2a(None, redundant_experts=32))
    arch = resolve(s.model)
    eps = {e for *_, e in layout_space(s, arch, arch.heads, ("none",), 4096).shapes}
    assert {9, 36, 72, 144, 288} <= eps and not eps & {64, 128, 256}
    plain_s = parse_scenario(_a2a(None))
    eps0 = {e for *_, e in layout_space(plain_s, arch, arch.heads, ("none",), 4096).shapes}
    assert eps0 == {1, 2, 4, 8, 16, 32, 64, 128, 256}


def test_redundant_experts_never_abort_a_gpu() -> None:
    """With replicas stated the search still answers each GPU, each option's EP spreading the
    288 physical experts evenly (the engine's assert)."""
    got = plan(_a2a(None, redundant_experts=32), gpus=["h100-sxm-80gb", "h200-141gb", "b200-192gb"])
    assert set(_gpus(got)) == {"h100-sxm-80gb", "h200-141gb", "b200-192gb"}
    assert all(288 % o["parallelism"]["expert"] == 0 for o in got)


def _decode_row() -> dict[str, Any]:
    """The SGLang team's 72 x H100 wide-EP decode (tests/core/data/disagg-large-ep-decode.json,
    first row: TP 72, attention DP 72, EP 72, 32 redundant experts)."""
    rows = json.loads((DATA / "disagg-large-ep-decode.json").read_text(encoding="utf-8"))["rows"]
    return copy.deepcopy(rows[0]["scenario"])


def test_the_stated_attention_dp_deployment_is_priced() -> None:
    """The deployment estimates "fits" on 72 x H100, and SGLang runs attention DP at as many
    ranks as GPUs (core/registry/attention_dp.py), so the search prices it as an option of its
    own (core/sizing/layout_adp.py): 72 x H100 at TP 72, attention DP 72, EP 72, the count and
    layout the SGLang team ran (LMSYS blog 2025-05-05), where "no layout fits" stood before; the
    window's "GPUs needed" line says the same."""
    sc = _decode_row()
    est = estimate(parse_scenario(sc))
    assert est.fits and est.gpus == 72
    h100 = size_gpus(sc, gpus=["h100-sxm-80gb"])[0]
    assert h100["fits"] and h100["gpus"] == 72 and h100["unmet"] != "memory"
    assert h100["layout"] == "TP 72 x PP 1 x DP 1, EP 72, attention DP 72"
    assert "attention DP 72" in h100["layout_reason"]
    line = plain(gpus_needed_spans(est, gpus_needed(parse_scenario(sc))))
    assert line.startswith("72 × H100 SXM 80GB, TP 72 x PP 1 x DP 1, EP 72, attention DP 72")


def test_a_stated_attention_dp_layout_that_fits_is_never_no_layout_fits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where the engine's entry does not run attention DP (here SGLang's taken out of the
    registry), the search's layouts (no attention DP, each DP replica serving all 18,432 users)
    hold none of it. A buyer must not read "nothing fits" beside the estimate's "fits": the
    reason says what the search covers and that the stated layout fits, on how many of which
    GPU; the window's "GPUs needed" line says the same."""
    monkeypatch.delitem(ATTENTION_DP, "sglang")
    sc = _decode_row() | {"name": "no attention DP in the search"}  # not the priced answer kept
    est = estimate(parse_scenario(sc))
    h100 = size_gpus(sc, gpus=["h100-sxm-80gb"])[0]
    assert not h100["fits"] and h100["unmet"] == "memory"
    stated = "your stated layout (TP 72 x PP 1 x DP 1, EP 72, attention DP 72) fits on 72 x H100 SXM 80GB"
    assert h100["unmet_reason"].startswith("no layout the search tries (TP/PP/DP/EP layouts, each")
    assert h100["unmet_reason"].endswith(stated)
    line = plain(gpus_needed_spans(est, gpus_needed(parse_scenario(sc))))
    assert line.startswith("no layout the search tries (") and line.endswith(stated + ".")
    assert "choose a bigger GPU" not in line


def test_no_stated_layout_keeps_the_reason() -> None:
    """Without a stated attention-DP layout the reason is as before."""
    sc = {"model": {"preset": "llama-3.1-405b"}, "workload": {"kind": "full_finetune"}}
    got = size_gpus(sc, gpus=["rtx-3060-12gb"], max_gpus=8)[0]
    assert got["unmet_reason"] == "nothing fits with up to 8 GPUs and 10% of memory kept spare"
