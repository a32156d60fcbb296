"""transformers releases where they change what a run trains (``workload.transformers_version``).

From 5.0 a MoE family's routed experts load as fused 3-D parameters instead of per-expert
``nn.Linear`` modules (``src/transformers/conversion_mapping.py``; core/memory/lora_experts.py
prices what that does to LoRA). A scenario naming no release keeps the 4.x layout.

From 4.46.0 to 4.48.x the causal-LM loss (``src/transformers/loss/loss_utils.py``
``ForCausalLMLoss``) upcasts the logits and then copies the shifted fp32 logits
(``logits[..., :-1, :].contiguous()``) while the model's 16-bit logits are alive; 4.49.0 (PR
#35646) pads the labels instead (core/registry/loss_kinds.py ``full_shifted``).

Before 4.42.0 each Mistral attention layer builds its own ``MistralRotaryEmbedding``, whose
``__init__`` calls ``_set_cos_sin_cache(seq_len=max_position_embeddings, ...,
dtype=torch.get_default_dtype())`` and registers ``cos_cached`` and ``sin_cached``
(``max_position_embeddings`` x ``head_dim`` each, in the dtype ``from_pretrained`` loads in) as
non-persistent buffers: 32 layers x 2 x 32768 x 128 x 2 B = 512 MiB on Mistral 7B in fp16,
on every GPU (FSDP shards parameters, not buffers). huggingface/transformers PR #30642 ("Add
torch.compile for Mistral", merged after 4.41.0, 2024-05) replaced it with one table computed
per forward from ``position_ids`` (core/memory/rope_cache.py prices the buffers).
"""

from __future__ import annotations

import re

# the first release whose MoE experts are fused 3-D parameters (huggingface/peft#3009)
FUSED_EXPERTS_SINCE = 5
# the releases whose ForCausalLMLoss copies the shifted fp32 logits: [first, end)
SHIFTED_COPY = ((4, 46), (4, 49))
# families whose attention layers each keep a RoPE cos/sin cache, and the first release without it
ROPE_CACHE_UNTIL: dict[str, tuple[int, int]] = {"mistral": (4, 42)}
_VERSION = re.compile(r"v?(\d+)(?:\.(\d+))?(?:\.(\d+))?([a-z0-9.+_-]*)", re.ASCII)


def check_transformers_version(v: str | None) -> str | None:
    """Validation: a transformers release as ``transformers.__version__`` prints it ("4.57.1",
    "5.1.0"); None: the 4.x layout."""
    if v is not None and _VERSION.fullmatch(v.strip().lower()) is None:
        raise ValueError(f"must be a transformers release such as 4.57.1 or 5.1.0; got {v[:20]!r}")
    return v


def fuses_experts(v: str | None) -> bool:
    """Whether the release loads a MoE family's experts as fused 3-D parameters (None: 4.x, no)."""
    m = None if v is None else _VERSION.fullmatch(v.strip().lower())
    return m is not None and int(m[1]) >= FUSED_EXPERTS_SINCE


def copies_shifted_logits(v: str | None) -> bool:
    """Whether the release's ``ForCausalLMLoss`` makes the contiguous fp32 copy of the shifted
    logits (4.46.0 to 4.48.x; None: not stated, no)."""
    m = None if v is None else _VERSION.fullmatch(v.strip().lower())
    return m is not None and SHIFTED_COPY[0] <= (int(m[1]), int(m[2] or 0)) < SHIFTED_COPY[1]


def keeps_rope_cache(v: str | None, family: str) -> bool:
    """Whether the release builds a cos/sin cache in each attention layer of ``family``
    (Mistral before 4.42.0; None: not stated, no)."""
    until = ROPE_CACHE_UNTIL.get(family)
    if v is None or until is None:
        return False
    m = _VERSION.fullmatch(v.strip().lower())
    return m is not None and (int(m[1]), int(m[2] or 0)) < until
