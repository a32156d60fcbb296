"""The desktop window (PySide6). Everything Qt lives under this package; the core stays Qt-free.

Entry point: :func:`gpusizer.gui.app.main` (the ``gpusizer`` command).
"""

from __future__ import annotations

import sys


def _immortalise_singletons() -> None:
    """Work around PySide6 6.12 dropping references to ``None``/``True``/``False`` (CPython 3.11).

    Measured here (PySide6-Essentials 6.12.0, CPython 3.11.7): each call of a method returning
    void (``QObject.setObjectName``, ``QWidget.setMinimumWidth``...) lowers ``None``'s
    reference count by one, and methods returning bool do the same to ``True``/``False``, as
    if the binding relied on CPython 3.12's immortal singletons (PEP 683). ``None`` starts near
    4,000 references, so after a few thousand calls (a few hundred edits in the window) the
    interpreter aborts with "none_dealloc: deallocating None" or "bool_dealloc" (exit 134).
    Giving each 2**40 extra references makes them as good as immortal for the life of the
    process, as they are on 3.12+. CPython 3.12+ and other interpreters are left alone; so are
    debug builds, whose object header differs.
    """
    if sys.implementation.name != "cpython" or sys.version_info >= (3, 12):
        return
    if hasattr(sys, "gettotalrefcount"):  # debug build: ob_refcnt is not the first field
        return
    import ctypes

    for singleton in (None, True, False, Ellipsis, NotImplemented):
        refcnt = ctypes.c_ssize_t.from_address(id(singleton))  # PyObject.ob_refcnt, offset 0
        if refcnt.value < 2**39:
            refcnt.value += 2**40


_immortalise_singletons()
