"""AITER's block-scale fused MoE on CDNA3 at its measured time (core/speed/moe_measured_aiter.py
``aiter_points``, scripts/aiter_fmoe_table.py; docs/evidence/speed.md, the section on block-FP8
MoE on CDNA): GLM-5.1's TP-8 slice timed on gfx942 (``cu_num`` 304) read for DeepSeek-V3/R1's
TP-8 slice at the hidden sizes' ratio, the shared expert fused as AITER fuses it, for vLLM or
SGLang with AITER's MoE stated; every other scenario as before."""

from __future__ import annotations

import copy
import csv
import io
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.moe_backends import AITER, TRITON
from gpusizer.core.speed.moe_measured import AITER_FP8_BLOCK, module_seconds
from gpusizer.core.speed.moe_measured_aiter import aiter_points
from tests.cli.test_cli_hostile_pd_framework import refused_in_one_line
from tests.core.blind_speeds import BlindSpeeds
from tests.core.serving_step import serving_step

DEEPSEEK = (256, 7168, 2048, 8)  # experts, hidden, moe_intermediate_size, top-k (config.json)
SHARED = 2048  # DeepSeek-V3's one shared expert, as wide as a routed one
MIRROR = Path("/work/.mirror/ROCm+aiter/repo")
BLIND4 = BlindSpeeds("speed-figures-blind4.json")
MI325X_C16 = "sglang-0.5.19-rocm-mi325x-dsr1-0528-fp8-tp8-c16-8k1k"


@pytest.mark.parametrize(
    ("tokens", "us"),
    [
        # ROCm/aiter aiter/configs/model_configs/a8w8_blockscale_tuned_fmoe_glm5_1.csv at
        # c16d44b93a, cu_num 304, per_1x128, SiLU, 6144 x 256, expert 257, topk 9: ``us`` as written
        (1, 67.3825),
        (16, 123.614),
        (64, 288.4137),
        (256, 340.6476),
        (16384, 2228.4179),
    ],
)
def test_glm51_rows_are_read_for_deepseek_at_the_hidden_ratio(tokens: int, us: float) -> None:
    for gpu in ("mi300x-192gb", "mi325x-256gb"):  # both cu_num 304: AITER runs one kernel on both
        pts = aiter_points(gpu, DEEPSEEK, SHARED, 8)
        # the table keeps ms to 6 places (1 ns), scaled by 7,168 / 6,144
        assert module_seconds(pts, tokens) == pytest.approx(us * 1e-6 * 7168 / 6144, abs=2e-9)


def test_the_hidden_scaling_matches_aiters_own_two_shapes_on_gfx950() -> None:
    # cu_num 256, a8w8_blockscale_tuned_fmoe_ds_v3.csv (7168 x 256) against
    # a8w8_blockscale_tuned_fmoe_glm5.csv (6144 x 256), 257 experts top 9, both at 9cc2b8ae:
    # the time ratio at 16-512 tokens, beside 7,168 / 6,144 = 1.167 (module docstring)
    ds = {16: 112.6776, 32: 158.4834, 64: 212.9873, 128: 241.6039, 256: 249.5786, 512: 260.9691}
    glm = {16: 92.8796, 32: 139.7967, 64: 188.0575, 128: 213.5816, 256: 244.5057, 512: 260.859}
    ratios = [ds[t] / glm[t] for t in ds]
    assert all(abs(r / (7168 / 6144) - 1) <= 0.15 for r in ratios)  # within 15 % of each


@pytest.mark.skipif(not MIRROR.exists(), reason="ROCm/aiter mirror not on this machine")
def test_the_package_table_is_the_csv_as_the_script_copies_it() -> None:
    path = "aiter/configs/model_configs/a8w8_blockscale_tuned_fmoe_glm5_1.csv"
    git = ["git", f"--git-dir={MIRROR}", "show", f"c16d44b93a:{path}"]
    text = subprocess.run(git, capture_output=True, text=True, check=True).stdout
    rows = list(csv.DictReader(io.StringIO(text)))
    shape = {"cu_num": "304", "inter_dim": "256", "expert": "257", "q_type": "QuantType.per_1x128"}
    kept = {int(r["token"]): float(r["us"]) for r in rows if all(r[k] == v for k, v in shape.items())}
    pts = aiter_points("mi325x-256gb", (256, 6144, 2048, 8), SHARED, 8)  # GLM-5.1 itself: unscaled
    assert {int(t): round(s * 1e6, 3) for t, s in pts} == {t: round(us, 3) for t, us in kept.items() if us}


def test_no_row_no_module() -> None:
    assert not aiter_points("mi325x-256gb", DEEPSEEK, SHARED, 4)  # TP 4: not timed
    assert not aiter_points("mi325x-256gb", DEEPSEEK, 0, 8)  # no shared expert: 256 top 8 not timed
    assert not aiter_points("mi355x-288gb", DEEPSEEK, SHARED, 8)  # gfx950's DeepSeek rows not copied
    assert not aiter_points("mi325x-256gb", (128, 4096, 1536, 8), 0, 8)  # Qwen3-235B


def _deepseek(**serving: Any) -> dict[str, Any]:
    """The fourth blind round's InferenceX DeepSeek-R1 FP8 run on 8 x MI325X at 16 users."""
    d = copy.deepcopy(next(r for r in BLIND4.records if r["id"] == MI325X_C16)["replay"][0]["scenario"])
    d["serving"].pop("moe_backend", None)
    d["serving"].update(serving)
    return d


def test_sglang_with_aiter_reads_the_module_and_without_it_the_rates() -> None:
    st = serving_step(_deepseek(moe_backend=AITER))
    assert st.costs.moe_module == AITER_FP8_BLOCK
    assert st.moe_points == aiter_points("mi325x-256gb", DEEPSEEK, SHARED, 8)
    assert not serving_step(_deepseek()).moe_points  # SGLANG_USE_AITER unset: SGLang's Triton MoE


def test_sglang_refuses_vllms_other_backends_in_one_line() -> None:
    with pytest.raises(ScenarioError) as err:
        parse_scenario(_deepseek(moe_backend=TRITON))
    assert err.value.field == "serving.moe_backend"
    assert "aiter or null" in err.value.message and len(str(err.value)) < 200


@pytest.mark.parametrize("value", ["AITER", "aiter ", 1, ["aiter"]])
def test_hostile_values_name_the_field(value: object) -> None:
    with pytest.raises(ScenarioError) as err:
        parse_scenario(_deepseek(moe_backend=value))
    assert err.value.field == "serving.moe_backend" and AITER in err.value.message


def test_the_cli_refuses_sglang_with_triton_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    refused_in_one_line(tmp_path, capsys, _deepseek(moe_backend=TRITON), ("serving.moe_backend",), "estimate")


def test_sglang_stating_aiter_on_nvidia_is_refused_naming_null() -> None:
    d = _deepseek(moe_backend=AITER)
    d["hardware"]["gpu"] = "h200-141gb"
    with pytest.raises(ScenarioError) as err:
        parse_scenario(d)
    assert err.value.field == "serving.moe_backend" and "AMD" in err.value.message
    assert "null here" in err.value.message and "triton" not in err.value.message
