"""The scenario's ``precision`` block (:class:`PrecisionSpec`): the data type of each kind of
tensor, the weight format's quantisation rule, FP8 matmuls, FSDP mixed precision and the
bitsandbytes and Lightning settings.

Field names are the public contract (docs/scenario-format.md "Precision"); dtype ids come
from core/registry/dtypes.py (bytes per value there), optimizers from core/registry/optimizers.py,
quantisation rules from core/registry/quant_rules.py.
"""

from __future__ import annotations

from typing import Literal

from pydantic import field_validator, model_validator

from ..errors import check_id, excerpt
from ..limits import Strict
from ..registry.bitsandbytes import check_quant_storage, check_version
from ..registry.dtypes import DTYPES, STATE_DTYPES, TRAINING_DTYPES
from ..registry.engine_flags import format_hint
from ..registry.lightning_precision import LIGHTNING_PRECISION
from ..registry.optimizers import OPTIMIZER_KINDS
from ..registry.quant_rules import check_modules_field, check_rule
from ..registry.stack_names import optimizer_hint
from ..registry.training_formats import training_format_hint
from ..registry.weight_mixtures import check_whole_model, expand_mixture


def _check_dtype(value: str | None, allowed: tuple[str, ...] | None = None) -> str | None:
    if value is None:
        return value
    ids = allowed or tuple(DTYPES)
    if value not in ids:
        # weights / KV cache (every format): an engine's own name for one (--quantization awq);
        # a training tensor: a block-scaled GEMM format a stack trains in (MXFP8, NVFP4)
        hint = training_format_hint(value) if allowed == TRAINING_DTYPES else None
        hint = hint or (None if allowed else format_hint(value, ids))
        if hint:
            raise ValueError(f"{hint}; got {excerpt(value)}")
        raise ValueError(f"must be one of {_listed(ids)}; got {excerpt(value)}")
    return value


def _listed(ids: tuple[str, ...]) -> str:
    """``ids`` joined, the GGUF ones once under their shared prefix (``gguf_{q8_0, q4_k_m,
    ...}``), where the first stood: the whole list of weight formats then still fits one
    message (MESSAGE_CHARS) with the ggml i-quants in it."""
    gguf = [i.removeprefix("gguf_") for i in ids if i.startswith("gguf_")]
    if len(gguf) < 2:
        return ", ".join(ids)
    first = next(n for n, i in enumerate(ids) if i.startswith("gguf_"))
    rest = [i for i in ids if not i.startswith("gguf_")]
    return ", ".join([*rest[:first], "gguf_{" + ", ".join(gguf) + "}", *rest[first:]])


