"""What the three engines that reserve a paged KV pool up front share (vLLM, SGLang,
TensorRT-LLM): the pool on each pipeline stage, the start-up check on one request of
``max_context`` tokens, the load it holds, and the inverse solved per stage.

Each subclass owns its budget (:meth:`PoolRule.budget`: the pool and what the engine reserves
beside it) and the budget's inverse (:meth:`PoolRule.device_total`: the smallest device total,
as cudaMemGetInfo reports it, whose pool holds ``kv`` bytes and whose memory fits the GPU).

Start-up check (vllm/v1/core/kv_cache_utils.py ``check_enough_kv_cache_memory``; V0
worker.py ``raise_if_cache_size_invalid``, the same test once a request is counted in whole
blocks): refused when the pool is empty or one request of ``max_context`` needs more than it.
The load: ``concurrency`` requests of prompt + output tokens, each its own pages and state
(core/serving/kv_request.py), held when their blocks fit the pool's whole blocks.
"""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

from ...model.architecture import Arch
from ...model.params import ParamCounts
from ...model.result import EngineMemory, PoolLine
from ...model.specs import GPUSpec, Scenario
from ..engine_result import Load, scenario_load
from ..engine_settings import EngineSettings
from ..kv_pool import EngineView, PoolBudget, Stage, engine_view, layout_note, sequences, stages
from ..kv_request import RequestKV, kv_layout, request_kv
from ..weight_offload import offload_note, offloaded_bytes
from .base import MemoryRule


class PoolRule(MemoryRule):
    """An engine that reserves its KV pool up front (subclasses: the budget and its inverse)."""

    reserves_memory: ClassVar[bool] = True
    serving_fields: ClassVar[frozenset[str]] = frozenset({"memory_fraction", "cuda_graphs"})
    # Where the pool is empty: what takes the memory the engine may use, and the engine's own
    # start-up error, quoted in its own name (each subclass cites the source that raises it)
    empty_cause: ClassVar[str] = "the weights and the engine's own runtime memory"
    empty_words: ClassVar[str] = ""

    def budget(self, v: EngineView, stage: Stage) -> PoolBudget:
        """The pool and what the engine reserves beside it on the stage's GPU."""
        raise NotImplementedError

    def device_total(self, v: EngineView, stage: Stage, b: PoolBudget, kv: float) -> float:
        """The inverse: the smallest device total (as the engine sees it) whose pool holds
        ``kv`` bytes and whose memory fits the GPU: the larger of the pool's term and the
        floor's (core/serving/inverse.py: features move the first only)."""
        return max(self.pool_total(v, stage, b, kv), self.floor_total(v, stage, b))

    def pool_total(self, v: EngineView, stage: Stage, b: PoolBudget, kv: float) -> float:
        """The smallest device total whose budget holds what it reserves and ``kv`` bytes."""
        raise NotImplementedError

    def floor_total(self, v: EngineView, stage: Stage, b: PoolBudget) -> float:
        """The smallest device total the engine needs whatever its pool holds (0: none)."""
        return 0.0

    def refusal(self, v: EngineView, b: PoolBudget) -> str | None:
        """A start-up check of the engine's own besides the pool's (None: it passes)."""
        return None

    def budget_line(self, gpu: GPUSpec, em: EngineMemory) -> tuple[int, str]:
        """(bytes, words) of the budget line the chart draws (0: none)."""
        return 0, ""

    def fraction_of(self, v: EngineView) -> float:
        """The bytes the memory fraction multiplies (the device total the engine sees)."""
        return float(v.total)

    def memory(
        self, s: Scenario, arch: Arch, counts: ParamCounts, gpu: GPUSpec, st: EngineSettings
    ) -> EngineMemory:
        """The heaviest GPU: the stage whose pool holds the fewest tokens, and of stages holding
        equally few (none, when no pool is positive) the one whose pool is the smallest, its
        weights the most. The first of them was reported: with PP 2 one layer more lowered
        DeepSeek-V3's reported weights from 98 to 78 GiB (18 -> 19 layers: the later stage of
        10 MoE layers outweighs the first of 3 dense and 7, but neither starts). The inverse is
        the largest of the stages' (every stage must start and hold the load), its two terms kept
        apart (``pool_need_bytes``, ``floor_bytes``: core/serving/inverse.py)."""
        v = engine_view(s, gpu, st)
        load, layout = scenario_load(s, st), kv_layout(st.release)
        best: EngineMemory | None = None
        rank: tuple[int, float] | None = None
        need = floor = 0.0
        for stage in [self._held(s, x) for x in stages(s, arch, counts, gpu, st)]:
            b = self.budget(v, stage)
            kv = request_kv(s, arch, st, stage.sp, layout)
            em = self._stage_memory(v, stage, b, kv, load)
            kv_need = max(em.request_bytes, kv.whole_blocks(em.load_bytes))
            need = max(need, self.pool_total(v, stage, b, kv_need))
            floor = max(floor, self.floor_total(v, stage, b))
            mine = (em.kv_capacity_tokens, b.pool)
            if rank is None or mine < rank:
                best, rank = em, mine
        assert best is not None
        d = v.driver
        return replace(
            best,
            required_bytes=int(max(need, floor) + d),
            pool_need_bytes=int(need + d),
            floor_bytes=int(floor + d) if floor > 0 else 0,
        )

    def _held(self, s: Scenario, stage: Stage) -> Stage:
        """The stage less the weights its engine keeps in host memory (serving.cpu_offload_gib,
        core/serving/weight_offload.py), where the engine offloads weights."""
        if not self.offloads_weights:
            return stage
        host = offloaded_bytes(s, stage.weights)
        return replace(stage, weights=stage.weights - host, host=host) if host else stage

    def _stage_memory(
        self, v: EngineView, stage: Stage, b: PoolBudget, kv: RequestKV, load: Load
    ) -> EngineMemory:
        st = v.st
        ctx = st.max_context or 0
        tokens = kv.pool_tokens(b.pool)
        needed = kv.check_bytes(ctx) if ctx else 0.0
        notes = layout_note(stage) + b.notes
        if stage.host:
            notes += (offload_note(stage.host, v.gpu),)
        holds = kv.holds(b.pool, kv.load_bytes(load))
        served = ctx
        if self.caps_context and b.pool > 0 and 0 < tokens < ctx:  # capped, not refused
            served = tokens - 1
            notes += (_cap_note(ctx, tokens),)
            holds = holds and needed <= b.pool  # the context asked for is not served whole
            reason = self.refusal(v, b) or self._pool_refusal(kv, b.pool, 0.0, ctx)
        else:
            reason = self.refusal(v, b) or self._pool_refusal(kv, b.pool, needed, ctx)
        request = kv.request_bytes(served or 1)
        conc = b.pool / request if b.pool > 0 and kv.block_bytes > 0 else 0.0
        return EngineMemory(
            b.memory,
            int(max(0.0, b.pool)),
            tokens,
            conc,
            reason is None,
            reason,
            served,
            sequences(st, tokens),
            kv.per_token,
            notes=notes,
            fraction=b.fraction,
            fraction_of=self.fraction_of(v),
            reserved_bytes=b.reserved,
            outside_bytes=b.away,
            request_bytes=needed,
            load_bytes=kv.load_bytes(load),
            holds_load=holds,
            host_memory_bytes=int(stage.host),
        )

    def _pool_refusal(self, kv: RequestKV, pool: float, needed: float, ctx: int) -> str | None:
        """The engine's start-up error in its words (its own ``empty_words``), or None."""
        if pool <= 0:
            return (
                f"no memory is left for the KV cache: {self.empty_cause} take all the memory "
                f"it may use.{POOL_LEVER} ({self.empty_words})"
            )
        if needed <= pool:
            return None
        fits = kv.largest_context(pool, ctx)
        return f"{request_refusal(ctx, needed, pool)}; the largest context that fits is {fits:,}"

    def pool_line(self, gpu: GPUSpec, em: EngineMemory) -> PoolLine:
        budget, words = self.budget_line(gpu, em)
        return PoolLine(True, False, budget, words, min(float(em.kv_pool_bytes), em.load_bytes))


