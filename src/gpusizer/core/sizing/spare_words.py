"""The spare memory a no-fit sentence names, in words a buyer reads right.

A serving engine that takes a fraction of each GPU up front (vLLM ``gpu_memory_utilization``,
SGLang ``mem_fraction_static``, TensorRT-LLM ``free_gpu_memory_fraction``) keeps the rest free
itself, so the search takes no margin of its own there (core/sizing/search.py
``catalog_targets``). "Nothing fits with up to 4,096 GPUs and 0% of memory kept spare" then read
as a search run with no room kept at all, where the engine kept its own share (the rest of the
device beyond vLLM's ``gpu_memory_utilization``, vllm/config/cache.py): the sentence names it.
"""

from __future__ import annotations

from ..model.specs import Scenario
from ..serving.rules import memory_rule
from .layout_search import GpuTarget


def spare_words(s: Scenario, g: GpuTarget) -> str:
    """``10% of memory kept spare``, or, where the serving engine keeps its own share of each
    GPU and the search takes none, ``the engine's own memory fraction (serving.memory_fraction)
    kept`` (its value where the scenario states one)."""
    if g.margin > 0 or not s.workload.serves or not memory_rule(s.profile).reserves_memory:
        return f"{g.margin:.0%} of memory kept spare"
    fraction = s.serving.memory_fraction
    stated = "" if fraction is None else f" {fraction:g}"
    return f"the engine's own memory fraction{stated} (serving.memory_fraction) kept"
