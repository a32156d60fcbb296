"""The layer-input gradients FSDP1 keeps through the backward when a reentrant checkpoint wraps
each frozen unit (``parallelism.reentrant_checkpoint``).

The stack: transformers' own gradient checkpointing (``gradient_checkpointing_enable``; its
default ``use_reentrant`` is True, and fms-acceleration's ``_prepare_model_for_kbit_training``
passes ``{}``, which torch 2.4's ``checkpoint`` also reads as reentrant, ``torch/utils/
checkpoint.py`` lines 466 and 554) calls each decoder layer's FSDP1 unit inside
``torch.utils.checkpoint``, and the units hold frozen weights only (a LoRA or QLoRA base: the
HF Trainer wraps each adapter Linear as its own unit, PEFT's ``fsdp_auto_wrap_policy``; over a
quantised base fms-acceleration@733992a ``fms_acceleration_foak/utils.py`` lines 23-33 leaves
the adapters out of FSDP as ``ignored_modules``).

What torch v2.4.1 then does, read at its wheel:
- ``CheckpointFunction.backward`` (``torch/utils/checkpoint.py`` lines 290-315) reruns the unit on
  ``detach_variable`` copies of its saved inputs (leaf tensors that alias the saved storage) and
  returns ``inp.grad`` of each, so each leaf keeps its input gradient as ``.grad``.
- The rerun goes through FSDP1's ``_pre_forward`` with grad enabled
  (``torch/distributed/fsdp/_runtime_utils.py`` line 401), which, for a flat parameter that
  does not require grad (lines 1485-1489), registers ``register_multi_grad_hook`` on the
  inputs that require grad (line 1498) and keeps its handle on the flat parameter (line 1503)
  until ``_finalize_params`` removes it at the end of the backward (line 1178).
- ``register_multi_grad_hook`` (``torch/autograd/graph.py`` lines 469-498) keeps the inputs'
  ``grad_fns`` in the hook's closure; for the leaf that is its ``AccumulateGrad`` node, which
  holds the leaf and so its ``.grad``.

So every unit's input gradient, one 16-bit hidden state (the residual stream's dtype), and the
aliased saved input stay alive until the backward ends: when the first layer is rebuilt, the
other ``layers - 1`` gradients sit beside everything the layers' backward holds. A unit whose
flat parameter requires grad (a full fine-tune; adapters inside the unit) takes
``_register_post_backward_hook`` instead, and the non-reentrant checkpoint reruns under FSDP's
pre-backward state (line 370) without the hook: neither keeps them. Checked on CPU with torch's
own FSDP1 (docs/evidence/training.md, the section on this mechanism).
"""

from __future__ import annotations

from ..model.architecture import Arch
from ..model.sharding import StageParams
from ..model.specs import Scenario
from ..registry.dtypes import nbytes
from .peft import kbit_prepared


def held_input_grads(s: Scenario, arch: Arch, sp: StageParams) -> float:
    """Bytes of the layer-input gradients FSDP1 keeps when the first layer is rebuilt (the
    module docstring): ``layers - 1`` of micro-batch x tokens x hidden in the residual
    stream's dtype (fp32 under ``prepare_model_for_kbit_training``, core/memory/peft.py). Zero
    unless ``parallelism.reentrant_checkpoint`` is set under FSDP1 (ZeRO-3, ``fsdp_version``
    1), full recompute and an adapter workload (frozen units)."""
    p, w = s.parallelism, s.workload
    if not p.reentrant_checkpoint or p.zero_stage != 3 or p.fsdp_version != 1:
        return 0.0
    layers = sp.layers
    if p.recompute != "full" or not w.is_adapter or not w.trains or layers < 2:
        return 0.0
    width = 4.0 if kbit_prepared(s) else nbytes(s.precision.activations)
    tokens = w.micro_batch_size * (w.sequence_length // p.context)
    return (layers - 1) * tokens * arch.hidden * width
