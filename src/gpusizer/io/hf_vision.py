"""The vision tower of a multimodal config.json, as a ``vision`` model block.

Each family is read from its ``vision_config`` the way transformers builds it (5.24):

- SigLIP (Gemma 3, ``SiglipVisionModel`` + ``Gemma3MultiModalProjector``): biased attention
  and GELU MLP, LayerNorm, a biased patch Conv2d, (image/patch)² learned positions, a
  post-LayerNorm; the projector is an h_v × h_t matrix and an RMSNorm over h_v. With
  ``vision_use_head`` the attention-pooling head is counted too.
- Pixtral (Mistral 3, ``PixtralVisionModel`` + ``Mistral3MultiModalProjector``): bias-free
  attention and gated MLP, RMSNorm, 2-D RoPE (no learned positions), ``ln_pre``; the projector
  holds an RMSNorm, the patch merger (h_v·s² × h_v) and two linears (h_v × h_t, h_t × h_t).
- Llama 4 (``Llama4VisionModel`` + ``Llama4MultiModalProjector``): class token, (image/patch)² + 1
  learned positions, a bias-free unfolded patch linear, pre and post LayerNorms; the pixel-shuffle
  adapter (``Llama4VisionMLP2``: intermediate × projector_input, projector_output²) and the
  projector (vision_output × h_t).
- Qwen2.5-VL (``Qwen2_5_VisionTransformerPretrainedModel``): a bias-free Conv3d over
  ``temporal_patch_size`` frames, RMSNorm blocks with biased attention and gated MLP, and the
  patch merger (RMSNorm, (4·h_v)² + 4·h_v, 4·h_v × out + out).

- Qwen2-VL (``Qwen2VisionTransformerPretrainedModel``, modeling_qwen2_vl.py): the config gives
  ``embed_dim`` and ``mlp_ratio`` (its ``hidden_size`` is the merger's output), LayerNorm blocks
  with biased attention and a biased fc1/fc2 MLP (QuickGELU), a bias-free Conv3d over
  ``temporal_patch_size`` frames, 2-D RoPE (no learned positions, no final norm), and the
  ``PatchMerger``: LayerNorm(h_v), (4·h_v)² + 4·h_v, 4·h_v × h_t + h_t. Qwen2-VL-7B-Instruct:
  675,759,104 vision + 7,615,616,512 text = 8.29B (its Hugging Face page: 8.29B).

- Llama 3.2 Vision (``mllama``, ``MllamaVisionModel`` + ``multi_modal_projector``,
  modeling_mllama.py): ``num_hidden_layers`` local and ``num_global_layers`` gated global
  layers of bias-free attention (``MllamaVisionAttention``: q/k/v/o ``bias=False``) and a
  biased fc1/fc2 GELU MLP, LayerNorms; a bias-free patch Conv2d, a class token, (image/patch)²
  + 1 gated positions, ``layernorm_pre`` and ``layernorm_post``. ``projector_parameters``
  holds the projector (``vision_output_dim`` x h_t + h_t) and what the ViT shape leaves out:
  the gated tile position embedding ((aspect ratios + 1) x tiles x positions x h_v), the pre-
  and post-tile embeddings ((aspect ratios + 1) x tiles x h_v each), the 3 + 2 x global gates
  and the MLP biases. Llama-3.2-11B-Vision: 895,028,755 vision and projector (exact) +
  9,775,157,248 text (less the 8 image-token rows of the embedding and the cross-attention
  layers' q/k norms and gates, 34,832) = 10,670,186,003 of 10,670,220,835.

- Qwen3-VL and Qwen3-VL-MoE (``Qwen3VLVisionModel``, modeling_qwen3_vl.py, transformers
  4.57): a biased Conv3d over ``temporal_patch_size`` frames, ``num_position_embeddings``
  learned positions (``pos_embed``), LayerNorm blocks with biased qkv/proj attention and a
  biased linear_fc1/linear_fc2 MLP (GELU, tanh), no final norm; the ``merger``
  (``Qwen3VLVisionPatchMerger``: LayerNorm(h_v), (4·h_v)² + 4·h_v, 4·h_v × out + out) and one
  more merger per ``deepstack_visual_indexes`` entry with its LayerNorm over 4·h_v
  (``use_postshuffle_norm=True``). Qwen3-VL-4B-Instruct: 415,347,712 vision + 4,022,468,096
  text = 4,437,815,808, the total its load reports (exact).

- Qwen3.5 (``Qwen3_5VisionModel(Qwen3VLVisionModel)``, transformers models/qwen3_5/
  modular_qwen3_5.py): Qwen3-VL's tower with ``deepstack_visual_indexes`` removed (no DeepStack
  merger). Refused before only in count: read as a plain ViT.
- MoonViT (Kimi K2.5, ``vision_config`` with ``vt_*`` keys; moonshotai/Kimi-K2.5 remote
  modeling_kimi_k25.py, tensor shapes of the released checkpoint): ``patch_embed.proj`` a
  biased Conv2d, ``pos_emb`` ``init_pos_emb_height`` x ``init_pos_emb_width`` learned
  positions (time positions fixed), LayerNorm blocks with a biased fused ``wqkv``, ``wo`` and a
  biased fc0/fc1 GELU MLP, a ``final_layernorm``; ``mm_projector``: ``pre_norm``
  LayerNorm(``mm_hidden_size``), (h·k²)² + h·k², h·k² x h_t + h_t with k² the
  ``merge_kernel_size`` cells. Refused before: no ``hidden_size`` key. Kimi-K2.5: 416,866,032
  tower + 54,277,888 projector = 471,143,920, the checkpoint's tensor shapes summed (exact).

Another ``vision_config`` is read as a plain ViT (SigLIP layout, an h_v × h_t projector): an
approximation, named by its ``family``.
"""

