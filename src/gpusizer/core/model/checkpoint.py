"""The precision a model's released checkpoint is stored in, and "precision follows the
checkpoint".

A model block may carry ``checkpoint_precision: {weights, quantization_rule, modules}`` (the
same fields as ``precision``): how its weights are stored as released (gpt-oss: MXFP4 routed
experts, the rest bf16; DeepSeek-V3: FP8 128x128 blocks). When a scenario that serves the model
does not set ``precision.weights`` itself, validation fills ``precision`` from it, so the
report's echoed scenario states the precision explicitly and loads back the same.

Only serving follows the checkpoint: a serving engine loads the weights as stored, while
training loads them dequantised to the training dtype. transformers' MXFP4 and fine-grained
FP8 quantizers are not trainable (``is_trainable`` false in ``quantizer_mxfp4.py`` and
``quantizer_finegrained_fp8.py``), so PEFT needs them dequantised, as OpenAI's gpt-oss
fine-tuning cookbook does (``Mxfp4Config(dequantize=True)``), and QLoRA quantises the base to
NF4 itself. A training scenario keeps the precision it sets (bf16 by default).
"""

from __future__ import annotations

from typing import Any

from pydantic import field_validator

from ..errors import excerpt
from ..limits import Strict
from ..registry.dtypes import DTYPES
from ..registry.quant_rules import check_modules_field, check_rule
from ..registry.workloads import WORKLOAD_KINDS

PRECISION_FIELDS = ("weights", "quantization_rule", "modules")


class CheckpointPrecision(Strict):
    """How the checkpoint stores its weights: a weight dtype of core/registry/dtypes.py, a rule of
    core/registry/quant_rules.py (null: the format's default) and per-group overrides."""

    weights: str
    quantization_rule: str | None = None
    modules: dict[str, str] | None = None

    @field_validator("weights")
    @classmethod
    def _weights(cls, v: str) -> str:
        if v not in DTYPES:
            raise ValueError(f"must be one of {', '.join(DTYPES)}; got {excerpt(v)}")
        return v

    @field_validator("quantization_rule")
    @classmethod
    def _rule(cls, v: str | None) -> str | None:
        return check_rule(v)

    @field_validator("modules")
    @classmethod
    def _modules(cls, v: dict[str, str] | None) -> dict[str, str] | None:
        return check_modules_field(v)

    def __hash__(self) -> int:  # the model block is hashed (roofline keys); a dict is not
        return hash((self.weights, self.quantization_rule, tuple(sorted((self.modules or {}).items()))))

    def fields(self) -> dict[str, Any]:
        """The ``precision`` fields it sets (a null rule or modules is left out)."""
        return {k: v for k, v in self.model_dump().items() if v is not None}


def follows_checkpoint(workload: Any) -> bool:
    """Whether a scenario's workload block (a dict, or absent) serves the model, so that its
    precision follows the checkpoint (module doc: training dequantises)."""
    kind = workload.get("kind", "pretraining") if isinstance(workload, dict) else "pretraining"
    info = WORKLOAD_KINDS.get(kind) if isinstance(kind, str) else None
    return info is not None and info.serves


def _checkpoint_of(model: Any) -> dict[str, Any] | None:
    """The checkpoint precision of a validated model (a ModelSpec) or of a model dict."""
    raw = (
        getattr(model, "checkpoint_precision", None)
        if not isinstance(model, dict)
        else model.get("checkpoint_precision")
    )
    if isinstance(raw, CheckpointPrecision):
        return raw.fields()
    if isinstance(raw, dict) and isinstance(raw.get("weights"), str):
        return {k: v for k, v in raw.items() if k in PRECISION_FIELDS and v is not None}
    return None


def fill_precision(data: dict[str, Any]) -> None:
    """Fill ``data["precision"]`` (in place) from the model's checkpoint precision when the
    scenario serves the model and does not set ``precision.weights``; the fields the scenario
    does set (a rule, modules) win."""
    stored = _checkpoint_of(data.get("model"))
    precision = data.get("precision", {})
    if stored is None or not isinstance(precision, dict) or "weights" in precision:
        return
    if follows_checkpoint(data.get("workload")):
        data["precision"] = {**stored, **precision}
