"""What the report says about the training techniques in force (core/memory/techniques.py): one
phrase per technique for the report's ``assumptions`` (the loss and its kernel, compile and the
ticked kernels, LoRA dropout, a stated attention dropout, k-bit preparation, the optimizer step
in backward, 8-bit and paged optimizer states, activation offload, DeepSpeed's fp32 gradient
partition, model loading, the figure the framework prints), and the host RAM block
(``host_memory``) with its warning.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..model.node import host_gpus
from ..registry.dtypes import nbytes
from ..registry.fused_kernels import FUSED_KERNELS
from ..registry.loss_kinds import LOSS_KINDS, loss_at
from ..registry.optimizers import BLOCK_8BIT, MIN_8BIT_SIZE
from .amp_outputs import copy_note
from .fsdp_qlora import fsdp_qlora_note
from .layouts import activation_layout
from .loading import loading_note
from .lora_expert_report import expert_adapter_line
from .loss import DEFAULT_CHUNKS
from .optimizer_states import optimizer_kind
from .overhead import reported_bytes
from .peft import kbit_prepared

if TYPE_CHECKING:
    from ..model.result import Memory
    from ..model.specs import Scenario

GiB = 2**30


def _loss_line(s: Scenario) -> str | None:
    w = s.workload
    kind = LOSS_KINDS[loss_at(w.loss, w.micro_batch_size * (w.sequence_length // s.parallelism.context))]
    if kind.fused and kind.free_memory_share:
        return "fused cross-entropy, chunks sized from the GPU's free memory: no logits kept"
    if kind.fused:
        return "fused linear cross-entropy: no logits kept"
    if kind.keeps_logits:
        inplace = ", gradient written in place" if kind.inplace_backward else ""
        held = "the model's fp32 shifted logits" if kind.fp32_shifted else "16-bit logits"
        return f"fused cross-entropy: {held} and an fp32 log-sum-exp kept{inplace}"
    if kind.z_loss:
        return "z-loss in eager PyTorch: the fp32 logits kept beside the fp32 log-softmax"
    if kind.holds_logits:
        return "the loop holds its fp32 logits through backward (torchtune < 0.3) beside the fp32 log-softmax"
    if kind.chunked and not kind.upcast:
        return (
            f"16-bit cross-entropy in {kind.chunk_tokens}-token chunks: 16-bit log-softmax kept, no fp32 copy"
        )
    if kind.chunked:
        kept = "16-bit logits kept (compiled)" if w.compile_loss else "fp32 log-softmax kept"
        where = "" if kind.logit_list else ", projection in the loss"
        return f"chunked cross-entropy{where}, {w.loss_chunks or DEFAULT_CHUNKS} chunks: {kept}"
    return None


def _kernel_line(s: Scenario) -> str | None:
    """What compile and the ticked kernels change in each layer's saved tensors."""
    w = s.workload
    parts = (
        ["torch.compile of each layer: norms keep their input and rstd, the MLP gate and up"]
        if w.compile
        else []
    )
    parts += [FUSED_KERNELS[k].label for k in w.fused_kernels if FUSED_KERNELS[k].effect != "loss"]
    return "; ".join(parts) or None


def technique_assumptions(s: Scenario, mem: Memory) -> tuple[str, ...]:
    """One phrase per training technique in force (the report's ``assumptions``)."""
    w, p = s.workload, s.parallelism
    if w.serves:
        return ()
    own_loss = activation_layout(s.profile).vocab_parallel_loss  # workload.loss does not apply
    act_b = 4.0 if kbit_prepared(s) else nbytes(s.precision.activations)  # as logit_bytes
    copy = copy_note(s.profile, LOSS_KINDS[w.loss], act_b)
    out = [line for line in (_loss_line(s), copy, _kernel_line(s)) if line and not own_loss]
    if w.is_adapter and w.lora_dropout > 0:
        out.append(
            f"LoRA dropout {w.lora_dropout:g}: each targeted module keeps its dropout "
            "output and a 1-byte mask (CUDA)"
        )
    if kbit_prepared(s):
        line = "prepare_model_for_kbit_training: embedding, norms and LM head in fp32, fp32 residual stream"
        if p.recompute == "full":  # core/memory/peft.py rebuilt_mlp_gradients
            line += "; the rebuilt layer's MLP backward holds three fp32 gradients"
        out.append(line)
    if p.optimizer_in_backward:
        out.append("optimizer step in backward: no gradient set is kept")
    dropout = _probs_dropout_line(s)
    if dropout:
        out.append(dropout)
    out += _state_lines(s)
    if s.profile.fp32_step_gradients and p.zero_stage in (1, 2):
        out.append("DeepSpeed fp32 gradient partition at the step")
    experts = expert_adapter_line(s)  # a release or names that change the experts' adapters
    if experts:
        out.append(experts)
    return tuple(out + _memory_lines(s, mem))


