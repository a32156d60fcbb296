"""transformers and llama.cpp / Ollama: engines that take no pool up front.

- ``transformers`` (core/memory/inference.py): memory is allocated as requests need it; the
  "pool" is the batch's cache, its capacity what the free memory would hold. A request holds
  the whole context in every attention layer (counted by kv_request's whole-context layout,
  one token a block). Inverse: the peak, with the cache replaced by what the load and one
  request of max_context need, never below the peak itself (a hybrid model's cache holds its
  recurrent state besides the tokens).
- ``layer_offload`` (llama.cpp, Ollama; core/serving/offload.py): layers on the GPU or in
  system RAM, KV cells for the context (n_ctx, or n_ctx x slots), padded to 256. Inverse: the
  GPU bytes of every layer on the GPU (or the ``-ngl`` set) with the cells the load needs.
"""

from __future__ import annotations

from dataclasses import replace
from operator import attrgetter
from typing import ClassVar, NamedTuple

from ...memo import Memo
from ...memory.inference import inference_memory
from ...memory.kv_cap import kv_cap
from ...memory.overhead import scenario_overhead
from ...model.architecture import Arch, ceil_div
from ...model.params import ParamCounts
from ...model.redundant import expert_divisor
from ...model.result import EngineMemory, Memory, PoolLine
from ...model.sharding import stage_params
from ...model.specs import GPUSpec, Scenario
from ..engine_result import scenario_load
from ..engine_settings import EngineSettings
from ..kv_request import WHOLE_CONTEXT, request_kv
from ..offload import MIN_FIT_CONTEXT, gpu_bytes, offload_memory, planned_free
from .base import MemoryRule, register_rule


