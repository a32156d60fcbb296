"""``gpusizer-cli plan`` and ``compare`` with DeepEP's exchange (``serving.moe_a2a_backend``) and
a stated attention-DP layout (core/sizing/stated.py): what the buyer reads at the terminal."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.cli import main

DATA = Path(__file__).parents[1] / "core" / "data"
A2A = {
    "model": {"preset": "deepseek-v3"},
    "framework": "sglang",
    "workload": {"kind": "inference", "prompt_tokens": 2000, "generated_tokens": 100},
    "hardware": {"gpu": "h100-sxm-80gb"},
    "precision": {"weights": "fp8"},
    "serving": {"concurrency": 256, "moe_a2a_backend": "deepep_low_latency"},
}


def _write(tmp_path: Path, data: Any) -> str:
    path = tmp_path / "s.gpusizer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_plan_with_deepep_lists_the_nvlink_gpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """SGLang runs DeepEP on H100 SXM: ``plan`` lists it (it said no GPU fits), and names the
    GPUs left out because DeepEP cannot run on them, with the reason."""
    assert main(["plan", _write(tmp_path, A2A)]) == 0
    out = capsys.readouterr().out
    assert "H100 SXM 80GB" in out and "No GPU in the catalog fits" not in out
    assert out.rstrip().endswith(
        # the catalog's PCIe NVIDIA cards (T4, A30, L20, RTX 4070 Ti SUPER, RTX A5000 among
        # them) and AMD's (MI350X, MI210 among them); V100, A800 and H800 have NVLink, and the
        # V100 (Volta, 7.0) is left out for the FP8 checkpoint SGLang does not load below 8.0
        # (python/sglang/srt/layers/quantization/fp8.py Fp8Config.get_min_capability 80). Since
        # round 61 the AMD GPUs below CDNA3 (MI210, MI250X, Radeon, the APU) are SGLang's own
        # leaving out (sgl-kernel's ROCm build: core/registry/frameworks_serving.py): 43 -> 36
        "SGLang runs on NVIDIA, AMD and Intel GPUs only, on AMD only CDNA3 and CDNA4 Instinct GPUs "
        "(sgl-project/sglang sgl-kernel/setup_rocm.py: gfx942 and gfx950). Left out: 36 GPUs "
        "(NVIDIA 27, Intel 5, AMD 4): DeepEP low-latency (serving.moe_a2a_backend) needs NVIDIA GPUs "
        "joined by NVLink. "
        "Left out: v100-sxm2-32gb: SGLang loads fp8 weights from compute capability 8.0 "
        "(SGLang's Fp8Config.get_min_capability); Tesla V100 SXM2 32GB has 7.0."
    )


def test_compare_with_deepep_says_left_out_not_does_not_fit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A GPU DeepEP cannot run on is no "does not fit" row: the comparison leaves it out."""
    assert main(["compare", _write(tmp_path, A2A), "--gpus", "h100-sxm-80gb", "l40s-48gb"]) == 0
    out = capsys.readouterr().out
    assert "does not fit" not in out and "L40S" not in out.split("Left out")[0]
    assert "Left out: l40s-48gb: DeepEP low-latency" in out


def _decode_row() -> dict[str, Any]:
    rows = json.loads((DATA / "disagg-large-ep-decode.json").read_text(encoding="utf-8"))["rows"]
    return copy.deepcopy(rows[0]["scenario"])


def test_plan_prices_the_stated_attention_dp_layout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The SGLang team's 72 x H100 wide-EP decode (tests/core/data/disagg-large-ep-decode.json,
    first row) estimates "fits", and SGLang runs attention DP at as many ranks as GPUs: ``plan``
    lists it as the H100 option, laid out and named as run (core/sizing/layout_adp.py)."""
    assert main(["plan", _write(tmp_path, _decode_row())]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("H100 SXM 80GB "))
    assert " 72 " in row and "TP 72 x PP 1 x DP 1, EP 72, attention DP 72" in row
    assert "attention DP 72: each GPU its own attention and requests" in out


def test_plan_says_the_stated_layout_fits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the engine's entry does not run attention DP (SGLang's taken out of the registry),
    ``plan`` must not say only that no GPU fits; it says what the search tried and that the
    stated layout fits."""
    from gpusizer.core.registry.attention_dp import ATTENTION_DP

    monkeypatch.delitem(ATTENTION_DP, "sglang")
    sc = _decode_row() | {"name": "no attention DP in the search"}  # not the priced answer kept
    assert main(["plan", _write(tmp_path, sc)]) == 0
    lines = capsys.readouterr().out.splitlines()
    first = "No GPU in the catalog fits this scenario with any layout the search tries"
    assert lines[0] == first + " within the search limit."
    assert lines[-1] == (
        "Note: your stated layout (TP 72 x PP 1 x DP 1, EP 72, attention DP 72) fits on 72 x H100 "
        "SXM 80GB; the search tries TP/PP/DP/EP layouts, each DP replica serving the stated users, "
        "and attention-DP engines with as many ranks as GPUs, and none of those fits."
    )
