"""A scenario field by its dotted path (``rl.rollout.tensor``), as the kinds name their own
fields (core/registry/workloads.py ``engine_width``, ``engines``): read and set through blocks
left null, which stand for their defaults (``rl: null`` is ``RLSpec()``)."""

from __future__ import annotations

from typing import Any, TypeVar, get_args

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)


def _block_type(model: BaseModel, name: str) -> type[BaseModel]:
    """The model class of ``model``'s field ``name`` (``RLSpec | None`` -> RLSpec)."""
    ann = type(model).model_fields[name].annotation
    for a in (ann, *get_args(ann)):
        if isinstance(a, type) and issubclass(a, BaseModel):
            return a
    raise TypeError(f"{name} is not a block")


def _child(model: BaseModel, name: str) -> Any:
    """Field ``name`` of ``model``; a block left null stands for its defaults."""
    value = getattr(model, name)
    return _block_type(model, name)() if value is None else value


def get_path(model: BaseModel, path: str) -> Any:
    """The value at dotted ``path`` of ``model``."""
    *blocks, last = path.split(".")
    node: Any = model
    for name in blocks:
        node = _child(node, name)
    return getattr(node, last)


def set_path(model: M, path: str, value: Any) -> M:
    """A copy of ``model`` with ``value`` at dotted ``path`` (not validated: the caller checks)."""
    head, _, rest = path.partition(".")
    if not rest:
        return model.model_copy(update={head: value})
    return model.model_copy(update={head: set_path(_child(model, head), rest, value)})
