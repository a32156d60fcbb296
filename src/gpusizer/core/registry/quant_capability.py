"""The lowest CUDA compute capability at which an engine loads a weight format: vLLM asks each
quantisation config's ``get_min_capability`` when it builds the model and refuses a GPU below
it ("The quantization method fp8 is not supported for the current GPU. Minimum capability: 80.
Current capability: 75.": vllm/config/vllm.py ``_get_quantization_config``; before the config
split, vllm/model_executor/model_loader/utils.py). Keyed by framework id, then by the
``precision.weights`` id (core/registry/dtypes.py), each a tuple of rules oldest first, a rule
holding from its ``since`` release; a pair not listed is not judged here.

Sources, each the config's ``get_min_capability`` in the PyPI source archives:

- ``fp8``: vllm/model_executor/layers/quantization/fp8.py ``Fp8Config``, 80 up to 0.13.0, 75 from
  0.14.0 (read in the 0.11.0, 0.12.0, 0.13.0, 0.14.0, 0.16.0, 0.17.0 and 0.18.0 sdists). Below 8.9
  the weights run through Marlin's W8A16 kernel (``use_marlin = not has_device_capability(89)``);
  vLLM PR #29901 ("add marlin kernel support for turing (sm75)", merged 2025-12-02) gave Marlin a
  Turing path (``m16n8k8`` MMAs, FP16 activations and accumulator; "Supported Weights: GPTQ, AWQ,
  FP8, NVFP4 (MXFP4 is not supported since it requires BF16 activation)"), and 0.14.0 lowered
  the gate to 75 with it. Volta (7.0) stays refused.
- ``mxfp4``: vllm/model_executor/layers/quantization/mxfp4.py ``Mxfp4Config``, 80 in every
  release read, 0.18.0 included (Marlin below Hopper; core/registry/engine_releases.py reads the
  same rule for the MoE backend).

SGLang gates the same way (python/sglang/srt/model_loader/loader.py ``_get_quantization_config``:
"The quantization method ... is not supported for the current GPU. Minimum capability: ...",
skipped on NPUs only), with its own configs (not read release by release):

- ``fp8``: python/sglang/srt/layers/quantization/fp8.py ``Fp8Config.get_min_capability``, 80 on
  CUDA (100 for MXFP8 checkpoints, not a ``precision.weights`` id here); below 8.9 the weights
  run through Marlin (``can_auto_enable_marlin_fp8``), as in vLLM.
- ``mxfp4``: python/sglang/srt/layers/quantization/mxfp4.py ``Mxfp4Config.get_min_capability``, 80.

Turing (T4, 7.5) and Volta (V100, 7.0) are the catalog's GPUs below 8.0.

TensorRT-LLM states its precisions by architecture in its support matrix
(https://nvidia.github.io/TensorRT-LLM/0.18.2/reference/support-matrix.html, "Precision"):
"Hopper (SM90) - FP32, FP16, BF16, FP8, INT8, INT4", "Ada Lovelace (SM89) - FP32, FP16, BF16,
FP8, INT8, INT4", "Ampere (SM80, SM86) - FP32, FP16, BF16, INT8, INT4": FP8 from 8.9, with no
Marlin-style W8A16 path below it as vLLM and SGLang have. The A100, A800, A40, A30, A10 and
RTX A-series / 30-series cards are the catalog's GPUs it refuses (a Qwen3 235B FP8 compare on
TensorRT-LLM ranked A100 SXM #6: tests/cli/data/buyer/serve-qwen3-235b-fp8-trtllm-h200-mi325x-b200).
"""

from __future__ import annotations

from typing import NamedTuple

from .engines import version_key


class MinCapability(NamedTuple):
    """A compute capability ``"major.minor"``, the file that sets it, and the first release it
    holds from (None: every release the table knows)."""

    capability: str
    source: str
    since: str | None = None


QUANT_MIN_CAPABILITY: dict[str, dict[str, tuple[MinCapability, ...]]] = {
    "vllm": {
        "fp8": (
            MinCapability("8.0", "vLLM's Fp8Config.get_min_capability before 0.14.0"),
            MinCapability(
                "7.5", "vLLM's Fp8Config.get_min_capability from 0.14.0, Marlin on Turing", "0.14.0"
            ),
        ),
        "mxfp4": (MinCapability("8.0", "vLLM's Mxfp4Config.get_min_capability"),),
    },
    "sglang": {
        "fp8": (MinCapability("8.0", "SGLang's Fp8Config.get_min_capability"),),
        "mxfp4": (MinCapability("8.0", "SGLang's Mxfp4Config.get_min_capability"),),
    },
    "tensorrt-llm": {
        "fp8": (MinCapability("8.9", "TensorRT-LLM's support matrix: FP8 on Ada Lovelace and later"),),
    },
}


def _holds(rule: MinCapability, version: str | None) -> bool:
    """Whether ``rule`` applies to ``version`` (None: the engine's current release, which every
    rule of the table reaches)."""
    if rule.since is None or version is None:
        return True
    asked, since = version_key(version), version_key(rule.since)
    return asked is None or since is None or asked[1] >= since[1]


def min_capability(framework: str, weights: str, version: str | None = None) -> MinCapability | None:
    """The lowest compute capability at which ``framework`` at release ``version`` (None: its
    current one) loads ``weights`` (None: not judged)."""
    rules = [r for r in QUANT_MIN_CAPABILITY.get(framework, {}).get(weights, ()) if _holds(r, version)]
    return rules[-1] if rules else None


def first_release_loading(framework: str, weights: str, capability: str) -> str | None:
    """The first release of ``framework`` whose rule loads ``weights`` at compute capability
    ``capability`` (None: none does, or the oldest rule already does)."""

    def key(cc: str) -> tuple[int, ...]:
        return tuple(int(x) for x in cc.split("."))

    for rule in QUANT_MIN_CAPABILITY.get(framework, {}).get(weights, ()):
        if key(rule.capability) <= key(capability):
            return rule.since
    return None
