"""Op inventories of Hugging Face transformers decoder layers under a sharding wrapper, as the
host issues them eagerly (``rl.policy.hf_layer_ops``): the counts and their sources. They are
priced against the layer's GPU time in core/speed/train_host_hf.py, whose docstring gives the
mechanism.

``hf-fsdp1``: verl's FSDP workers (v0.3.0.post1 - v0.5.0), each decoder layer its own FSDP1
unit, packed rows (``use_remove_padding``) under transformers v4.51.3. Counted at the level of
Python calls (a module's torch op, a tensor method, a collective), not measured:

- the decoder layer, transformers v4.51.3 ``models/qwen2/modeling_qwen2.py`` (Llama's layer is the
  same without the QKV biases): each ``RMSNorm`` 8 ops (to float32, pow, mean, add, rsqrt, mul,
  to, weight mul); q, k, v projections with a view and transpose each (9); RoPE's
  ``apply_rotary_pos_emb`` on q and k (two unsqueezes, then per tensor a mul, ``rotate_half``'s two
  slices, neg and cat, a mul and an add: 16; 14 with a backward node); the flash-attention path
  (``integrations/flash_attention.py`` three transposes; ``modeling_flash_attention_utils.py``
  ``_flash_attention_forward``'s position-ids test: diff, compare, all, the host read;
  ``prepare_fa2_from_position_ids``: 5 views and contiguous copies, flatten, arange, the compare,
  index, ``torch.tensor``, cat, max and add; flash-attn's varlen function about 5; the output
  view: 27 forward, 15 backward); the output's reshape, contiguous and projection (3); two
  residual adds; the gated MLP's gate, act, up, mul, down (5; plain 3);
- the FSDP1 unit around it (PyTorch ``torch/distributed/fsdp/_runtime_utils.py`` ``_pre_forward``,
  ``_unshard``, ``_post_forward``, ``_reshard``, ``_post_backward_hook``; ``_flat_param.py``
  ``_use_unsharded_views``, ``_use_sharded_views``): forward 18 ops (the low-precision shard's
  allocation and copy, stream waits, the padded buffer, the all-gather, the split, freeing both,
  the free event, the backward hooks' registration) plus two per parameter (its unsharded view
  and its sharded one); backward 24 (the pre-backward unshard again, the gradient's pre- and
  post-divide, the reduce-scatter's buffers and call, the fp32 accumulation) plus two per
  parameter.

Without ``use_remove_padding`` verl passes the padded rows' attention mask instead, and
``_flash_attention_forward`` unpads q, k and v in every layer (``_upad_input``:
``_get_unpad_data``'s sum, nonzero, flatten, ``max().item()``, cumsum and pad, three gathers and
reshapes, the varlen call, ``pad_input``): about as many ops, with the same read on the host, so
the one count stands for both.
"""

from __future__ import annotations

from dataclasses import dataclass

from .table import add


@dataclass(frozen=True)
class HFInventory:
    """Ops (torch-op equivalents) per decoder layer of a Hugging Face model under a sharding
    wrapper, forward and backward, by block (the module docstring's counts)."""

    id: str
    label: str  # as the window lists it
    norm: tuple[int, int]  # one RMSNorm
    qkv: tuple[int, int]  # q, k, v projections with their views and transposes
    rope: tuple[int, int]  # apply_rotary_pos_emb on q and k
    attention: tuple[int, int]  # the flash-attention path with its position-ids test
    out: tuple[int, int]  # reshape, contiguous, o_proj
    residuals: tuple[int, int]  # two residual adds
    gated_mlp: tuple[int, int]
    plain_mlp: tuple[int, int]
    unit: tuple[int, int]  # the FSDP unit's hooks, beyond the per-parameter views
    per_param: tuple[int, int]  # the unit's views of each parameter (unsharded, sharded)


HF_INVENTORIES: dict[str, HFInventory] = {}


def register(inv: HFInventory) -> HFInventory:
    """Add an inventory (a DuplicateId if its id is taken)."""
    return add(HF_INVENTORIES, inv.id, inv, "Hugging Face host inventory")


HF_FSDP1 = register(
    HFInventory(
        "hf-fsdp1",
        "FSDP1 units, packed (verl)",
        norm=(8, 8),
        qkv=(9, 9),
        rope=(16, 14),
        attention=(27, 15),
        out=(3, 3),
        residuals=(2, 2),
        gated_mlp=(5, 5),
        plain_mlp=(3, 3),
        unit=(18, 24),
        per_param=(2, 2),
    )
)