def _cap_note(ctx: int, tokens: int) -> str:
    """What an engine that caps requests says instead of refusing (SGLang)."""
    return (
        f"the pool holds {tokens:,} tokens, fewer than max_context {ctx:,}: requests are capped "
        f"at {tokens - 1:,} tokens (input at most {tokens - 6:,}; longer prompts are rejected "
        "one by one), the engine still starts"
    )


# The empty pool's lever in a serving engine's words; an RL rollout's reason names its own
# fields instead (core/sizing/rl_unmet.py), so it is one constant both read
POOL_LEVER = " Let it use more of the GPU (memory_fraction), add GPUs or choose a smaller format"


REQUEST_REFUSAL_START = "one request of max_context "


def is_request_refusal(reason: str | None) -> bool:
    """Whether a refusal is the start-up check's request-over-pool words (``request_refusal``),
    not another check of the engine's (vLLM ``init_device``'s free memory, an empty pool)."""
    return reason is not None and reason.startswith(REQUEST_REFUSAL_START)


def request_refusal(ctx: int, needed: float, pool: float) -> str:
    """The start-up check's words where one request of ``max_context`` needs more than the pool
    (vllm/v1/core/kv_cache_utils.py ``check_enough_kv_cache_memory``)."""
    return (
        f"{REQUEST_REFUSAL_START}{ctx:,} tokens needs {needed / 2**30:.2f} GiB of KV "
        f"cache, more than the pool's {pool / 2**30:.2f} GiB"
    )
