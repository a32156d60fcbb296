"""The line a preference fine-tune's report adds to the readable estimate (the report's
``preference`` block, core/memory/preference.py ``preference_block``)."""

from __future__ import annotations

from typing import Any


def preference_line(block: dict[str, Any] | None) -> str | None:
    """One line: the method, its reference and what one example runs; None without a block."""
    if not block:
        return None
    rows, nograd = block["rows_per_example"], block["no_grad_rows_per_example"]
    held = ", weights held" if block["reference_weights_held"] else ""
    forward = f", {nograd} no-grad" if nograd else ""
    return (
        f"  preference   {block['method_label']} · reference: {block['reference_label']}{held} · "
        f"{rows} row{'s' if rows != 1 else ''} an example with gradients{forward}"
    )
