"""The desktop window (PySide6). Everything Qt lives under this package; the core stays Qt-free.

Entry point: :func:`gpusizer.gui.app.main` (the ``gpusizer`` command).
"""
