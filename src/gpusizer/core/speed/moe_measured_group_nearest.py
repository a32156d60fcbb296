"""TensorRT-LLM's CUTLASS fused MoE at an expert shape its measured table lacks: the nearest
measured shape's calls at the same GPU, experts' format and EP, scaled by the step's own expert
terms, as core/speed/moe_measured_nearest.py reads the Triton tables.

Why: the table (core/speed/moe_measured.py ``trtllm-cutlass-moe``: aiconfigurator 0.12.0's
TensorRT-LLM 1.3.0rc20 ``moe_torch_flow_cutlass``, scripts/trtllm_cutlass_moe_table.py) holds
five expert shapes; elsewhere the step priced the experts at the grouped rates, which carry no
kernel floors beyond the step's own. On the B200 the measured module at Qwen3-235B's shape (FP8,
EP 4) takes 57 / 66 us a layer at 4 / 8 tokens of the EP group, where that rank's expert reads
at 8 TB/s take at most 19 us (docs/evidence/speed.md, blind round 7): routing, quantisation,
permute, two grouped GEMMs and finalize each run at their own small-batch floor.

Rule: among the table's rows on the GPU (a GB200 reads the B200's, below) in the experts'
format at the step's EP, under the step's routing where the table holds it, else under the
table's other routing, take the shape nearest in the sum of |log| ratios of the hidden size,
expert width, expert count and top-k (moe_measured_nearest.py ``nearest``'s distance). Its
calls, as a rank's tokens (``group_module``), become the target's as

    measured(t) x (rates_target(t) + floors) / (rates_near(t) + floors)

(moe_measured_nearest.py ``scaled_points``), each side's rates read at its own routing's skew
(``ROUTINGS``: the power law the row was timed under) and the experts whole on a rank. Nothing
is solved from a serving figure. Held out against the table itself (each shape's rows taken
out and read from the rest, 1-1,024 tokens of a rank, 152 series of every GPU, format and EP):
rule / measured has a median of 0.95-1.07 at each count, within 25 % on 57-105 of 152 series,
where the rates read 0.35-0.50 of the measured call (24-40 within);
scripts/trtllm_moe_nearest_holdout.py, docs/evidence/speed.md (the section on TensorRT-LLM's
MoE floors on Blackwell), pinned in tests/core/test_trtllm_moe_nearest.py. The farthest
neighbour the hold-out read was 2.08 away (Scout's and Maverick's shapes, each other's); no row
farther than ``MAX_DISTANCE`` is read (a top-1 shape from a top-8 one is 3.9 or more away).

GB200: no GB200 table is read (docs/evidence/speed.md section 49 found its rows up to 2x faster
than the B200's for the same die at one shape, a collection defect). TensorRT-LLM selects its
MoE kernels by SM version (``get_sm_version()``; the GB200's and B200's Blackwell GPU are both
compute capability 10.0, NVIDIA's CUDA GPUs list), so both run the same kernels; both carry
8 TB/s of HBM3e, and the GB200's GPU runs under a higher power cap (NVIDIA's DGX B200 and
GB200 NVL72 data sheets: 4.5 against 5 dense FP8 PFLOPS a GPU), so a compute-bound call may run
up to a tenth faster than read here; a small-batch call, bound by launches and HBM, reads alike.
Only at the keys where aiconfigurator's own GB200 table agrees with the B200's within that
tenth; at the 12 where it does not, the GB200's own measured row
(core/speed/moe_stand_in_agreement.py).

Read only where the exact shape is not measured and the step is as the table was measured
(step_model.py ``_group_measured``'s conditions: whole experts over the EP ranks, the router's
own skew, no stated balance, no redundant replicas, not block-scaled FP8).
"""

from __future__ import annotations

import math

from .moe_measured import MODULE_KERNELS, MODULE_TABLES, Points, measured_tables
from .moe_measured_nearest import probe_terms
from .moe_stand_in_agreement import stand_in_points
from .step_moe import BALANCED_ROUTING_ALPHA, ROUTING_ALPHA, ExpertTerms

# catalog GPU -> the GPU whose rows it reads (module docstring)
STAND_IN = {"gb200-186gb": "b200-192gb"}
# the power laws the table's rows were timed under, by the skew the step prices them at
ROUTINGS = {"power_law_1.01": BALANCED_ROUTING_ALPHA, "power_law_1.2": ROUTING_ALPHA}
# the farthest measured neighbour read (module docstring): the hold-out's pairs of one top-k
MAX_DISTANCE = 2.1
Shape4 = tuple[int, int, int, int]  # (experts, hidden, intermediate, top-k)
GroupNear = tuple[Shape4, float, Points]  # (shape, its routing's alpha, calls as group tokens)


