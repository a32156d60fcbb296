"""One way to add an entry to a registry: under its id, refusing an id already there.

Every registry (frameworks, workload kinds, losses, optimizers, quantisation rules, charts,
memory rules, KV layouts, activation layouts, LoRA kernels) adds through :func:`add`, so a
second entry under a taken id is a :class:`DuplicateId` at import time, not a silent
replacement of the first (a plug-in that means to replace one removes it first).
"""

from __future__ import annotations

from typing import Any, Protocol, TypeVar

_T = TypeVar("_T")


class DuplicateId(ValueError):
    """A registry already holds an entry under this id."""


def add(table: dict[str, _T], key: str, entry: _T, what: str) -> _T:
    """Put ``entry`` in ``table`` under ``key`` (a DuplicateId naming ``what`` if taken)."""
    if key in table:
        raise DuplicateId(f"{what} {key!r} is already registered ({type(table[key]).__name__})")
    table[key] = entry
    return entry


class Keyed(Protocol):
    """A registry entry that carries its own key (a memory rule, a KV or activation layout)."""

    @property
    def key(self) -> str: ...


_K = TypeVar("_K", bound=Keyed)


def add_keyed(table: dict[str, Any], entry: _K | type[_K], what: str) -> Any:
    """Add a keyed entry, or one instance of a keyed class (the decorator form: the class is
    returned, so ``@register_rule`` above a class registers it where it is defined)."""
    instance = entry() if isinstance(entry, type) else entry
    add(table, instance.key, instance, what)
    return entry
