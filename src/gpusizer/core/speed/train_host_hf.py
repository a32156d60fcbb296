"""The host's work in an eager Hugging Face transformers decoder layer wrapped as an FSDP1 unit
(verl's FSDP actor, reference and critic; ``rl.policy.hf_layer_ops``), priced per op as
core/speed/train_host.py prices Megatron's layers, against the GPU time of the same layer.

verl's FSDP workers run the Hugging Face model (``AutoModelForCausalLM``, the critic's
``AutoModelForTokenClassification``) eagerly, each decoder layer its own FSDP1 unit
(``verl/utils/fsdp_utils.py`` ``get_fsdp_wrap_policy``: ``transformer_auto_wrap_policy`` on the
model's ``_no_split_modules``, verl v0.3.0.post1 and v0.5.0), under ``torch.autocast(bfloat16)``
(``verl/workers/actor/dp_actor.py`` ``_forward_micro_batch``). With ``use_remove_padding`` the
rows are packed and passed as ``position_ids`` without an attention mask; transformers
v4.51.3's ``_flash_attention_forward`` (``modeling_flash_attention_utils.py``, the function
verl's ``_ulysses_flash_attention_forward`` calls) then tests ``not (torch.diff(position_ids,
dim=-1) >= 0).all()`` in Python, a read on the host that waits for the GPU, in every layer: the
host's lead does not carry from one layer to the next, and each layer pass takes the larger of
its host and GPU times (core/speed/train_host.py ``host_bound_extra``). A small model's layers,
whose kernels on a few thousand tokens finish faster than Python issues them, run at the host's
pace.

The ops per layer and their sources: core/registry/hf_layer_ops.py, each at ``TORCH_OP_SECONDS``
scaled by the host CPU's ``op_dispatch`` (core/speed/train_host.py); backward nodes are priced
alike, as the Megatron inventory prices them. Under full recompute (verl
``enable_gradient_checkpointing``) the backward reruns the layer's forward, the FSDP unit's hooks
included (transformers checkpoints the wrapped layer's ``__call__``). Not counted: verl's ops
around the model (unpadding, the log-probs and entropy, the loss), which run beside the LM
head's GPU time.
"""

from __future__ import annotations

from ..model.presets import host_cpu
from ..model.specs import GPUSpec, ModelSpec, Scenario
from ..registry.hf_layer_ops import HF_INVENTORIES, HFInventory
from .train_host import TORCH_OP_SECONDS, HostPace, host_bound_extra, stage_layers
from .train_layer import layer_communication, layer_compute, layer_context


def layer_params(model: ModelSpec) -> int:
    """Parameter tensors of one decoder layer: two norms, q, k, v and o weights, the QKV biases,
    q and k norms where the model has them, and the MLP's two or three matrices."""
    mlp = 3 if model.mlp == "gated" else 2
    return 2 + 4 + 3 * model.qkv_bias + 2 * (model.qk_norm != "none") + mlp


def layer_ops(inv: HFInventory, model: ModelSpec) -> tuple[float, float]:
    """(forward, backward) torch-op equivalents the host issues for one decoder layer of
    ``model`` and its FSDP unit (the backward without the recompute's forward)."""
    norms = 2 + 2 * (model.qk_norm != "none")
    mlp = inv.gated_mlp if model.mlp == "gated" else inv.plain_mlp
    params = layer_params(model)

    def ops(i: int) -> float:
        blocks = (inv.qkv, inv.rope, inv.attention, inv.out, inv.residuals, mlp, inv.unit)
        return norms * inv.norm[i] + sum(b[i] for b in blocks) + params * inv.per_param[i]

    return ops(0), ops(1)


def hf_host_pace(s: Scenario, gpu: GPUSpec, inventory: str) -> HostPace:
    """:class:`HostPace` of a Hugging Face policy's layers under ``inventory`` on its GPU and host
    CPU: per layer, the host's time beyond the layer's GPU time (its compute and exposed
    collectives, half in each pass, core/speed/train_layer.py), a forward alone and a training
    pass, over the fullest pipeline stage's layers."""
    c, _ = layer_context(s, gpu)
    layer = layer_compute(c)
    moe_share = c.ts.moe_layers / c.ts.layers if c.ts.layers else 0.0
    comm = sum(layer_communication(c, layer, moe_share)) / 2
    fwd_ops, bwd_ops = layer_ops(HF_INVENTORIES[inventory], s.model)
    per_op = TORCH_OP_SECONDS * host_cpu(s.hardware).op_dispatch
    host_f, host_b = fwd_ops * per_op, bwd_ops * per_op
    if c.recompute == "full":  # the backward reruns the layer's forward first
        host_b += host_f
    n = stage_layers(c.ts.layers, s.parallelism.pipeline)
    forward = host_bound_extra(layer.forward + comm, host_f)
    return HostPace(n * forward, n * (forward + host_bound_extra(layer.backward + comm, host_b)))
