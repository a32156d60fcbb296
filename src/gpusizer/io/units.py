"""Byte formatting: GiB means 2^30 bytes, GB means 10^9 bytes, and the user chooses."""

from __future__ import annotations

UNITS = {"GiB": 2**30, "GB": 10**9, "MiB": 2**20, "MB": 10**6, "TiB": 2**40, "TB": 10**12}


def to_unit(n_bytes: float, unit: str = "GiB") -> float:
    return n_bytes / UNITS[unit]


def fmt_bytes(n_bytes: float, unit: str = "GiB", digits: int = 2) -> str:
    """``fmt_bytes(16e9, "GB") == "16.00 GB"``; negative values keep their sign."""
    return f"{to_unit(n_bytes, unit):,.{digits}f} {unit}"
