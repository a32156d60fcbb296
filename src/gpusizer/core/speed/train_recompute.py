"""Megatron-Core's module-level recompute (``parallelism.recompute_modules``) in the training step:
each named module's output is freed once its consumer has run and rebuilt in the backward
(``tensor_parallel.CheckpointWithoutOutput``: ``discard_output_and_register_recompute``, the
forward function run again when the gradient reaches it; Megatron-LM ``megatron/core/
tensor_parallel/random.py`` and ``transformer/moe/experts.py`` at 0d8e071 and d728871, the
commits Megatron-Bridge v0.2.1 and v0.4.0 pin). The memory side is core/memory/activations.py's;
here the rebuild's work, once per layer and micro-batch in the backward, per token on one TP rank:

- ``norms`` (``layernorm``, transformer_layer.py ``recompute_input_layernorm`` /
  ``recompute_pre_mlp_layernorm``): only a norm that is its own module is rebuilt, not one an
  ``IdentityOp`` stands for because Transformer Engine fuses it into the next linear
  (``TELayerNormColumnParallelLinear``): under the TE layer spec the MoE layer's
  ``pre_mlp_layernorm`` (the router and the grouped experts take no fused norm) and MLA's
  ``input_layernorm`` (its q and kv down-projections are plain linears). Each is read and
  written again, 2·a per hidden value (sequence parallelism shards it).
- ``expert_activation`` (``moe_act``: ``TEGroupedMLP``'s ``bias_act_func``): the routed experts'
  activation forward again, the fused gated kernel's 3·a per intermediate value (2·a ungated,
  5·a eager: core/speed/train_ops.py ``elementwise_bytes``) and, where the framework clamps the
  activation's inputs eagerly, the clamp's 8·a (``activation_clamp_bytes``), on the MoE layers.
- ``mla_up_projection`` (``mla_up_proj``: ``multi_latent_attention.py`` ``qkv_up_checkpoint``):
  the q and kv up-projections run forward again, 2 FLOPs per weight and token (q_lora_rank x
  heads x (nope + rope) and kv_lora_rank x heads x (nope + v)), on the TP rank's heads.

Which rebuild a module id runs is its registry entry's ``rerun``
(core/registry/recompute_modules.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NamedTuple

from ..model.architecture import resolve
from ..model.specs import ModelSpec
from ..registry.recompute_modules import RECOMPUTE_MODULES
from .train_ops import TrainShape, activation_clamp_bytes


class Rerun(NamedTuple):
    """What a layer's module recompute adds to its backward, per token on one TP rank."""

    bytes: float = 0.0  # memory-bound bytes
    routed_bytes: float = 0.0  # of those, on the routed experts' copies (the busiest rank's)
    weights: float = 0.0  # matmul weights run forward again (2 FLOPs each)


class RerunInput(NamedTuple):
    ts: TrainShape
    model: ModelSpec
    a: float
    tp: int
    sp: bool
    fused: bool
    eager_clamp: bool


def _norms(r: RerunInput) -> Rerun:
    h = r.ts.hidden / r.tp if r.sp else float(r.ts.hidden)
    own = (r.ts.moe_layers / r.ts.layers if r.ts.layers else 0.0) + (r.model.mla is not None)
    return Rerun(bytes=own * 2 * r.a * h)


def _expert_activation(r: RerunInput) -> Rerun:
    ts = r.ts
    if not ts.top_k or not ts.layers:
        return Rerun()
    per_value = (3 if r.fused else 5) if ts.gated else 2
    routed = ts.top_k * ts.expert_width / r.tp
    clamp = activation_clamp_bytes(ts, r.a, r.tp, r.eager_clamp)[0] * routed / (ts.act / r.tp)
    share = ts.moe_layers / ts.layers
    return Rerun(routed_bytes=share * (per_value * r.a * routed + clamp))


def _mla_up_projection(r: RerunInput) -> Rerun:
    arch = resolve(r.model)
    mla = arch.mla
    if mla is None:
        return Rerun()
    q_up = (mla.q_lora_rank or 0) * arch.q_dim
    kv_up = mla.kv_lora_rank * arch.heads * (mla.qk_nope_head_dim + mla.v_head_dim)
    return Rerun(weights=(q_up + kv_up) / r.tp)


RERUNS: dict[str, Callable[[RerunInput], Rerun]] = {
    "norms": _norms,
    "expert_activation": _expert_activation,
    "mla_up_projection": _mla_up_projection,
}


def module_rerun(r: RerunInput, modules: Iterable[str]) -> Rerun:
    """The backward's extra work per token of one average layer for ``modules`` (ids of
    core/registry/recompute_modules.py); nothing for none."""
    total = Rerun()
    for m in modules:
        one = RERUNS[RECOMPUTE_MODULES[m].rerun](r)
        total = Rerun(*(x + y for x, y in zip(total, one, strict=True)))
    return total
