"""vLLM's memory rule, V0 and V1 (key ``profiled_pool``; docs/evidence/serving.md §1).

vLLM reserves ``gpu_memory_utilization`` x the device total, profiles a dummy batch and pages
the rest as KV (V1 ``gpu_worker.py`` ``determine_available_memory``; V0 ``worker.py``
``determine_num_available_blocks``)::

    pool = fraction x total - weights - profile peak - non-torch (- CUDA graphs from 0.20)

What differs between releases is data on each ``EngineRelease`` (core/registry/
engine_releases.py): whether the CUDA context lies inside the fraction (``context_in_budget``:
V0 up to 0.6.x), where V1 takes the snapshot the budget counts from (``budget_snapshot``: none
in 0.8.x, before NCCL in 0.9.1-0.10.x, after it from 0.11.0), whether V1 refuses unless
fraction x total is free at start (``startup_free_check``, ``init_device``), whether the pool
pays for the CUDA graphs (``graphs_in_pool``, 0.20 on), the non-torch and NCCL bytes, the
sampler peak, and how one request's KV is counted (``kv_layout``: V0 charges every layer the
whole context, V1's hybrid manager pages windows and states; core/serving/kv_request.py). A
new release is one entry.

Inverse (the smallest device total T = capacity - driver reserve that runs the load)::

    fraction x T >= inside = reserved + KV the load and one max_context request need
    (1 - fraction) x T >= outside          (V1's free check: context, NCCL before the snapshot)
    (1 - fraction) x T >= away - driver    (the memory, fraction x T + away, fits the GPU)
"""

from __future__ import annotations

from typing import ClassVar

from ...model.result import EngineMemory
from ...model.specs import GPUSpec
from ...registry.engines import cuda_total_bytes
from ..engine_settings import EngineSettings
from ..kv_pool import EngineView, PoolBudget, Stage, pool_parts
from .base import register_rule
from .pool import PoolRule


@register_rule
class ProfiledPool(PoolRule):
    """vLLM V0 and V1: a fraction of the device, less what the profile run measured."""

    key: ClassVar[str] = "profiled_pool"
    label: ClassVar[str] = "a fraction of the device, less weights and the profiled peak, paged as KV"
    offloads_weights: ClassVar[bool] = True  # --cpu-offload-gb (maybe_offload_to_cpu)
    # vllm/v1/core/kv_cache_utils.py ``check_enough_kv_cache_memory``: "No available memory for
    # the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine."
    empty_cause: ClassVar[str] = "the weights, the engine's start-up test run and its own runtime memory"
    empty_words: ClassVar[str] = "vLLM's words: No available memory for the cache blocks"

    def budget(self, v: EngineView, stage: Stage) -> PoolBudget:
        st, rel, p = v.st, v.st.release, v.s.parallelism
        assert rel is not None
        graphs = rel.graph_bytes if st.cuda_graphs else 0
        ranks = p.tensor * p.pipeline
        fraction = st.memory_fraction or 0.9
        before = _before_snapshot(v)
        non_torch = (
            rel.vllm.non_torch_bytes
            + _comm(v, ranks)
            + (v.outside - before)  # what the snapshot does not see counts inside
            + v.a2a  # DeepEP's buffers, made at model load: the profile sees them
        )
        reserved = (
            stage.weights
            + max(stage.body, stage.sampler)
            + non_torch
            + (graphs if rel.vllm.graphs_in_pool else 0)
        )
        pool = fraction * v.total - reserved
        context = 0 if rel.vllm.context_in_budget else before
        away = context + (0 if rel.vllm.graphs_in_pool else graphs)
        memory = pool_parts(stage.weights, stage.body, stage.sampler, non_torch + graphs + context, pool)
        return PoolBudget(fraction, reserved, away, pool, memory, v.a2a_notes)

    def refusal(self, v: EngineView, b: PoolBudget) -> str | None:
        """V1 ``init_device``: the engine refuses unless fraction x total is free at start."""
        total, outside = v.total, _before_snapshot(v)
        if not _free_check(v.st) or b.fraction * total <= total - outside:
            return None
        return (
            f"free memory on the device ({(total - outside) / 2**30:.2f} GiB) is less "
            f"than memory_fraction x total ({b.fraction * total / 2**30:.2f} GiB)"
        )

    def pool_total(self, v: EngineView, stage: Stage, b: PoolBudget, kv: float) -> float:
        return (b.reserved + kv) / b.fraction

    def floor_total(self, v: EngineView, stage: Stage, b: PoolBudget) -> float:
        f = b.fraction
        if f >= 1:  # everything in the budget: only the pool's term is left
            return 0.0
        free = _before_snapshot(v) / (1 - f) if _free_check(v.st) else 0.0
        return max(free, (b.away - v.driver) / (1 - f))

    def budget_line(self, gpu: GPUSpec, em: EngineMemory) -> tuple[int, str]:
        f = em.fraction
        return (int(f * cuda_total_bytes(gpu)), f"{f:g} of the GPU") if f else (0, "")


def _comm(v: EngineView, ranks: int) -> int:
    """The release's non-torch growth with more than one rank, unless the GPUs' link is one
    it is not charged on (``VLLMKnobs.comm_free_links``: V1 on PCIe) and the ranks are one
    tensor-parallel group: the PCIe logs that show no growth are TP groups; no PCIe log of a
    pipeline's stages was found, so a pipeline keeps the measured growth."""
    knobs = v.st.release.vllm if v.st.release is not None else None
    if knobs is None or ranks <= 1:
        return 0
    if v.gpu.interconnect_kind in knobs.comm_free_links and v.s.parallelism.pipeline == 1:
        return 0
    return knobs.comm_bytes + (ranks - 1) * knobs.comm_per_peer_bytes


def _before_snapshot(v: EngineView) -> int:
    """What is on the device before the memory snapshot the budget counts from (outside the
    fraction): the CUDA context and NCCL's buffers (0.11.0 on), the context alone (0.9.1-0.10.x:
    the snapshot precedes the distributed init), nothing (0.8.x: device used - torch allocated
    counts all of it inside)."""
    rel = v.st.release
    return rel.vllm.before_snapshot(v.outside, v.nccl) if rel is not None else v.outside


def _free_check(st: EngineSettings) -> bool:
    """Whether the release refuses unless fraction x total is free (V1; a V0 context inside
    the budget leaves nothing to check)."""
    rel = st.release
    return rel is not None and not rel.vllm.context_in_budget and rel.vllm.startup_free_check
