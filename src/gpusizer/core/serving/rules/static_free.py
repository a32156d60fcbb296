"""SGLang's static fraction and TensorRT-LLM's free pool (docs/evidence/serving.md §2-3).

- ``static_pool`` (SGLang ``model_runner.py`` ``profile_max_num_token``): the pool is
  ``free x mem_fraction_static - weights``, where free is what the device has once the context
  and NCCL are up; the default fraction is the release's reservation formula
  (:func:`sglang_fraction`); on AMD GPUs the AITER backend's cut of the fraction and its
  workspace, allocated after the pool (core/serving/aiter.py). Inverse: ``(T - outside) x
  fraction >= weights + KV``, and the memory (weights + peak + outside + pool) fits the GPU.
- ``free_pool`` (TensorRT-LLM ``KvCacheConfig.free_gpu_memory_fraction``): the pool is that
  fraction of what is free after the weights and the activations of ``max_num_tokens``.
  Inverse: ``T >= weights + activations + outside + KV / fraction`` (the memory then fits).

Release-specific figures (the fraction formula, tiers, chunk sizes) are data on the
``EngineRelease`` entries (core/registry/engine_releases*.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from ...limits import MAX_BYTES
from ...model.architecture import Arch, resolve
from ...model.result import EngineMemory
from ...model.specs import GPUSpec, Scenario
from ...registry.engine_knobs import SGLangReserve
from ...registry.engines import BatchTier, MiB, cuda_total_bytes
from ...registry.sglang_reserve import ReserveStep, reserve_step
from ..aiter import aiter_note, fraction_cut, request_slots, runs_aiter, workspace_bytes
from ..engine_result import Load
from ..engine_settings import EngineSettings
from ..kv_pool import EngineView, PoolBudget, Stage, pool_parts
from ..kv_request import RequestKV, request_kv
from ..sglang_mamba import mamba_split
from ..trt_buffers import buffers_note, cpp_runtime_buffers
from .base import register_rule
from .pool import PoolRule


@register_rule
class StaticPool(PoolRule):
    """SGLang: (weights + KV pool) as a fraction of the free device."""

    key: ClassVar[str] = "static_pool"
    label: ClassVar[str] = "weights + KV pool as a fraction of the free device"
    caps_context: ClassVar[bool] = True
    offloads_weights: ClassVar[bool] = True  # --cpu-offload-gb (srt/utils/offloader.py)
    # python/sglang/srt/model_executor/model_runner.py ``init_memory_pool`` (0.4-0.5; later
    # mem_cache/pool_configurator.py ``MemoryPoolConfig``): raised where max_total_num_tokens
    # <= 0, the weights taking all of mem_fraction_static x the free memory
    empty_cause: ClassVar[str] = "the weights"
    empty_words: ClassVar[str] = (
        "SGLang's words: Not enough memory. Please try to increase --mem-fraction-static"
    )

    def fraction_of(self, v: EngineView) -> float:
        """SGLang's fraction multiplies the free memory at start (``min_per_gpu_memory``, after
        the context and NCCL), not the device total."""
        return float(v.total - v.outside)

    def budget(self, v: EngineView, stage: Stage) -> PoolBudget:
        st, rel, outside = v.st, v.st.release, v.outside
        assert rel is not None
        graphs = rel.graph_bytes if st.cuda_graphs else 0
        arch, ctx = resolve(v.s.model), st.max_context or 0
        fraction = st.memory_fraction or sglang_fraction(v.s, v.gpu, st)
        vlm = vlm_cut(v.s, st)
        if vlm != 1.0:
            fraction *= vlm
        cut = fraction_cut(v.s, arch, v.gpu, rel, ctx)
        pool = (v.total - outside) * fraction * cut - stage.weights
        work = _aiter_workspace(v, arch, stage, pool)  # allocated after the pool
        # DeepEP's buffers come after the pool too (at CUDA graph capture): beside the graphs
        after = graphs + work + v.a2a
        memory = pool_parts(stage.weights, stage.body, 0.0, outside + after, pool)
        notes = ((aiter_note(cut, work),) if work else ()) + v.a2a_notes
        if vlm != 1.0:
            notes += (
                f"SGLang cuts a multimodal model's mem_fraction_static x {vlm:.3f} (its vision encoder)",
            )
        if st.memory_fraction is None:
            notes += reserve_notes(v.s, st, rel.tier(v.gpu))
        return PoolBudget(fraction * cut, stage.weights, outside + after, pool, memory, notes)

    def _stage_memory(
        self, v: EngineView, stage: Stage, b: PoolBudget, kv: RequestKV, load: Load
    ) -> EngineMemory:
        """The pool's memory, a hybrid model's pool split between its states and its KV cache
        (core/serving/sglang_mamba.py)."""
        return mamba_split(v.s, resolve(v.s.model), v.gpu, super()._stage_memory(v, stage, b, kv, load))

    def pool_total(self, v: EngineView, stage: Stage, b: PoolBudget, kv: float) -> float:
        f = b.fraction
        if f <= 0:
            # The default fraction is 0 when SGLang's reservation for this GPU class and TP x PP
            # is the whole device (server_args.py): no device of these settings starts, so the
            # answer is "more than any GPU" (the bytes limit), not a division by zero.
            return float(MAX_BYTES)
        return (b.reserved + kv) / f + v.outside

    def floor_total(self, v: EngineView, stage: Stage, b: PoolBudget) -> float:
        f = b.fraction
        if f <= 0 or f >= 1:
            return 0.0
        graphs = b.away - v.outside
        return v.outside + (stage.body + graphs - v.driver) / (1 - f)

    def budget_line(self, gpu: GPUSpec, em: EngineMemory) -> tuple[int, str]:
        return em.memory.weights + em.kv_pool_bytes, "weights + pool"


@register_rule
class FreePool(PoolRule):
    """TensorRT-LLM: a fraction of what is free after weights and activations."""

    key: ClassVar[str] = "free_pool"
    label: ClassVar[str] = "a fraction of the memory free after weights and activations"
    # _torch/pyexecutor/_util.py (1.0) ``_cal_max_tokens``: available_kv_mem = (total - peak +
    # the profiling run's KV) x fraction, the peak holding the target's and the draft's weights
    fraction_after_weights: ClassVar[bool] = True
    # tensorrt_llm/_torch/pyexecutor/resource_manager.py ``KVCacheManager``
    # ``get_max_atten_window_upper_bound``: asserted where the pool holds no block of a sequence
    empty_cause: ClassVar[str] = "the weights, the activations and the runtime's buffers"
    empty_words: ClassVar[str] = "TensorRT-LLM's words: Impossible to fit in any sequence in kvCache"

    def budget(self, v: EngineView, stage: Stage) -> PoolBudget:
        fraction, outside = v.st.memory_fraction or 0.9, v.outside
        p = v.s.parallelism
        # the C++ runtime's buffers and decoder, taken before the pool (core/serving/trt_buffers.py)
        buffers = cpp_runtime_buffers(resolve(v.s.model), v.st, p.tensor * p.pipeline, stage.sp.last)
        reserved = stage.weights + stage.body + buffers
        pool = fraction * (v.total - outside - reserved)
        memory = pool_parts(stage.weights, stage.body, 0.0, outside + buffers, pool)
        notes = (buffers_note(buffers),) if buffers else ()
        return PoolBudget(fraction, reserved, outside, pool, memory, notes)

    def pool_total(self, v: EngineView, stage: Stage, b: PoolBudget, kv: float) -> float:
        return b.reserved + kv / b.fraction + b.away


def _aiter_workspace(v: EngineView, arch: Arch, stage: Stage, pool: float) -> float:
    """The AITER backend's paged-decode workspace on this GPU (core/serving/aiter.py; 0
    off AMD GPUs or releases without it), sized by the request slots of the pool."""
    st = v.st
    if pool <= 0 or not runs_aiter(v.s, arch, v.gpu, st.release):
        return 0.0
    ctx = st.max_context or 1
    # the pool's tokens as its requests page them (kv_request: the stage's own attention layers)
    tokens = request_kv(v.s, arch, st, stage.sp).pool_tokens(pool)
    return workspace_bytes(v.s, arch, request_slots(st.max_sequences, tokens, ctx), ctx)


def _by_class(mem_mib: float, ranks: int, extra_gib: float = 0.0) -> float:
    """SGLang 0.4.9 - 0.5.1 server_args.py __post_init__: GiB reserved by GPU class, TP x PP
    ranks ``ranks``: < 35 GiB (T4, A10, L4, 4090, 5090) 2.8 + ranks/10; < 90 (A100, H100) 9.5 +
    ranks/2; < 160 (H20, H200) 12 + ranks/2; else (B200, MI300) 32; plus ``extra_gib`` (DP
    attention and speculative decoding, :func:`_by_gpu_class`)."""
    gib = mem_mib / 1024
    if gib < 35:
        reserved = 2.8 + ranks / 10
    elif gib < 90:
        reserved = 9.5 + ranks / 2
    elif gib < 160:
        reserved = 12 + ranks / 2
    else:
        reserved = 32.0
    if extra_gib:
        reserved += extra_gib
    return round((gib - reserved) / gib, 3) if gib > reserved else 0.0


def sglang_fraction(s: Scenario, gpu: GPUSpec, st: EngineSettings) -> float:
    """SGLang's default ``mem_fraction_static`` (server_args.py): 0.4.3 by TP size; 0.4.9 -
    0.5.1 by GPU class (:func:`_by_class`); 0.5.3 on 1 - reserved / memory with reserved MiB
    = 512 + max(chunk, 2048) x 1.5 + graph batch x 2 + TP x PP / 8 x 1024, at least 10 GiB on
    GPUs above 60 GiB; each with the DP-attention, speculative and DeepEP terms of its version
    (core/registry/sglang_reserve.py)."""
    rel = st.release
    assert rel is not None
    return _RESERVES[rel.sglang_knobs.reserve](s, gpu, st)


def _by_tp(s: Scenario, gpu: GPUSpec, st: EngineSettings) -> float:
    """SGLang 0.4.3: the fraction by TP size (the whole engine's under DP attention)."""
    tp = _tp(s)
    return next(f for n, f in ((16, 0.79), (8, 0.81), (4, 0.85), (2, 0.87), (1, 0.88)) if tp >= n)


def _by_gpu_class(s: Scenario, gpu: GPUSpec, st: EngineSettings) -> float:
    p, step = s.parallelism, _step(s, st)
    flat = step.dp_flat_mib if _dp_size(s) > 1 and step.dp == "flat" else 0
    extra = flat + step.speculative(_spec_method(s))
    return _by_class(cuda_total_bytes(gpu) / MiB, _tp(s) * p.pipeline, extra / 1024)


def _formula(s: Scenario, gpu: GPUSpec, st: EngineSettings) -> float:
    """SGLang 0.5.3 on: 1 - reserved / memory (see :func:`sglang_fraction`). The base's graph
    batch is the tier's TP < 4 one at every TP (SGLang's default at TP >= 4 is 512 from 60 GiB:
    512 MiB more reserve on H100 / H200 at TP 4-8, not read here as it would move every such
    answer); the DP-attention term reads the TP-sized one (:func:`_dp_per_graph`)."""
    p, rel = s.parallelism, st.release
    assert rel is not None
    mem_mib = cuda_total_bytes(gpu) / MiB
    tier = rel.tier(gpu)
    chunk = st.prefill_chunk_tokens or (tier.prefill_chunk_tokens if tier else 2048)
    graph = tier.graph_batch if tier else 8
    reserved = 512 + max(chunk, 2048) * 1.5 + graph * 2 + _tp(s) * p.pipeline / 8 * 1024
    step = _step(s, st)
    if _dp_size(s) > 1 and step.dp == "per_graph":
        reserved += _dp_per_graph(s, tier, _dp_size(s))
    if mem_mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    after = step.speculative(_spec_method(s)) + (step.deepep_mib if _deepep(s, st) else 0)
    if after:
        reserved += after
    return round((mem_mib - reserved) / mem_mib, 3) if mem_mib > reserved else 0.0


def vlm_cut(s: Scenario, st: EngineSettings) -> float:
    """A multimodal model's cut of SGLang's fraction (1: none): a model with a vision encoder
    (SGLang's ``model_config.is_multimodal``) by its version's rule
    (core/registry/sglang_reserve.py ``ReserveStep.vlm_cut``; to 0.4.8 of a stated fraction too)."""
    vision = s.model.vision
    if vision is None:
        return 1.0
    stated = st.memory_fraction is not None  # --mem-fraction-static given
    return _step(s, st).vlm_cut(vision.layers, vision.hidden_size, stated)


def reserve_notes(s: Scenario, st: EngineSettings, tier: BatchTier | None) -> tuple[str, ...]:
    """What the default fraction reserves beyond the base for DP attention, speculative decoding
    and DeepEP (none without them; the DP term counts before the 10 GiB floor, the others after
    it from 0.5.3)."""
    step, rel = _step(s, st), st.release
    assert rel is not None
    if rel.sglang_knobs.reserve_by_tp:
        return ()
    dp, parts = _dp_size(s), []
    if dp > 1 and step.dp != "none":
        mib = step.dp_flat_mib if step.dp == "flat" else _dp_per_graph(s, tier, dp)
        parts.append(f"{mib / 1024:.1f} GiB for DP attention at dp {dp}")
    spec = step.speculative(_spec_method(s))
    if spec:
        parts.append(f"{spec / 1024:.0f} GiB for speculative {_spec_method(s)}")
    if step.deepep_mib and _deepep(s, st):
        parts.append(f"{step.deepep_mib / 1024:.0f} GiB for DeepEP")
    if not parts:
        return ()
    return (f"SGLang {step.since}+ reserves beyond its default's base: " + ", ".join(parts),)


def _step(s: Scenario, st: EngineSettings) -> ReserveStep:
    """The reserve terms of the SGLang version the scenario runs (its own, else the release's)."""
    rel = st.release
    assert rel is not None
    return reserve_step(s.serving.engine_version or rel.version)


def _dp_size(s: Scenario) -> int:
    """SGLang's ``dp_size`` under ``--enable-dp-attention``: the engine's attention data
    parallelism (1: DP attention off; a rank's view remembers its engine's)."""
    return s.parallelism.engine_group[1]


def _tp(s: Scenario) -> int:
    """SGLang's ``tp_size``: the whole engine's, which under DP attention spans its ranks
    (``--tp N --dp A``; a rank's view runs attention at N / A)."""
    return s.parallelism.engine_group[0]


def _spec_method(s: Scenario) -> str | None:
    """The speculative method a serving scenario runs (None: off)."""
    spec = s.serving.speculative
    return spec.method if spec is not None and not s.workload.trains else None


def _deepep(s: Scenario, st: EngineSettings) -> bool:
    """SGLang's ``moe_a2a_backend == "deepep"`` with its decode CUDA graphs on."""
    return str(s.serving.moe_a2a_backend or "").startswith("deepep") and st.cuda_graphs


def _dp_per_graph(s: Scenario, tier: BatchTier | None, dp: int) -> float:
    """SGLang 0.5.3 on, DP attention: cuda_graph_max_bs x dp_size x 3 MiB, and x 1.5 more above
    300 (server_args.py _handle_gpu_memory_settings: "DP attention needs more padding for some
    operations"; "uses much more memory for large cuda graph max bs"). cuda_graph_max_bs is the
    largest stated ``serving.cuda_graph_batch_sizes`` (SGLang: ``max(self.cuda_graph_bs)``),
    else the GPU class's default at the TP size (TP >= 4: ``graph_batch_wide``)."""
    sizes = s.serving.cuda_graph_batch_sizes
    if sizes:
        bs = max(sizes)
    elif tier is None:
        bs = 8
    else:
        wide = _tp(s) >= 4 and tier.graph_batch_wide
        bs = tier.graph_batch_wide if wide else tier.graph_batch
    return bs * dp * 3 + (bs * dp * 1.5 if bs > 300 else 0)


# SGLang's ``reserve`` mode -> its default fraction (a release naming no SGLang knobs takes
# the newest rule, as the formula branch did).
_RESERVES: dict[SGLangReserve, Callable[[Scenario, GPUSpec, EngineSettings], float]] = {
    "by_tp": _by_tp,
    "by_class": _by_gpu_class,
    "formula": _formula,
}
