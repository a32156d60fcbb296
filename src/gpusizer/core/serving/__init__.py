"""Serving engines: engine settings, the memory rule of each engine (:mod:`.rules`: its KV
pool, what one request holds, its inverse and the chart's line), MoE layouts, host offload
(llama.cpp), and the serving block of a report.

The flat module ``gpusizer.core.serving`` of earlier releases is now :mod:`.engine_memory`;
its names still resolve here, lazily (PEP 562), so importing a sibling loads nothing more."""

from __future__ import annotations

import importlib
from typing import Any


def __getattr__(name: str) -> Any:
    # import_module, not ``from . import``: that asks this very hook for the submodule first
    # and recursed without end when nothing had imported engine_memory yet
    engine_memory = importlib.import_module(f"{__name__}.engine_memory")
    try:
        return getattr(engine_memory, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