@register_rule
class Transformers(MemoryRule):
    """transformers: memory as requests need it."""

    key: ClassVar[str] = "transformers"
    label: ClassVar[str] = "allocated as requests need it"
    allocates_on_demand: ClassVar[bool] = True

    def memory(
        self, s: Scenario, arch: Arch, counts: ParamCounts, gpu: GPUSpec, st: EngineSettings
    ) -> EngineMemory:
        mem, per, load_bytes, need, per_request, capped = _on_demand(s, arch, counts, st)
        free = max(0, gpu.capacity_bytes - mem.total)
        tokens = int((mem.kv_cache + free) // per) if per else 0
        ctx = st.max_context or 1
        return EngineMemory(
            mem,
            mem.kv_cache,
            tokens,
            (mem.kv_cache + free) / per_request if capped else tokens / ctx,
            True,
            None,
            ctx,
            None,
            per,
            load_bytes=load_bytes,
            holds_load=mem.kv_cache + free >= need,
            required_bytes=int(max(mem.total, mem.total - mem.kv_cache + need)),
        )


class _Demand(NamedTuple):
    """What transformers' memory rule reads of the scenario but its GPU (bytes): the peak with
    its overhead, the KV cache per token, of the load, of the load or one request of the
    context (the larger), of one request, and whether ``serving.max_kv_size`` caps it."""

    memory: Memory
    per_token: float
    load_bytes: float
    need: float
    per_request: float
    capped: bool


# By what it reads but the GPU: a served model is searched again on each GPU of a catalog
# (core/sizing/search.py), and the GPUs weigh much the same layouts (a 405B serving plan: 1,831
# of these, 701 distinct, 2026-12). The blocks are frozen, so kept by identity (the layout
# search shares them among its layouts and GPUs); the layout and hardware but the GPU by value.
_DEMAND: Memo[_Demand] = Memo(4096)
_BLOCKS = attrgetter(*(k for k in Scenario.model_fields if k not in ("hardware", "parallelism")))


def _on_demand(s: Scenario, arch: Arch, counts: ParamCounts, st: EngineSettings) -> _Demand:
    """:class:`_Demand` of ``s`` under ``st``, kept by all it reads."""
    p = s.parallelism
    layout = (*p.__dict__.values(), p.engine_group)  # an attention-DP rank's view: its engine
    hardware = tuple(v for k, v in s.hardware.__dict__.items() if k != "gpu")
    key = (*map(id, _BLOCKS(s)), layout, hardware, st, id(arch), id(counts))
    return _DEMAND.get(key, lambda: _demand(s, arch, counts, st), (s, arch, counts))


def _demand(s: Scenario, arch: Arch, counts: ParamCounts, st: EngineSettings) -> _Demand:
    mem, peak = inference_memory(s, arch, counts)
    over = scenario_overhead(s, peak)
    mem = Memory(**{**mem.__dict__, "overhead": over, "total": peak + over})
    p = s.parallelism
    sp = stage_params(counts, arch, p.tensor, p.pipeline, expert_divisor(s), True)  # the heaviest stage
    kv = request_kv(s, arch, st, sp, WHOLE_CONTEXT)
    load_bytes = kv.load_bytes(scenario_load(s, st))
    per_request = kv.request_bytes(st.max_context or 1)
    # a capped cache (serving.max_kv_size) holds fewer tokens than the context per request
    capped = kv_cap(s, arch) is not None and per_request > 0
    return _Demand(mem, kv.per_token, load_bytes, max(per_request, load_bytes), per_request, capped)


@register_rule
class LayerOffload(MemoryRule):
    """llama.cpp / Ollama: layers on the GPU or in system RAM."""

    key: ClassVar[str] = "layer_offload"
    label: ClassVar[str] = "layers on the GPU or in system RAM, KV cells for the context"
    fitted_context: ClassVar[bool] = True
    ubatch_prefill: ClassVar[bool] = True
    serving_fields: ClassVar[frozenset[str]] = frozenset({"gpu_layers"})

    def memory(
        self, s: Scenario, arch: Arch, counts: ParamCounts, gpu: GPUSpec, st: EngineSettings
    ) -> EngineMemory:
        em = offload_memory(s, arch, counts, gpu, st)
        load = scenario_load(s, st, em.max_context)
        cells = em.kv_capacity_tokens  # n_ctx (x slots), padded to 256 (offload.kv_cells)
        full = arch.layers + 1
        layers = full if st.gpu_layers is None else min(st.gpu_layers, full)
        # a context the load fits in; an unset n_ctx is fitted to the memory, down to 4,096
        # tokens (offload.py): it needs that much, not the memory it fills
        least = cells if st.max_context else min(cells, ceil_div(MIN_FIT_CONTEXT, 256) * 256)
        need = max(least, ceil_div(load.total_tokens, 256) * 256)
        placed = st.gpu_layers is not None or em.gpu_layers == full
        required = gpu_bytes(s, arch, counts, st, gpu_layers=layers, cells=need)
        rel = st.release
        if st.gpu_layers is None and rel is not None and rel.ollama is not None:
            # Ollama offloads only what its own estimate places: every layer needs its margin
            slots = max(1, st.max_sequences or 1)
            ctx = max(em.max_context, ceil_div(load.total_tokens, slots))
            required = planned_free(s, arch, counts, gpu, st, ctx, floor=required)
        return replace(
            em,
            load_bytes=em.kv_bytes_per_token * load.total_tokens,
            holds_load=placed and cells >= load.total_tokens,
            required_bytes=int(required),
        )

    def fit(
        self, s: Scenario, arch: Arch, counts: ParamCounts, gpu: GPUSpec, st: EngineSettings
    ) -> tuple[EngineMemory, EngineSettings]:
        """Ollama's parallel fallback: with OLLAMA_NUM_PARALLEL unset it tries its default
        slots (num_ctx x slots cells), then one, for a fit with every layer on the GPU, and
        loads a partial fit with one slot (ollama server/sched.go ``pickBestFullFitByLibrary``:
        "try larger then smaller, always end with 1"; ``pickBestPartialFitByLibrary``: "if
        *numParallel <= 0 { *numParallel = 1; req.opts.NumCtx = req.origNumCtx }", v0.5 -
        v0.9). Before it does, layers leave the GPU only when one slot does not fit either."""
        em = self.memory(s, arch, counts, gpu, st)
        rel = st.release
        default = st.max_sequences or 1
        # Ollama's own placement (ollama_estimate) and slots (a count the scenario leaves
        # unset); a layer count the user sets (num_gpu, -ngl) keeps the default slots
        auto = st.gpu_layers is None and s.serving.max_sequences is None
        fallback = rel is not None and rel.ollama is not None and auto
        if not fallback or default <= 1 or (em.gpu_layers == arch.layers + 1 and em.starts):
            return em, st
        one = replace(st, max_sequences=1)
        return self.memory(s, arch, counts, gpu, one), one

    def users_at(self, em: EngineMemory, gpu: GPUSpec) -> int:
        """Slots whose KV fits beside the layers (all on the GPU), at least one."""
        spare = gpu.capacity_bytes - em.memory.total
        per = em.kv_bytes_per_token * em.max_context
        on_gpu = em.host_read_bytes == 0
        return 1 + (int(spare // per) if on_gpu and per > 0 else 0)

    def pool_line(self, gpu: GPUSpec, em: EngineMemory) -> PoolLine:
        return PoolLine(host_split=True)
