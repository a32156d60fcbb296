"""Serving memory rules as objects: one class per way an engine takes GPU memory, each owning
its budget and KV pool, the bytes the users' load holds, its inverse (the smallest GPU that
starts and holds the load) and the line the memory chart draws (the shape: :mod:`.base`).

========================  =================================  ==================================
key (``memory_rule``)     class                              engines
========================  =================================  ==================================
``profiled_pool``         :class:`.vllm.ProfiledPool`        vLLM V0 and V1
``static_pool``           :class:`.static_free.StaticPool`   SGLang
``free_pool``             :class:`.static_free.FreePool`     TensorRT-LLM
``layer_offload``         :class:`.on_demand.LayerOffload`   llama.cpp, Ollama
``transformers``          :class:`.on_demand.Transformers`   Hugging Face transformers
========================  =================================  ==================================

A framework names its rule by key (core/registry/frameworks.py); its releases carry the
figures the rule reads and the KV layout a request is counted by (core/serving/kv_request.py
``KV_LAYOUTS``). Adding a release is one ``EngineRelease`` entry; an engine whose memory
behaves in a new way is one :class:`~.base.MemoryRule` subclass passed to
:func:`~.base.register_rule` (a decorator on the class, in its own module; a taken key is
refused). :func:`check_rules` (run at validation) makes an unknown rule or layout a
ScenarioError naming the registered ones.
"""

from __future__ import annotations

from ...registry.frameworks import FrameworkProfile
from ..kv_request import kv_layout
from .base import MEMORY_RULES, MemoryRule, memory_rule, register_rule
from .on_demand import LayerOffload, Transformers
from .static_free import FreePool, StaticPool, sglang_fraction
from .vllm import ProfiledPool

__all__ = [
    "MEMORY_RULES",
    "FreePool",
    "LayerOffload",
    "MemoryRule",
    "ProfiledPool",
    "StaticPool",
    "Transformers",
    "check_rules",
    "memory_rule",
    "register_rule",
    "sglang_fraction",
]


def check_rules(profile: FrameworkProfile) -> MemoryRule:
    """The framework's memory rule, once every name it and its releases use is registered
    (a ScenarioError naming the registered ones otherwise)."""
    rule = memory_rule(profile)
    for rel in profile.releases:
        kv_layout(rel)
    return rule
