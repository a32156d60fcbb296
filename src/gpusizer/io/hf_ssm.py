"""config.json reader of pure Mamba-2 models (``mamba2``: Mamba-Codestral; transformers
modeling_mamba2.py), on the Mamba-2 mixers the hybrid Nemotron-H uses (core/model/specs_mixers.py
``MambaSpec``; Dao & Gu 2024, arXiv 2405.21060).

A ``Mamba2Block`` is an RMSNorm and a ``Mamba2Mixer`` with nothing else: every layer is a
mixer-only layer (no attention, no MLP). The mixer's ``in_proj`` (h x (2·d_inner + 2·groups·state
+ heads)), depthwise ``conv1d`` over d_inner + 2·groups·state channels, ``dt_bias``, ``A_log``,
``D``, gated RMSNorm and ``out_proj`` are the ones ``MambaSpec`` counts, with d_inner = heads x
head_dim, which transformers takes as ``expand`` x hidden_size (a config where they differ is
refused). Mamba2Config unties the head by default. Mamba-Codestral-7B: 7,285,403,648 (its Hugging
Face page: 7.29B). Mamba 1 (``mamba``: x_proj, dt_proj, a per-channel A) is not read
(io/hf_registry.py refuses it).
"""

from __future__ import annotations

from ..core.errors import ScenarioError
from .hf_reader import Block, Reader, base


def mamba2(r: Reader) -> Block:
    r.require(("num_heads",), ("head_dim",), ("state_size",))
    heads, head_dim = r.count("num_heads") or 0, r.count("head_dim") or 0
    inner = heads * head_dim
    hidden = r.count("hidden_size")
    expand = r.count("expand", default=2) or 0
    if hidden is not None and inner != expand * hidden:
        raise ScenarioError(
            "config",
            f"num_heads x head_dim ({inner}) must equal expand x hidden_size ({expand * (hidden or 0)}) "
            "for a mamba2 model",
        )
    r.cfg.update(num_attention_heads=heads, num_key_value_heads=heads, head_dim=head_dim)
    r.cfg.update(intermediate_size=inner)
    block = base(r)
    block.update(mlp="plain", mlp_layers=0, qkv_bias=False, attention_output_bias=False)
    block["mamba"] = {
        "layers": block["layers"],
        "heads": heads,
        "head_dim": head_dim,
        "state_size": r.get("state_size"),
        "groups": r.count("n_groups", default=1),
        "conv_kernel": r.count("conv_kernel", default=4),
        "conv_bias": r.flag("use_conv_bias", True),
        "projection_bias": r.flag("use_bias"),
    }
    return block


SSM_FAMILIES = {"mamba2": mamba2}
