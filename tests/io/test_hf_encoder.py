"""BERT-style encoders (io/hf_encoder.py) import with their published parameter counts; read
as Llama-like before, their MLP counted gated and their biases and positions dropped (BERT-base
160,147,200 for 109,482,240). Counts from transformers' modelling code (modeling_bert.py,
modeling_roberta.py): ``BertModel`` without its pooler, less the token-type embeddings."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import estimate_report, import_hf_config
from gpusizer.core.model.params import count_parameters
from gpusizer.core.model.specs import ModelSpec

# google-bert/bert-base-uncased config.json (BertForMaskedLM)
BERT_BASE: dict[str, Any] = {
    "architectures": ["BertForMaskedLM"],
    "model_type": "bert",
    "hidden_size": 768,
    "num_hidden_layers": 12,
    "num_attention_heads": 12,
    "intermediate_size": 3072,
    "vocab_size": 30522,
    "max_position_embeddings": 512,
    "type_vocab_size": 2,
    "hidden_act": "gelu",
    "hidden_dropout_prob": 0.1,
    "attention_probs_dropout_prob": 0.1,
}
BERT_LARGE = {
    **BERT_BASE,
    "hidden_size": 1024,
    "num_hidden_layers": 24,
    "num_attention_heads": 16,
    "intermediate_size": 4096,
}
# FacebookAI/roberta-base config.json (RobertaForMaskedLM)
ROBERTA_BASE = {
    **BERT_BASE,
    "architectures": ["RobertaForMaskedLM"],
    "model_type": "roberta",
    "vocab_size": 50265,
    "max_position_embeddings": 514,
    "type_vocab_size": 1,
}


def _pooler(h: int) -> int:
    return h * h + h  # BertPooler: dense with bias


@pytest.mark.parametrize(
    ("config", "published", "hidden", "types"),
    [
        # bert-base-uncased BertModel 109,482,240 (Devlin et al. 2019 "110M")
        (BERT_BASE, 109_482_240, 768, 2),
        # bert-large-uncased BertModel 335,141,888 ("340M")
        (BERT_LARGE, 335_141_888, 1024, 2),
        # roberta-base RobertaModel 124,645,632 ("125M", Liu et al. 2019)
        (ROBERTA_BASE, 124_645_632, 768, 1),
    ],
)
def test_encoder_counts(config: dict[str, Any], published: int, hidden: int, types: int) -> None:
    block = import_hf_config(config)
    got = count_parameters(ModelSpec.model_validate(block)).total
    # exact, less what is not counted: the pooler and the token-type embeddings
    assert got == published - _pooler(hidden) - types * hidden


def test_bert_reads_as_built() -> None:
    block = import_hf_config(BERT_BASE)
    assert block["mlp"] == "plain" and block["norm"] == "layernorm" and block["position_embeddings"] == 512
    assert block["qkv_bias"] and block["mlp_bias"] and block["tied_embeddings"] and block["dropout"] == 0.1


def test_bert_fine_tune_runs() -> None:
    s = {
        "model": import_hf_config(BERT_BASE),
        "workload": {"kind": "full_finetune", "sequence_length": 512, "micro_batch_size": 32},
        "hardware": {"gpu": "rtx-4090-24gb", "gpus_per_node": 1},
    }
    assert estimate_report(s)["fits"]
