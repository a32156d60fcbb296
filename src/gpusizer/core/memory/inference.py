"""Per-GPU inference memory: weights, KV cache, the largest live activations, runtime buffers.

KV cache per token and layer: 2 · kv_heads · head_dim · bytes (K and V; GQA, Ainslie et al.
2023 arXiv 2305.13245). Sliding-window layers keep at most the window (Mistral, arXiv
2310.06825 §2; transformers' DynamicSlidingWindowLayer keeps window − 1 tokens). MLA caches the
compressed latent plus the shared RoPE key, (kv_lora_rank + qk_rope_head_dim) values per token
and layer (DeepSeek-V2, arXiv 2405.04434 §2.1.2), in vLLM, SGLang, Megatron and transformers 5
(measured: keys [b, 1, s, kv_lora_rank], values [b, 1, s, qk_rope_head_dim]).

Only softmax-attention layers hold a KV cache; the recurrent layers of hybrid models keep a
fixed-size state per sequence instead (core/model/state.py), counted in the same ``kv_cache``
component and named in the report's ``cache`` block. The vision tower's weights sit with the
other weights (core/model/sharding.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from ..model.architecture import Arch, ceil_div
from ..model.module_bytes import stage_weight_bytes
from ..model.params import ParamCounts
from ..model.redundant import expert_divisor
from ..model.result import COMPONENTS, Memory
from ..model.sharding import StageParams, stage_params
from ..model.specs import Scenario
from ..model.state import state_bytes, state_bytes_per_sequence
from ..registry.dtypes import nbytes
from .attention_unfused import prefill_scores_bytes
from .bnb_inference import bnb_prefill_bytes
from .kv_cap import capped_tokens, kv_cap, prefill_step
from .prefill_head import last_chunk_logits_bytes


def _minimum(a: Any, b: Any) -> Any:
    """min() for scalars, numpy.minimum for sweep arrays (numpy stays out of the app's start)."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return min(a, b)
    import numpy as np

    return np.minimum(a, b)


def _maximum(a: Any, b: Any) -> Any:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return max(a, b)
    import numpy as np

    return np.maximum(a, b)


def kv_bytes_per_token_layer(arch: Arch, kv_dtype: str, tp: int = 1) -> float:
    """K+V bytes one token adds to one layer's cache on one GPU (TP splits KV heads; a head is
    replicated when TP exceeds the KV heads, Megatron/vLLM)."""
    b = nbytes(kv_dtype)
    mla = arch.mla
    if mla is not None:  # the latent and the shared RoPE key, replicated over TP
        return (mla.kv_lora_rank + mla.qk_rope_head_dim) * b
    heads = max(1, ceil_div(arch.kv_heads, tp))
    return 2 * heads * arch.head_dim * b


@dataclass(frozen=True)
class KvLayout:
    """How one GPU holds keys and values: their dtype, the TP split, the attention layers it
    holds (None: every one of the model's) and how many of them keep only the sliding window
    (None: the model's sliding-window layers among them), and the tokens an engine keeps
    beyond the window (``FrameworkProfile.kv_window_slack``, taken off the window)."""

    dtype: str
    tp: int = 1
    layers: int | None = None
    local: int | None = None
    window_slack: int = 0


def kv_cache_bytes(arch: Arch, kv: KvLayout, batch: Any, tokens: Any) -> Any:
    """Whole-cache bytes for ``batch`` sequences of ``tokens`` tokens (scalars, or numpy arrays
    for sweeps); a sliding-window layer keeps the window less the slack."""
    layers = arch.attention_layers if kv.layers is None else kv.layers
    per = kv_bytes_per_token_layer(arch, kv.dtype, kv.tp)
    spec, local = arch.spec, kv.local
    if local is None:
        local = min(spec.sliding_window_layers, layers) if spec.sliding_window else 0
    window_tokens = tokens
    if spec.sliding_window:
        window_tokens = _minimum(tokens, spec.sliding_window - kv.window_slack)
    return batch * per * ((layers - local) * tokens + local * window_tokens)


def _prefill_activations(s: Scenario, arch: Arch, batch: Any, prompt: Any) -> tuple[Any, Any]:
    """(largest live activations inside a layer, logits buffer) during prefill, bytes.

    Without autograd nothing is kept between layers: the peak is the residual stream and the
    normalised input plus the widest intermediate (MLP: gate, up and their product; eager
    attention: the fp32 scores and their copy, where the profile materialises them). Engines
    prefill in chunks (``FrameworkProfile.prefill_chunk_tokens``: vLLM's
    ``max_num_batched_tokens``, llama.cpp's ``n_batch`` per sequence); transformers prefills
    the whole prompt. Logits are computed for the last position only during generation (fp32
    upcast included), and for the whole last chunk where the release runs the LM head over it
    (core/memory/prefill_head.py)."""
    par, prof = s.parallelism, s.profile
    pb = nbytes(s.precision.activations)
    tokens = batch * prompt
    chunk = prof.prefill_chunk_tokens
    if chunk is not None:
        tokens = _minimum(tokens, chunk * batch if prof.prefill_chunk_per_sequence else chunk)
    stream = 2 * pb * tokens * arch.hidden
    ffn = arch.moe.expert_ffn_hidden_size * arch.moe.experts_per_token if arch.moe else arch.ffn
    if arch.moe and arch.dense_layers:
        # its dense layers run their own MLP, which may be the wider (Llama 4 Maverick's
        # intermediate_size_mlp 16,384 against one routed expert's 8,192)
        ffn = max(ffn, arch.ffn)
    mlp = pb * tokens * ffn * (3 if arch.spec.mlp == "gated" else 2) / par.tensor
    mlp = mlp + bnb_prefill_bytes(s, arch, tokens)  # beside the MLP's intermediates
    attn = pb * tokens * (arch.q_dim + 2 * arch.kv_dim) / par.tensor
    if par.attention == "eager" and prof.eager_scores:
        attn = attn + batch * arch.heads * prompt**2 * (4 + pb) / par.tensor
    attn = attn + prefill_scores_bytes(s, arch, tokens, prompt)  # an unfused forward's scores
    logits = batch * arch.vocab * (pb + 4) / par.tensor
    logits = logits + last_chunk_logits_bytes(s, arch, batch, prompt, pb)  # mlx-lm before 0.27.0
    return stream + _maximum(mlp, attn), logits


def attention_layers(arch: Arch, sp: StageParams, pp: int) -> int:
    """Layers of this stage that keep keys and values: hybrid models' recurrent layers keep a
    fixed-size state instead (core/model/state.py)."""
    return min(sp.layers, ceil_div(arch.attention_layers, pp))


class InferenceParts(NamedTuple):
    """Bytes on the heaviest GPU serving: weights, KV cache (and recurrent state), the
    prefill's activations and its logits buffer (numbers, or numpy arrays for sweeps)."""

    weights: float
    kv: Any
    acts: Any
    logits: Any


class InferenceMemory(NamedTuple):
    """The memory of the heaviest GPU serving, and its tensor peak (bytes)."""

    memory: Memory
    peak: int


class StageCache(NamedTuple):
    """What the ``kv_cache`` component holds on one GPU of a stage, in bytes (numbers, or numpy
    arrays for sweeps): the attention layers' keys and values and the recurrent layers' state."""

    kv: Any
    state: Any

    @property
    def total(self) -> Any:
        return self.kv + self.state


def stage_cache(s: Scenario, arch: Arch, sp: StageParams, batch: Any, tokens: Any) -> StageCache:
    """The cache of ``batch`` sequences of ``tokens`` tokens on one GPU of the stage ``sp``: its
    own attention layers (:func:`attention_layers`) and, of them, its own sliding-window layers
    (``StageParams.sliding_layers``), the window less the profile's slack; plus one recurrent
    state per sequence (core/model/state.py). The ``kv_cache`` component and the report's
    ``cache`` block both read it, so ``kv_cache`` = ``kv_bytes`` + ``recurrent_state_bytes``
    at every PP degree and window pattern."""
    par, prec = s.parallelism, s.precision
    attention = attention_layers(arch, sp, par.pipeline)
    cache = KvLayout(
        prec.kv_cache, par.tensor, attention, min(attention, sp.sliding_layers), s.profile.kv_window_slack
    )
    kv = kv_cache_bytes(arch, cache, batch, tokens)
    state: Any = 0
    if arch.mixer_layers:  # fixed-size recurrent state per sequence (hybrid models)
        state = batch * state_bytes(arch, s.profile, prec.activations, par.tensor, par.pipeline)
    return StageCache(kv, state)


def _heaviest_stage(s: Scenario, arch: Arch, counts: ParamCounts) -> StageParams:
    par = s.parallelism
    return stage_params(counts, arch, par.tensor, par.pipeline, expert_divisor(s), True)


def held_tokens(s: Scenario, arch: Arch, prompt: Any) -> Any:
    """Tokens one sequence's cache holds at its fullest: the context, in whole steps where the
    engine grows it in steps (``FrameworkProfile.kv_step_tokens``), at most the cap of
    ``serving.max_kv_size`` where it is taken (core/memory/kv_cap.py)."""
    tokens = prompt + s.workload.generated_tokens
    cap = kv_cap(s, arch)
    if cap is not None:
        return capped_tokens(tokens, prompt, cap, prefill_step(s))
    step = s.profile.kv_step_tokens  # an engine that grows its cache in steps holds whole steps
    if step > 1:
        tokens = -(-tokens // step) * step
    return tokens


def inference_components(
    s: Scenario, arch: Arch, counts: ParamCounts, batch: Any, prompt: Any
) -> InferenceParts:
    """The parts on the heaviest GPU; ``batch`` and ``prompt`` may be numpy arrays (sweeps)."""
    sp = _heaviest_stage(s, arch, counts)
    weights = stage_weight_bytes(s, arch, counts, sp)
    kv = stage_cache(s, arch, sp, batch, held_tokens(s, arch, prompt)).total
    acts, logits = _prefill_activations(s, arch, batch, prompt)
    return InferenceParts(weights, kv, acts, logits)


def inference_memory(s: Scenario, arch: Arch, counts: ParamCounts) -> InferenceMemory:
    """Memory of the heaviest GPU serving the scenario, with its tensor peak."""
    w = s.workload
    weights, kv, acts, logits = inference_components(s, arch, counts, w.batch_size, w.prompt_tokens)
    parts = [int(weights), int(kv), int(acts), int(logits)]
    total = sum(parts)
    mem = Memory(
        weights=parts[0],
        kv_cache=parts[1],
        activations=parts[2],
        temporary=parts[3],
        total=total,
        peak_phase="prefill",
        alive_at_peak=tuple(c for c in COMPONENTS if c not in ("gradients", "optimizer")),
    )
    return InferenceMemory(mem, int(total))


def cache_block(s: Scenario, arch: Arch, counts: ParamCounts) -> dict[str, int]:
    """The report's ``cache`` block: the ``kv_cache`` component split into the attention layers'
    KV cache and the recurrent layers' state, on the heaviest GPU (bytes), from the same
    :func:`stage_cache` as the component. ``kv_bytes`` is the component less the state, so the
    two add up to the byte whatever the rounding."""
    par, prec, w = s.parallelism, s.precision, s.workload
    sp = _heaviest_stage(s, arch, counts)
    tokens = w.prompt_tokens + w.generated_tokens
    cap = kv_cap(s, arch)  # a capped cache holds fewer (core/memory/kv_cap.py)
    if cap is not None:
        tokens = capped_tokens(tokens, w.prompt_tokens, cap, prefill_step(s))
    cache = stage_cache(s, arch, sp, w.batch_size, tokens)
    conv, recurrent = state_bytes_per_sequence(arch, s.profile, prec.activations, par.tensor, par.pipeline)
    attention = attention_layers(arch, sp, par.pipeline)
    per_token = kv_bytes_per_token_layer(arch, prec.kv_cache, par.tensor) * attention
    state = int(w.batch_size * (conv + recurrent))
    return {
        "kv_bytes": int(cache.total) - state,
        "recurrent_state_bytes": state,
        "recurrent_state_bytes_per_sequence": int(conv + recurrent),
        "kv_bytes_per_token": int(per_token),
        "attention_layers": arch.attention_layers,
        "recurrent_layers": arch.mixer_layers,
    }
