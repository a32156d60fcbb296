"""The speed of a sizing option: the ONE function the advice ranks layouts and counts by.

:func:`option_pace` gives an option's tokens/s per user, time to first token and tokens/s
(serving) or step and run time (training). Today it is the estimate's own speed (the serving
block: roofline, engine step costs, the users the pool runs; the compute block: FLOPs at
``compute.mfu``) plus the communication that model does not charge and that decides a layout,
each collective at alpha + bytes / beta over the link it crosses (core/sizing/links.py):

- training (Narayanan et al. 2021, arXiv 2104.04473, §2-3): the pipeline bubble of 1F1B,
  (p - 1) / (v x m) of the compute for p stages, v virtual stages and m micro-batches per
  step; tensor parallelism's all-reduces of each layer's activations, 4 per micro-batch and
  layer (2 forward, 2 backward; 6 with full recompute), not overlapped; the data-parallel
  gradient all-reduce once per step, overlapped with the last micro-batch's backward (PyTorch
  DDP, Li et al. 2020, arXiv 2006.15704), ZeRO-3's parameter all-gathers and gradient
  reduce-scatter once per micro-batch (1.5 x the volume, DeepSpeed ZeRO, Rajbhandari et al.
  2020 §7), overlapped with its compute; the pipeline's activation sends; context
  parallelism's ring exchange of each layer's K and V (forward once, backward twice: Liu et
  al. 2023, arXiv 2310.01889); an offloaded optimizer's step on the CPU, gradients down and
  16-bit weights up over PCIe and the CPU's Adam at 0.8e9 parameters/s (DeepSpeed CPU-Adam:
  Llama 2 1.2B, 1.5 s per step, deepspeedai/DeepSpeed#6695), not overlapped.
Serving speed is the estimate's serving block (issue 20's step model: each collective at
alpha + bytes / beta over its link, pipeline sends included, the engine's scheduler under the
load). Each training collective is core/speed/collectives.py's.

The speed issue (issue 20: a per-op step model, collectives per link class, the PP bubble
and training time from the layout) replaces the body of :func:`option_pace` and of
:class:`TrainingClock`; the advice calls nothing else for speed.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..memory.lora import scenario_lora
from ..model.architecture import ceil_div, resolve
from ..model.flops import training_flops_per_token
from ..model.params import count_parameters
from ..model.result import Estimate
from ..model.specs import GPUSpec, Scenario
from ..registry.dtypes import nbytes
from ..speed.collectives import all_reduce_seconds, send_seconds
from ..speed.roofline import peak_tflops
from .layout_space import RECOMPUTE, Layout
from .links import Links, links_for
from .option import Pace

GRAD_BYTES = 2.0  # gradients are all-reduced in the 16-bit training dtype (DDP, ZeRO)
CPU_ADAM_PARAMS_PER_S = 0.8e9  # DeepSpeed CPU-Adam (deepspeedai/DeepSpeed#6695)
HOST_LINK_BYTES_PER_S = 25e9  # PCIe Gen4 x16 as measured host-to-device (of 32 GB/s)


@dataclass(frozen=True)
class _Work:
    """What a training step does, from the scenario (per recompute level: FLOPs/token)."""

    flops: dict[str, float]  # executed FLOPs per token, by recompute level
    peak: float  # FLOP/s of one GPU at compute.mfu
    layers: int
    hidden: int
    kv_dim: int
    act_bytes: float
    params: float  # parameters (all of them: what ZeRO-3 gathers)
    trainable: float


def _work(s: Scenario, gpu: GPUSpec) -> _Work:
    arch, counts = resolve(s.model), count_parameters(s.model)
    adapters = scenario_lora(s)[0]
    flops = {}
    for level in RECOMPUTE:
        sc = s.model_copy(update={"parallelism": s.parallelism.model_copy(update={"recompute": level})})
        flops[level] = training_flops_per_token(sc, arch, counts, adapters).executed
    peak = peak_tflops(gpu, s.precision.activations)[1] * 1e12 * s.compute.mfu
    trainable = adapters if s.workload.is_adapter else counts.total
    act = nbytes(s.precision.activations)
    return _Work(flops, peak, arch.layers, arch.hidden, arch.kv_dim, act, counts.total, trainable)


class TrainingClock:
    """Step and run time of a training scenario on one GPU type, for any layout (fast: the
    search asks for every layout it considers)."""

    def __init__(self, s: Scenario, gpu: GPUSpec, links: Links) -> None:
        self.s, self.links, self.w = s, links, _work(s, gpu)

    def micro_batches(self, lay: Layout) -> int:
        """Micro-batches per data-parallel rank per optimizer step."""
        w = self.s.workload
        if w.global_batch_size is None:
            return 1
        return max(1, w.global_batch_size // (w.micro_batch_size * lay.dp))

    def pace(self, lay: Layout) -> Pace:
        """Step time, run time and trained tokens/s of ``lay`` (its DP included)."""
        w, work = self.s.workload, self.w
        m = self.micro_batches(lay)
        gpus = lay.gpus
        tokens = w.micro_batch_size * w.sequence_length * m * lay.dp
        compute = tokens * work.flops[lay.recompute] / (gpus * work.peak) if work.peak else 0.0
        v = (
            self.s.parallelism.virtual_stages
            if lay.pp * self.s.parallelism.virtual_stages <= work.layers
            else 1
        )
        step = compute * (1 + (lay.pp - 1) / (v * m)) + self._comm(lay, m, compute)
        rate = tokens / step if step else 0.0
        run = w.training_tokens / rate if w.training_tokens and rate else None
        return Pace(tokens_per_second=rate or None, time_seconds=run, step_seconds=step or None)

    def _comm(self, lay: Layout, m: int, compute: float) -> float:
        """Communication left exposed in one step (seconds)."""
        w, work, links = self.s.workload, self.w, self.links
        act = w.micro_batch_size * w.sequence_length / lay.cp * work.hidden * work.act_bytes
        layers = ceil_div(work.layers, lay.pp)
        per_layer = 6 if lay.recompute == "full" else 4
        tp = m * layers * per_layer * all_reduce_seconds(links.group(lay.tp, 1), act, lay.tp)
        dp_link = links.group(lay.dp, lay.tp * lay.cp)
        share = lay.tp * lay.pp
        backward = 2 / 3 * compute / m  # the last micro-batch's backward
        if lay.zero == 3:  # per micro-batch: gather twice, reduce-scatter once
            per_mb = 1.5 * all_reduce_seconds(dp_link, work.params / share * GRAD_BYTES, lay.dp)
            dp = m * max(0.0, per_mb - compute / m)
        else:
            grads = all_reduce_seconds(dp_link, work.trainable / share * GRAD_BYTES, lay.dp)
            dp = max(0.0, grads - backward)
        pp = 0.0
        if lay.pp > 1:  # forward and backward activations at each stage boundary
            link = links.group(lay.pp, lay.tp * lay.cp * lay.dp)
            pp = 2 * m * send_seconds(link, act / lay.tp)
        cp = 0.0
        if lay.cp > 1:  # K and V of the other ranks' chunks, around the ring
            link = links.group(lay.cp, lay.tp)
            kv = 2 * act / work.hidden * work.kv_dim / lay.tp
            cp = 3 * m * layers * (lay.cp - 1) * send_seconds(link, kv)
        return tp + dp + pp + cp + self._offload(lay, share)

    def _offload(self, lay: Layout, share: int) -> float:
        """An offloaded optimizer's step: this GPU's share of the trainable parameters."""
        if not self.s.parallelism.offload_optimizer:
            return 0.0
        mine = self.w.trainable / share / (lay.dp if lay.zero else 1)
        return mine / CPU_ADAM_PARAMS_PER_S + 2 * GRAD_BYTES * mine / HOST_LINK_BYTES_PER_S


def serving_pace(est: Estimate) -> Pace:
    """The serving block's speed (its step model charges the collectives, pipeline sends
    between nodes included, and the load: core/speed/step.py)."""
    sv = est.serving
    if sv is None:
        return Pace()
    return Pace(
        ttft_seconds=sv.ttft_seconds or None,
        tpot_seconds=sv.tpot_seconds or None,
        tokens_per_second_per_user=sv.tokens_per_second_per_user or None,
        tokens_per_second=sv.tokens_per_second or None,
    )


def option_pace(est: Estimate, links: Links, clock: TrainingClock | None = None) -> Pace:
    """How fast the estimated scenario runs as laid out: the speed every option shows and is
    ranked by (``clock``: the scenario's :class:`TrainingClock`, when the caller has one)."""
    s = est.scenario
    if not s.workload.is_training:
        return serving_pace(est)
    p = s.parallelism
    lay = Layout(p.tensor, p.pipeline, p.context, p.expert, p.zero_stage, p.recompute, p.data)
    return (clock or TrainingClock(s, est.gpu, links)).pace(lay)


def estimate_pace(est: Estimate) -> dict[str, float | None]:
    """:func:`option_pace` of an estimate as laid out, on its own node shape and links: the
    public speed fields (the report's speed lines, io/report.py)."""
    s = est.scenario
    eff = s.compute.interconnect_efficiency
    default = type(s.compute)().interconnect_efficiency
    links = links_for(est.gpu, s.hardware.gpus_per_node, None if eff == default else eff)
    return option_pace(est, links).fields()
