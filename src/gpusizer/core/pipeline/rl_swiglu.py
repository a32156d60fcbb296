"""Megatron's SwiGLU without ``bias_activation_fusion``: the bytes its eager ops move per
intermediate value, in the policy's log-prob forwards and training
(``rl.policy.bias_activation_fusion: false``).

Source: NeMo RL v0.4.0 sets no ``bias_activation_fusion`` (``examples/configs/grpo_math_1B.yaml``;
PR #1241 added the key, true, after the v0.4.0 branch), so the model provider's default holds:
Megatron-Bridge 62f4704 (the commit v0.4.0 pins) ``GPTModelProvider.bias_activation_fusion =
False``, which the Qwen3 and Qwen3-MoE providers keep (the Llama and DeepSeek providers set
true). Megatron-LM af73aa2 (v0.4.0's pin) then runs, per routed expert value
(``moe/experts.py`` ``TEGroupedMLP.forward``, ``bias_act_func``'s last branch; 16-bit
activations, ``a`` = 2 bytes):

- forward: ``silu`` of the gate half (read and write 2 bytes each, 4), ``* up`` (6), ``*
  permuted_probs`` in FP32 (read 2, write 4: 6) and ``.to(original_dtype)`` (read 4, write 2:
  6): 22 bytes against the fused ``weighted_bias_swiglu_impl``'s one kernel (read both halves,
  write the output: 6), :data:`ROUTED_FORWARD` 16 more;
- backward (autograd of the same ops): the cast's (6), the probs multiply's two gradients
  (8 and 6), the ``*`` (6 and 6), ``silu`` (6) and the ``chunk``'s concatenation of the two
  halves' gradients (8): 46 against the fused backward's 10 (read the gradient and both halves,
  write their gradient), :data:`ROUTED_BACKWARD` 36 more.

A dense layer's MLP (``mlp.py`` ``MLP.forward``: ``glu`` then no probabilities) moves 10 bytes
forward against the fused ``bias_swiglu_impl``'s 6, and 26 backward against 10
(:data:`DENSE_FORWARD`, :data:`DENSE_BACKWARD`), as core/speed/train_ops.py counts an eager
gated MLP (5·a against 3·a forward). Only gated (SwiGLU) MLPs: the other activations take other
branches. Each GPU holds ``tokens x layers / gpus`` of the layers' intermediate values (data,
context, tensor, expert and pipeline parallelism share them), at the achieved HBM rate. Nothing
here is set from an RL figure.
"""

from __future__ import annotations

from ..model.architecture import resolve
from ..model.specs import ModelSpec
from ..speed.train_ops import train_shape

ROUTED_FORWARD = 22.0 - 6.0  # bytes per routed intermediate value beyond the fused kernel's
ROUTED_BACKWARD = 46.0 - 10.0
DENSE_FORWARD = 10.0 - 6.0  # bytes per dense (or shared-expert) intermediate value
DENSE_BACKWARD = 26.0 - 10.0


def extra_bytes_per_token(model: ModelSpec) -> tuple[float, float]:
    """(forward, backward) bytes the whole model's unfused SwiGLU adds per token, all layers."""
    ts = train_shape(model)
    if not ts.gated or not ts.layers:
        return 0.0, 0.0
    routed = ts.top_k * ts.expert_width  # per MoE layer
    moe, dense = ts.moe_layers, ts.layers - ts.moe_layers
    shared = ts.act - routed if ts.top_k else 0  # a shared expert runs the dense MLP's code
    dense_values = dense * resolve(model).ffn + moe * shared
    fwd = moe * routed * ROUTED_FORWARD + dense_values * DENSE_FORWARD
    bwd = moe * routed * ROUTED_BACKWARD + dense_values * DENSE_BACKWARD
    return fwd, bwd


def unfused_swiglu_seconds(
    model: ModelSpec, tokens: float, gpus: int, bandwidth: float, forwards: int, recompute: bool
) -> tuple[float, float]:
    """(log-prob, training) seconds the unfused SwiGLU adds: ``forwards`` scoring passes over
    ``tokens``, and training passes over ``tokens`` (forward, backward and, under full
    ``recompute``, the forward again)."""
    if bandwidth <= 0 or gpus <= 0:
        return 0.0, 0.0
    fwd, bwd = extra_bytes_per_token(model)
    per = tokens / gpus / bandwidth
    return forwards * fwd * per, (fwd * (2 if recompute else 1) + bwd) * per
