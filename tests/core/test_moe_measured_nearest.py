"""An expert shape a Triton MoE table lacks reads its nearest measured row, scaled by the step's own
expert terms (core/speed/moe_measured_nearest.py; docs/evidence/speed.md, the section on unmeasured
MoE shapes). Measured: NVIDIA aiconfigurator 0.12.0's vLLM 0.24.0 Triton BF16 table
(src/gpusizer/presets/moe-module-times.json ``vllm-triton-bf16``)."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.speed import moe_measured_nearest as mn
from gpusizer.core.speed.moe_measured import VLLM_TRITON_BF16, _tables, module_seconds
from gpusizer.core.speed.step import StepModel
from tests.core.serving_step import serving_step


def _vllm(preset: str, gpu: str, tp: int) -> dict[str, Any]:
    """vLLM 0.11.0 serving ``preset``'s BF16 experts on ``tp`` of ``gpu`` (the Triton lane)."""
    return {
        "model": {"preset": preset},
        "framework": "vllm",
        "hardware": {"gpu": gpu},
        "workload": {"kind": "inference", "prompt_tokens": 512, "generated_tokens": 8},
        "parallelism": {"tensor": tp, "pipeline": 1, "expert": 1, "data": 1},
        "serving": {"concurrency": 1, "engine_version": "0.11.0"},
    }


def test_glm_shapes_read_their_nearest_rows() -> None:
    # GLM-4.5-Air's 128 x 4,096 x 1,408 (top 8) at TP 4 on the H100: Qwen3-235B's 1,536 at TP 4
    # (352 against 384 columns a rank); GLM-4.5's 160 x 5,120 x 1,536 at TP 8 on the H200:
    # Qwen3-Coder-480B's 160 x 6,144 x 2,560 at TP 16 (160 columns against 192)
    air = mn.nearest(VLLM_TRITON_BF16, "h100-sxm-80gb", (128, 4096, 1408, 8), 4, 1.01)
    glm = mn.nearest(VLLM_TRITON_BF16, "h200-141gb", (160, 5120, 1536, 8), 8, 1.01)
    assert air is not None and air[:2] == ((128, 4096, 1536, 8), 4)
    assert glm is not None and glm[:2] == ((160, 6144, 2560, 8), 16)


def test_a_measured_shape_keeps_its_own_row() -> None:
    assert mn.nearest(VLLM_TRITON_BF16, "h200-141gb", (128, 4096, 1536, 8), 8, 1.2) is None
    st = serving_step(_vllm("qwen3-235b-a22b", "h200-141gb", 8))
    key = (VLLM_TRITON_BF16, "h200-141gb", 128, 4096, 1536, 8, 8, "power_law_1.2", "")
    assert st.moe_points == _tables()[key]


def test_the_scaling_is_one_at_the_rows_own_shape() -> None:
    st = serving_step(_vllm("qwen3-235b-a22b", "h200-141gb", 8))
    key = (VLLM_TRITON_BF16, "h200-141gb", 128, 4096, 1536, 8, 8, "power_law_1.2", "")
    near = ((128, 4096, 1536, 8), 8, _tables()[key])
    got = mn.scaled_points(st, near, (128, 4096, 1536, 8), 8, 0)
    assert [s for _, s in got] == pytest.approx([s for _, s in near[2]], rel=1e-9)


def _held_out(st: StepModel, gpu: str, shape: tuple[int, int, int, int], tp: int) -> Any:
    """The rule's calls for a measured ``shape`` with every row of that shape taken out."""
    held = {k: v for k, v in _tables().items() if not (k[0] == VLLM_TRITON_BF16 and k[1:6] == (gpu, *shape))}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(mn, "measured_tables", lambda: held)
        mn._rows.cache_clear()  # the rows are kept per table: read them from the held-out one
        near = mn.nearest(VLLM_TRITON_BF16, gpu, shape, tp, st.routing_alpha)
    mn._rows.cache_clear()
    assert near is not None
    return mn.scaled_points(st, near, shape, tp, 0)


@pytest.mark.parametrize(
    ("preset", "shape"),
    [("qwen3-235b-a22b", (128, 4096, 1536, 8)), ("qwen3-coder-480b-a35b", (160, 6144, 2560, 8))],
)
def test_a_shape_held_out_is_read_within_a_quarter(preset: str, shape: tuple[int, int, int, int]) -> None:
    # source: the table above, H200, TP 8, power_law_1.2, every TP row of the shape taken out.
    # Qwen3-235B is read from Qwen3-30B-class 128 x 2,816 x 704 at TP 4 (1.09 / 1.13 of the
    # measured call at 2,048 / 8,192 tokens, where the rates read 0.68 / 0.59); Qwen3-Coder-480B
    # from 256 x 6,144 x 2,048 at TP 8 (0.91 / 1.06; rates 0.77 / 0.67). Tolerance 25 %
    st = serving_step(_vllm(preset, "h200-141gb", 8))
    assert st.moe_points  # its own measured row
    got = _held_out(st, "h200-141gb", shape, 8)
    for tokens in (2048, 8192):
        assert module_seconds(got, tokens) / module_seconds(st.moe_points, tokens) == pytest.approx(
            1, abs=0.25
        )


def test_glm_on_h200_reads_dearer_than_the_rates_at_a_prompt_chunk() -> None:
    # GLM-4.6 (the glm-4.5 preset) at TP 8 on the H200 under vLLM 0.11.0, the sixth blind round's
    # run: its experts were read at the rates; at 8,192 tokens the nearest-row call is dearer
    st = serving_step(_vllm("glm-4.5", "h200-141gb", 8))
    assert st.moe_points
    bare = object.__new__(type(st))
    bare.__dict__.update(st.__dict__)
    bare.moe_points = ()
    assert st._experts(8192) > 1.2 * bare._experts(8192)


def test_expert_parallel_and_other_formats_keep_the_rates() -> None:
    d = _vllm("glm-4.5", "h200-141gb", 8)
    d["parallelism"].update(expert=8)
    assert not serving_step(d).moe_points
    d = _vllm("glm-4.5", "h200-141gb", 8)
    d["precision"] = {"weights": "fp8"}  # per-tensor FP8: another kernel
    assert not serving_step(d).moe_points
