"""The Workload panel's "MLX release" row (``workload.mlx_version``, docs/scenario-format.md):
the MLX core release a ``framework: "mlx"`` run trains on (core/registry/mlx_releases.py).

The list holds the first release of each minor version from v0.24.0, the oldest the core takes,
to v0.32.0, as ml-explore/mlx tags them (v0.27.0 was never tagged: v0.27.1 is that line's
first); a file's other release (``"0.29.3"``) is added to the list as it is (gui/binding.py).
Blank: v0.24.0's rule, the answers as before the field. Every release from v0.25.0 takes the
unfused attention under a gradient on Metal (ml-explore/mlx PR #2054; v0.32.1
``mlx/backend/metal/scaled_dot_product_attention.cpp`` ``use_fallback`` returns true whenever
the call is traced for a gradient)."""

from __future__ import annotations

from typing import Any

from ..widgets import ComboBox, Form, combo

PATH = "workload.mlx_version"
RELEASES = ("0.32.0", "0.31.0", "0.30.0", "0.29.0", "0.28.0", "0.27.1", "0.26.0", "0.25.0", "0.24.0")
TIP = (
    "The MLX core release the run trains on, as mx.__version__ prints it (MLX only). From 0.25.0 "
    "(ml-explore/mlx PR #2054, \u201cno sdpa in grad\u201d) attention traced for a gradient runs "
    "unfused: each attention layer keeps its batch x heads x L\u00b2 probabilities until its "
    "backward. Blank: 0.24.0's rule (fused), as before the field."
)


def add_mlx_release(f: Form) -> ComboBox:
    """The row, newest release first, blank (null) on top."""
    items: list[tuple[str, Any]] = [("not set (0.24 rule)", None)]
    items += [(v, v) for v in RELEASES]
    box = combo(items)
    box.setToolTip(TIP)
    f.add("MLX release", box, PATH, name="combo_mlx_version")
    return box
