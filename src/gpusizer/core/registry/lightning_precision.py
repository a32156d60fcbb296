"""Lightning's ``precision=`` settings (Trainer and Fabric) in the scenario's own precision
fields (``precision.lightning``), as one registry.

Sources: lightning 2.4 ``fabric/connector.py`` ``_check_and_init_precision`` (the same in
``pytorch/trainer/connectors/accelerator_connector.py``):

- ``32-true``: ``Precision()``: everything fp32.
- ``16-true`` / ``bf16-true``: ``HalfPrecision``: ``convert_module`` casts the module and
  ``init_context`` sets the default dtype, so weights, their gradients and ``torch.optim``'s
  states (``zeros_like(param)``) are 16-bit, with no fp32 master.
- ``16-mixed`` / ``bf16-mixed``: ``MixedPrecision``: fp32 weights, gradients and states,
  ``torch.autocast`` in ``forward_context``: every matmul casts its weight to 16 bit and keeps
  the copy for the backward, the residual stream stays fp32 (``16-mixed`` adds a GradScaler,
  a few scalars). Under FSDP, ``plugins/precision/fsdp.py``
  ``FSDPPrecision.mixed_precision_config``: ``param_dtype`` fp32 (the unit gathered in fp32,
  cast by autocast) and ``reduce_dtype`` 16-bit; the ``-true`` settings gather and reduce in
  16 bit.
- ``transformer-engine`` / ``transformer-engine-float16``:
  ``TransformerEnginePrecision(weights_dtype=bf16 / fp16)``: the module in that dtype, its
  Linear layers replaced by Transformer Engine's under ``fp8_autocast`` (``convert_module``:
  ``replace_layers`` None or True converts every ``nn.Linear`` whose sizes divide by 8 and 16,
  and ``nn.LayerNorm``): FP8 matmuls, whose backward reads the FP8 copy of each input TE keeps
  (1 byte per element). The LM head's input is counted 16-bit (1 byte per token and hidden
  unit more than when its sizes allow the conversion).

A setting fills the precision fields the scenario leaves out (an explicit field wins); an
unknown one is an error naming the known ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class LightningPrecision:
    """One ``precision=`` setting: the precision fields it sets, those it sets under FSDP
    (ZeRO-3), whether autocast copies each matmul weight, whether TE keeps FP8 inputs."""

    id: str
    fields: tuple[tuple[str, object], ...]
    fsdp: tuple[tuple[str, object], ...] = ()
    autocast: bool = False
    te_fp8_inputs: bool = False


def _true(dt: str) -> tuple[tuple[str, object], ...]:
    return (
        ("weights", dt),
        ("activations", dt),
        ("gradients", dt),
        ("master_weights", None),
        ("optimizer_states", dt),
        ("adapters", dt),
    )


def _mixed(dt: str) -> tuple[tuple[str, object], ...]:
    return (
        ("weights", "fp32"),
        ("activations", dt),
        ("gradients", "fp32"),
        ("master_weights", None),
        ("optimizer_states", "fp32"),
        ("adapters", "fp32"),
    )


LIGHTNING_PRECISION: dict[str, LightningPrecision] = {
    e.id: e
    for e in (
        LightningPrecision("32-true", _true("fp32")),
        LightningPrecision("16-true", _true("fp16"), (("param_dtype", "fp16"), ("reduce_dtype", "fp16"))),
        LightningPrecision("bf16-true", _true("bf16"), (("param_dtype", "bf16"), ("reduce_dtype", "bf16"))),
        LightningPrecision(
            "16-mixed", _mixed("fp16"), (("param_dtype", "fp32"), ("reduce_dtype", "fp16")), autocast=True
        ),
        LightningPrecision(
            "bf16-mixed", _mixed("bf16"), (("param_dtype", "fp32"), ("reduce_dtype", "bf16")), autocast=True
        ),
        LightningPrecision("transformer-engine", (*_true("bf16"), ("matmuls", "fp8")), te_fp8_inputs=True),
        LightningPrecision(
            "transformer-engine-float16", (*_true("fp16"), ("matmuls", "fp8")), te_fp8_inputs=True
        ),
    )
}


def lightning_fields(setting: object, fsdp: bool) -> tuple[tuple[str, object], ...]:
    """The precision fields a setting fills (none for an unknown one: validation names it)."""
    e = LIGHTNING_PRECISION.get(setting) if isinstance(setting, str) else None
    if e is None:
        return ()
    return e.fields + (e.fsdp if fsdp else ())


def autocasts(setting: str | None) -> bool:
    """Whether the setting runs the forward under torch.autocast over fp32 weights."""
    return setting is not None and LIGHTNING_PRECISION[setting].autocast


def te_fp8_inputs(setting: str | None) -> bool:
    """Whether Transformer Engine's layers keep each Linear's input in FP8."""
    return setting is not None and LIGHTNING_PRECISION[setting].te_fp8_inputs


def fill_lightning(data: dict[str, Any], profile_zero_stage: object = None) -> dict[str, Any]:
    """The scenario dict with ``precision.lightning``'s fields filled where the scenario leaves
    them out (before any framework default: the setting is the user's); FSDP's when
    ``parallelism.zero_stage`` (else the profile's default) is 3."""
    prec = data.get("precision")
    if not isinstance(prec, dict) or prec.get("lightning") is None:
        return data
    par = data.get("parallelism")
    stage = par.get("zero_stage", profile_zero_stage) if isinstance(par, dict) else profile_zero_stage
    fields = lightning_fields(prec["lightning"], stage == 3)
    return {**data, "precision": {**{f: v for f, v in fields if f not in prec}, **prec}}
