"""Accelerate's fp32 copy of the logits transformers' own forward returns under the Trainer's
mixed precision: it exists from transformers 4.46, and the ``full`` loss's own moments already
hold its bytes (core/memory/amp_outputs.py docstring; docs/evidence/training.md, the section on
this copy for transformers + PEFT).

Sources, read in the released wheels (``pip download transformers==X``):
- transformers 4.44.2 and 4.45.0 ``transformers/models/llama/modeling_llama.py``
  ``LlamaForCausalLM.forward``: ``logits = logits.float()`` / ``self.lm_head(...).float()`` in the
  forward, fp32 logits returned: ``convert_to_fp32`` copies nothing.
- 4.46.0, 4.49.0 (Llama) and 4.57.1 (``transformers/models/qwen2/modeling_qwen2.py``): the
  16-bit ``self.lm_head(hidden_states[:, slice_indices, :])`` is returned; the upcast is local to
  ``transformers/loss/loss_utils.py`` ``ForCausalLMLoss`` (``logits = logits.float()``; the
  ``shift_logits`` copy up to 4.48, padded labels from 4.49).
- huggingface/accelerate v1.0.0 (5d71646380) and v1.10.0 (5dcd16e789)
  ``src/accelerate/accelerator.py`` ``prepare_model``: ``model.forward =
  convert_outputs_to_fp32(autocast_context(model_forward_func))`` under native AMP;
  ``src/accelerate/utils/operations.py`` ``convert_to_fp32``: ``tensor.float()`` of fp16 / bf16
  tensors only.
- transformers 4.57.1 ``transformers/trainer.py``: ``compute_loss`` returns ``(loss, outputs) if
  return_outputs else loss``; ``training_step`` deletes ``inputs`` and calls
  ``accelerator.backward(loss)``: the copy is gone before the backward.

The bytes are exact (4 B per fp32 logit, 2 per 16-bit one): tolerance 1e-9 relative.
"""

from __future__ import annotations

import pytest

from gpusizer import estimate_report
from gpusizer.core.memory.amp_outputs import returned_logits_fp32
from gpusizer.core.memory.loss import Logits, LossSetup, transients
from gpusizer.core.model.architecture import Arch, resolve
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.frameworks import FRAMEWORKS
from gpusizer.core.registry.loss_kinds import LOSS_KINDS
from tests.core.test_training_heldout import RECORDS

TOKENS, VOCAB = 2 * 2048, 151680  # MiMo-7B's vocabulary, 2 x 2048 packed
TRAINER_PROFILES = ("huggingface", "axolotl", "ms-swift")
MIMO = "axolotl-example|mimo-7b-rl|qlora|2x2048"


def _arch() -> Arch:
    return resolve(parse_scenario({"model": {"preset": "qwen2.5-7b"}, "workload": {"kind": "lora"}}).model)


@pytest.mark.parametrize("framework", TRAINER_PROFILES)
@pytest.mark.parametrize("loss", ["full", "z_loss"])
def test_the_trainer_profiles_charge_no_copy_beside_transformers_loss(framework: str, loss: str) -> None:
    profile = FRAMEWORKS[framework]
    assert not profile.amp_upcasts_returned_logits
    assert returned_logits_fp32(profile, LOSS_KINDS[loss], 2, TOKENS, VOCAB) == 0


def test_the_copy_is_held_by_the_full_losss_own_moments() -> None:
    tv = TOKENS * VOCAB
    fwd, bwd = transients(_arch(), LossSetup.of("full"), Logits(TOKENS, VOCAB, 2.0), 0.0)
    # transformers >= 4.49, after ForCausalLMLoss returns: the returned bf16 logits (2 B) and
    # Accelerate's fp32 copy (4 B), beside the saved log-softmax: the loss's forward moment
    # (bf16 logits and their local upcast) to the byte
    conversion = 2 * tv + 4 * tv
    assert fwd == pytest.approx(conversion, rel=1e-9)
    # the backward's start (fp32 gradient of the logits and its upcast, 8 B) is above both
    assert bwd == pytest.approx(8 * tv, rel=1e-9)
    assert bwd > conversion
    # 4.46-4.48 hold the shift_logits copy too inside the loss (2 + 4 + 4 B): above the copy's
    # moment, not priced here (a loss moment, not Accelerate's); the copy adds nothing to it
    assert 2 * tv + 4 * tv + 4 * tv > conversion


def test_the_mimo_run_at_transformers_4_57_peaks_in_the_backward() -> None:
    # axolotl 4f5e8a328 requirements.txt: transformers==4.57.1, accelerate==1.11.0; bf16 auto;
    # no plugins: transformers' loss over the whole logits. The copy exists in this run, at the
    # forward's end; the estimate's peak is the backward, so pricing it moves no byte: the
    # replay stays at 0.885 of the README's 17.2 GiB (tests/core/data/training-heldout.json)
    rec = next(r for r in RECORDS if r["id"] == MIMO)
    rep = estimate_report(rec["recipe_scenario"])
    assert rep["peak_phase"] == "backward"
    assert rep["per_gpu"]["total"] / rec["figure_bytes"] == pytest.approx(0.885, abs=0.0005)
