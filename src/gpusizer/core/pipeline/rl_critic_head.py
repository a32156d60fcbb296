"""The critic's one-output value head: a PPO critic scores each token with a ``hidden x 1``
projection, not the policy's ``vocab x hidden`` LM head.

Sources:
- verl builds its FSDP critic as ``AutoModelForTokenClassification`` with
  ``critic_model_config.num_labels = 1`` (``verl/workers/fsdp_workers.py`` v0.3.0.post1 lines
  688-707, CriticWorker ``_build_critic_model_optimizer``; v0.7.0 line 1310).
  transformers' ``*ForTokenClassification`` (``Qwen2ForTokenClassification``,
  ``LlamaForTokenClassification``) put ``score = nn.Linear(hidden_size, num_labels)`` on the
  decoder's last hidden state, in place of ``lm_head``.
- OpenRLHF's critic (``openrlhf/models/model.py`` v0.11.0 ``_get_critic_model``, lines
  245-254) sets its value head to ``nn.Linear(config.hidden_size, 1, bias=False)`` on the base
  model, likewise without the LM head.

So per token the critic's head multiplies ``hidden`` weights instead of ``vocab x hidden``
(Qwen2-7B: 152,064 x 3,584 = 545 M of its ~7 B matmul weights, about 7 % of its FLOPs a token),
and an untied model's critic holds no ``lm_head`` (its weights, gradients and optimizer states);
a tied model's embedding stays, as the input embedding. Units: weights (parameters), FLOPs per
token, bytes. The input embedding, the layers and the final norm are the policy's.

A reward model (``rl.reward.kind: "model"``) is the same one-output scorer, frozen: its forward
multiplies ``hidden`` head weights a token and its 16-bit weights leave out an untied
``lm_head`` (:func:`scorer_bytes`). Read at each framework's release:
- verl ``RewardModelWorker``: ``model_config.num_labels = 1``, then
  ``AutoModelForTokenClassification`` (``verl/workers/fsdp_workers.py`` v0.3.0.post1 lines
  898-962, v0.7.0 lines 1629-1730); its Megatron worker builds it ``is_value_model=True``, whose
  hook swaps ``output_layer`` for ``LinearForLastLayer(hidden_size, 1)``
  (``verl/workers/megatron_workers.py`` v0.7.0 lines 1347-1362, ``verl/models/mcore/bridge.py``
  v0.7.0 lines 97-133), as it does for the Megatron critic (``megatron_workers.py`` line 1075).
- OpenRLHF ``RewardModelActor`` (``openrlhf/trainer/ray/launcher.py`` v0.11.0 line 161):
  ``get_llm_for_sequence_regression(..., "reward")``, the base model with
  ``nn.Linear(config.hidden_size, 1, bias=False)`` (``openrlhf/models/model.py`` v0.11.0 lines
  177-186).
- TRL ``GRPOTrainer`` / ``RLOOTrainer``: a reward given by name is
  ``AutoModelForSequenceClassification.from_pretrained(reward_func, num_labels=1)``
  (``trl/trainer/grpo_trainer.py`` v1.9.0 lines 518-520, ``rloo_trainer.py`` line 429).
- NeMo RL ``RewardModelEnvironment`` (Bradley-Terry only,
  ``nemo_rl/environments/reward_model_environment.py`` v0.7.0 lines 102-109):
  ``NeMoAutoModelForSequenceClassification`` with ``num_labels = 1``
  (``nemo_rl/models/automodel/setup.py`` v0.7.0 lines 345-372).
A generative reward model (verl's GenRM through the reward loop, ``docs/advance/reward_loop.rst``
v0.7.0 lines 46-55: a served LLM generating a verdict) keeps its LM head and runs a rollout of
its own: not this role, and not modelled.
"""

from __future__ import annotations

from dataclasses import replace

from ..memo import Memo
from ..model.architecture import resolve
from ..model.params import count_parameters
from ..model.result import Memory
from ..model.specs import ModelSpec
from .rl_time import forward_flops

_SCORE = 1  # num_labels: one value per token
# The critic's states by its shared training peak (core/pipeline/rl_shared.py), so that the
# training side's memo (core/pipeline/rl_memory.py, keyed by the critic's identity) still hits
# across a catalog search's layouts.
_STATES: Memo[Memory] = Memo(256)


def head_weights_saved(model: ModelSpec) -> float:
    """Weights multiplied per token by the LM head that the critic's value head does not:
    ``vocab x hidden`` (tied or not, as core/model/flops.py ``matmul_params`` counts the head)
    less the value head's ``hidden x 1``."""
    arch = resolve(model)
    return float(arch.hidden) * (arch.vocab - _SCORE)


def critic_forward_flops(model: ModelSpec, rows: float, causal: bool) -> float:
    """FLOPs per token of the critic's values forward (and a reward model's score): the
    policy-shaped forward (core/pipeline/rl_time.py ``forward_flops``) less 2 x the head weights
    it does not multiply."""
    return forward_flops(model, rows, causal) - 2 * head_weights_saved(model)


def critic_cost_share(model: ModelSpec, rows: float, causal: bool) -> float:
    """The critic's FLOPs per token over the LM-headed model's, forward or training alike (the
    backward is 2x the forward for every weight, head included: Kaplan et al. arXiv 2001.08361
    §2.1): what the critic's update costs against one priced with the vocabulary head."""
    full = forward_flops(model, rows, causal)
    return critic_forward_flops(model, rows, causal) / full if full else 1.0


def critic_states(mem: Memory, model: ModelSpec) -> Memory:
    """The critic's training memory ``mem`` (priced with the model's LM head) without the untied
    ``lm_head``'s weights, gradients and optimizer states and with the value head's
    ``hidden + 1``: those components scaled by the parameters kept over all, as the states are
    bytes per parameter sharded alike (FSDP). A tied head's weights are the input embedding,
    which the critic keeps: unchanged."""
    return _STATES.get((id(mem), id(model)), lambda: _without_head(mem, model), (mem, model))


def kept_share(model: ModelSpec) -> float:
    """Parameters a one-output scorer of ``model`` holds over the LM-headed model's: less an
    untied ``lm_head``, plus the ``hidden + 1`` of the value head (as :func:`critic_states`
    counts them); 1 for a tied head (the input embedding stays)."""
    counts = count_parameters(model)
    if not counts.lm_head or not counts.total:
        return 1.0
    return (counts.total - counts.lm_head + resolve(model).hidden + 1) / counts.total


def scorer_bytes(frozen: int, model: ModelSpec) -> int:
    """A frozen reward model's weights on one GPU, bytes: ``frozen`` (its 16-bit weights laid
    out as the policy's, core/pipeline/rl_colocated.py ``frozen_bytes``) less the untied
    ``lm_head`` its one-output head replaces, scaled as :func:`critic_states` scales the
    critic's states."""
    return int(frozen * kept_share(model))


def _without_head(mem: Memory, model: ModelSpec) -> Memory:
    kept = kept_share(model)
    if kept == 1.0:
        return mem
    w, g, o = (int(x * kept) for x in (mem.weights, mem.gradients, mem.optimizer))
    less = mem.weights - w + mem.gradients - g + mem.optimizer - o
    return replace(mem, weights=w, gradients=g, optimizer=o, total=mem.total - less)
