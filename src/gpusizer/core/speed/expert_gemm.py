"""How much slower a MoE layer's routed experts multiply than the large GEMMs the training rates
were measured on: each expert runs its own GEMM of (tokens it received) x (its width) x (the
hidden size), and narrow experts at a few thousand tokens each run well below the best shape.

What the frameworks run: Megatron-Core's ``TEGroupedMLP`` calls Transformer Engine's
``GroupedLinear``, whose ``general_grouped_gemm`` issues one cuBLAS GEMM per local expert over
several CUDA streams (``transformer_engine/pytorch/cpp_extensions/gemm.py``; the "multi-stream
cuBLAS grouped GEMM" of Megatron-LM's DeepSeek-V3 GB200 guide); torchtitan and transformers'
``grouped_mm`` / per-expert loops run one GEMM per expert as well. So an expert's GEMM goes at
the rate cuBLAS reaches on its own shape.

The rate by shape is measured: NVIDIA aiconfigurator 0.12.0's GEMM tables
(``aiconfigurator_core/systems/data/<gpu>/gemm/trtllm/<release>/gemm_perf.parquet``, kernel
``torch_flow``: BF16 ``torch`` matmuls, i.e. cuBLAS, timed by shape ``m x n x k``), H100 SXM
and B200 at release 1.3.0rc20, A100 SXM at 1.0.0. Over every row with m 1,024-32,768 and
n, k 512-8,192 (1,014 shapes on H100 and B200, 676 on A100) the measured TFLOPS follow

    rate(m, n, k) = peak / (1 + m0 / m + n0 / n + k0 / k)

(each dimension's edge tiles, the pipeline's prologue and epilogue per tile, and the wave
quantisation shrink as that dimension grows), least squares on log TFLOPS, "peak" the median of
the table's shapes with m, n, k 4,096-16,384 (H100 786 TFLOPS, the MAMF table's 794.5 that
the training rates take): median error 9 % (H100), 15 % (B200), 12 % (A100). The constants per
GPU generation are :data:`SHAPE_TOKENS`. Checked on the H100 rows at the experts' own shapes:
Qwen3-30B-A3B's fc2 (4,096 x 2,048 x 768) 612 TFLOPS measured, 605 by the rule; its fc1
(4,096 x 1,536 x 2,048) 718 and 668; DeepSeek-V3's fc1 (1,024 x 4,096 x 7,168) 774 and 685.
FP8 experts (``precision.matmuls: "fp8"``) take FP8's own constants, :data:`FP8_SHAPE_TOKENS`:
the tables' FP8 rows time TensorRT-LLM's dynamic per-tensor FP8 linear, the input's
quantisation included, which the same wheel times apart (``quantize/trtllm/1.3.0rc20/
computescale_perf.parquet`` and ``scale_matrix_perf.parquet``, by m x k); the GEMM alone is the
row's latency less those two (the casts are priced elsewhere, core/speed/train_ops.py
``float8_bytes``). Fitted the same way: H100 (964 shapes) median error 16 %, B200 (888) 19 %;
the large shapes 1,502 TFLOPS GEMM alone on H100 (MAMF's FP8 1,402.6), 2,902 on B200. A narrow
FP8 GEMM loses more of its rate than a BF16 one (it finishes each tile's main loop twice as
fast, so the fixed costs per tile weigh more): Qwen3-30B-A3B's fc2 at 4,096 tokens runs 891
TFLOPS GEMM alone on H100, 0.59 of the large shapes, where BF16 runs 0.78. MXFP8 (Blackwell's
block-scaled FP8, Transformer Engine's recipe in the Megatron-Bridge rows) takes the per-tensor
FP8 constants: no block-scaled table was measured.

Each expert GEMM's rate is taken relative to the rule's value at 8,192^3 (the large shapes the
MAMF rates stand for), so a wide expert at many tokens runs at the dense rate, as before.
"""

from __future__ import annotations

from ..memo import Memo
from .train_ops import TrainShape

# (m0, n0, k0) per compute-capability major, fitted to each generation's cuBLAS table (above)
SHAPE_TOKENS: dict[int, tuple[float, float, float]] = {
    8: (209.0, 179.0, 162.0),  # A100 SXM, aiconfigurator 1.0.0
    9: (192.0, 73.0, 167.0),  # H100 SXM, 1.3.0rc20
    10: (271.0, 117.0, 86.0),  # B200, 1.3.0rc20
}
# FP8 GEMMs alone (the quantisation subtracted, above): H100 and B200, 1.3.0rc20
FP8_SHAPE_TOKENS: dict[int, tuple[float, float, float]] = {
    9: (314.0, 311.0, 474.0),
    10: (444.0, 163.0, 336.0),
}
_REFERENCE = 8192.0  # the large square GEMM the MAMF rates stand for
# the sizing search asks for the same few shapes across thousands of layouts
_SLOWDOWNS: Memo[tuple[float, float, float]] = Memo(4096)


