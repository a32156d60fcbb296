"""FSDP1's ``no_sync()`` accumulation: each unit's whole gradient kept unsharded until the sync.

With ``parallelism.fsdp_no_sync`` a step's micro-batches before its last run under
``FullyShardedDataParallel.no_sync()`` (Lightning Fabric's ``no_backward_sync`` for
``FSDPStrategy``: Lightning-AI/pytorch-lightning 71aed751 src/lightning/fabric/strategies/fsdp.py
``_FSDPBackwardSyncControl.no_backward_sync`` returns ``module.no_sync()``; accelerate's
``accumulate`` does the same for FSDP). PyTorch's docstring of ``no_sync`` (torch
distributed/fsdp/fully_sharded_data_parallel.py, v2.0-v2.1): "This likely results in higher
memory usage because FSDP will accumulate the full model gradients (instead of gradient shards)
until the eventual sync"; ``_runtime_utils.py`` ``_finalize_params`` (pytorch/pytorch 00ae0bc91a,
the 2.0-2.1 line): "``.grad`` remains the unsharded gradient from prior ``no_sync()``
iterations". So from the first micro-batch's backward until the last one's reduce-scatter each
unit whose flat parameter requires a gradient holds that gradient unsharded: in the forward and
the backward of every later micro-batch, gone by the optimizer step (the sync reduce-scatters
it into the shard already counted).

Which units: a full fine-tune's every unit. Under an adapter the flat parameter of a unit that
mixes frozen and trainable parameters requires a gradient for the whole unit (``use_orig_params``,
which Lightning sets by default from torch 2.0: fsdp.py ``self._fsdp_kwargs.setdefault(
"use_orig_params", True)``); torch warns of it in ``distributed/fsdp/_wrap_utils.py`` ("has both
parameters with requires_grad=True and False ... the gradient memory usage will be higher than
expected (1451376640 numel instead of 106496 numel before sharding via reduce-scatter)", quoted in
Lightning-AI/litgpt PR #1538). A LoRA in every decoder layer, each layer its own unit (Lit-GPT's
``auto_wrap_policy={Block}``): every layer parameter; the root unit (embedding, final norm, head)
too when the head carries an adapter. The gradient is in the unit's compute dtype
(``param_dtype``, else the weights' dtype). Not priced over a quantised base (its packed storage
is not what a 16-bit gradient of the unit would be sized by): 0 there.
"""

from __future__ import annotations

from ..errors import ScenarioError
from ..model.sharding import StageParams
from ..model.specs import Scenario
from ..registry.dtypes import DTYPES, nbytes

_ROOT_GROUPS = ("embedding", "lm_head", "vision")


def no_sync_gradient_bytes(s: Scenario, sp: StageParams, train_b: float, trainable: float = 0.0) -> float:
    """Bytes per GPU of the units' unsharded gradients that ``no_sync()`` accumulation keeps
    through the forward and backward of a step's later micro-batches (0 unless
    ``parallelism.fsdp_no_sync`` under FSDP1 at ZeRO-3); ``train_b``: bytes per trainable value;
    ``trainable``: the stage's adapter parameters, whole. The caller adds them only when a step
    has more than one micro-batch. Where the stack wraps each adapter layer as its own unit
    (transformers' Trainer with PEFT: core/registry/no_sync.py ``adapter_units``) only the
    adapters' gradient is kept whole, the quantised base's units taking none."""
    par, prec, w = s.parallelism, s.precision, s.workload
    if not par.fsdp_no_sync or par.zero_stage < 3 or par.fsdp_version != 1:
        return 0.0
    if not w.is_adapter:
        return sp.total * (nbytes(prec.param_dtype) if prec.param_dtype else train_b)
    rule = s.profile.no_sync
    if rule is not None and rule.adapter_units:
        return trainable * train_b
    if DTYPES[prec.weights].quantized or w.info.quantised_base:
        return 0.0
    params = sp.total
    if "lm_head" not in (w.lora_targets or ()):  # the root unit holds no adapter: frozen, no grad
        groups = sp.groups or {}
        params -= sum(groups.get(g, 0.0) for g in _ROOT_GROUPS)
    return params * nbytes(prec.param_dtype or prec.weights)


def check_no_sync(s: Scenario) -> None:
    """``parallelism.fsdp_no_sync`` names FSDP1's ``no_sync()``: refused (one line naming the
    field) outside training, below ``zero_stage`` 3 and under ``fsdp_version`` 2 (FSDP2 has no
    ``no_sync``; its ``set_requires_gradient_sync(False)``, which accelerate's ``no_sync`` calls
    for FSDP2, also keeps each trainable parameter's unsharded gradient until the sync: torch
    ``_fully_shard/_fsdp_param_group.py`` ``post_backward``, ``to_accumulated_grad_if_needed``;
    not priced here)."""
    par = s.parallelism
    if not par.fsdp_no_sync:
        return
    field = "parallelism.fsdp_no_sync"
    if not s.workload.trains:
        raise ScenarioError(field, "applies to training (FSDP1's gradient accumulation); false to serve")
    if par.zero_stage < 3 or par.fsdp_version != 1:
        got = f"zero_stage {par.zero_stage}, fsdp_version {par.fsdp_version}"
        raise ScenarioError(field, f"needs zero_stage 3 with fsdp_version 1 (FSDP1); got {got}")
