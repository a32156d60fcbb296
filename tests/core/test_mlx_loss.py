"""mlx-lm's loss on the 16-bit logits (``workload.loss`` ``mlx_16bit``, chosen for the default
loss where ``workload.mlx_version`` names MLX 0.24.2 or later; core/registry/loss_kinds.py).

Sources: ml-explore/mlx-lm 0895f8f5 (PR #63, 0.22.3) ``default_loss`` drops the fp32 cast;
ml-explore/mlx v0.24.2 (PR #2028) ``LogSumExp`` on the 16-bit input, its vjp a softmax times the
cotangent and ``take_along_axis``'s a scatter into zeros. Measured here (MLX 0.27.1, CPU
backend, mlx-lm 48aead68's compiled step; tests/core/data/mlx-loss-measured.json): 8 B per bf16
logit at the peak, the slope of the step's peak over the vocabulary. Tolerance: 1 % on the slope.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.registry.loss_kinds import LOSS_KINDS, step_loss
from gpusizer.core.registry.mlx_releases import loss_logits_16bit

DATA = json.loads((Path(__file__).parent / "data" / "mlx-loss-measured.json").read_text())
TOKENS = 2 * 512


def _scenario(vocab: int, version: str | None = "0.27.1") -> dict[str, Any]:
    """The measured steps' scaled Llama (h 512, 8 / 2 heads, head 64, gated 2048, tied)."""
    model = {"name": "scaled llama", "layers": 2, "hidden_size": 512, "attention_heads": 8, "kv_heads": 2}
    model |= {"head_dim": 64, "ffn_hidden_size": 2048, "mlp": "gated", "vocab_size": vocab}
    model |= {"tied_embeddings": True, "norm": "rmsnorm"}
    work = {"kind": "lora", "micro_batch_size": 2, "sequence_length": 512, "lora_rank": 8}
    work |= {"lora_targets": ["q", "v"], "lora_layers": 2, "mlx_version": version}
    if version is None:
        del work["mlx_version"]
    hw = {"gpu": "apple-m3-ultra-256gb"}
    prec = {"weights": "bf16"}
    return {"model": model, "framework": "mlx", "hardware": hw, "workload": work, "precision": prec}


def _total(scenario: dict[str, Any]) -> int:
    return int(estimate_report(scenario)["per_gpu"]["total"])


def _measured_slope(logits: str) -> float:
    """Bytes per logit of the measured step's peak from vocabulary 8,192 to 16,384, the tied
    embedding's own growth taken out."""
    same = [r for r in DATA["steps"] if r["logits"].startswith(logits) and r["layers"] == 2]
    plain = [r for r in same if r["s"] == 512 and r["b"] == 2 and not {"ffn", "heads"} & set(r)]
    rows = {r["vocab"]: r for r in plain}
    lo, hi = rows[8192], rows[16384]
    grown = (hi["peak_bytes"] - lo["peak_bytes"]) - (hi["weights_bytes"] - lo["weights_bytes"])
    return grown / (TOKENS * 8192)


def test_the_measured_peaks_grow_8_bytes_per_bf16_logit_and_16_per_fp32() -> None:
    # tests/core/data/mlx-loss-measured.json: 4 logit-sized arrays at the loss's backward
    assert _measured_slope("bf16") == pytest.approx(8.0, rel=0.01)
    assert _measured_slope("fp32") == pytest.approx(16.0, rel=0.01)
    bf16 = [r for r in DATA["loss_only"] if r["logits"] == "bf16"]
    assert [r["bytes_per_logit"] for r in bf16] == [8.0007, 6.0005]  # compiled, eager


def test_the_estimate_grows_as_measured_with_a_named_release() -> None:
    # estimate slope over the vocabulary = the measured 8 B per logit (1 %), the weights aside
    grown = _total(_scenario(16384)) - _total(_scenario(8192)) - 8192 * 512 * 2
    assert grown / (TOKENS * 8192) == pytest.approx(_measured_slope("bf16"), rel=0.01)


def test_no_release_keeps_the_fp32_log_softmax_accounting() -> None:
    # v0.24.0's mlx-lm (<= 0.22.2) cast the logits to fp32: unchanged, 12 B per logit as before
    grown = _total(_scenario(16384, None)) - _total(_scenario(8192, None)) - 8192 * 512 * 2
    assert grown / (TOKENS * 8192) == pytest.approx(12.0, rel=0.01)
    assert _total(_scenario(8192, "0.24.1")) == _total(_scenario(8192, None))


def test_the_release_boundary_and_other_losses() -> None:
    assert not loss_logits_16bit(None) and not loss_logits_16bit("0.24.1")
    assert loss_logits_16bit("0.24.2") and loss_logits_16bit("v0.29.0")
    assert step_loss("full", 1024, "0.27.1") == "mlx_16bit"
    assert step_loss("full", 1024, None) == "full"
    assert step_loss("lse_16bit", 1024, "0.27.1") == "lse_16bit"  # a named loss stays as named
    kind = LOSS_KINDS["mlx_16bit"]
    assert kind.keeps_logits and kind.backward_logit_copies == 3 and not kind.upcast


def test_the_named_loss_is_what_the_release_computes() -> None:
    scenario = _scenario(8192)
    named = copy.deepcopy(scenario)
    named["workload"]["loss"] = "mlx_16bit"
    assert _total(named) == _total(scenario)