def _efficiency(m: float, n: float, k: float, c: tuple[float, float, float]) -> float:
    return 1.0 / (1.0 + c[0] / max(m, 1.0) + c[1] / max(n, 1.0) + c[2] / max(k, 1.0))


def shape_share(m: float, n: float, k: float, major: int, fp8: bool = False) -> float:
    """The rate of one ``m x n x k`` GEMM as a share of the large-GEMM rate, on a GPU of this
    compute-capability major (the nearest measured generation where none was measured: GeForce
    and workstation Blackwell, 12.x, take B200's; :func:`routed_shape` gives a GPU without a
    CUDA compute capability Hopper's, as the training step's ``sustained`` share does); at
    most 1."""
    table = FP8_SHAPE_TOKENS if fp8 else SHAPE_TOKENS
    known = sorted(table)
    gen = major if major in table else (known[-1] if major > known[-1] else known[0])
    c = table[gen]
    return min(1.0, _efficiency(m, n, k, c) / _efficiency(_REFERENCE, _REFERENCE, _REFERENCE, c))


def expert_slowdown(
    m: float, hidden: float, width: float, gated: bool, major: int, fp8: bool = False
) -> tuple[float, float, float]:
    """Forward and backward time of the routed experts' GEMMs over their time at the large-GEMM
    rate, for ``m`` tokens per local expert, an expert ``width`` (its intermediate size on this
    GPU) and the ``hidden`` size. Forward: fc1 (m x g·width x hidden, g = 2 gated) and fc2
    (m x hidden x width); backward the input gradients (m x hidden x g·width, m x width x
    hidden) and the weight gradients (g·width x hidden x m, hidden x width x m); third, the
    input gradients alone (frozen experts under an adapter). Each GEMM is weighed by its FLOPs."""
    if m <= 0 or width <= 0 or hidden <= 0:
        return 1.0, 1.0, 1.0
    key = (m, hidden, width, gated, major, fp8)
    return _SLOWDOWNS.get(key, lambda: _slowdown(m, hidden, width, gated, major, fp8))


def _slowdown(
    m: float, hidden: float, width: float, gated: bool, major: int, fp8: bool
) -> tuple[float, float, float]:
    g = 2.0 if gated else 1.0
    fc1, fc2 = g * width * hidden, width * hidden  # FLOPs weights of the two GEMMs

    def time(shapes: tuple[tuple[float, float, float, float], ...]) -> float:
        total = sum(w for w, *_ in shapes)
        return sum(w / shape_share(a, b, c, major, fp8) for w, a, b, c in shapes) / total

    forward = time(((fc1, m, g * width, hidden), (fc2, m, hidden, width)))
    inputs = ((fc1, m, hidden, g * width), (fc2, m, width, hidden))
    backward = time((*inputs, (fc1, g * width, hidden, m), (fc2, hidden, width, m)))
    return forward, backward, time(inputs)


def routed_shape(
    tokens: float,
    ts: TrainShape,
    ep: float,
    tp: int,
    busiest: float,
    compute_capability: str | None,
    fp8: bool = False,
) -> tuple[float, float, float]:
    """The routed experts' GEMM slowdowns (:func:`expert_slowdown`) of one micro-batch of
    ``tokens`` on a GPU: each local expert receives ``tokens x top_k x EP / experts`` of them
    (balanced; ``busiest`` times more on the busiest rank under the router's own load), at
    1/TP of its width (``ep`` and ``tp``: EP in units of TP and the expert TP,
    core/model/expert_tensor.py; Megatron's default expert TP = TP); ``fp8``: FP8 experts. 1 for
    a dense model."""
    if not ts.top_k or not ts.experts or not ts.expert_width:
        return 1.0, 1.0, 1.0
    m = tokens * ts.top_k * ep / ts.experts * busiest
    major = int(compute_capability.split(".")[0]) if compute_capability else 9
    return expert_slowdown(m, ts.hidden, ts.expert_width / tp, ts.gated, major, fp8)
