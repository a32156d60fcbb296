"""The memory of a critic that does not remove its rows' padding (``rl.critic.remove_padding``
false, core/pipeline/rl_critic_padding.py): its update's saved activations over the padded rows.

Source: verl's FSDP critic (``verl/workers/critic/dp_critic.py`` ``_forward_micro_batch``,
v0.3.0.post1 lines 66-113, v0.5.0 74-137, v0.7.0 69-132): without ``use_remove_padding`` it runs
``critic_module(input_ids=input_ids, attention_mask=attention_mask, ...)`` on the whole
(batch, prompt + response) tensors, so every layer's input and output, and with gradient
checkpointing each layer's saved input, is a (batch, prompt + response, hidden) tensor, padding
included; ``update_critic`` (same file, v0.3.0.post1 lines 166-231) runs that forward and its
``loss.backward()`` per micro-batch, so those tensors are alive together at its backward. The
value head's output, ``values = output.logits`` (line 111 at v0.3.0.post1), is (batch, rows,
1): the one-output head of core/pipeline/rl_critic_head.py, whose loss keeps one value a
token, not the vocabulary's logits.

So the critic's update peak is the fine-tuning estimate of the critic's model on the padded
rows (core/pipeline/rl_critic_padding.py ``critic_scenario``: each response padded to prompt +
longest) with a one-output head: the estimate's layers and loss, priced as a vocabulary of one
(the head's logits and their loss are bytes per token x 1), with the critic's states as
:func:`rl_critic_head.critic_states` holds them. Units: bytes per GPU.

The update runs between the actor's calls (``verl/trainer/ppo/ray_trainer.py`` v0.3.0.post1
lines 899-908: ``update_critic``, then ``update_actor``), beside the actor's weights and
optimizer unless the actor's worker sends them to host around each call (``param_offload`` /
``optimizer_offload``, the same flags that send the critic's, core/pipeline/rl_memory.py
``training_side``). A packed critic's update (the same model and rows as the actor's, without
the vocabulary's logits) stays under the actor's own: not priced, so every answer with the
critic's padding removed is unchanged.

Not priced: the values forward's transients (a no-grad layer at a time over the padded
micro-batch, no vocabulary logits), which the log-prob phase prices for no pass but the
policy's fp32 logits of one micro-batch.
"""

from __future__ import annotations

from dataclasses import replace

from ..memo import Memo
from ..model.result import Memory
from ..model.specs import ModelSpec, Scenario
from .rl_check import rl_of, role_model
from .rl_critic_padding import critic_pads, critic_scenario
from .rl_shared import shared_trainer

_ONE = 1  # the value head's outputs a token: a "vocabulary" of one
_HEADLESS: Memo[ModelSpec] = Memo(256)
_PEAKS: Memo[Memory] = Memo(1024)


def one_output(model: ModelSpec) -> ModelSpec:
    """``model`` with a one-output head in place of its vocabulary, kept per model (the
    trainer's memo is keyed by the model's identity)."""
    return _HEADLESS.get(id(model), lambda: model.model_copy(update={"vocab_size": _ONE}), (model,))


def padded_critic_peak(s: Scenario, states: Memory | None) -> Memory | None:
    """The critic's own update peak over its padded rows, bytes per GPU, with ``states`` (the
    critic's training memory without its LM head, core/pipeline/rl_critic_head.py
    ``critic_states``) as its weights, gradients and optimizer; None where the critic packs
    its rows (or there is none)."""
    if states is None or not critic_pads(s):
        return None
    model = one_output(role_model(s, "", rl_of(s).critic.model))
    mem = shared_trainer(critic_scenario(s), model, "full_finetune")[1]
    return _PEAKS.get((id(mem), id(states)), lambda: _with_states(mem, states), (mem, states))


def _with_states(mem: Memory, states: Memory) -> Memory:
    """``mem`` (the one-output trainer's peak) with the critic's own states in place of its."""
    more = states.weights - mem.weights + states.gradients - mem.gradients + states.optimizer - mem.optimizer
    return replace(
        mem,
        weights=states.weights,
        gradients=states.gradients,
        optimizer=states.optimizer,
        total=mem.total + more,
        peak_phase="training",
    )
