"""torchtitan's NVFP4 page's BF16 and MXFP8 baselines on 4 GB200s (Llama 3 8B at 32 x 2048 and
Qwen3 8B at 16 x 2048 per GPU, FSDP 4, compiled, op-level selective recompute, chunked loss):
tokens/s per GPU against the training step model
(tests/core/data/speed-figures-training-torchtitan.json, replayed with
tests/core/training_figures.py).

Source: pytorch/torchtitan@3a299f2 ``torchtitan/components/quantization/nvfp4.md``, "Llama 3 8B
200M-Token Evidence" and "Qwen3 8B 200M-Token Evidence / Random Initialization"; each record
quotes its row. Recorded once ``precision.matmuls: "mxfp8"`` could state the MXFP8 rows, and
replayed untuned; not blind (the estimate was run once before recording). The NVFP4 rows of the
same tables are not replayed: NVFP4 training is not modelled (core/registry/training_formats.py).
docs/evidence/training.md has the table.
"""

from __future__ import annotations

from gpusizer.core.pipeline.report import estimate_report

from .training_figures import load, ratios, states_its_figure

RECORDS = load("speed-figures-training-torchtitan.json")
RATIOS = ratios(RECORDS)


def test_the_records_state_their_figures() -> None:
    assert len(RECORDS) == 4
    for r in RECORDS:
        assert states_its_figure(r), r["id"]
        assert f"{r['metrics']['tokens_per_s_per_gpu']:,}" in r["quote"], r["id"]


def test_baselines_within_25_percent() -> None:
    # published tokens/s per GPU (nvfp4.md): Llama BF16 21,919, MXFP8 28,084; Qwen3 BF16 20,913,
    # MXFP8 27,587. Estimate / published at record: 0.905, 1.063, 0.919, 1.030 (25 % each)
    expected = {
        "torchtitan-nvfp4-doc-llama3-8b-4xgb200-bf16": 0.905,
        "torchtitan-nvfp4-doc-llama3-8b-4xgb200-mxfp8": 1.063,
        "torchtitan-nvfp4-doc-qwen3-8b-4xgb200-bf16": 0.919,
        "torchtitan-nvfp4-doc-qwen3-8b-4xgb200-mxfp8": 1.030,
    }
    for key, ratio in expected.items():
        assert abs(RATIOS[key] - ratio) <= 0.02, (key, RATIOS[key])
        assert abs(RATIOS[key] - 1) <= 0.25, key


def test_mxfp8_speeds_up_as_published() -> None:
    # MXFP8 over BF16 on the same page: Llama 28,084 / 21,919 = 1.28, Qwen3 27,587 / 20,913 = 1.32;
    # the model's, the FP8 rate on the Linear GEMMs with their casts: 1.51 and 1.48, within 20 %.
    # Not priced: the scale-rearranging kernels torchao runs beside each MXFP8 quantisation
    # (pytorch/ao torchao/prototype/moe_training/README.md "MXFP8 Kernel Breakdown by Pass")
    for model, published in (("llama3-8b", 28084 / 21919), ("qwen3-8b", 27587 / 20913)):
        gain = (
            RATIOS[f"torchtitan-nvfp4-doc-{model}-4xgb200-mxfp8"]
            / RATIOS[f"torchtitan-nvfp4-doc-{model}-4xgb200-bf16"]
            * published
        )
        assert abs(gain / published - 1) <= 0.20, (model, gain, published)


def test_every_run_fits_its_card() -> None:
    # each ran on 4 GB200s (the page's percentages); the Llama 3 8B rows at 174.49 and 179.94 GiB
    # reserved, 94.7 % and 97.6 % of the card. Before torchtitan's chunked loss was read as
    # running each chunk's backward inside the loss, the estimate put them over the card
    for r in RECORDS:
        rep = estimate_report(r["scenario"])
        assert rep["fits"], (r["id"], rep["fit_reason"])
