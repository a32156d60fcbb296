"""The scenario's ``workload.preference`` block: a preference fine-tune (TRL's DPOTrainer,
KTOTrainer, ORPOTrainer, CPOTrainer; axolotl ``rl: dpo``; LLaMA-Factory ``stage: dpo``), its
method and where its reference log-probabilities come from (core/registry/preference.py, with
the trainers' sources). ``workload.micro_batch_size`` then counts examples (TRL's
``per_device_train_batch_size``: pairs for DPO, ORPO, SimPO; completions for KTO); what one
step runs on them is core/memory/preference.py's.
"""

from __future__ import annotations

from typing import Protocol, Self

from pydantic import field_validator, model_validator

from ..errors import check_id
from ..limits import Strict
from ..registry.preference import (
    PREFERENCE_METHODS,
    REFERENCES,
    PreferenceMethod,
    Reference,
    default_reference,
)


class PreferenceSpec(Strict):
    """A preference loss and its reference (null: TRL's default for the method and kind)."""

    method: str
    reference: str | None = None

    @field_validator("method", mode="before")  # any type: the message names the ids
    @classmethod
    def _method(cls, v: object) -> str:
        return check_id(v, PREFERENCE_METHODS, "preference method")

    @field_validator("reference", mode="before")
    @classmethod
    def _reference(cls, v: object) -> str | None:
        return None if v is None else check_id(v, REFERENCES, "preference reference")

    @model_validator(mode="after")
    def _reference_fits(self) -> Self:
        if self.reference is None:
            return self
        m = PREFERENCE_METHODS[self.method]
        if not m.has_reference and REFERENCES[self.reference].supplies:
            raise ValueError(
                f"reference: {self.method} keeps no reference model; must be none or null; "
                f"got {self.reference}"
            )
        return self

    @property
    def info(self) -> PreferenceMethod:
        return PREFERENCE_METHODS[self.method]


def reference_of(spec: PreferenceSpec, adapter: bool) -> Reference:
    """The reference in force: the stated one, or TRL's default for the method and kind."""
    return REFERENCES[spec.reference or default_reference(spec.method, adapter)]


def forward_share(spec: PreferenceSpec | None, ref: Reference | None) -> float:
    """No-grad forward rows a step runs per row with gradients: the reference's where it runs a
    forward, and KTO's KL batch (core/registry/preference.py); 0 without a preference block."""
    if spec is None or ref is None:
        return 0.0
    m = spec.info
    return ((m.reference_rows if ref.forward else 0) + m.nograd_rows) / m.rows


class Preferring(Protocol):
    """What :func:`preference_note` reads of the workload block (which holds this one)."""

    @property
    def preference(self) -> PreferenceSpec | None: ...

    @property
    def reference_info(self) -> Reference | None: ...


def preference_note(w: Preferring) -> str | None:
    """The estimate's assumption line of a preference fine-tune; None without one."""
    spec, ref = w.preference, w.reference_info
    if spec is None or ref is None:
        return None
    m = spec.info
    return (
        f"{m.label}: {m.rows} row{'s' if m.rows > 1 else ''} per example with gradients"
        f"{', a no-grad KL batch' if m.nograd_rows else ''}; reference: {ref.note}"
        + (f", its forward on {m.reference_rows} rows per example" if ref.forward else "")
    )
