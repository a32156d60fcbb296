"""Context parallelism that splits attention heads: DeepSpeed Ulysses.

DeepSpeed's sequence parallelism (Jacobs et al. 2023, arXiv 2309.14509) turns the sequence
shards into head shards with an all-to-all before attention: each of the ``parallelism.context``
ranks then holds every token for heads / context of the heads. Its Hugging Face integration
(deepspeed/runtime/sequence_parallel/ulysses_sp.py ``UlyssesSPAttentionHF.__init__``, DeepSpeed
v0.19.5) raises "Attention head count ... is not divisible by SP size" and "KV attention head
count ... is not divisible by SP size ... or vice versa" (k/v heads are replicated when the
degree is a multiple of them); deepspeed/sequence/layer.py ``_generate_layout_params`` asserts
the same of the heads. Ring attention (Megatron-Core, torch ``context_parallel``) splits the
sequence instead and takes any head count: layouts whose context is not the head split
(core/model/context_algorithm.py: the training framework's ``context_splits_heads``, or the RL
framework's workers on it, verl's FSDP ones) are not checked here. verl asserts the same two
rules (verl/models/transformers/monkey_patch.py ``apply_monkey_patch`` at v0.5.0:
"num_attention_heads ... must be divisible by ulysses_sp_size", "num_key_value_heads ... must be
divisible by ulysses_sp_size ... or vise versa"), repeating the k/v heads max(sp // kv_heads, 1)
times.
"""

from __future__ import annotations

from ..errors import ScenarioError
from ..model.architecture import Arch, resolve
from ..model.context_algorithm import context_owner, context_splits_heads
from ..model.specs import Scenario
from .validate_model import divisors


def head_split_refusal(s: Scenario, arch: Arch, latent: bool, context: int) -> str | None:
    """Why ``context`` ranks cannot split this model's heads under ``s``'s context algorithm
    (None: they can, or it splits the sequence). ``latent``: multi-head latent attention, whose
    k/v heads are the query heads once expanded."""
    if context <= 1 or not context_splits_heads(s):
        return None
    owner = context_owner(s)
    if arch.heads % context:
        return (
            f"must divide attention_heads ({arch.heads}) under {owner}: Ulysses gives each "
            f"context rank a share of the heads; allowed: {divisors(arch.heads)}"
        )
    kv = arch.heads if latent else arch.kv_heads
    if kv % context and context % kv:
        return (
            f"must divide kv_heads ({kv}) or be a multiple of it under {owner} "
            "(Ulysses splits or replicates the k/v heads)"
        )
    return None


def check_context_heads(s: Scenario) -> None:
    """ScenarioError on ``parallelism.context`` where it cannot split the heads (module doc)."""
    why = head_split_refusal(s, resolve(s.model), s.model.mla is not None, s.parallelism.context)
    if why is not None:
        raise ScenarioError("parallelism.context", why)