from __future__ import annotations

from typing import Any

from .hf_reader import Config, Reader

# Qwen3-VL's tower and Qwen3.5's (modular_qwen3_5.py: ``Qwen3_5VisionConfig(Qwen3VLVisionConfig)``
# with ``deepstack_visual_indexes`` removed, so no DeepStack merger)
_QWEN3_VL_TOWERS = ("qwen3_vl", "qwen3_5")


def _siglip(v: Reader, text_hidden: int, block: dict[str, Any]) -> None:
    h, f = block["hidden_size"], block["ffn_hidden_size"]
    image, patch = v.count("image_size", default=224) or 224, block["patch_size"]
    block["position_embeddings"] = (image // patch) ** 2
    projector = h * text_hidden + h
    if v.flag("vision_use_head", True) and v.model_type == "siglip_vision_model":
        # SiglipMultiheadAttentionPoolingHead: probe, nn.MultiheadAttention, LayerNorm, MLP
        projector += h + 4 * h * h + 4 * h + 2 * h + 2 * h * f + f + h
    block["projector_parameters"] = projector


def _pixtral(v: Reader, outer: Config, text_hidden: int, block: dict[str, Any]) -> None:
    h = block["hidden_size"]
    merge = int(outer.get("spatial_merge_size") or 2)
    bias = text_hidden * 2 if outer.get("multimodal_projector_bias") is True else 0
    block.update(
        mlp="gated",
        norm="rmsnorm",
        bias=False,
        patch_bias=False,
        projector_parameters=h + h * merge * merge * h + h * text_hidden + text_hidden * text_hidden + bias,
    )


def _llama4(v: Reader, text_hidden: int, block: dict[str, Any]) -> None:
    f = block["ffn_hidden_size"]
    image, patch = v.count("image_size", default=336) or 336, block["patch_size"]
    pin = v.count("projector_input_dim", default=4096) or 0
    pout = v.count("projector_output_dim", default=4096) or 0
    vout = v.count("vision_output_dim", default=pout) or 0
    block.update(
        patch_bias=False,
        position_embeddings=(image // patch) ** 2 + 1,
        class_token=True,
        encoder_norms=2,
        projector_parameters=f * pin + pout * pout + vout * text_hidden,
    )


def _mllama(v: Reader, raw: Config, text_hidden: int, block: dict[str, Any]) -> None:
    h, f = block["hidden_size"], block["ffn_hidden_size"]
    local, glob = block["layers"], v.count("num_global_layers", default=8) or 0
    image, patch = v.count("image_size", default=560) or 560, block["patch_size"]
    positions = (image // patch) ** 2 + 1
    ratios = raw.get("supported_aspect_ratios")
    ids = (len(ratios) if isinstance(ratios, list) else 8) + 1  # max_aspect_ratio_id + 1 rows
    tiles = v.count("max_num_tiles", default=4) or 4
    out = v.count("vision_output_dim", default=7680) or 0
    embeddings = ids * tiles * positions * h + 2 * ids * tiles * h  # tile, pre- and post-tile
    gates = 3 + 2 * glob
    block.update(
        layers=local + glob,
        attention_heads=v.count("attention_heads", "num_attention_heads", default=16),
        bias=False,
        patch_bias=False,
        position_embeddings=positions,
        class_token=True,
        encoder_norms=2,
        projector_parameters=out * text_hidden + text_hidden + embeddings + gates + (local + glob) * (f + h),
    )


def _qwen2_5_vl(v: Reader, block: dict[str, Any]) -> None:
    h = block["hidden_size"]
    out = v.count("out_hidden_size", default=h) or h
    merged = h * (v.count("spatial_merge_size", default=2) or 2) ** 2
    block.update(
        mlp="gated",
        norm="rmsnorm",
        patch_bias=False,
        encoder_norms=0,
        temporal_patch_size=v.count("temporal_patch_size", default=2) or 1,
        projector_parameters=h + merged * merged + merged + merged * out + out,
    )


def _qwen3_vl(v: Reader, raw: Config, block: dict[str, Any]) -> None:
    h = block["hidden_size"]
    out = v.count("out_hidden_size", default=h) or h
    merged = h * (v.count("spatial_merge_size", default=2) or 2) ** 2
    merger = merged * merged + merged + merged * out + out  # linear_fc1, linear_fc2
    taps = raw.get("deepstack_visual_indexes")
    deepstack = len(taps) if isinstance(taps, list) else 0
    block.update(
        encoder_norms=0,
        temporal_patch_size=v.count("temporal_patch_size", default=2) or 1,
        position_embeddings=v.count("num_position_embeddings", default=2304),
        # the merger's LayerNorm over h_v, each DeepStack merger's over 4·h_v (post-shuffle)
        projector_parameters=2 * h + merger + deepstack * (2 * merged + merger),
    )


def _qwen2_vl(v: Reader, text_hidden: int) -> dict[str, Any]:
    """Qwen2-VL's tower: widths from ``embed_dim`` x ``mlp_ratio``; the merger into the text
    model's width (a config's own ``hidden_size`` is not read: the merger must output h_t)."""
    v.require(("embed_dim",), ("depth", "num_hidden_layers"))
    h = v.count("embed_dim") or 0  # required above; 0 is refused by the block's validation
    merged = h * (v.count("spatial_merge_size", default=2) or 2) ** 2
    return {
        "family": "qwen2_vl",
        "layers": v.count("depth", "num_hidden_layers"),
        "hidden_size": h,
        "ffn_hidden_size": int(h * float(v.get("mlp_ratio", default=4))),
        "attention_heads": v.count("num_heads", "num_attention_heads", default=16),
        "patch_size": v.count("patch_size", default=14),
        "channels": v.count("in_chans", "in_channels", default=3),
        "temporal_patch_size": v.count("temporal_patch_size", default=2) or 1,
        "patch_bias": False,
        "encoder_norms": 0,
        "projector_parameters": 2 * h + merged * merged + merged + merged * text_hidden + text_hidden,
    }


def _moonvit(v: Reader, text_hidden: int) -> dict[str, Any]:
    v.require(("vt_hidden_size",), ("vt_num_hidden_layers",), ("vt_intermediate_size",))
    h = v.count("vt_hidden_size") or 0
    kernel = v.cfg.get("merge_kernel_size")
    cells = kernel[0] * kernel[1] if isinstance(kernel, list) and len(kernel) == 2 else 4
    if not isinstance(cells, int) or isinstance(cells, bool) or not 0 < cells <= 64:
        cells = 4  # a malformed merge kernel: MoonViT's 2 x 2
    merged, mm = h * cells, v.count("mm_hidden_size", default=h) or h
    positions = (v.count("init_pos_emb_height", default=64) or 0) * (
        v.count("init_pos_emb_width", default=64) or 0
    )
    return {
        "family": "moonvit",
        "layers": v.count("vt_num_hidden_layers"),
        "hidden_size": h,
        "ffn_hidden_size": v.count("vt_intermediate_size"),
        "attention_heads": v.count("vt_num_attention_heads", default=16),
        "patch_size": v.count("patch_size", default=14),
        "position_embeddings": positions,
        "projector_parameters": 2 * mm + merged * merged + merged + merged * text_hidden + text_hidden,
    }


def vision_block(cfg: Config, text_hidden: int) -> dict[str, Any] | None:
    """The ``vision`` block of a multimodal config (None without a ``vision_config``)."""
    raw = cfg.get("vision_config")
    if not isinstance(raw, dict):
        return None
    outer = str(cfg.get("model_type") or "")
    v = Reader(raw)
    family = v.model_type or outer
    if family.startswith("qwen2_vl"):
        return _qwen2_vl(v, text_hidden)
    if "vt_hidden_size" in raw:
        return _moonvit(v, text_hidden)
    v.require(("hidden_size", "embed_dim"), ("num_hidden_layers", "depth"), ("intermediate_size",))
    block: dict[str, Any] = {
        "family": family,
        "layers": v.count("num_hidden_layers", "depth"),
        "hidden_size": v.count("hidden_size", "embed_dim"),
        "ffn_hidden_size": v.count("intermediate_size"),
        "attention_heads": v.count("num_attention_heads", "num_heads", default=16),
        "patch_size": v.count("patch_size", default=14),
        "channels": v.count("num_channels", "in_channels", "in_chans", default=3),
    }
    if family == "pixtral":
        _pixtral(v, cfg, text_hidden, block)
    elif family.startswith("llama4"):
        _llama4(v, text_hidden, block)
    elif family.startswith("mllama") or outer == "mllama":
        _mllama(v, raw, text_hidden, block)
    elif family.startswith("qwen2_5_vl") or outer == "qwen2_5_vl":
        _qwen2_5_vl(v, block)
    elif family.startswith(_QWEN3_VL_TOWERS) or outer.startswith(_QWEN3_VL_TOWERS):
        _qwen3_vl(v, raw, block)
    else:
        _siglip(v, text_hidden, block)
    return block
