"""The Serving panel's rows for the simulated run beside "Load" (docs/scenario-format.md, the
serving block's ``requests``, ``length_spread`` and ``mixed_prefill``; core/serving/load.py
reads them into the scheduler's workload): how many requests the run sends, how far the
requests' lengths vary, and whether prompt chunks share engine steps with running decodes.
Each is read by every engine's step model, so the rows show for every serving scenario; blank
is the scenario's null, the answers as before."""

from __future__ import annotations

from ..quantity_field import QuantityField
from ..widgets import Form, combo

REQUESTS = "serving.requests"
SPREAD = "serving.length_spread"
MIXED = "serving.mixed_prefill"
LOAD_TIPS = {
    REQUESTS: "Requests the simulated run sends (at most 300,000). Blank: the load's own, steady "
    "users 4 x the requests per replica, a burst the requests per replica, a request rate 1,000 "
    "(vllm bench serve --num-prompts' default); a split's opening burst is averaged over them.",
    SPREAD: "Requests' prompt and output lengths vary by \u00b1 this share around the workload's "
    "(0 to 0.9), in even steps, one per user between 5 and 64. Blank: 0, every request alike.",
    MIXED: "On: prompt chunks share engine steps with the running decodes (vLLM V1, TensorRT-LLM, "
    "llama.cpp's server). Off: prompt steps run alone first (SGLang without "
    "--enable-mixed-chunk, vLLM V0, llama-batched-bench). Engine default: the engine's.",
}


def add_load_rows(f: Form) -> None:
    """The run's requests, the length spread and mixed prefill, in that order."""
    requests = QuantityField("count", REQUESTS, none_text="the load's default")
    f.add("Requests in run", requests, REQUESTS, name="spin_serving_requests")
    spread = QuantityField("number", SPREAD, step=0.1, maximum=0.9, none_text="0: all alike")
    f.add("Length spread", spread, SPREAD, name="spin_serving_length_spread")
    mixed = combo([("engine default", None), ("on: with decodes", True), ("off: prompts first", False)])
    f.add("Mixed prefill", mixed, MIXED, name="combo_serving_mixed_prefill")
