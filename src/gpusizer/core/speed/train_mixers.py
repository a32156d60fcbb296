"""Recurrent token mixers run whole on every tensor-parallel rank (``parallelism.replicated_mixers``).

Source: Miles (radixark/miles) at bb6f7dbd, the Qwen3.8-27B recipe's commit (unchanged at
c1f3bea9 and 31f1ca96). Its Megatron spec for Qwen3.5 / Qwen3.8 (``scripts/models/qwen3.5-27B.py``:
``--spec miles_plugins.models.qwen3_5 get_qwen3_5_spec``) swaps each Gated DeltaNet layer's
self-attention for ``miles_plugins/models/qwen3_5.py`` ``Attention``, a ``HuggingfaceAttention``
whose mixer ``Qwen3_5GatedDeltaNet`` is built from plain ``torch.nn.Linear`` projections
(``in_proj_qkv``, ``in_proj_z``, ``in_proj_b``, ``in_proj_a``, ``out_proj``), fla's
``ShortConvolution`` and ``chunk_gated_delta_rule`` over all ``linear_num_value_heads``: not
Megatron's column- and row-parallel linears. ``miles_plugins/models/hf_attention.py``
``HuggingfaceAttention.forward`` all-gathers the sequence-parallel hidden states over the TP group
before the mixer ("the linear attention after this gather is NOT TP-sharded (duplicated on all
ranks)", ``gather_from_sequence_parallel_region(..., tensor_parallel_output_grad=False)``) and
scatters its output back after. Qwen3-Next's spec (``miles_plugins/models/qwen3_next.py``) is built
the same way. The full-attention layers and every MLP stay Megatron's, split by TP.

So each TP rank runs the whole mixer over the TP group's tokens: its projections' 2 FLOPs a weight
and token forward and 4 backward (and the forward again under full recompute), and its state
update, where a TP-split layer runs 1/TP of them. Priced as the layer's matmul weights per GPU with
the mixers' weights whole (the mean layer's weights plus (TP - 1) x the mixers' mean weights a
layer, before the TP split) and the recurrent state update's FLOPs whole. The log-prob forwards of
an RL step run at the training step's achieved FLOP rate (core/pipeline/rl_forwards.py), so they
slow with it. Their weights, gradients and optimizer states, whole on each TP rank, are the memory's
(core/memory/replicated_mixers.py); the optimizer step and the data-parallel gradient reduction
take their whole parameters too (the step's parameter count, TP times the mixers'). Not priced: the
mixers' collectives (one all-gather each way against the TP pair's two priced).
"""

from __future__ import annotations

from dataclasses import replace

from ..memory.replicated_mixers import replicated
from ..model.architecture import Arch
from ..model.params import count_parameters
from ..model.specs import Scenario
from ..model.state import state_flops_per_token
from .train_ops import TrainShape


def replicated_shape(s: Scenario, arch: Arch, ts: TrainShape) -> TrainShape:
    """``ts`` with the mixers' weights counted TP times, so that a TP rank's share of the layer's
    matmul weights and of the parameters its optimizer steps and its DP group reduces holds them
    whole; ``ts`` itself where nothing is replicated."""
    if not replicated(s, arch):
        return ts
    extra = (s.parallelism.tensor - 1) * count_parameters(s.model).mixers
    return replace(ts, layer_matmul=ts.layer_matmul + extra / ts.layers, parameters=ts.parameters + extra)


def replicated_state_flops(s: Scenario, arch: Arch) -> float:
    """Forward FLOPs a token, all layers, that the TP ranks repeat of the recurrent state update
    ((TP - 1) x its FLOPs, added before the TP split); 0 where nothing is replicated."""
    if not replicated(s, arch):
        return 0.0
    return (s.parallelism.tensor - 1) * state_flops_per_token(arch)
