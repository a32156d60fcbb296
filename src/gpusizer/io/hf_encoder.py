"""config.json readers of BERT-style encoders, which the Llama reading counted as gated,
bias-free decoders (BERT-base 160.1M for its 109.5M), each as its transformers modelling code
builds the masked-LM model its ``architectures`` name:

- ``bert`` (modeling_bert.py), ``roberta`` (modeling_roberta.py), ``xlm-roberta``
  (modeling_xlm_roberta.py): word, learned position (``max_position_embeddings``) and
  token-type embeddings with a LayerNorm (``BertEmbeddings``); each layer biased q/k/v and
  attention output (``BertSelfAttention``, ``BertSelfOutput``), a plain ``intermediate`` /
  ``output`` MLP with biases and GELU, two LayerNorms (post-norm, the same parameters);
  ``BertForMaskedLM``'s decoder tied to the word embeddings (``BertLMPredictionHead``). The
  embeddings' LayerNorm is counted as the final norm (the same 2 x hidden). Not counted: the
  token-type embeddings (``type_vocab_size`` x hidden), the pooler and the prediction head's
  dense + LayerNorm + decoder bias. BERT-base reads 108,890,112: ``BertModel`` without its
  pooler is 108,891,648 (109,482,240 with it, Devlin et al. 2019's "110M"), ``BertForMaskedLM``
  109,514,298 (0.57 % more); BERT-large 334,090,240 (``BertModel`` 335,141,888 with its
  1,049,600-parameter pooler); RoBERTa-base 124,054,272 (``RobertaModel`` 124,645,632 with
  its pooler). ``hidden_dropout_prob`` is the residual dropout (0.1 in the released configs).

The estimate prices an encoder's fine-tune as a decoder's of the same shapes: bidirectional
attention saves the same tensors under flash or SDPA attention, and the masked-LM loss runs over
every position's logits (``BertForMaskedLM`` computes ``prediction_scores`` for all tokens and
ignores the unmasked ones, label -100). A sequence-classification head (no vocabulary logits) is
not read: its fine-tune is priced with the masked-LM logits, an upper bound.
"""

from __future__ import annotations

from collections.abc import Callable

from .hf_reader import Block, Reader, base


def bert(r: Reader) -> Block:
    """BERT / RoBERTa / XLM-R: learned positions, biased plain MLP, LayerNorms, tied MLM decoder."""
    block = base(r, tied=True)
    block.update(
        mlp="plain",
        activation=r.get("hidden_act", default="gelu"),
        norm="layernorm",
        norms_per_layer=2,
        final_norm=True,
        qkv_bias=True,
        attention_output_bias=True,
        mlp_bias=True,
        lm_head_bias=True,
        position_embeddings=r.get("max_position_embeddings", default=512),
        dropout=r.fraction("hidden_dropout_prob", default=0.1),
    )
    return block


ENCODER_FAMILIES: dict[str, Callable[[Reader], Block]] = {"bert": bert, "roberta": bert, "xlm-roberta": bert}
