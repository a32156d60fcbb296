"""Limits of scenario values that no real model or cluster reaches.

Each is 10-100x the largest published figure, so that a hostile file cannot make sizes that hang
the layout search or overflow floats, and the shape, workload and layout counts fit a 32-bit
spin box. Largest today: 1,000 layers (DeepNet, arXiv 2203.00555), hidden 20,480
(Megatron-Turing NLG 530B, arXiv 2201.11990), FFN 73,728 (PaLM 540B, arXiv 2204.02311),
128 heads (Llama 3.1 405B), vocabulary 262,144 (Gemma 3), 384 experts (Kimi K2), a 10M-token
context (Llama 4 Scout), 36T training tokens (Qwen3), 288 GB per GPU (B300).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

MAX_LAYERS = 100_000
MAX_WIDTH = 2**20  # hidden, FFN, head and latent sizes, LoRA rank
MAX_HEADS = 2**16
MAX_VOCAB = 2**24
MAX_TOKENS = 2**26  # sequence, prompt, generated tokens, context, window (67M)
MAX_BATCH = 2**24  # sequences per micro-batch, batch or global batch
MAX_DEGREE = 2**20  # any parallel degree (a million GPUs)
# GPUs of one node (one NVLink or other scale-up domain), in the scenario's hardware block and
# in a GPU's entry (catalog, inline or the user's GPU file). The widest announced: NVIDIA's
# Rubin Ultra NVL576 (576 GPUs, GTC 2025 keynote) and Huawei's Atlas 960 SuperPoD (15,488
# NPUs, Huawei Connect 2025); 65,536 is 4x the latter. A million (10^6) passed as a node
# before: a desk-side unified-memory box "rented 1 of the 1,000,000 GPUs of" its node.
MAX_NODE_GPUS = 2**16
MAX_EXPERTS = 2**16
# every GPU-count field of the scenario (parallel degrees, rl.rollout.gpus, the P/D pools):
# one bound, the parallel degrees' (a million GPUs; xAI's Colossus, the largest announced
# cluster, is 200,000 GPUs)
MAX_GPU_COUNT = MAX_DEGREE
MAX_COUNT = 2**53  # any other count: exact as a float64 and in every JSON reader
MAX_BYTES = 2**50  # bytes per GPU (a PiB)
MAX_RATE = 1e9  # GB/s, TFLOPS, W, USD/hour, soft-caps
# Below these, times overflow to Infinity or a product underflows to 0 (a division by zero):
# 1e-6 TFLOPS is a MFLOP/s, 1e-6 GB/s a kB/s; an efficiency or MFU of 0.1 %.
MIN_RATE = 1e-6
MIN_EFFICIENCY = 1e-3
MAX_TRAINING_TOKENS = 1e18


def whole_number(value: object) -> object:
    """A JSON number with no fractional part (``7e9``, ``4096.0``) as the int it is: JSON has
    one number type, and people write 7e9. ``true``, ``"8"`` and ``7.5`` are still
    refused (the strict int check after this sees them unchanged, or this names the fraction)."""
    if isinstance(value, float):
        if value.is_integer():
            return int(value)
        raise ValueError(f"must be a whole number; got {value:,}")
    return value


Whole = BeforeValidator(whole_number)  # on every count of the scenario (Strict models)
PosInt = Annotated[int, Whole, Field(ge=1, le=MAX_COUNT)]
NonNegInt = Annotated[int, Whole, Field(ge=0, le=MAX_COUNT)]
Layers = Annotated[int, Whole, Field(ge=1, le=MAX_LAYERS)]
SomeLayers = Annotated[int, Whole, Field(ge=0, le=MAX_LAYERS)]
Width = Annotated[int, Whole, Field(ge=1, le=MAX_WIDTH)]
Heads = Annotated[int, Whole, Field(ge=1, le=MAX_HEADS)]
Tokens = Annotated[int, Whole, Field(ge=1, le=MAX_TOKENS)]
SomeTokens = Annotated[int, Whole, Field(ge=0, le=MAX_TOKENS)]
Vocab = Annotated[int, Whole, Field(ge=1, le=MAX_VOCAB)]
Batch = Annotated[int, Whole, Field(ge=1, le=MAX_BATCH)]
Degree = Annotated[int, Whole, Field(ge=1, le=MAX_DEGREE)]
NodeGPUs = Annotated[int, Whole, Field(ge=1, le=MAX_NODE_GPUS)]


def _gpu_range(least: int) -> BeforeValidator:
    """The one-line message of a GPU count out of range, naming the allowed range (the field's
    path is prefixed by the scenario's error wording)."""

    def check(value: object) -> object:
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if number and not least <= value <= MAX_GPU_COUNT:  # type: ignore[operator]
            raise ValueError(f"a GPU count must be {least} to {MAX_GPU_COUNT:,}; got {value:,}")
        return value

    return BeforeValidator(check)


GpuCount = Annotated[int, Whole, _gpu_range(1), Field(ge=1, le=MAX_GPU_COUNT)]
SomeGpus = Annotated[int, Whole, _gpu_range(0), Field(ge=0, le=MAX_GPU_COUNT)]  # 0: none
Experts = Annotated[int, Whole, Field(ge=1, le=MAX_EXPERTS)]
SomeExperts = Annotated[int, Whole, Field(ge=0, le=MAX_EXPERTS)]
Bytes = Annotated[int, Whole, Field(ge=0, le=MAX_BYTES)]
PosBytes = Annotated[int, Whole, Field(ge=1, le=MAX_BYTES)]
Rate = Annotated[float, Field(ge=MIN_RATE, le=MAX_RATE)]
NonNegRate = Annotated[float, Field(ge=0, le=MAX_RATE)]
Efficiency = Annotated[float, Field(ge=MIN_EFFICIENCY, le=1.0)]


def _none_or_some(rate: float) -> float:
    if 0 < rate < MIN_RATE:
        raise ValueError(f"must be 0 (none) or at least {MIN_RATE:g}; got {rate:g}")
    return rate


LinkRate = Annotated[float, Field(ge=0, le=MAX_RATE), AfterValidator(_none_or_some)]
TrainingTokens = Annotated[float, Field(gt=0, le=MAX_TRAINING_TOKENS)]


class Strict(BaseModel):
    """The base of every scenario block. Strict: ``true`` is not 1 and ``"4096"`` is not 4096
    (a user would not mean either); NaN and infinities are refused (they have no meaning here
    and are not JSON); unknown keys are errors; blocks are frozen."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", validate_default=False, strict=True, allow_inf_nan=False
    )
