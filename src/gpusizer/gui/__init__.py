"""The desktop window (PySide6). Everything Qt lives under this package; the core stays Qt-free.

Entry point: :func:`gpusizer.gui.app.main` (the ``gpusizer`` command).

PySide6-Essentials 6.12.0 drops references to ``None``/``True``/``False`` on CPython < 3.12
and aborts after a few thousand Qt calls; pyproject.toml pins ``< 6.12`` there, so no
workaround is needed here (tests/gui/test_summary.py checks it).
"""

from __future__ import annotations
