"""The range of a scenario field, read from the spec's pydantic metadata (``Field(ge=1)``,
``le=...``), so that a field in the window accepts exactly what the core accepts and follows
the core when its limits change."""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from ..core.model.specs import Scenario


@dataclass(frozen=True)
class Limits:
    """Bounds of a number field; ``None`` where the core sets none. ``lo_open``/``hi_open``:
    the bound itself is excluded (``gt``/``lt``); ``optional``: the field may be null."""

    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False
    hi_open: bool = False
    optional: bool = False

    def contains(self, value: float) -> bool:
        if self.lo is not None and (value < self.lo or (self.lo_open and value == self.lo)):
            return False
        return not (self.hi is not None and (value > self.hi or (self.hi_open and value == self.hi)))

    def text(self, fmt: Callable[[float], str] = "{:,}".format) -> str:
        """``at least 1 and at most 64M tokens`` / ``above 0`` / "" (no bound): each bound
        written by ``fmt`` (the field's own quantities: never 6.71089e+07)."""
        lo = None if self.lo is None else f"{'above' if self.lo_open else 'at least'} {fmt(self.lo)}"
        hi = None if self.hi is None else f"{'below' if self.hi_open else 'at most'} {fmt(self.hi)}"
        return " and ".join(t for t in (lo, hi) if t)


def _from_metadata(items: list[Any], limits: dict[str, Any]) -> None:
    for m in items:
        if isinstance(m, FieldInfo):
            _from_metadata(list(m.metadata), limits)
            continue
        for attr, key, open_ in (
            ("ge", "lo", False),
            ("gt", "lo", True),
            ("le", "hi", False),
            ("lt", "hi", True),
        ):
            bound = getattr(m, attr, None)
            if isinstance(bound, (int, float)) and not isinstance(bound, bool):
                limits[key], limits[f"{key}_open"] = bound, open_


def _unwrap(annotation: Any, limits: dict[str, Any]) -> list[Any]:
    """The member types of an annotation (Optional/Union/Annotated peeled), collecting the
    bounds of Annotated members into ``limits``."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        base, *meta = typing.get_args(annotation)
        _from_metadata(meta, limits)
        return _unwrap(base, limits)
    if origin in (typing.Union, types.UnionType):
        out: list[Any] = []
        for arg in typing.get_args(annotation):
            if arg is type(None):
                limits["optional"] = True
            else:
                out += _unwrap(arg, limits)
        return out
    return [annotation]


def field_limits(path: str, root: type[BaseModel] = Scenario) -> Limits:
    """The bounds of the field at a dotted scenario path (``workload.sequence_length``);
    no bounds where the path is not a plain model field (a dict entry, an unknown name)."""
    model: Any = root
    limits: dict[str, Any] = {}
    for part in path.split("."):
        fields = getattr(model, "model_fields", None)
        if not fields or part not in fields:
            return Limits()
        info: FieldInfo = fields[part]
        limits = {}
        _from_metadata(list(info.metadata), limits)
        members = _unwrap(info.annotation, limits)
        model = next((m for m in members if isinstance(m, type) and issubclass(m, BaseModel)), None)
    return Limits(**limits)
