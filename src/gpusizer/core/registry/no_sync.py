"""Which training stacks accumulate a step's micro-batches under FSDP1's ``no_sync()`` by
default, and which FSDP units then keep an unsharded gradient (``FrameworkProfile.no_sync``;
priced in core/memory/fsdp_no_sync.py, filled in by core/memory/no_sync_default.py).

Read at the sources (docs/evidence/training.md, the section on the stacks' ``no_sync``):

- transformers' Trainer, every release the profile prices. v4.39.0-v4.46.x: each micro-batch
  under ``accelerator.accumulate(model)``, which enters ``Accelerator.no_sync`` (the wrapped
  module's own ``no_sync``: FSDP1's) on all but a step's last unless
  ``GradientAccumulationPlugin(sync_each_batch=True)`` (huggingface/accelerate v0.28.0, 60bfdaa9
  2024-03-11, default ``False``; Trainer passes ``TrainingArguments.accelerator_config.
  gradient_accumulation_kwargs`` and sets only ``num_steps`` and ``sync_with_dataloader``:
  transformers v4.45.2 trainer.py ``create_accelerator_and_postprocess``). From v4.47.0 the loop
  calls ``functools.partial(self.accelerator.no_sync, model=model)`` itself on every micro-batch
  but the last (DeepSpeed excepted), ``sync_each_batch`` no longer read (v4.51.3, v4.57.1
  trainer.py ``_inner_training_loop``). Accelerate's docs say what it costs: "``no_sync``
  requires additional GPU memory when using FSDP" (docs/source/concept_guides/
  gradient_synchronization.md, v1.14.0: Mixtral 8x7B on 8 A100-80GB, 69G at accumulation 1,
  OOM at 2). Under PEFT LoRA the Trainer wraps each trainable Linear as its own FSDP unit
  (v4.39.0 trainer.py ``_fsdp_qlora_plugin_updates``: ``fsdp_plugin.auto_wrap_policy =
  fsdp_auto_wrap_policy(self.model)``, peft ``utils/other.py``: a leaf whose weight requires a
  gradient is a unit, beside the decoder-layer units), so the decoder layers' flat parameters
  take no gradient and only the adapters' is kept unsharded. axolotl's trainers subclass it
  (their loop not re-read for an override).
- Lightning Fabric, as Lit-GPT calls it: ``fabric.no_backward_sync(model, enabled=
  is_accumulating)``, which ``FSDPStrategy`` answers with ``module.no_sync()``; LoRA inside each
  ``Block`` unit under ``use_orig_params``, so a unit's whole flat gradient (Lit-GPT 8641822
  ``finetune/lora.py``; pytorch-lightning 71aed751 ``src/lightning/fabric/strategies/fsdp.py``).

Not such stacks: Lightning's Trainer (``ParallelStrategy.block_backward_sync`` enters
``no_sync`` only for a ``DistributedDataParallel`` model: lightning 2.1.0-2.6.5
``src/lightning/pytorch/strategies/parallel.py``; FSDPStrategy reduce-scatters every
micro-batch), torchtune (no recipe calls ``no_sync`` or ``set_requires_gradient_sync``, v0.1.0-
v0.6.1-rc3), DeepSpeed (its engine reduces every backward), torchtitan (FSDP2).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class NoSyncRule:
    """A stack whose gradient accumulation runs FSDP1's ``no_sync()`` unless told otherwise.
    ``adapter_units``: an adapter's trainable layers are FSDP units of their own (PEFT's
    ``fsdp_auto_wrap_policy``), so only the adapters' gradient stays unsharded; False: they
    share the decoder layer's unit, whose whole flat gradient does. ``label``: the stack's
    name in the user's words; ``source``: where it was read."""

    adapter_units: bool
    label: str
    source: str


TRANSFORMERS_TRAINER = NoSyncRule(
    adapter_units=True,
    label="transformers' Trainer",
    source="transformers v4.45.2 trainer.py (accelerator.accumulate; accelerate v0.28.0 "
    "accumulate / no_sync, sync_each_batch False), v4.47.0-v4.57.1 _inner_training_loop "
    "(accelerator.no_sync on all but the last micro-batch); v4.39.0 _fsdp_qlora_plugin_updates "
    "(peft fsdp_auto_wrap_policy: each LoRA Linear its own unit)",
)

LIGHTNING_FABRIC = NoSyncRule(
    adapter_units=False,
    label="Lightning Fabric (Lit-GPT)",
    source="Lit-GPT 8641822 finetune/lora.py fabric.no_backward_sync(model, enabled="
    "is_accumulating); pytorch-lightning 71aed751 fabric/strategies/fsdp.py "
    "_FSDPBackwardSyncControl.no_backward_sync -> module.no_sync(); LoRA in each Block unit",
)
