"""bitsandbytes releases where they change training memory (``precision.bitsandbytes_version``).

``MatMul4Bit.forward`` (``bitsandbytes/autograd/_functions.py``), the matmul of every 4-bit
``Linear4bit`` (QLoRA's frozen base), kept its input for the backward whenever the input needed
a gradient (``ctx.tensors = (A, B)``), although the frozen weight needs no gradient and the
input's gradient reads only B: every quantised layer's input stayed alive, where a frozen
16-bit ``nn.Linear`` keeps none. Fixed in 0.43.2 ("fix QLoRA mem bug: delete useless buffered
activation", #1270, commit 9e75374, 2024-07-16): ``ctx.tensors = (None, B)``. The default is
the newest release here; an unknown version is an error naming the known ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class BnbRelease:
    """One bitsandbytes release: whether MatMul4Bit keeps its input."""

    version: str
    keeps_inputs: bool
    source: str


_OLD = "bitsandbytes {v} autograd/_functions.py MatMul4Bit.forward: ctx.tensors = (A, B)"
_NEW = "bitsandbytes {v} autograd/_functions.py MatMul4Bit.forward: ctx.tensors = (None, B)"

BNB_RELEASES: dict[str, BnbRelease] = {
    v: BnbRelease(v, keeps, (_OLD if keeps else _NEW).format(v=v))
    for v, keeps in (
        ("0.41.0", True),
        ("0.42.0", True),
        ("0.43.0", True),
        ("0.43.1", True),
        ("0.43.2", False),
        ("0.44.0", False),
        ("0.45.0", False),
    )
}
NEWEST = next(reversed(BNB_RELEASES))


# bitsandbytes 0.39.0 (2023-05, "4-bit quantization, QLoRA"; CHANGELOG.md) added Linear4bit:
# an earlier release has no 4-bit base to train on
FIRST_4BIT = (0, 39, 0)
# the release whose MatMul4Bit stopped keeping its input (#1270, commit 9e75374)
FIXED = (0, 43, 2)
_RELEASE = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?(?:\.?(?:post|rc|dev|a|b)\d*)?$")


def release_tuple(v: str) -> tuple[int, int, int] | None:
    """``"0.41.3"`` -> (0, 41, 3); a PEP 440 suffix (``.post1``, ``rc1``) is ignored; None if
    the text is not a release number."""
    m = _RELEASE.match(v.strip())
    return (int(m[1]), int(m[2]), int(m[3] or 0)) if m else None


def check_version(v: str | None) -> str | None:
    """Validation: any bitsandbytes release from 0.39.0 (None: the newest). The rule is a
    threshold (``FIXED``), so a release between the table's rows (0.41.3, 0.43.3, 0.46.1) is
    read by which side of 0.43.2 it falls on rather than refused."""
    if v is None:
        return None
    r = release_tuple(v) if isinstance(v, str) else None
    if r is None or r < FIRST_4BIT:
        raise ValueError(
            f"unknown bitsandbytes version {str(v)[:20]!r}; must be a release from 0.39.0 (the first "
            f"with 4-bit layers) written as X.Y.Z, e.g. {', '.join(BNB_RELEASES)}"
        )
    return v


def keeps_inputs(v: str | None) -> bool:
    """Whether the release's 4-bit matmul keeps each layer's input (before 0.43.2)."""
    if v in BNB_RELEASES or v is None:
        return BNB_RELEASES[v or NEWEST].keeps_inputs
    r = release_tuple(v)
    return r is not None and r < FIXED


# bitsandbytes' 4-bit formats (Linear4bit / Params4bit): NF4 with and without double
# quantisation and FP4 (core/registry/dtypes.py)
BNB_4BIT_FORMATS = ("nf4", "nf4_single", "fp4")
# transformers BitsAndBytesConfig ``bnb_4bit_quant_storage``: the dtype the packed 4-bit data
# is stored as (bitsandbytes 0.43.0 Params4bit ``quant_storage``; default uint8)
QUANT_STORAGE = ("uint8", "bf16", "fp16", "fp32")


def check_quant_storage(v: object) -> str | None:
    """Validation: a storage dtype of the table (None: not stated); a value of any other type
    gets the same message, naming the dtypes (not pydantic's "a valid string")."""
    if v is None:
        return None
    if not isinstance(v, str) or v not in QUANT_STORAGE:
        got = repr(v[:20]) if isinstance(v, str) else repr(v)[:20]
        raise ValueError(f"must be one of {', '.join(QUANT_STORAGE)}; got {got}")
    return v
