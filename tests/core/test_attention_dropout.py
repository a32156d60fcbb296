"""The attention probabilities' own dropout (``model.attention_dropout``).

transformers' OPT drops its attention probabilities with ``config.attention_dropout`` and its
residuals with ``config.dropout`` (src/transformers/models/opt/modeling_opt.py: ``OPTAttention``
``self.dropout = config.attention_dropout``, ``OPTDecoderLayer`` ``self.dropout = config.dropout``;
facebook/opt-1.3b config.json: 0.0 and 0.1). With p = 0 ATen's dropout returns its input
(aten/src/ATen/native/Dropout.cpp ``_dropout``: ``if (p == 0 || !train ...) return input``): eager
attention keeps no dropped copy of its [b, heads, s, s] probabilities nor a mask. Checked against
DeepSpeed-Chat step 1's OPT-1.3b log (deepspeedai/DeepSpeedExamples@3a77097a, MaxMemAllocated
22.95 GiB at 8 x 512 under fp16 ZeRO-2 on 16 GPUs), tolerance 15 %.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import ScenarioError, estimate_report, import_hf_config
from tests.core.test_training_peaks_blind9 import RECORDS

OPT = next(r for r in RECORDS if r["id"].startswith("deepspeed-chat-step1|opt-1.3b"))


def _per_gpu(sc: dict[str, Any]) -> dict[str, Any]:
    return dict(estimate_report(sc)["per_gpu"])


def test_the_deepspeed_chat_opt_run_comes_within_15_percent() -> None:
    # 22.95 GiB (MaxMemAllocated): 1.197 with the residual dropout on the probabilities too, 0.935
    # with OPT's own attention_dropout 0.0, as the record's model states it
    assert OPT["recipe_scenario"]["model"]["attention_dropout"] == 0.0
    assert OPT["ratio_blind"] == pytest.approx(1.197, abs=0.005)
    ratio = _per_gpu(OPT["recipe_scenario"])["total"] / OPT["figure_bytes"]
    assert ratio == pytest.approx(0.935, abs=0.005)


def test_no_attention_dropout_drops_each_layers_kept_probabilities() -> None:
    # eager attention: the dropout's output and its noise, 2 B each of 8 x 32 x 512 x 512, per layer
    sc = copy.deepcopy(OPT["recipe_scenario"])
    sc["model"]["attention_dropout"] = 0.1
    dropped = _per_gpu(sc)["activations"] - _per_gpu(OPT["recipe_scenario"])["activations"]
    assert dropped == 24 * 8 * 32 * 512 * 512 * 2 * 2


def test_left_out_it_is_the_dropout_byte_for_byte() -> None:
    # null: the probabilities drop as the residuals do (GPT-2's attn_pdrop = resid_pdrop, BERT's,
    # Megatron-LM's --attention-dropout 0.1 beside --hidden-dropout 0.1): the answers as before
    for rec in RECORDS:
        sc = copy.deepcopy(rec["recipe_scenario"])
        sc["model"].pop("attention_dropout", None)
        same = copy.deepcopy(sc)
        same["model"]["attention_dropout"] = sc["model"]["dropout"]
        assert estimate_report(sc)["per_gpu"] == estimate_report(same)["per_gpu"]


def test_an_imported_opt_reads_its_attention_dropout() -> None:
    cfg = {
        "architectures": ["OPTForCausalLM"],
        "model_type": "opt",
        "hidden_size": 768,
        "num_hidden_layers": 12,
        "num_attention_heads": 12,
        "ffn_dim": 3072,
        "vocab_size": 50272,
        "max_position_embeddings": 2048,
        "dropout": 0.1,
    }
    assert import_hf_config(cfg)["attention_dropout"] == 0.0  # OPTConfig's default
    assert import_hf_config({**cfg, "attention_dropout": 0.1})["attention_dropout"] == 0.1
    with pytest.raises(ScenarioError, match="attention_dropout must be a number from 0 to 1"):
        import_hf_config({**cfg, "attention_dropout": 2})


@pytest.mark.parametrize("bad", [1.0, -0.1, "0.1", True, [0.0]])
def test_hostile_input_names_the_field(bad: Any) -> None:
    sc = copy.deepcopy(OPT["recipe_scenario"])
    sc["model"]["attention_dropout"] = bad
    with pytest.raises(ScenarioError, match=r"model\.attention_dropout") as err:
        estimate_report(sc)
    assert "\n" not in str(err.value)
