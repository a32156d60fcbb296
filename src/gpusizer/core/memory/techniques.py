"""Training techniques of real recipes: what each changes in a step, how a profile sets it,
what the report says about it, and which ones the advisor may turn on (the report's phrases
and host RAM block: core/memory/techniques_report.py).

Scenario fields (docs/scenario-format.md "Training techniques"): ``workload.loss``,
``loss_chunks``, ``compile_loss`` (core/memory/loss.py), ``lora_dropout``, ``kbit_prepare``
(core/memory/peft.py), ``parallelism.optimizer_in_backward``, ``activation_offload``, and the paged
optimizers (core/registry/optimizers.py). Sources:

- Optimizer step in backward: torchtune ``training/memory.py`` ``register_optim_in_bwd_hooks``:
  one optimizer per parameter, stepped and zeroed (set to None) in a
  ``register_post_accumulate_grad_hook``; it needs ``gradient_accumulation_steps == 1``. No
  gradient outlives its own step, so the whole gradient set and the foreach copy disappear;
  the peak falls only where it was at the step (measured: 438.5 -> 390.3 MB with the chunked
  loss and checkpointing, unchanged 506.5 MB with the full loss, whose peak is the loss's
  backward; tests/core/data/techniques-measured.json).
- Activation offload: ``checkpoints`` = offloaded gradient checkpointing (Unsloth
  ``unsloth_zoo/gradient_checkpointing.py``: each checkpointed layer input is moved to the CPU
  and brought back in backward); ``all`` = torchtune ``training/_activation_offloading.py``
  ``OffloadActivations``: every saved tensor of at least 1 KiB goes to pinned host memory on a
  side stream and comes back in backward, except the output projection's (``NoOpManager`` on
  ``model.output``). The GPU keeps what is outside the layers and about one layer in flight;
  host RAM holds the rest.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import ScenarioError
from ..registry.dtypes import nbytes
from ..registry.frameworks import FRAMEWORKS
from ..registry.fused_kernels import FUSED_KERNELS
from ..registry.lightning_precision import fill_lightning
from ..registry.loss_kinds import LOSS_KINDS, step_loss
from .amp_outputs import returned_logits_fp32
from .device_map import micro_batches, sequential_stages
from .layouts import activation_layout
from .loss import DEFAULT_LOSS, Logits, LossSetup, loss_parallel_extra, transients
from .loss_order import kinked
from .megatron_loss import vocab_parallel_transients
from .peft import kbit_prepared
from .phases import in_flight
from .techniques_report import host_block, host_note, technique_assumptions

__all__ = [
    "StepExtras",
    "check_techniques",
    "fill_profile_defaults",
    "host_block",
    "host_note",
    "logit_bytes",
    "offload_split",
    "polynomial_between",
    "profile_edits",
    "step_phases",
    "technique_assumptions",
]

if TYPE_CHECKING:
    from ..model.architecture import Arch
    from ..model.sharding import StageParams
    from ..model.specs import Scenario


class StepExtras(NamedTuple):
    """What the techniques add to one GPU's step, bytes (a named tuple: built for every
    estimate of the advisor's searches)."""

    host: float = 0.0  # host RAM (offloaded or paged states, weights, activations)
    page_in: float = 0.0  # paged states of the largest tensor, resident during its update
    largest_grad: float = 0.0  # gradient of the largest trainable tensor
    largest_param: float = 0.0  # the largest trainable tensor (a single-tensor step's copy)
    fp32_grads: float = 0.0  # DeepSpeed ZeRO-1/2 fp32 gradient partition at the step
    head_grad: float = 0.0  # the output weight's gradient (0 when frozen)
    recompute_layer: float = 0.0  # one layer rebuilt in backward by full recompute
    top: float = 0.0  # activations outside the layers (one micro-batch), freed before it
    load: float = 0.0  # bytes alive at the peak of model loading (core/memory/loading.py)
    last_step: float = 0.0  # the last step's tensors alive in the forward (core/memory/last_step.py)
    layer_backward: float = 0.0  # one layer's backward transient (core/memory/expert_loop.py)
    forward_casts: float = 0.0  # autocast's cached weight copies at the forward's end (stage_activations.py)
    held_input_grads: float = 0.0  # FSDP1's kept layer-input gradients (core/memory/fsdp1_reentrant.py)


