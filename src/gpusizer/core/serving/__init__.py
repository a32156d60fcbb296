"""Serving engines: engine settings, the KV pool each engine allocates, what one request holds,
MoE layouts, host offload (llama.cpp), and the serving block of a report.

The flat module ``gpusizer.core.serving`` of earlier releases is now :mod:`.engine_memory`;
its names still resolve here, lazily (PEP 562), so importing a sibling loads nothing more."""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    from . import engine_memory

    try:
        return getattr(engine_memory, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
