"""torchtitan's chunked loss runs each chunk's backward inside the loss call
(``workload.loss: "chunked_backward"``, core/memory/loss.py; source: pytorch/torchtitan@f90c845
``torchtitan/components/loss.py`` ``ChunkedLossWrapper``): no logits outlive the loss, unlike
torchtune's ``LinearCrossEntropyLoss`` (``linear_chunked``), which keeps every chunk's fp32
log-softmax until the layers' backward reaches the head."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.memory import loss as lm_loss
from gpusizer.core.model.architecture import Arch, resolve
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.loss_kinds import LOSS_KINDS

LLAMA_8B: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "framework": "torchtitan",
    "workload": {
        "kind": "pretraining",
        "sequence_length": 2048,
        "micro_batch_size": 32,
        "global_batch_size": 128,
        "compile": True,
        "loss": "chunked_backward",
    },
    "parallelism": {"data": 4, "recompute": "selective"},
    "hardware": {"gpu": "gb200-186gb"},
}


def _arch() -> Arch:
    return resolve(parse_scenario(LLAMA_8B).model)


def test_saved_bytes_are_the_hidden_gradient_and_labels() -> None:
    arch, t = _arch(), 65_536.0
    setup = lm_loss.LossSetup.of("chunked_backward")
    saved = lm_loss.saved(arch, setup, lm_loss.Logits(t, arch.vocab, 2.0), head_trainable=True)
    # the bf16 gradient of the hidden states (2 B x T x 4096) and int64 labels; no logits and
    # no head gradient (reduce-scattered at the last chunk)
    assert saved == 2 * t * 4096 + 8 * t


def test_transient_is_one_chunk_of_eager_cross_entropy() -> None:
    arch, t = _arch(), 65_536.0
    setup = lm_loss.LossSetup.of("chunked_backward")
    fwd, bwd = lm_loss.transients(arch, setup, lm_loss.Logits(t, arch.vocab, 2.0), head_grad=0.0)
    # one of 8 chunks: 12 B a logit (fp32 log-softmax, nll_loss's gradient, log_softmax's
    # result) and the fp32 GradAccumulator of the whole hidden states
    assert fwd == 12 * (t / 8) * 128_256 + 4 * t * 4096
    assert bwd == 2 * t * 4096


def test_keeps_far_less_than_torchtune_linear_chunked() -> None:
    ours = estimate_report(LLAMA_8B)["per_gpu"]["total"]
    other = copy.deepcopy(LLAMA_8B)
    other["workload"]["loss"] = "linear_chunked"
    theirs = estimate_report(other)["per_gpu"]["total"]
    # torchtune's keeps every chunk's fp32 log-softmax: 4 B x 65,536 x 128,256 = 31.3 GiB
    assert theirs - ours == pytest.approx(27.7 * 2**30, rel=0.05)
    # torchtitan nvfp4.md, Llama 3 8B BF16 row: 174.49 GiB reserved; within 15 %
    assert ours / (174.49 * 2**30) == pytest.approx(1.0, abs=0.15)


def test_registered_as_a_loss_without_logits() -> None:
    kind = LOSS_KINDS["chunked_backward"]
    assert kind.fused and kind.backward_per_chunk and kind.chunked
    assert "torchtitan" in kind.label and kind.sources