def logit_bytes(s: Scenario, arch: Arch, sp: StageParams, head_grad: float) -> tuple[float, float]:
    """(forward, backward) transient bytes of the logits and loss on the last stage
    (core/memory/loss.py). Megatron: vocab-parallel cross entropy, the 16-bit logits beside its
    saved softmax and the gradient's cast back to them (core/memory/megatron_loss.py), unless
    ``workload.loss`` names another loss (Transformer Engine's in-place one: ``lse_16bit_inplace``)."""
    if not sp.last:
        return 0.0, 0.0
    w, p = s.workload, s.parallelism
    tokens = w.micro_batch_size * (w.sequence_length // p.context)
    vocab = arch.vocab / p.tensor
    pb = 4.0 if kbit_prepared(s) else nbytes(s.precision.activations)
    if activation_layout(s.profile).vocab_parallel_loss and LOSS_KINDS[w.loss] is DEFAULT_LOSS:
        return vocab_parallel_transients(tokens, vocab, pb)
    loss = step_loss(w.loss, tokens, w.mlx_version, w.transformers_version)  # Unsloth's short rows; MLX's
    per = LOSS_KINDS[loss].chunk_tokens  # chunks of so many positions of each sequence
    n = w.loss_chunks or (math.ceil(w.sequence_length / per) if per else None)
    setup = LossSetup.of(loss, w.compile_loss, n)
    fwd, bwd = transients(arch, setup, Logits(tokens, vocab, pb), head_grad)
    fwd += returned_logits_fp32(s.profile, setup.kind, pb, tokens, vocab)
    dtensor = p.tensor > 1 and activation_layout(s.profile).dtensor_loss_parallel
    extra = loss_parallel_extra(tokens * vocab) if dtensor and LOSS_KINDS[w.loss] is DEFAULT_LOSS else 0.0
    return fwd + extra, bwd + extra


def offload_split(
    mode: str, layers_bytes: float, top: float, layers: int, offloaded: int | None = None
) -> tuple[float, float]:
    """(GPU, host) activation bytes: offloading moves the layers' saved tensors to host RAM and
    keeps one layer's in flight; what is outside the layers stays (module docstring).
    ``offloaded``: only that many of the stage's layers go (Megatron-Core
    ``cpu_offloading_num_layers``, at most all but one), the others stay on the GPU."""
    if offloaded and layers > 1 and mode == "none":
        n = min(offloaded, layers - 1)
        per = layers_bytes / layers
        return top + per * (layers - n) + per, per * n
    if mode == "none" or layers <= 0:
        return layers_bytes + top, 0.0
    return top + layers_bytes / layers, layers_bytes


def step_phases(
    temps: dict[str, float], persistent: float, extra: StepExtras, foreach: bool
) -> dict[str, float]:
    """Temporaries with the optimizer step inside backward: at the end of backward one tensor's
    gradient, its single-tensor step copy and its paged states; no step phase of its own."""
    out = dict(temps)
    out["backward_end"] += extra.largest_grad + extra.page_in + (extra.largest_param if foreach else 0.0)
    out["optimizer_step"] = persistent
    return out


def fill_profile_defaults(data: dict[str, Any]) -> dict[str, Any]:
    """The scenario dict with the framework profile's defaults filled in where the user left a
    field out (the echo then states them, and loads back the same)."""
    data = _kernel_loss(data)
    fw = data.get("framework", "huggingface")
    prof = FRAMEWORKS.get(fw) if isinstance(fw, str) else None
    stage = next((v for b, f, v in prof.scenario_defaults if f == "zero_stage"), None) if prof else None
    data = fill_lightning(data, stage)  # the user's setting, before the framework's defaults
    if prof is None or not prof.scenario_defaults:
        return data
    out = dict(data)
    for block, field, value in prof.scenario_defaults:
        blk = out.get(block, {})
        if isinstance(blk, dict) and field not in blk:
            out[block] = {**blk, field: value}
    return out


def _kernel_loss(data: dict[str, Any]) -> dict[str, Any]:
    """A ticked loss kernel (``workload.fused_kernels``) is the loss where ``workload.loss`` is
    left out, before any profile default (the user's choice wins); a conflict is refused by
    :func:`check_techniques`."""
    w = data.get("workload")
    if not isinstance(w, dict) or "loss" in w:
        return data
    kernels = w.get("fused_kernels")
    if not isinstance(kernels, list | tuple):
        return data
    own = [FUSED_KERNELS[k].loss for k in kernels if isinstance(k, str) and k in FUSED_KERNELS]
    loss = next((x for x in own if x), None)
    return data if loss is None else {**data, "workload": {**w, "loss": loss}}


def profile_edits(framework_id: object) -> dict[str, object]:
    """The profile's defaults as dotted-path edits (the window applies them with a switch of
    framework, as validation fills them into a file that leaves them out)."""
    prof = FRAMEWORKS.get(framework_id) if isinstance(framework_id, str) else None
    return {f"{b}.{f}": v for b, f, v in prof.scenario_defaults} if prof else {}


def check_techniques(s: Scenario) -> None:
    """Techniques that cannot run as set: a ScenarioError naming the field."""
    w, p = s.workload, s.parallelism
    if w.serves:
        return
    for k in w.fused_kernels:
        own = FUSED_KERNELS[k].loss
        if own and own != w.loss:
            raise ScenarioError(
                "workload.loss", f"the ticked kernel {k!r} computes the loss {own!r}; got {w.loss!r}"
            )
    if p.activation_offload == "checkpoints" and p.recompute != "full":
        raise ScenarioError(
            "parallelism.activation_offload",
            "'checkpoints' offloads the checkpointed layer inputs: it needs "
            "parallelism.recompute 'full' (or choose 'all' or 'none')",
        )
    if p.optimizer_in_backward:
        flight = in_flight(p.pipeline, p.data, p.virtual_stages, w.micro_batch_size, w.global_batch_size)
        micro = micro_batches(s, p.data) if sequential_stages(s) else flight.per_step
        if micro > 1:
            raise ScenarioError(
                "parallelism.optimizer_in_backward",
                "steps each tensor as its gradient is ready, so it cannot "
                "accumulate gradients: set global_batch_size to "
                "micro_batch_size x data, or turn it off",
            )


def polynomial_between(s: Scenario, lo: int, hi: int) -> bool:
    """Whether every phase stays one polynomial in sequence and batch for sequence lengths
    ``lo..hi`` (sweep_fast): a sliding window's mask appears past the window, and the fused
    loss sizes its chunks by rounding, and a compiled chunked loss's backward takes the larger
    of two terms (loss_order.py)."""
    window = s.model.sliding_window
    if kinked(s.workload.loss, s.workload.compile_loss):
        return False
    return not (LOSS_KINDS[s.workload.loss].fused or (window and lo <= window < hi))
