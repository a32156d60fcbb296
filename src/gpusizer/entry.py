"""What the two programs (``gpusizer``, ``gpusizer-cli``) do first, before any model is built.

pydantic looks for plugins at its first model (``pydantic/plugin/_loader.py`` imports
``importlib.metadata`` and lists the ``pydantic`` entry points of every installed
distribution). The programs use no pydantic plugin, and that import alone costs ~20 ms of
each start (``importlib.metadata`` pulls in ``email``, ``csv``, ``zipfile``: measured on the
2-core development machine, the core's import 0.188 -> 0.170 s, min of 11). The library
(``import gpusizer``) leaves pydantic as it is: an application that embeds it keeps its
plugins.
"""

from __future__ import annotations

import sys
import types

_LOADER = "pydantic.plugin._loader"


def _no_plugins() -> tuple[()]:
    return ()


def skip_pydantic_plugins() -> None:
    """Stand in for pydantic's plugin loader with one that finds none (pydantic 2 asks it for
    ``get_plugins()`` only, in ``pydantic/plugin/_schema_validator.py``), unless pydantic has
    already loaded its own."""
    if _LOADER in sys.modules:
        return
    loader = types.ModuleType(_LOADER, "No pydantic plugins in the gpusizer programs (gpusizer/entry.py).")
    loader.get_plugins = _no_plugins  # type: ignore[attr-defined]
    sys.modules[_LOADER] = loader