def _probs_dropout_line(s: Scenario) -> str | None:
    """The line of a stated ``model.attention_dropout`` where eager attention reads it
    (core/memory/activations.py ``attention_core``, activations_megatron.py): above 0 each layer
    keeps the dropped probabilities and the dropout's scaled noise beside the softmax output
    (ATen's ``dropout`` returns its input at p = 0, so at 0 neither is kept: OPT's config,
    modeling_opt.py ``OPTAttention``). Null (the residuals' ``model.dropout``) adds no line."""
    p, rate = s.parallelism, s.model.attention_dropout
    if rate is None or p.attention != "eager" or p.recompute == "selective":
        return None
    if rate > 0:
        return (
            f"attention dropout {rate:g} (model.attention_dropout): eager attention keeps the "
            "dropout noise and the dropped probabilities"
        )
    return "no attention dropout (model.attention_dropout 0): eager attention keeps the softmax output only"


def _state_lines(s: Scenario) -> list[str]:
    """8-bit and paged optimizer states, activation offload."""
    out, p = [], s.parallelism
    opt = optimizer_kind(s)
    if opt.eight_bit:
        out.append(
            f"8-bit optimizer states: fp32 absmax per {BLOCK_8BIT} values, fp32 states "
            f"for tensors under {MIN_8BIT_SIZE:,} elements"
        )
    if opt.paged:
        out.append(
            "paged optimizer states in unified memory: counted in host RAM, not in the "
            "GPU peak; the largest tensor's states are paged in at its update"
        )
    if p.activation_offload != "none":
        what = (
            "checkpointed layer inputs"
            if p.activation_offload == "checkpoints"
            else "saved activations of the layers"
        )
        out.append(f"activation offload: {what} in host RAM, one layer in flight on the GPU")
    return out


def _memory_lines(s: Scenario, mem: Memory) -> list[str]:
    """Host RAM, model loading (the peak, or its note) and the figure the framework prints."""
    out = []
    if mem.host_memory:
        out.append(f"host RAM {mem.host_memory / GiB:.1f} GiB per GPU")
    quant_state = fsdp_qlora_note(s)
    if quant_state:
        out.append(quant_state)
    load = loading_note(s)
    if mem.peak_phase == "load":
        out.append(f"{load or 'model loading'}: the peak, {mem.total / GiB:.2f} GiB")
    elif load:
        out.append(load)
    shown = reported_bytes(s, mem.total, mem.overhead)
    if shown is not None:
        out.append(
            f"{s.profile.label} prints torch.cuda.max_memory_{s.profile.reports}: "
            f"{shown / GiB:.2f} GiB of this peak"
        )
    return out


def host_block(s: Scenario, mem: Memory) -> dict[str, Any]:
    """The report's ``host_memory`` block: system RAM per GPU and per node, and whether the
    node's RAM (``hardware.host_memory_bytes``) holds it (null when it is not given). The "node"
    whose RAM is checked is one host, the GPUs sharing its RAM (core/model/node.py
    ``host_gpus``): the board up to 8 GPUs, a 4-GPU compute tray of an NVL72 rack."""
    per_node = mem.host_memory * _host_gpus(s)
    cap = s.hardware.host_memory_bytes
    return {
        "per_gpu_bytes": mem.host_memory,
        "per_node_bytes": per_node,
        "capacity_bytes": cap,
        "fits": None if cap is None else per_node <= cap,
    }


def host_note(s: Scenario, mem: Memory) -> str | None:
    """A sentence when the node's RAM does not hold what offloading puts there."""
    block = host_block(s, mem)
    if block["fits"] is not False:
        return None
    n = _host_gpus(s)
    return (
        f"host RAM does not suffice: {block['per_node_bytes'] / GiB:.1f} GiB needed per "
        f"host ({n} GPU{'s' if n != 1 else ''}), {block['capacity_bytes'] / GiB:.1f} GiB set in "
        "hardware.host_memory_bytes"
    )


def _host_gpus(s: Scenario) -> int:
    """The scenario's GPUs on one host (a whole scenario smaller than a host: its GPUs)."""
    return min(s.parallelism.gpus, host_gpus(s.hardware.gpus_per_node))
