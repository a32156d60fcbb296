"""Two lines under a serving comparison (``gpusizer-cli compare`` and ``plan``) that a buyer
needs to read its money and its P/D answer right.

- ``$/M tok`` of a serving row is per million *output* tokens (core/sizing/compare_costs.py
  ``per_work``: the hourly cost over ``tokens_per_second``, the output tokens served), with the
  prompts' cost inside it. API price lists quote input and output tokens apart (OpenAI's and
  Anthropic's pricing pages: "$ / 1M input tokens", "$ / 1M output tokens"). So a 128K-token
  document service reads $58.65 where a blended in-and-out figure is $0.49: the line gives both
  (:func:`output_token_line`).
- ``serving.disaggregated`` without ``prefill_gpus`` is off (docs/scenario-format.md: "
  ``prefill_gpus`` null: off"), so a file asking for P/D as ``"disaggregated": {}`` got the
  aggregated answer and no word on it. The line names the field (:func:`pd_unset_line`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.model.specs import Scenario
from .compare_formats import usd_fmt


def output_token_line(options: Sequence[dict[str, Any]], s: Scenario | None) -> list[str]:
    """What the top priced row's ``$/M tok`` counts, and its figure per token in and out (one
    request's prompt and output); [] for training, multi-turn chats (whose prompt grows a turn)
    and an unpriced table."""
    if s is None or s.workload.trains or (s.serving.prefix is not None and s.serving.prefix.turns):
        return []
    top = next((o for o in options if o["fits"] and o.get("cost_per_million_tokens")), None)
    if top is None:
        return []
    p, g = s.workload.prompt_tokens, s.workload.generated_tokens
    cost = top["cost_per_million_tokens"]
    both = cost * g / (p + g)
    return [
        f"$/M tok: per million output tokens, each request's prompt paid inside it ({p:,} tokens in, "
        f"{g:,} out); per million tokens in and out, the top row's ${usd_fmt(cost, 'USD')} is "
        f"${usd_fmt(both, 'USD')} (API price lists quote input and output apart)"
    ]


def pd_unset_line(s: Any) -> str | None:
    """The line for a ``serving.disaggregated`` block set without its prefill pool (None
    otherwise): no split is sized, proposed or ranked then."""
    spec = None if s.workload.trains else s.serving.disaggregated
    if spec is None or spec.prefill_gpus is not None:
        return None
    return (
        "P/D: serving.disaggregated is set without prefill_gpus, so it is off and no split is "
        "sized or ranked; set serving.disaggregated.prefill_gpus and decode_gpus (whole replicas "
        "of the layout) and every row proposes its own split beside the aggregated answer"
    )
