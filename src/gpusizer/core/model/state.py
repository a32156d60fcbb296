"""The fixed-size state of hybrid models' recurrent layers, per sequence, on one GPU.

A Gated DeltaNet or Mamba-2 layer keeps, for each sequence being served, a conv state (the
last inputs of its depthwise convolution) and a recurrent state (delta-rule memory or SSM
state) instead of keys and values for every token: the state does not grow with the context,
only with the number of sequences. Shapes in core/model/mixers.py. Bytes by the framework profile's
``recurrent_state`` layout (core/registry/frameworks.py):

- ``"transformers"`` (transformers 5.24, ``LinearAttentionLayer`` in cache_utils.py; measured on
  a CPU, tests/core/test_hybrid.py): the conv state holds the whole kernel
  (``conv_kernel_size`` inputs) in the activation dtype; the recurrent state is fp32 whatever
  the model dtype (``torch_chunk_gated_delta_rule`` casts to float32; Mamba-2 likewise).
- ``"engine"``: vLLM and the other engines (vllm/model_executor/layers/mamba/mamba_utils.py,
  ``MambaStateShapeCalculator``): the conv state holds ``conv_kernel - 1`` inputs; conv and
  recurrent state are in the model dtype (``mamba_cache_dtype`` / ``mamba_ssm_cache_dtype``
  "auto") unless the model says otherwise (Nemotron-H: ``mamba_ssm_cache_dtype`` float32,
  which vLLM's ``NemotronHForCausalLMConfig`` applies). Channels and heads split over TP.
  An engine whose own default for the recurrent state is not the model dtype says so in its
  profile's ``recurrent_state_dtype``. SGLang keeps it in fp32: ``ServerArgs.mamba_ssm_dtype``
  "float32" (python/sglang/srt/server_args.py; sgl-project/sglang PR #10258 of 2025-09-10, the
  week Qwen3-Next support landed, before the catalog's 0.5.3; its docs, basic_usage/qwen3.md: "The
  default setting is float32"), and ``mamba2_state_dtype``
  (python/sglang/srt/configs/mamba_utils.py) builds every linear-state pool, Qwen3-Next's
  Gated DeltaNet included, with ``temporal`` in that dtype and ``conv`` in bfloat16:
  ``mamba_cache_per_req`` = (conv numel x 2 + temporal numel x 4) x layers. vLLM's
  ``gated_delta_net_state_dtype`` (mamba_utils.py, 0.10.2 on) keeps both in the model dtype
  at ``mamba_ssm_cache_dtype`` "auto" (config/cache.py); no Qwen3-Next config rewrite sets it
  (only Qwen3.5's ``Qwen3_5ForConditionalGenerationConfig``, models/config.py, copies the
  checkpoint's ``mamba_ssm_dtype``). A model that states its dtype keeps it.
"""

from __future__ import annotations

from typing import NamedTuple

from ..registry.dtypes import nbytes
from ..registry.frameworks import FrameworkProfile
from .architecture import Arch, ceil_div
from .mixers import state_shapes


class SequenceState(NamedTuple):
    """Bytes of recurrent-layer state one sequence holds: the conv state and the recurrent
    state."""

    conv: float
    recurrent: float


def state_bytes_per_sequence(
    arch: Arch, profile: FrameworkProfile, activations: str, tp: int = 1, pp: int = 1
) -> SequenceState:
    """The state one sequence holds on the heaviest GPU: all recurrent layers of a pipeline
    stage (ceil(layers / pp) of each kind), split over TP."""
    conv = recurrent = 0.0
    whole_kernel = profile.keeps_whole_conv_kernel
    for layers, sh in state_shapes(arch.spec):
        local = ceil_div(layers, pp)
        kept = sh.conv_kernel if whole_kernel else max(0, sh.conv_kernel - 1)
        engine_default = profile.recurrent_state_dtype or activations
        state_dtype = "fp32" if whole_kernel else (sh.state_dtype or engine_default)
        conv += local * sh.conv_channels / tp * kept * nbytes(activations)
        recurrent += local * sh.recurrent / tp * nbytes(state_dtype)
    return SequenceState(conv, recurrent)


def state_bytes(arch: Arch, profile: FrameworkProfile, activations: str, tp: int = 1, pp: int = 1) -> float:
    """Conv + recurrent state bytes per sequence on the heaviest GPU (0 for a transformer)."""
    conv, recurrent = state_bytes_per_sequence(arch, profile, activations, tp, pp)
    return conv + recurrent


def state_flops_per_token(arch: Arch) -> float:
    """FLOPs of the recurrent update per token, all layers: about 6 per state value (decay,
    rank-1 write, read-out: FLA ``fused_recurrent_gated_delta_rule``, mamba_ssm
    ``selective_state_update``). The projections are counted as matmuls elsewhere."""
    return sum(6.0 * layers * sh.recurrent for layers, sh in state_shapes(arch.spec))
