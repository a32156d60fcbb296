"""A critic that does not remove its rows' padding (``rl.critic.remove_padding``).

Source: verl's FSDP critic (``verl/workers/critic/dp_critic.py`` ``_forward_micro_batch``,
v0.3.0.post1 lines 66-113, v0.5.0 74-137, v0.7.0 69-132) unpads its micro-batch into one
flash-attention varlen row only under ``use_remove_padding``; without it the model runs
``critic_module(input_ids=input_ids, attention_mask=attention_mask, ...)`` over the whole
(batch, prompt + response) tensor, each response padded to the batch's caps. The flag is the
critic's own, ``critic.model.use_remove_padding``, default False at every modelled release
(``verl/trainer/config/ppo_trainer.yaml`` line 120 at v0.3.0.post1, line 617 at v0.4.1;
``verl/trainer/config/critic/dp_critic.yaml`` line 43 at v0.5.0, line 44 at v0.7.0), while the
actor and the reference share ``actor_rollout_ref.model.use_remove_padding``
(``verl/workers/fsdp_workers.py`` v0.3.0.post1 lines 373-424), so the reference packs as the
policy does. Its dynamic batch (``use_dynamic_bsz``, ``ppo_max_token_len_per_gpu``) counts the
attention mask's real tokens, so the micro-batches hold the same responses either way.

The critic is ``AutoModelForTokenClassification`` with ``attn_implementation="flash_attention_2"``
(``verl/workers/fsdp_workers.py`` v0.3.0.post1 lines 694-706, ``num_labels = 1``): given the attention mask,
transformers' flash-attention path unpads the queries and keys itself (``_upad_input``, then
``flash_attn_varlen_func``), so the padding runs the linear layers but not the attention, whose
FLOPs stay each response's own (core/pipeline/rl_packed_attention.py).

So where the policy packs (``rl.policy.sequence_packing``) and the critic does not, the critic's
values forward and its update run each response padded to prompt + longest tokens, as an
unpacked policy's do (core/pipeline/rl_tokens.py ``trained_tokens``): FLOPs and activations
per token of the linear layers unchanged, tokens per step ``responses x (prompt + longest)``
instead of ``responses x (prompt + mean)``, the attention's FLOPs the packed rows'
(:func:`padded_span`). Its update's saved activations over the padded rows are priced in
core/pipeline/rl_critic_padding_memory.py (the training phase, where they outweigh the actor's
peak). verl pads each prompt to ``data.max_prompt_length``: with ``rl.prompt_cap`` stated the
padded row is that cap + longest (core/pipeline/rl_tokens.py ``row_prompt``), and the attention
stays the packed rows' as above.

Read for verl's FSDP critic only when the field is null (verl's Megatron critic has no such
flag); null with any other framework (or none): the critic packs as the policy does.
"""

from __future__ import annotations

from ..model.specs import Scenario
from .rl_check import rl_of
from .rl_packed_attention import packed_span
from .rl_tokens import trained_tokens

_MEGATRON = ("megatron", "megatron-bridge")


def critic_removes_padding(s: Scenario) -> bool:
    """Whether the critic packs its rows as the policy does: ``rl.critic.remove_padding`` as
    stated; null, False for verl's FSDP critic (module docstring), else True."""
    rl = rl_of(s)
    if rl.critic.remove_padding is not None:
        return rl.critic.remove_padding
    return not (rl.framework == "verl" and s.framework not in _MEGATRON)


def critic_pads(s: Scenario) -> bool:
    """Whether the critic runs padded rows where the policy packs them."""
    rl = rl_of(s)
    return rl.has_critic and rl.policy.sequence_packing and not critic_removes_padding(s)


def critic_scenario(s: Scenario) -> Scenario:
    """The RL scenario the critic trains and scores as: ``s`` itself, or, where the critic pads
    (:func:`critic_pads`), ``s`` with the policy's packing off (each response padded to prompt +
    longest)."""
    if not critic_pads(s):
        return s
    rl = rl_of(s)
    policy = rl.policy.model_copy(update={"sequence_packing": False})
    return s.model_copy(update={"rl": rl.model_copy(update={"policy": policy})})


def padded_span(s: Scenario) -> float | None:
    """The attention span a padded critic's trainer prices each of its padded tokens at, so
    that its attention FLOPs are the packed rows' (flash attention unpads them, module
    docstring): the packed span scaled by real over padded tokens, as the attention's FLOPs a
    token are linear in its span. None where the critic does not pad."""
    span = packed_span(rl_of(s))
    if not critic_pads(s) or span is None:
        return None
    return span * trained_tokens(rl_of(s)) / trained_tokens(rl_of(critic_scenario(s)))
