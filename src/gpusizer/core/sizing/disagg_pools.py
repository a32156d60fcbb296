"""The scenario's own prefill and decode pools (``serving.disaggregated``) in whole replicas of each
layout the advice weighs.

Each pool is a whole number of replicas of the layout (``prefill_gpus`` of ``prefill_tensor`` x
pipeline, ``decode_gpus`` of tensor x pipeline; core/serving/disaggregated.check_disaggregated
refuses a partial one), so a scenario that sets its pools at TP 1 (``1P1D``) made every wider
layout invalid, and the search weighed TP 1 alone: gpt-oss-120b for 256 users at a 2 s first
token read "targets not met with up to 4,096 GPUs" on H100s, where 16 of them at TP 2 x DP 8
answer in 0.85 s (the estimate of that layout). The pools are the user's split, not the
aggregated answer the advice ranks by, so each is kept at the GPUs set, grown to the next whole
replica of the layout weighed; the option's ``scenario_changes`` carry the grown pools, so
applying it reproduces it.
"""

from __future__ import annotations

from typing import Any

from ..model.architecture import ceil_div
from ..model.specs import Scenario, ServingSpec
from ..serving.disaggregated import disaggregated_of

PREFILL, DECODE = "serving.disaggregated.prefill_gpus", "serving.disaggregated.decode_gpus"
GROWN = "serving.disaggregated's pools grown to whole replicas of this layout: "


def whole_pools(s: Scenario, tp: int, pp: int) -> ServingSpec | None:
    """``s``'s serving block with its pools grown to whole replicas of TP ``tp`` x PP ``pp``
    (None: no split set, or its pools already hold whole replicas)."""
    spec = disaggregated_of(s)
    if spec is None or spec.prefill_gpus is None or spec.decode_gpus is None:
        return None
    pre, dec = (spec.prefill_tensor or tp) * pp, tp * pp
    prefill, decode = ceil_div(spec.prefill_gpus, pre) * pre, ceil_div(spec.decode_gpus, dec) * dec
    if (prefill, decode) == (spec.prefill_gpus, spec.decode_gpus):
        return None
    grown = spec.model_copy(update={"prefill_gpus": prefill, "decode_gpus": decode})
    return s.serving.model_copy(update={"disaggregated": grown})


def pool_changes(asked: Scenario, laid: Scenario) -> dict[str, Any]:
    """``scenario_changes`` of an option whose scenario ``laid`` grew ``asked``'s pools."""
    a, b = disaggregated_of(asked), disaggregated_of(laid)
    if a is None or b is None:
        return {}
    out: dict[str, Any] = {}
    if a.prefill_gpus != b.prefill_gpus:
        out[PREFILL] = b.prefill_gpus
    if a.decode_gpus != b.decode_gpus:
        out[DECODE] = b.decode_gpus
    return out


def pools_note(changes: dict[str, Any], asked: Scenario) -> list[str]:
    """The note of an option whose pools were grown (empty: none)."""
    spec = disaggregated_of(asked)
    if spec is None or not (PREFILL in changes or DECODE in changes):
        return []
    p, d = changes.get(PREFILL, spec.prefill_gpus), changes.get(DECODE, spec.decode_gpus)
    return [
        f"{GROWN}{p:,} prefill + {d:,} "
        f"decode GPUs ({spec.prefill_gpus:,} + {spec.decode_gpus:,} as set; scenario_changes)"
    ]


def asked_pools(s: Scenario) -> tuple[int, int] | None:
    """The prefill and decode GPUs the scenario sets (None: no split, or a pool left unset)."""
    spec = disaggregated_of(s)
    if spec is None or spec.prefill_gpus is None or spec.decode_gpus is None:
        return None
    return spec.prefill_gpus, spec.decode_gpus


def split_pools_notes(
    notes: tuple[str, ...], asked: tuple[int, int] | None, pools: tuple[int, int], label: str
) -> tuple[str, ...]:
    """The notes of an option whose ranked answer is the split ``label`` (core/sizing/pd_choice.py)
    with ``pools`` (prefill, decode GPUs): the aggregated layout's grown pools (:func:`pools_note`)
    gave way to the split's, so that note goes; where the split's pools differ from the ``asked``
    ones, a note says so beside the option's ``scenario_changes``. Before, a Llama 3.3 70B row read
    "pools grown to whole replicas of this layout: 8 prefill + 8 decode GPUs" above its 3P1D split
    of 24 prefill + 8 decode GPUs, the count its ``scenario_changes`` carried."""
    kept = [n for n in notes if not n.startswith(GROWN)]
    if asked is None or asked == pools:
        return tuple(kept)
    at = next((i for i, n in enumerate(kept) if n.startswith("disaggregated:")), len(kept))
    note = (
        f"serving.disaggregated's pools set to the split ranked, {label}: {pools[0]:,} prefill + "
        f"{pools[1]:,} decode GPUs ({asked[0]:,} + {asked[1]:,} as set; scenario_changes)"
    )
    return (*kept[:at], note, *kept[at:])
