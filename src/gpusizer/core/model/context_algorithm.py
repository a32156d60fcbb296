"""Which context parallelism a training layout runs (``parallelism.context`` > 1): ring attention
over sequence chunks, or Ulysses' split of the attention heads (DeepSpeed-Ulysses, Jacobs et al.
2023, arXiv 2309.14509).

- The training framework's own: ``FrameworkProfile.context_splits_heads`` (DeepSpeed's Ulysses,
  core/registry/frameworks_training.py); ring attention elsewhere (Megatron-Core, torch
  ``context_parallel``).
- An RL framework's workers may bring their own to a training framework: verl's FSDP workers
  patch the Hugging Face attention with Ulysses' all-to-all (``RLFramework.ulysses_on``,
  core/registry/rl_frameworks.py; volcengine/verl v0.3.0.post1 to v0.7.0
  verl/models/transformers/monkey_patch.py ``_ulysses_flash_attention_forward``), so an RL
  scenario with ``rl.framework: verl`` on ``framework: fsdp`` splits the heads. Its policy's
  trainer scenario has no ``rl`` block: it carries the algorithm as
  ``ParallelismSpec.heads_split`` (set from the trainer dict's :data:`CARRIED` key, or on the
  paced layout, core/pipeline/rl_roles.py).
"""

from __future__ import annotations

from ..registry.frameworks import FRAMEWORKS
from ..registry.rl_frameworks import RL_FRAMEWORKS
from .architecture import Arch
from .specs import Scenario


def rl_splits_heads(s: Scenario) -> bool:
    """The RL framework's workers split the heads on this scenario's training framework."""
    rl = s.rl
    if rl is None or rl.framework is None or rl.framework not in RL_FRAMEWORKS:
        return False
    return s.framework in RL_FRAMEWORKS[rl.framework].ulysses_on


def context_splits_heads(s: Scenario) -> bool:
    """The context ranks split the attention heads (Ulysses) rather than the sequence (ring):
    as the RL framework set it on the policy's trainer, else the RL framework's workers', else
    the training framework's own (module doc)."""
    own = s.parallelism.heads_split
    if own is not None:
        return own
    return rl_splits_heads(s) or s.profile.context_splits_heads


def context_owner(s: Scenario) -> str:
    """Who runs the head split, for messages: the RL framework's label on this training
    framework where its workers do, else the training framework's."""
    if rl_splits_heads(s) and s.rl is not None and s.rl.framework is not None:
        return f"{RL_FRAMEWORKS[s.rl.framework].label}'s {s.profile.label} workers"
    return s.profile.label


# the trainer dict's key (built by code, core/pipeline/rl_roles.py ``trainer_data``) that carries
# the RL framework's head split into its validation (core/pipeline/scenario.py
# ``parse_role_dict``, which alone takes it off; a user's scenario naming it is refused as an
# unknown field)
CARRIED = "_context_heads_split"


def pads_sequence(s: Scenario) -> bool:
    """The context pads each packed row to a multiple of its degree rather than needing 2 x
    context to divide the sequence (ring attention's load-balanced chunks): verl's Ulysses
    (verl/utils/ulysses.py ``ulysses_pad``: pad_size = (sp - total % sp) % sp, v0.5.0)."""
    return s.parallelism.heads_split is True or rl_splits_heads(s)


def rl_row_align(s: Scenario) -> int:
    """The multiple the RL framework's workers pad each packed sequence of the policy to on
    this scenario's trainer: tp x cp x 2 under context parallelism where its registry entry
    says they pad (verl's Megatron workers, core/registry/rl_frameworks.py ``pads_rows_on``),
    so ring attention's two chunks a rank split evenly at any length; 1 elsewhere."""
    rl = s.rl
    p = s.parallelism
    if rl is None or rl.framework is None or rl.framework not in RL_FRAMEWORKS or p.context == 1:
        return 1
    return p.tensor * p.context * 2 if s.framework in RL_FRAMEWORKS[rl.framework].pads_rows_on else 1


def context_words(framework: str, rl_framework: object) -> str:
    """One line naming the context algorithm of ``framework`` (a training framework id) under
    ``rl_framework`` (an RL framework id or None), for the context field's tooltip; "" for an
    unknown framework."""
    profile = FRAMEWORKS.get(framework)
    if profile is None:
        return ""
    rl = RL_FRAMEWORKS.get(rl_framework) if isinstance(rl_framework, str) else None
    if rl is not None and framework in rl.ulysses_on:
        who = f"{rl.label} on {profile.label}"
    elif profile.context_splits_heads:
        who = profile.label
    else:
        return (
            f"Under {profile.label}: ring attention (each rank a chunk of the sequence, the K/V "
            "chunks passed round); any head count."
        )
    return (
        f"Under {who}: Ulysses (each rank all the tokens for heads / context of the heads, "
        "all-to-alls of q, k, v and the output); the degree must divide the attention heads."
    )


def ulysses_widths(arch: Arch, context: int, latent: bool) -> tuple[int, int, int]:
    """(q, attention output, k or v) widths one token sends into Ulysses' all-to-alls, elements,
    before tensor parallelism (core/speed/train_ulysses.py prices them): the k/v heads repeated
    max(SP // kv_heads, 1) times (verl ``repeat_kv``, verl/models/transformers/monkey_patch.py);
    multi-head latent attention expands its k/v to the query heads."""
    if latent:
        return arch.q_dim, arch.attn_out_dim, arch.q_dim
    repeats = max(context // max(1, arch.kv_heads), 1)
    return arch.q_dim, arch.attn_out_dim, arch.kv_dim * repeats