def group_layout(tensor: int, expert: int, in_tensor: int) -> tuple[int, int] | None:
    """(the table's EP, what a rank's tokens are multiplied by to give the row's tokens) for a
    step of ``tensor`` x ``expert`` ranks with ``in_tensor`` whole-expert shards inside each TP
    group (core/serving/expert_in_tensor.py); None where the experts are also TP-split.

    Whole experts over EP ranks that each hold their own tokens (attention DP): the row at a
    rank's tokens x EP (moe_measured.py ``group_module``). Whole experts sharded inside TP
    (TensorRT-LLM ``moe_expert_parallel_size`` = ``tp_size``, no attention DP): every rank
    holds the step's tokens after attention's all-reduce, routes them all and computes those
    routed to its own experts, the outputs summed by the TP all-reduce
    (tensorrt_llm/_torch/modules/fused_moe/fused_moe_cutlass.py, 1.0: no all-gather without
    attention DP), which is the collector's call of ``num_tokens`` tokens over EP ranks: the row
    at the rank's own tokens."""
    if in_tensor > 1:
        return (in_tensor, 1) if expert == 1 and in_tensor == tensor else None
    return (expert, expert) if expert >= tensor else None


def distance(a: Shape4, b: Shape4) -> float:
    """moe_measured_nearest.py's distance with the experts whole on a rank."""
    return sum(abs(math.log(x) - math.log(y)) for x, y in zip(a, b, strict=True))


def group_nearest(
    kernel: str, gpu: str, shape: Shape4, dtype: str, ep: int, alpha: float
) -> GroupNear | None:
    """The measured row of group table ``kernel`` nearest ``shape`` on ``gpu`` (or its stand-in)
    in ``dtype`` at ``ep``, under the routing of ``alpha`` where one is held, else the other;
    None where the table holds no row there."""
    rows_of = STAND_IN.get(gpu, gpu)
    own = "power_law_1.01" if alpha < 1.1 else "power_law_1.2"
    best: dict[str, tuple[float, GroupNear]] = {}
    for key, pts in sorted(measured_tables().items(), key=lambda kv: str(kv[0])):
        if key[0] != kernel or key[1] != rows_of or key[6] != ep or key[8] != dtype:
            continue
        if rows_of != gpu:  # the GPU's own row where the stand-in's disagrees with it
            pts = stand_in_points(key, pts)
        routing = str(key[7])
        if routing not in ROUTINGS:
            continue
        have: Shape4 = (int(str(key[2])), int(str(key[3])), int(str(key[4])), int(str(key[5])))
        far = distance(shape, have)
        if far > MAX_DISTANCE:
            continue
        if routing not in best or far < best[routing][0]:
            best[routing] = (far, (have, ROUTINGS[routing], pts))
    if own in best:
        return best[own][1]
    return min(best.values())[1] if best else None


def group_scaled(terms: ExpertTerms, near: GroupNear, shape: Shape4, ep: int, shared: int) -> Points:
    """The target's calls as a rank's tokens, ``ep`` the row's tokens over a rank's
    (``group_layout``; module docstring); ``shared`` the shared experts' intermediate size,
    which the step's activation width holds."""
    sh = terms.shape
    _, hidden, inter, top_k = shape
    mats = sh.expert_w / (hidden * inter)
    act = sh.moe_act / (top_k * inter + shared)
    mine = probe_terms(terms, shape, 1, mats, act, terms.routing_alpha)
    theirs = probe_terms(terms, near[0], 1, mats, act, near[1])
    floors = MODULE_KERNELS * terms.rates.kernel_floor
    out = []
    for t, sec in near[2]:
        n = t / ep
        ratio = (mine._experts(n) + floors) / (theirs._experts(n) + floors)
        out.append((n, sec * ratio))
    return tuple(out)


def group_nearest_moe(
    kernel: str, gpu: str, terms: ExpertTerms, shape: Shape4, dtype: str, layout: tuple[int, int], shared: int
) -> Points:
    """A group table's nearest measured row scaled to ``shape`` (module docstring) at ``layout``
    (``group_layout``), for a step that step_model.py ``_group_measured`` would read at an exact
    shape; empty where none."""
    if not MODULE_TABLES[kernel].group_tokens:
        return ()
    near = group_nearest(kernel, gpu, shape, dtype, layout[0], terms.routing_alpha)
    return group_scaled(terms, near, shape, layout[1], shared) if near else ()


def as_layout(points: Points, ep: int, per: int) -> Points:
    """``group_module``'s calls (the row's tokens over ``ep``) as a rank's tokens at a layout
    whose row tokens are a rank's times ``per`` (``group_layout``)."""
    return tuple((t * ep / per, sec) for t, sec in points)