class PrecisionSpec(Strict):
    """Data type of each kind of tensor (ids from :mod:`gpusizer.core.registry.dtypes`)."""

    weights: str = "bf16"
    activations: str = "bf16"
    gradients: str = "bf16"
    master_weights: str | None = "fp32"
    optimizer: str = "adamw"
    optimizer_states: str = "fp32"
    kv_cache: str = "bf16"
    adapters: str = "fp32"  # PEFT keeps LoRA weights in fp32 (autocast_adapter_dtype=True)
    # Which tensors the weight format leaves alone (core/registry/quant_rules.py; null: the format's
    # default rule) and per-group overrides {group: dtype | "weights" | "unquantised"}.
    quantization_rule: str | None = None
    modules: dict[str, str] | None = None
    # Float8 training (torchao Float8Linear, Transformer Engine): the linear layers' matmuls run
    # in FP8 with dynamic scales; saved activations and attention stay in ``activations``.
    # "mxfp8": the same with one E8M0 scale a 32 values (torchtitan's mx converter, Megatron
    # --fp8-recipe mxfp8; core/registry/training_formats.py), priced as "fp8"
    matmuls: Literal["fp8", "mxfp8"] | None = None
    # FSDP mixed precision (FSDP1 ``MixedPrecision``, FSDP2 ``MixedPrecisionPolicy``): the dtype
    # each gathered unit's parameters are cast to for compute, so no autocast copy of every
    # weight (null: the weights' own dtype, or autocast where the framework autocasts), and the
    # gradient reduction's dtype (null: param_dtype, as FSDP does when reduce_dtype is None)
    param_dtype: str | None = None
    reduce_dtype: str | None = None
    # Megatron / NeMo DDP ``grad_reduce_in_fp32`` (Megatron-LM's
    # --accumulate-allreduce-grads-in-fp32, forced on with --bf16): the main_grad buffer in fp32
    # (true) or in the parameters' dtype (false); null: the framework's default
    grad_reduce_in_fp32: bool | None = None
    # fp32 master weights kept as the bf16 parameter plus its low 16 bits (Transformer Engine
    # FusedAdam / Megatron-Core ``store_param_remainders``, apex DistributedFusedAdam): the
    # master copy costs 2 bytes per parameter, not 4; only over bf16 weights with fp32 masters
    master_weights_remainders: bool = False
    # bitsandbytes release of a 4-bit base (core/registry/bitsandbytes.py; null: the newest)
    bitsandbytes_version: str | None = None
    # transformers BitsAndBytesConfig ``bnb_4bit_quant_storage`` (uint8, bf16, fp16, fp32): stated,
    # a 4-bit base under ZeRO-3 / FSDP is loaded as transformers' FSDP-QLoRA path does, each GPU
    # keeping the whole quant state (core/memory/fsdp_qlora.py); null: not stated
    bnb_4bit_quant_storage: str | None = None
    # Lightning's ``precision=`` setting (core/registry/lightning_precision.py): fills the fields
    # above that the scenario leaves out; its ``-mixed`` settings autocast fp32 weights
    lightning: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _mixture(cls, data: object) -> object:
        # an engine's mixed format (SGLang's w4afp8) read as the split it stands for
        # (core/registry/weight_mixtures.py), before the fields are checked
        return expand_mixture(data)

    @field_validator("quantization_rule")
    @classmethod
    def _rule(cls, v: str | None) -> str | None:
        return check_rule(v)

    @field_validator("modules")
    @classmethod
    def _modules(cls, v: dict[str, str] | None) -> dict[str, str] | None:
        return check_modules_field(v)

    @field_validator("weights", "kv_cache")
    @classmethod
    def _any(cls, v: str) -> str | None:
        checked = _check_dtype(v)
        return checked if checked is None else check_whole_model(checked)

    @field_validator("activations", "gradients", "adapters")
    @classmethod
    def _train(cls, v: str) -> str | None:
        return _check_dtype(v, TRAINING_DTYPES)

    @field_validator("matmuls", mode="before")  # before the Literal's own "must be 'fp8'"
    @classmethod
    def _matmuls(cls, v: object) -> object:
        hint = training_format_hint(v) if v != "mxfp8" else None
        if hint:
            raise ValueError(f"{hint}; got {excerpt(str(v))}")
        return v

    @field_validator("lightning")
    @classmethod
    def _lightning(cls, v: str | None) -> str | None:
        return v if v is None else check_id(v, LIGHTNING_PRECISION, "Lightning precision")

    @field_validator("bitsandbytes_version")
    @classmethod
    def _bnb(cls, v: str | None) -> str | None:
        return check_version(v)

    @field_validator("bnb_4bit_quant_storage", mode="before")  # any type: the message names them
    @classmethod
    def _storage(cls, v: object) -> str | None:
        return check_quant_storage(v)

    @field_validator("master_weights", "param_dtype", "reduce_dtype")
    @classmethod
    def _master(cls, v: str | None) -> str | None:
        return _check_dtype(v, ("fp32", "bf16", "fp16"))

    @field_validator("optimizer_states")
    @classmethod
    def _states(cls, v: str) -> str | None:
        return _check_dtype(v, STATE_DTYPES)

    @field_validator("optimizer")
    @classmethod
    def _opt(cls, v: str) -> str:
        if v not in OPTIMIZER_KINDS:  # read at validation: registered optimizers are accepted
            hint = optimizer_hint(v)  # Hugging Face's optim names (core/registry/stack_names.py)
            if hint:
                raise ValueError(f"{hint}; got {excerpt(v)}")
            raise ValueError(f"must be one of {', '.join(OPTIMIZER_KINDS)}; got {excerpt(v)}")
        return v
