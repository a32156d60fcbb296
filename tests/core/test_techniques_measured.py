"""Training techniques measured in plain PyTorch 2.13 on a CPU (scripts/measure_techniques.py,
tests/core/data/techniques-measured.json: a transformers Llama body in bf16, full fine-tuning
with bf16 AdamW states and no fp32 master, as torchtune runs it), replayed through the
scenario fields: ``workload.loss`` / ``loss_chunks`` / ``compile_loss``,
``parallelism.optimizer_in_backward`` and the 8-bit, paged and for-loop AdamW optimizers.

Tolerances: weights, gradients and optimizer states 0.5 %; activations 0.5 %; the step's peak
(the profiler's allocator peak) 1.5 % for the eager losses and the optimizers, with these
stated exceptions:
- compiled losses (``compile_loss``): 10 %. Inductor's CPU backward differs by shape (2.5·T·V
  above the saved bytes at 512 tokens, 0.26·T·V at 2,048); the model takes the larger of one
  chunk's 16-bit gradient and the output weight's gradient (core/memory/loss_order.py).
- torchtune's ``LinearCrossEntropyLoss`` (``workload.loss = "linear_chunked"``): 0 to 5 %
  above. The estimate keeps one chunk's 16-bit logits beside its fp32 upcast in the forward;
  at 2,048 tokens the measured peak is about that chunk (2·T·V/8) lower, not traced further.
  (Replayed as ``chunked``, before the rule existed, it was 0 to 22 % above.)
- a for-loop AdamW (``precision.optimizer = "adamw_forloop"``, torch's ``_single_tensor_adam``)
  keeps two copies of the largest tensor at its step, not the foreach step's copy of every
  parameter: 1.5 % like the others. (Replayed as the foreach step before the optimizer existed,
  it was 0 to 6 % above: 1.013 and 1.053 on the h512 chunked rows, now 0.981 and 1.000.)
- where the chunked loss's backward is the peak (optimizer step in backward, 8-bit states, a
  for-loop step smaller than the loss's backward),
  the h512 model measures 3.5·T·V above the saved bytes where the estimate takes one chunk's
  fp32 gradients and the output weight's gradient (3·T·V): 4.5 % below at most.
- bitsandbytes on a CPU allocates fp32 temporaries in its update that CUDA's in-place
  kernel does not: the dispatch tracker's peak (the custom op's outputs only) is compared.
  Its paged states fall back to ordinary buffers on a CPU; on CUDA they are unified memory
  outside the allocator's peak, which the estimate reports as host memory: the states are
  compared with optimizer + host, the peak without the paged states.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report

from .peft_records import technique_scenario as scenario

DATA = json.loads((Path(__file__).parent / "data" / "techniques-measured.json").read_text())


def _peak_bounds(i: dict[str, Any]) -> tuple[float, float]:
    """(lowest, highest) estimate / measured peak allowed (module docstring)."""
    if i["loss"].startswith("linear_ce") and not i["loss"].endswith("compiled"):
        return 0.99, 1.05
    if i["loss"].endswith("compiled"):
        return 0.90, 1.10
    if i["loss"] == "chunked" and any(k in i["optimizer"] for k in ("in_backward", "8bit", "forloop")):
        return 0.955, 1.015
    return 0.985, 1.015


@pytest.mark.parametrize("rec", DATA["records"], ids=lambda r: r["id"])
def test_technique_records(rec: dict[str, Any]) -> None:
    rep, m, i = estimate_report(scenario(rec)), rec["measured"], rec["inputs"]
    pg, host = rep["per_gpu"], rep["host_memory_bytes"]
    live = m["live_bytes_profiler"]
    if "bnb" in i["optimizer"]:  # CPU temporaries of bitsandbytes' update (module docstring)
        live = m["live_bytes_dispatch_tracker"]
    assert pg["weights"] == pytest.approx(m["param_bytes"], rel=0.005)
    assert pg["gradients"] == pytest.approx(m["grad_bytes_after_backward"], rel=0.005, abs=1)
    assert pg["optimizer"] + host == pytest.approx(m["optimizer_state_bytes"], rel=0.005)
    assert pg["activations"] == pytest.approx(m["activation_bytes"], rel=0.005)
    lo, hi = _peak_bounds(i)
    assert lo <= pg["total"] / (live["peak_bytes"] - host) <= hi


def _record(part: str) -> dict[str, Any]:
    return next(r for r in DATA["records"] if part in r["id"])


def test_chunked_loss_shrinks_the_transient_not_the_saved_bytes() -> None:
    # T = 2048, V = 128,256 (measured, MB): full 3,604.9 peak with 1,051.7 saved by the loss;
    # eager chunked 2,161.3 with the same 1,051.7 saved; compiled 1,046.9 with 526.4; fused
    # 671.2 (the optimizer step). Peaks 1.5 % (compiled 10 %).
    base = "llama-h256-L2-v128k|b2|s1024|bf16|{}|adamw_foreach|sdpa|ckpt0"
    peaks = {}
    for loss in ("full", "chunked", "chunked_compiled", "fused"):
        rec = next(r for r in DATA["records"] if r["id"] == base.format(loss))
        peaks[loss] = estimate_report(scenario(rec))["per_gpu"]["total"]
        tol = 0.10 if loss.endswith("compiled") else 0.015
        assert peaks[loss] == pytest.approx(rec["measured"]["live_bytes_profiler"]["peak_bytes"], rel=tol)
    assert peaks["full"] > peaks["chunked"] > peaks["chunked_compiled"] > peaks["fused"]


def test_optimizer_in_backward_lowers_the_peak_only_at_the_step() -> None:
    # h512 Llama, chunked loss + checkpointing: the foreach step's peak 438.5 MB falls to
    # 390.3 MB in backward; with the full loss the peak is the loss's backward (464.0 MB
    # either way). Measured (profiler), 2.5 %.
    step = _record("h512-L4-v32k|b2|s256|bf16|chunked|adamw_foreach|sdpa|ckpt1")
    bwd = _record("h512-L4-v32k|b2|s256|bf16|chunked|adamw_in_backward|sdpa|ckpt1")
    est = [estimate_report(scenario(r))["per_gpu"] for r in (step, bwd)]
    assert est[0]["total"] == pytest.approx(438.5e6, rel=0.025)
    assert est[1]["total"] == pytest.approx(390.3e6, rel=0.025)  # 2.1 % below
    assert est[1]["gradients"] == 0
    full = [
        estimate_report(scenario(_record(f"h512-L4-v32k|b2|s256|bf16|full|{o}|sdpa|ckpt1")))["per_gpu"][
            "total"
        ]
        for o in ("adamw_foreach", "adamw_in_backward")
    ]
    assert full[0] == full[1] == pytest.approx(464.0e6, rel=0.025)


def test_8bit_adamw_blocks_of_256() -> None:
    # bitsandbytes AdamW8bit on 43.8 M bf16 parameters: 89.2 MB of states (2.03 B/param:
    # uint8 m and v, an fp32 absmax per 256 values, fp32 states for the 512-wide norms).
    # 0.2 %: with 2,048-value blocks it would be 1.4 % low.
    rec = _record("|chunked|adamw8bit_bnb|sdpa|ckpt1")
    rep = estimate_report(scenario(rec))
    assert rep["per_gpu"]["optimizer"] == pytest.approx(rec["measured"]["optimizer_state_bytes"], rel=0.002)
