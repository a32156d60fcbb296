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


def check_version(v: str | None) -> str | None:
    """Validation: a release of the table (None: the newest)."""
    if v is not None and v not in BNB_RELEASES:
        raise ValueError(f"unknown bitsandbytes version {v[:20]!r}; must be one of {', '.join(BNB_RELEASES)}")
    return v


def keeps_inputs(v: str | None) -> bool:
    """Whether the release's 4-bit matmul keeps each layer's input."""
    return BNB_RELEASES[v or NEWEST].keeps_inputs


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
