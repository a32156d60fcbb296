"""AITER's measured fused-MoE calls on gfx942 (MI300X / MI325X, ``cu_num`` 304) beside the
estimator's own expert term for Anyscale's Qwen3-235B FP8 replica (TP 8 with expert parallelism
on 8 x MI325X, vLLM 0.18 with ``VLLM_ROCM_USE_AITER=1`` and ``VLLM_ROCM_USE_AITER_MOE=1``).

The rows are ROCm/aiter's tuned fmoe tables: the tuner (csrc/ck_gemm_moe_2stages_codegen/
gemm_moe_tune.py) times every candidate kernel of a shape under random router scores and keeps
the fastest, one row per (``cu_num``, ``token``, ``model_dim``, ``inter_dim``, ``expert``,
``topk``, dtypes, ``q_type``) with its time ``us``. Under expert parallelism ``aiter.fused_moe``
looks its row up by the rank's own experts (aiter/fused_moe.py at e4048607: ``E`` is
``w1.shape[0]``, the EP mask only sets ``global_E``), so a row of ``expert`` 32, ``topk`` 8 is an
EP-8 call of a 256-expert, top-8 model, timed with all eight picks of every token local.

Per row this prints the distinct experts the tuner's tokens read in expectation
(``E x (1 - (1 - k / E) ** t)``: each token picks k of the E local experts), their FP8 or BF16
bytes (gate, up and down: 3 x hidden x width a expert) and the rate that streams them, as a
share of the GPU's HBM (catalog: MI300X 5.3 TB/s; the ``cu_num`` 304 rows ran on MI300X or
MI325X, the share is against the slower). Then the step's expert term a MoE layer for the
Anyscale replica (``anyscale_experts``) at 1-32 decodes.

    PYTHONPATH=src:. .venv/bin/python scripts/amd_moe_aiter_rows.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ANYSCALE = "anyscale-2026-mi325x-qwen3-235b-fp8-agg-3x-tp8ep8-isl16k-osl1k"
MI300X_HBM = 5.3e12  # bytes/s, src/gpusizer/presets/gpus/mi300x-192gb.json
TOKENS = (1, 2, 4, 8, 16, 32, 64, 128)

# (label, source file @ commit, local experts, hidden, width a rank, top-k, bytes a weight,
#  us at TOKENS): the ``us`` column as read
ROWS: tuple[tuple[str, str, int, int, int, int, int, tuple[float, ...]], ...] = (
    (
        "GLM-5.1 FP8 block, EP 8",
        "aiter/configs/model_configs/a8w8_blockscale_tuned_fmoe_glm5_1.csv @ c16d44b93a",
        32,
        6144,
        2048,
        8,
        1,
        (84.3147, 139.3279, 207.6314, 241.8714, 279.8341, 293.5291, 302.1429, 334.8752),
    ),
    (
        "DeepSeek-V3 FP8 block, EP 8 (+ shared)",
        "aiter/configs/model_configs/a8w8_blockscale_tuned_fmoe_ds_v3.csv @ 84493f0e5b",
        33,
        7168,
        2048,
        9,
        1,
        (99.21, 169.6815, 220.8912, 327.908, 354.303, 355.3431, 363.4635, 407.8101),
    ),
    (
        "Qwen3-235B BF16, TP 8 slice",
        "aiter/configs/model_configs/qwen3_235b_bf16_tuned_fmoe.csv @ ca781d8197",
        128,
        4096,
        192,
        8,
        2,
        (32.7102, 43.8746, 53.3718, 82.8639, 116.7202, 154.6934, 171.5953, 181.8923),
    ),
    (
        "Qwen3-235B BF16, TP 4 slice",
        "aiter/configs/model_configs/qwen3_235b_bf16_tuned_fmoe.csv @ ca781d8197",
        128,
        4096,
        384,
        8,
        2,
        (34.0571, 52.6583, 84.4321, 147.9434, 218.2396, 302.339, 338.2867, 351.8764),
    ),
)
# the same table's block-FP8 Qwen3-235B rows at EP 8 exist for the MI355X only (cu_num 256,
# a8w8_blockscale_tuned_fmoe_qwen3_235b.csv @ 1638f9e7a9): 16 local experts of 4,096 x 1,536,
# top 8
MI355X_QWEN3_EP8 = (44.4733, 49.078, 56.6031, 65.7221, 72.5228, 74.3412, 90.7483, 107.8922)


def distinct(experts: int, top_k: int, tokens: int) -> float:
    """Experts the tuner's ``tokens`` read in expectation (module docstring)."""
    return experts * (1.0 - (1.0 - top_k / experts) ** tokens)


def stream_share(row: tuple[Any, ...], i: int) -> float:
    """The share of MI300X's HBM that streams row ``row``'s experts at ``TOKENS[i]`` tokens."""
    _label, _src, e, hidden, width, k, nbytes, us = row
    read = distinct(e, k, TOKENS[i]) * 3 * hidden * width * nbytes
    return read / (us[i] * 1e-6) / MI300X_HBM


def anyscale_experts(tokens: tuple[int, ...] = (1, 2, 4, 8, 16, 32)) -> dict[int, float]:
    """The step's routed-expert term a MoE layer (us) for the Anyscale replica, the larger of
    the rates' call and the block-FP8 walk (core/speed/step_terms.py ``_token_terms``),
    without the 3 us a kernel the step charges apart (its ``_floor``)."""
    import amd_decode_terms as adt

    doc = json.loads((ROOT / "tests/core/data/speed-figures-heldout.json").read_text())
    rec = next(r for r in doc if r["id"] == ANYSCALE)
    st = adt.step_of(rec["replay"][0]["scenario"])
    layers = st.shape.moe_layers
    return {n: max(st._experts(n), st._moe_walk) / layers * 1e6 for n in tokens}


def main() -> None:
    print("| shape (gfx942, cu_num 304) | tokens | us | experts read | TB/s | share of 5.3 TB/s |")
    print("|---|---:|---:|---:|---:|---:|")
    for row in ROWS:
        for i, t in enumerate(TOKENS):
            d = distinct(row[2], row[5], t)
            share = stream_share(row, i)
            print(f"| {row[0]} | {t} | {row[7][i]:.1f} | {d:.1f} | {share * 5.3:.2f} | {share:.2f} |")
    print("\n| decodes | ours, experts a layer (us) |")
    print("|---:|---:|")
    for n, us in anyscale_experts().items():
        print(f"| {n} | {us:.1f} |")


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
