"""A serving file's stated expert, attention data-parallel or prefill-pool width that the
advice replaced: the note that says so (the TP/PP note is core/sizing/stated_layout.py's).

The serving search (core/sizing/fill_serving.py) lays EP over each layout's replicas where the
model has experts, and attention DP where the engine runs it, whatever ``parallelism.expert``
and ``parallelism.attention_data`` state; the P/D split it proposes (core/sizing/disagg_split.py)
tries prefill widths at and below the decode TP, whatever ``serving.disaggregated.prefill_tensor``
states. A file that states vLLM's AMD recipe for Qwen3-Coder 480B (``--tensor-parallel-size 8
--enable-expert-parallel``: EP 8, docs.vllm.ai/projects/recipes, Qwen3-Coder-480B-A35B) got rows
on EP 1 or 2 with no word, while a replaced TP had one. Each replaced width now reads
"EP 2, not the file's EP 8", with where the search chose it. Widths kept, or not stated, say
nothing: every other file's rows are unchanged.
"""

from __future__ import annotations

from ..model.specs import Scenario
from .option_split import DisaggSplit

RULE = "the search weighs EP and attention DP on every layout, as it does TP"
SPLIT_RULE = "the proposed split tries prefill widths up to the decode TP and keeps the fewest GPUs"


def width_notes(asked: Scenario, laid: Scenario, split: DisaggSplit | None) -> list[str]:
    """``["EP 2, not the file's EP 8 (<rule>)"]`` for each stated serving width the option
    ``laid`` (its scenario) or its proposed ``split`` does not run (empty: none, or training)."""
    if asked.workload.trains:
        return []
    said, want, got = asked.parallelism.model_fields_set, asked.parallelism, laid.parallelism
    pairs = [
        (f"EP {got.expert}", f"EP {want.expert}", "expert" in said and got.expert != want.expert),
        (
            f"attention DP {got.attention_data}",
            f"attention DP {want.attention_data}",
            "attention_data" in said and got.attention_data != want.attention_data,
        ),
    ]
    used = [(u, s) for u, s, differs in pairs if differs]
    out = []
    if used:
        out.append(
            f"{' and '.join(u for u, _ in used)}, not the file's {' and '.join(s for _, s in used)} ({RULE})"
        )
    spec = asked.serving.disaggregated
    stated = spec.prefill_tensor if spec is not None else None
    if split is not None and stated is not None and split.prefill_tensor != stated:
        pre = f"the split's prefill TP {split.prefill_tensor}"
        out.append(f"{pre}, not the file's prefill_tensor {stated} ({SPLIT_RULE})")
    return out
