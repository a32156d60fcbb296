"""Megatron-Core's module-level recompute (``parallelism.recompute_modules``): a registry.

Megatron-Core ``--recompute-granularity selective --recompute-modules ...``
(``megatron/core/transformer/transformer_config.py`` ``recompute_modules``; Megatron-Bridge's
``recompute_modules``): each named module's output is dropped once its consumer has run
(``tensor_parallel.CheckpointWithoutOutput.discard_output_and_register_recompute``: the
storage is freed) and rebuilt in the backward. core/memory/activations_megatron.py ``megatron_layer``
takes off, per layer, what each drops:

- ``layernorm``: the two norm outputs, i.e. the QKV and MLP inputs (16-bit; under FP8
  Transformer Engine's Linear keeps its own FP8 copy of its input, which is not dropped).
- ``mla_up_proj``: multi-head latent attention's up-projected, rotary-applied q, k and v
  (``multi_latent_attention.py`` ``qkv_up_checkpoint``); only the latents stay, which the
  estimate did not count before either. DeepSeek-V3's report (arXiv 2412.19437 §3.2.3)
  recomputes the same: "all RMSNorm operations and MLA up-projections".
- ``moe_act``: the routed experts' activation output, the fc2 input (16-bit; under FP8 the
  GroupedLinear keeps its FP8 copy).

The backward's rebuild of each (the norms, the routed experts' activation, MLA's up-projections:
``RecomputeModule.rerun``) is priced in the training step by core/speed/train_recompute.py.

Other frameworks' layouts ignore the field (their recompute is ``parallelism.recompute``).
Adding a module is one :func:`register` call.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RecomputeModule:
    """One Megatron-Core recompute module id and what it drops (see the module docstring)."""

    id: str
    label: str
    sources: tuple[str, ...] = ()
    # what the backward rebuilds (core/speed/train_recompute.py ``RERUNS``): the norms, the
    # routed experts' activation, or MLA's up-projections
    rerun: str = "norms"


RECOMPUTE_MODULES: dict[str, RecomputeModule] = {}


def register(module: RecomputeModule) -> RecomputeModule:
    """Add a module; a duplicate id is refused."""
    if module.id in RECOMPUTE_MODULES:
        raise ValueError(f"recompute module {module.id!r} is registered already")
    RECOMPUTE_MODULES[module.id] = module
    return module


_MCORE = "NVIDIA/Megatron-LM megatron/core/transformer/"
register(
    RecomputeModule("layernorm", "norm outputs (QKV and MLP inputs)", (_MCORE + "transformer_layer.py",))
)
register(
    RecomputeModule(
        "mla_up_proj",
        "MLA up-projection: q, k, v rebuilt from the latents",
        (_MCORE + "multi_latent_attention.py", "DeepSeek-V3 report arXiv 2412.19437 §3.2.3"),
        "mla_up_projection",
    )
)
register(
    RecomputeModule(
        "moe_act", "routed experts' activation (fc2 input)", (_MCORE + "moe/experts.py",), "expert_activation"
    )
)


def check_recompute_modules(ids: tuple[str, ...]) -> tuple[str, ...]:
    """Validation: every id is registered (the message names the known ones); duplicates
    dropped, order kept."""
    for k in ids:
        if k not in RECOMPUTE_MODULES:
            known = ", ".join(RECOMPUTE_MODULES)
            raise ValueError(f"unknown recompute module {k[:40]!r}; must be one of {known}")
    return tuple(dict.fromkeys(ids))
