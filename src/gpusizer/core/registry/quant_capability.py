"""The lowest CUDA compute capability at which an engine loads a weight format: vLLM asks each
quantisation config's ``get_min_capability`` when it builds the model and refuses a GPU below
it ("The quantization method fp8 is not supported for the current GPU. Minimum capability: 80.
Current capability: 75.": vllm/config/vllm.py ``_get_quantization_config``; before the config
split, vllm/model_executor/model_loader/utils.py). Keyed by framework id, then by the
``precision.weights`` id (core/registry/dtypes.py); a pair not listed is not judged here.

Sources, each the config's ``get_min_capability``:

- ``fp8``: vllm/model_executor/layers/quantization/fp8.py ``Fp8Config``, 80 (below 8.9 the
  weights run through Marlin's W8A16 kernel, ``use_marlin = not has_device_capability(89)``).
- ``mxfp4``: vllm/model_executor/layers/quantization/mxfp4.py ``Mxfp4Config``, 80 (Marlin
  below Hopper; core/registry/engine_releases.py reads the same rule for the MoE backend).

SGLang gates the same way (python/sglang/srt/model_loader/loader.py ``_get_quantization_config``:
"The quantization method ... is not supported for the current GPU. Minimum capability: ...",
skipped on NPUs only), with its own configs:

- ``fp8``: python/sglang/srt/layers/quantization/fp8.py ``Fp8Config.get_min_capability``, 80 on
  CUDA (100 for MXFP8 checkpoints, not a ``precision.weights`` id here); below 8.9 the weights
  run through Marlin (``can_auto_enable_marlin_fp8``), as in vLLM.
- ``mxfp4``: python/sglang/srt/layers/quantization/mxfp4.py ``Mxfp4Config.get_min_capability``, 80.

Turing (T4, 7.5) and Volta (V100, 7.0) are the catalog's GPUs below 8.0.
"""

from __future__ import annotations

from typing import NamedTuple


class MinCapability(NamedTuple):
    """A compute capability ``"major.minor"`` and the file that sets it."""

    capability: str
    source: str


QUANT_MIN_CAPABILITY: dict[str, dict[str, MinCapability]] = {
    "vllm": {
        "fp8": MinCapability("8.0", "vLLM's Fp8Config.get_min_capability"),
        "mxfp4": MinCapability("8.0", "vLLM's Mxfp4Config.get_min_capability"),
    },
    "sglang": {
        "fp8": MinCapability("8.0", "SGLang's Fp8Config.get_min_capability"),
        "mxfp4": MinCapability("8.0", "SGLang's Mxfp4Config.get_min_capability"),
    },
}


def min_capability(framework: str, weights: str) -> MinCapability | None:
    """The lowest compute capability at which ``framework`` loads ``weights`` (None: not judged)."""
    return QUANT_MIN_CAPABILITY.get(framework, {}).get(weights)
