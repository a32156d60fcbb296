"""The Gated DeltaNet decode update as its kernel was measured: seconds per call by the recurrent
state it reads and writes, in place of the state's bytes at the step's achieved bandwidth
(core/speed/step_terms.py).

A decode step updates each Gated DeltaNet layer's state of every sequence in one Triton kernel of
fla's lineage: vLLM's ``fused_recurrent_gated_delta_rule_fwd`` (vllm/model_executor/layers/fla/
ops/fused_recurrent.py) and SGLang's ``fused_sigmoid_gating_delta_rule_update``
(python/sglang/srt/layers/attention/fla/fused_sigmoid_gating_recurrent.py, its first version:
``BV = min(next_power_of_2(V), 8)``, ``num_warps = 1``, ``num_stages = 3``, the same launch as
vLLM's). Each program walks one (sequence, value head) state tile of dk x 8 values with one warp:
the kernel streams the state far below the HBM rate a GEMV reaches.

Measured: vllm-project/vllm PR #31722 ("[PERF] Speed-up of GDN attention decode part
(Qwen3-Next)", 2026-01-05), the "Before" tables: ``fused_recurrent_gated_delta_rule_fwd`` with
Qwen3-Next's shapes (16 key / 32 value heads of 128 split over TP 2 or 4, batch 32-1,024, one
token a sequence, ``use_qk_l2norm_in_kernel``), a bf16 state pool, timed by CUPTI with a cold L2
(its benchmark script: ``bench_gpu_time_with_cupti(..., cold_l2_cache=True, use_cuda_graph=
False)``, ``initial_state`` ``torch.bfloat16``), on the H200 and the B200. A call's bytes are
(sequences x value heads on the GPU) x dk x dv x 2 (read and written) x the state's bytes; the
TP 2 and TP 4 rows agree within 3 % at the same bytes (H200: 2,048 head-states 93.4 / 94.2 us),
so the time is read by bytes: linearly between two measured points, along the first two
points' line below the smallest (34 MB on the H200 at 30.1 us; the line meets 0 bytes at
9.4 us), in proportion above the largest. The H200's rows stream 1.6 TB/s (a third of its
4.8 TB/s), the B200's 2.3 TB/s; at SGLang's fp32 state (core/model/state.py) a call moves twice
a bf16 pool's bytes and is read at those bytes.

The H20: alibaba/InferSim ``bench_data/gdn/decode/h20/4-16-128-32-128.csv`` (its
``kernel_benchmark/sgl_gdn_update.py``: SGLang's ``fused_sigmoid_gating_delta_rule_update`` with
Qwen3-Next's whole head set, 16 key / 32 value heads of 128, an fp32 state as SGLang keeps it,
``use_qk_l2norm_in_kernel``, ``triton.testing.do_bench``, no graph): 84 us at 32 sequences to
2,425 at 1,024 (1.7-1.8 TB/s once ~7 us is paid, 44 % of the H20's 4.0 TB/s). Its rows at 1 and 16
sequences (66 us both) are left out: equal times at 16x the bytes are the benchmark's Python
launch of a Triton kernel outside a graph, not the kernel (the rows from 32 on lie on one line
that meets 0 bytes at ~7 us, as the H200's does at 9.4), and a served step replays a graph. The
SGLang release InferSim ran is not stated; the table is read as the other two are, for releases
dated before 2026-01.

Which releases: the PR's kernel ("After": 1.6x faster at 1,024 sequences) is vLLM's from its
merge (2026-01); SGLang's later versions launch ``BV = 32`` as well. The table is read for
vendor engines' releases dated before 2026-01 on the GPUs measured; others keep the bytes
at the achieved bandwidth.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import NamedTuple

from ..model.architecture import resolve
from ..model.specs import Scenario
from ..model.state import state_bytes_per_sequence
from ..registry.engines import EngineRelease
from .roofline_shape import Shape
from .step_costs import Rate

Points = tuple[tuple[float, float], ...]  # (bytes read + written per call, seconds), ascending

_HEAD_STATE = 2 * 128 * 128 * 2  # bytes one (sequence, value head) bf16 state moves, read + written
_US = 1e-6
# (value head-states per call, microseconds): TP 4 at 32 sequences (256), TP 2 at 32 (512), then
# TP 2 at 128-1,024 (TP 4's rows at 1,024-8,192 head-states within 3 % of these, left out)
_H200 = (
    (256, 19.87),
    (512, 30.14),
    (1024, 52.06),
    (2048, 93.38),
    (4096, 176.10),
    (8192, 341.63),
    (16384, 672.48),
)
_B200 = (
    (256, 12.26),
    (512, 19.23),
    (1024, 34.91),
    (2048, 63.58),
    (4096, 122.30),
    (8192, 239.23),
    (16384, 473.53),
)
# (sequences x 32 value heads, microseconds) at an fp32 state: InferSim's H20 rows from 32 on
_H20 = (
    (1024, 84.0),
    (2048, 161.0),
    (4096, 312.0),
    (8192, 613.0),
    (16384, 1204.0),
    (32768, 2425.0),
)
TABLES: dict[str, Points] = {
    gpu: tuple((n * _HEAD_STATE * state_bytes // 2, t * _US) for n, t in rows)
    for gpu, rows, state_bytes in (("h200-141gb", _H200, 2), ("b200-192gb", _B200, 2), ("h20-96gb", _H20, 4))
}
BEFORE = "2026-01"  # the month vLLM PR #31722 merged


class UpdateTerm(NamedTuple):
    """The measured update of a model's Gated DeltaNet layers on one GPU: the layers, the bytes
    one sequence's update moves per layer (read + written), the kernel's measured points."""

    layers: int
    bytes_per_seq: float
    points: Points


def update_points(gpu: str, release: EngineRelease | None, library: str) -> Points:
    """The measured table where the engine's release runs the measured kernel (module
    docstring); empty elsewhere."""
    if library != "vendor" or release is None or release.date >= BEFORE:
        return ()
    return TABLES.get(gpu, ())


def update_seconds(points: Points, nbytes: float) -> float:
    """Seconds of one update call moving ``nbytes`` (module docstring's reading)."""
    if nbytes <= 0:
        return 0.0
    i = bisect_left([p[0] for p in points], nbytes)
    if i >= len(points):
        b, t = points[-1]
        return t * nbytes / b
    (b0, t0), (b1, t1) = (points[0], points[1]) if i == 0 else (points[i - 1], points[i])
    return t0 + (t1 - t0) * (nbytes - b0) / (b1 - b0)


def update_term(s: Scenario, points: Points) -> UpdateTerm | None:
    """Gated DeltaNet's decode update at its kernel's measured ``points`` (``update_points``)
    where the model's only recurrent layers are Gated DeltaNet's; None elsewhere."""
    la = s.model.linear_attention
    if not points or la is None or not la.layers or s.model.mamba is not None:
        return None
    arch = resolve(s.model)
    recurrent = state_bytes_per_sequence(
        arch, s.profile, s.precision.activations, s.parallelism.tensor
    ).recurrent
    return UpdateTerm(la.layers, 2.0 * recurrent / la.layers, points)


def state_seconds(
    sh: Shape,
    rate: Rate,
    update: UpdateTerm | None,
    floor: float,
    work: tuple[float, float, float],
    passes: int = 1,
) -> float:
    """Seconds of the recurrent layers' state in a step of ``work`` = (decodes, prompt tokens,
    prompts): read and written ``passes`` times by each decode (llama.cpp's copies around its
    op, core/speed/ggml_gdn.py; once elsewhere), written by each prompt, the prompts at the
    chunked kernel's FLOPs (core/model/mixer_kinds.py); the decodes' Gated DeltaNet update at
    its kernel's measured time where ``update`` holds it (its own ``floor`` is counted with the
    step's kernels, core/speed/step_kernels.py)."""
    decodes, prefill, prefill_seqs = work
    moved = sh.state_seq * (2 * passes * decodes + prefill_seqs)
    flops = decodes * sh.state_flops + prefill * sh.state_chunk_flops
    measured = 0.0
    if update is not None and decodes:
        call = update_seconds(update.points, decodes * update.bytes_per_seq)
        measured = update.layers * max(0.0, call - floor)
        moved -= update.layers * decodes * update.bytes_per_seq  # the conv state stays
        flops -= decodes * sh.state_flops
    return measured + max(flops / rate.attention, moved / rate.bandwidth)
