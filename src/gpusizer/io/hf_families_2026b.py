"""config.json readers of 2025-26 families that were read as Llama-like decoders and mis-counted
(counts before and after: docs/evidence/training.md, "Model import, 2025-26 families"), each
as its modelling code builds the model:

- ``dots1`` (dots.llm1; transformers models/dots1/modeling_dots1.py, 4.53+): Qwen3's attention
  (per-head q/k RMSNorm, ``Dots1Attention``), DeepSeek-V3's MoE (``Dots1MoE``): dense MLPs of
  ``intermediate_size`` on the first ``first_k_dense_replace`` layers, then ``n_routed_experts``
  of ``moe_intermediate_size`` with ``n_shared_experts`` shared ones (one MLP that many times as
  wide) and a router with an ``e_score_correction_bias`` buffer. The Llama reading put experts
  on every layer and left the shared experts out.
- ``bailing_moe`` (Ling 1.5 ``BailingMoeForCausalLM`` and Ling 2.0 ``BailingMoeV2ForCausalLM``
  share the type; the models' remote modeling_bailing_moe*.py, as vLLM
  model_executor/models/bailing_moe.py reads them): a fused ``query_key_value`` (bias
  ``use_qkv_bias``), the ``dense`` output projection (bias ``use_bias``), per-head
  ``query_layernorm`` / ``key_layernorm`` under ``use_qk_norm`` (2.0), dense MLPs on the first
  ``first_k_dense_replace`` layers, ``num_experts`` routed experts, ``num_shared_experts``
  shared ones of ``moe_shared_expert_intermediate_size`` each (else ``moe_intermediate_size``),
  an ``expert_bias`` buffer under ``moe_router_enable_expert_bias``. The Llama reading left the
  shared experts out (Ling-lite-1.5: 16.32B for 16.8B) and put experts on the dense layer.
- ``apertus`` (Apertus; transformers models/apertus/modeling_apertus.py, 4.56+): ``ApertusMLP``
  is ``down_proj(xielu(up_proj(x)))``, two matrices, not Llama's three (Apertus-8B: 10.87B for
  8B); per-head q/k RMSNorm under ``qk_norm``. xIELU's two learned scalars a layer
  (``alpha_p``, ``alpha_n``) are not counted (64 parameters in Apertus-8B).
- ``olmo3`` (Olmo 3; transformers models/olmo3/modeling_olmo3.py, 4.57+): OLMo 2's layer (RMSNorm
  over all of q and all of k, post-norms only) with a window on the ``layer_types`` marked
  ``sliding_attention``. The Llama reading already read the window; it missed the q/k norms.
- ``glm4v_moe_text`` (GLM-4.5V's language model; transformers models/glm4v_moe/
  modular_glm4v_moe.py: ``Glm4vMoeTextConfig`` and ``Glm4vMoeTextMoE`` are GLM-4.5's): read by
  GLM-4.5's reader (io/hf_families.py ``glm4_moe``). The Llama reading put experts on the dense
  first layer and left the shared expert out.
"""

from __future__ import annotations

from collections.abc import Callable

from .hf_families import glm4_moe
from .hf_reader import Block, Reader, base, moe, sliding


def dots1(r: Reader) -> Block:
    block = base(r)
    block["qk_norm"] = "head"
    first = min(block["layers"], r.count("first_k_dense_replace", default=0) or 0)
    moe(r, block, first, shared_experts=r.count("n_shared_experts", default=0) or 0, router_bias=True)
    return block


def bailing_moe(r: Reader) -> Block:
    block = base(r)
    block.update(fused_qkv=True, qkv_bias=r.flag("use_qkv_bias"), attention_output_bias=r.flag("use_bias"))
    if r.flag("use_qk_norm"):
        block["qk_norm"] = "head"
    first = min(block["layers"], r.count("first_k_dense_replace", default=0) or 0)
    shared = r.count("num_shared_experts", default=0) or 0
    width = r.count("moe_shared_expert_intermediate_size", "moe_intermediate_size", default=0) or 0
    extra = {"shared_experts": shared, "shared_expert_ffn_hidden_size": shared * width} if shared else {}
    moe(r, block, first, router_bias=r.flag("moe_router_enable_expert_bias"), **extra)
    return block


def apertus(r: Reader) -> Block:
    block = base(r)
    block.update(mlp="plain", activation=r.get("hidden_act", default="xielu"))
    if r.flag("qk_norm", True):
        block["qk_norm"] = "head"
    return block


def olmo3(r: Reader) -> Block:
    block = base(r)
    block["qk_norm"] = "full"  # Olmo3Attention.q_norm over heads x head_dim, as OLMo 2
    sliding(r, block, block["layers"])
    return block


FAMILIES_2026B: dict[str, Callable[[Reader], Block]] = {
    "dots1": dots1,
    "bailing_moe": bailing_moe,
    "apertus": apertus,
    "olmo3": olmo3,
    "glm4v_moe_text": glm4_moe,
}
