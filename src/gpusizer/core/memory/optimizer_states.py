"""Optimizer states of one GPU: bytes per value, the size classes bitsandbytes treats apart
(fp32 states under 4,096 elements, paging from 1e5), and the paged share (core/registry/optimizers.py
has the registry and the sources)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..memo import Memo
from ..registry.dtypes import nbytes
from ..registry.optimizers import BLOCK_8BIT, MIN_8BIT_SIZE, OPTIMIZER_KINDS, PAGED_MIN_SIZE, OptimizerKind
from .lora import adapter_tensors
from .lora_experts import expert_layout

if TYPE_CHECKING:
    from ..model.architecture import Arch
    from ..model.params import ParamCounts
    from ..model.sharding import StageParams
    from ..model.specs import Scenario


def optimizer_kind(s: Scenario) -> OptimizerKind:
    return OPTIMIZER_KINDS[s.precision.optimizer]


def state_format(s: Scenario) -> str:
    """The states' format as the report names it (bitsandbytes fixes its own)."""
    opt = optimizer_kind(s)
    if opt.eight_bit:
        return "8-bit"
    return "fp32" if opt.fixed_state_bytes == 4 else s.precision.optimizer_states


@dataclass(frozen=True)
class TensorClasses:
    """The trainable tensors of one GPU by size (element counts, after TP/EP)."""

    small: float  # values in tensors under MIN_8BIT_SIZE elements
    unpaged: float  # values in tensors under PAGED_MIN_SIZE elements
    largest: float  # elements of the largest trainable tensor


def _norm_widths(arch: Arch, sp: StageParams) -> list[tuple[int, float]]:
    """(width, how many) of the norm weights on the stage (1-D tensors)."""
    spec = arch.spec
    out = [(arch.hidden, float(sp.layers * spec.norms_per_layer + (sp.last and spec.final_norm)))]
    if spec.qk_norm == "head":
        out.append((arch.head_dim, 2.0 * sp.layers))
    elif spec.qk_norm == "full":
        out += [(arch.q_dim, float(sp.layers)), (arch.kv_dim, float(sp.layers))]
    return out


_CLASSES: Memo[TensorClasses] = Memo(1024)


def tensor_classes(s: Scenario, arch: Arch, counts: ParamCounts, sp: StageParams) -> TensorClasses:
    """Size classes of the trainable tensors on this GPU, kept per stage and workload (the
    advisor asks for the same ones thousands of times)."""
    return _CLASSES.get(
        (id(sp), id(s.workload), s.parallelism.tensor),
        lambda: _classes(s, arch, counts, sp),
        (sp, s.workload),
    )


def _classes(s: Scenario, arch: Arch, counts: ParamCounts, sp: StageParams) -> TensorClasses:
    """LoRA: the adapter tensors of the whole model (core/memory/lora.py), spread over the stages by
    layers; full training: norms are the small tensors, matrices and embeddings the rest."""
    w = s.workload
    if w.is_adapter:
        adapters = adapter_tensors(s.model, w.lora_rank, w.lora_targets, expert_layout(s))
        share, tp = sp.layers / arch.layers, s.parallelism.tensor
        small = sum(n * k * share for n, k in adapters if n / tp < MIN_8BIT_SIZE)
        unpaged = sum(n * k * share for n, k in adapters if n / tp < PAGED_MIN_SIZE)
        largest = max((n for n, _ in adapters), default=0)
        return TensorClasses(small / tp, unpaged / tp, largest / tp)
    norms = _norm_widths(arch, sp)
    small = sum(w * k for w, k in norms if w < MIN_8BIT_SIZE)
    unpaged = sum(w * k for w, k in norms if w < PAGED_MIN_SIZE)
    tp = s.parallelism.tensor
    layer = max(arch.ffn, arch.moe.expert_ffn_hidden_size if arch.moe else 0) * arch.hidden
    ends = counts.embedding if sp.first else 0
    if sp.last:
        ends = max(ends, counts.lm_head or (counts.embedding if sp.first else 0))
    return TensorClasses(small, unpaged, max(layer, ends) / tp)


def state_bytes_per_value(s: Scenario) -> float:
    """Bytes of optimizer state per trainable value in a large tensor."""
    opt = optimizer_kind(s)
    if opt.eight_bit:
        return opt.states * (1 + 4 / BLOCK_8BIT)
    if opt.factored:
        return 0.0  # per parameter it is 2/h fp32 (see state_bytes)
    per = opt.fixed_state_bytes or nbytes(s.precision.optimizer_states)
    return opt.states * per


@dataclass(frozen=True)
class StateSplit:
    """Optimizer states of one GPU (before ZeRO sharding), bytes."""

    states: float  # every state, wherever it lives
    paged: float  # of which in unified memory (host RAM), bitsandbytes paged optimizers
    page_in: float  # the largest paged tensor's states, resident during its update


def state_bytes(s: Scenario, arch: Arch, trainable: float, classes: TensorClasses) -> StateSplit:
    """States of ``trainable`` values: 8-bit Adam keeps fp32 states for small tensors;
    Adafactor factors the second moment (rows + columns ≈ 2/h fp32 per parameter, no first
    moment: HF default beta1=None)."""
    opt = optimizer_kind(s)
    if opt.factored:
        return StateSplit(trainable * 4 * 2 / arch.hidden, 0.0, 0.0)
    per = state_bytes_per_value(s)
    small = min(classes.small, trainable) if opt.eight_bit else 0.0
    states = (trainable - small) * per + small * 4 * opt.states
    if not opt.paged:
        return StateSplit(states, 0.0, 0.0)
    kept = min(classes.unpaged, trainable)
    gpu = small * 4 * opt.states + (kept - small) * per
    paged = max(0.0, states - gpu)
    return StateSplit(states, paged, classes.largest * per if paged else 0.0)


def loop_step_bytes(s: Scenario, largest_param: float) -> float:
    """Bytes of a per-tensor (for-loop) optimizer step's temporaries at its peak: the
    optimizer's ``loop_copies`` copies of the largest trainable tensor (``largest_param``,
    bytes), those of one tensor alive at once (core/registry/optimizers.py: torch's
    ``_single_tensor_adam`` two, transformers' own AdamW one). 0 for an in-place kernel and for
    a step run on the host (``parallelism.offload_optimizer``)."""
    if s.parallelism.offload_optimizer:
        return 0.0
    return optimizer_kind(s).loop_copies * largest_param
