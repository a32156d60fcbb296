"""The shape every serving memory rule has, and the registry frameworks name rules from.

A :class:`MemoryRule` is how one engine takes GPU memory when it serves (after vLLM's
``vllm/v1/kv_cache_interface.py``, where one spec class per layer kind owns its page size and
its bytes per request, here one class per engine rule owns):

- its budget and KV pool, and the memory it holds on the heaviest GPU (:meth:`memory`, an
  :class:`~..engine_result.EngineMemory`);
- the bytes the scenario's load holds in that pool (``load_bytes``, from the one
  request-bytes rule of core/serving/kv_request.py) and whether the pool holds them;
- its inverse: the smallest GPU memory on which it starts, holds the load and fits
  (``required_bytes``), exact to the rule's granularity (tests/core/test_memory_rules.py
  round-trips it for every rule);
- the line the memory chart draws over its bar (:meth:`pool_line`) and the users the engine
  holds at a context (:meth:`users_at`, the capacity curve).

Frameworks name their rule by key (``FrameworkProfile.memory_rule``, a key of
:data:`MEMORY_RULES`); an unknown key is a ScenarioError at validation (:func:`memory_rule`).
What differs between releases of one engine is data the rule reads (core/registry/engines.py
``EngineRelease``); a new engine whose memory behaves in a new way is one subclass registered
with :func:`register_rule`.
"""

from __future__ import annotations

from typing import ClassVar, TypeVar, cast, overload

from ...errors import registered
from ...model.architecture import Arch
from ...model.params import ParamCounts
from ...model.result import EngineMemory, PoolLine
from ...model.specs import GPUSpec, Scenario
from ...registry.frameworks import FrameworkProfile
from ...registry.table import add_keyed
from ..engine_settings import EngineSettings, engine_settings


class MemoryRule:
    """One engine memory rule (subclasses set the class attributes and :meth:`memory`)."""

    key: ClassVar[str] = ""  # the name FrameworkProfile.memory_rule uses
    label: ClassVar[str] = ""  # the mechanism, in a few words (docs, errors)
    # The engine takes a share of the GPU up front, whatever the workload needs: that share
    # is its own safety margin (the advisor adds none; the verdict is never "tight").
    reserves_memory: ClassVar[bool] = False
    # It allocates as requests need it: its memory grows with batch and context (sweeps take
    # the fast path); otherwise it sizes its memory to the GPU and ``required_bytes`` is what
    # the scenario needs of one.
    allocates_on_demand: ClassVar[bool] = False
    # An unset max context is fitted to memory; prompts run in the release's micro-batch.
    fitted_context: ClassVar[bool] = False
    ubatch_prefill: ClassVar[bool] = False
    serving_fields: ClassVar[frozenset[str]] = frozenset()  # the serving block fields it reads
    # Its memory fraction is of the memory left once the weights are loaded (TensorRT-LLM), not
    # of the device: weights loaded beside the model's (a speculative draft) take ``fraction``
    # of their bytes from the pool (core/serving/features.py ``reserve``)
    fraction_after_weights: ClassVar[bool] = False
    # The engine starts whatever the context and caps each request to its pool (SGLang
    # tp_worker.py: max_req_len = min(context_len - 1, pool tokens - 1)) instead of refusing
    caps_context: ClassVar[bool] = False
    # It can keep some weights in pinned host memory, read over the host link every forward
    # (``serving.cpu_offload_gib``: vLLM's and SGLang's --cpu-offload-gb,
    # core/serving/weight_offload.py)
    offloads_weights: ClassVar[bool] = False

    def settings(self, s: Scenario, gpu: GPUSpec) -> EngineSettings:
        """The engine settings the scenario runs with on ``gpu``."""
        return engine_settings(s, gpu, fitted_context=self.fitted_context, ubatch_prefill=self.ubatch_prefill)

    def memory(
        self, s: Scenario, arch: Arch, counts: ParamCounts, gpu: GPUSpec, st: EngineSettings
    ) -> EngineMemory:
        """The memory on the heaviest GPU, the load it holds and the inverse."""
        raise NotImplementedError

    def fit(
        self, s: Scenario, arch: Arch, counts: ParamCounts, gpu: GPUSpec, st: EngineSettings
    ) -> tuple[EngineMemory, EngineSettings]:
        """The memory and the settings the engine settles on: :meth:`memory` with ``st``,
        unless the engine changes a setting when the model does not fit (a subclass says)."""
        return self.memory(s, arch, counts, gpu, st), st

    def runs(self, em: EngineMemory, capacity: int) -> bool:
        """What the inverse inverts: the engine starts, holds the load and fits ``capacity``
        bytes (a GPU's ``capacity_bytes``)."""
        return em.starts and em.holds_load and em.memory.total <= capacity

    def users_at(self, em: EngineMemory, gpu: GPUSpec) -> int:
        """Requests of ``em.max_context`` tokens the engine holds at once (capacity curve)."""
        return int(em.max_concurrency + 1e-9)

    def pool_line(self, gpu: GPUSpec, em: EngineMemory) -> PoolLine:
        """What the memory chart draws over the engine's bar (nothing by default)."""
        return PoolLine()


MEMORY_RULES: dict[str, MemoryRule] = {}
_R = TypeVar("_R", bound=MemoryRule)


@overload
def register_rule(rule: type[_R]) -> type[_R]: ...
@overload
def register_rule(rule: _R) -> _R: ...
def register_rule(rule: _R | type[_R]) -> _R | type[_R]:
    """Add a rule under its key (frameworks name it by that key; a DuplicateId if taken): an
    instance, or as a decorator the class, registered where it is defined."""
    return cast("_R | type[_R]", add_keyed(MEMORY_RULES, rule, "memory rule"))


def memory_rule(profile: FrameworkProfile) -> MemoryRule:
    """The rule a framework names; a ScenarioError naming the registered ones if none is."""
    return registered(MEMORY_RULES, profile.memory_rule, "framework", f"{profile.label} names memory rule")
