"""Files in and out: scenario files, config.json/safetensors import, exports. No Qt.

The names below load on first use (PEP 562 ``__getattr__``): ``gpusizer-cli`` imports
io/quantities.py to build its parser, and importing the config reader here (the core's specs,
pydantic) would cost every command, ``--version`` included, a tenth of a second.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .hf_config import import_hf_config
    from .safetensors_header import read_safetensors

__all__ = ["import_hf_config", "read_safetensors"]

_HOMES = {"import_hf_config": ".hf_config", "read_safetensors": ".safetensors_header"}


def __getattr__(name: str) -> Any:
    """``from gpusizer.io import import_hf_config`` imports its module only now."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home, __name__), name)
    globals()[name] = value
    return value
