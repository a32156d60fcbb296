"""A capped KV cache: each sequence keeps at most ``serving.max_kv_size`` tokens.

mlx-lm's ``--max-kv-size N`` (``mlx_lm/models/cache.py`` ``make_prompt_cache``) gives every
layer a ``RotatingKVCache(max_size=N, keep=4)``: the first 4 tokens and the last ones stay, the
rest are dropped. What it holds, per sequence and layer (``RotatingKVCache``, read at
ml-explore/mlx-lm d78bf58):

- decoding one token at a time (``_update_in_place``), the buffer grows ``min(step, N - offset)``
  tokens at a time (``step`` 256), so never past N: ``min(ceil256(tokens), N)``;
- a prompt chunk of S tokens (``_update_concat``) is appended to the last ``N - 1`` tokens kept
  ("The largest size is self.max_size + S - 1 to ensure every token gets at least
  self.max_size context"): ``min(prompt, N - 1 + S)`` with S the prefill step (2,048; 512
  before mlx-lm 0.22.2), trimmed back to N at the first decoded token.

The cap is not taken where mlx-lm never builds that cache: ``make_prompt_cache`` defers to a
model's own ``make_cache``, which every model with sliding-window or recurrent layers has
(``gemma3_text.py``, ``gpt_oss.py``, ``qwen3_next.py``...: their window stays theirs) and, from
mlx-lm 0.28.1, Llama and Mistral (the release's ``own_cache_families``).
"""

from __future__ import annotations

from typing import Any

from ..model.architecture import Arch
from ..model.specs import Scenario
from ..registry.engines import release

ROTATING_STEP = 256  # RotatingKVCache.step


def kv_cap(s: Scenario, arch: Arch) -> int | None:
    """The tokens each sequence's cache is capped at (None: the whole context is kept)."""
    cap, prof = s.serving.max_kv_size, s.profile
    if cap is None or not prof.rotating_kv or s.workload.trains:
        return None
    spec = arch.spec
    if (spec.sliding_window and spec.sliding_window_layers) or arch.mixer_layers:
        return None  # the model's own caches (make_cache)
    if prof.releases:
        rel = release(prof.releases, s.serving.engine_version)
        if spec.family in rel.own_cache_families:
            return None
    return cap


def prefill_step(s: Scenario) -> int:
    """Tokens per prompt chunk: the scenario's, else the release's (else the profile's)."""
    if s.serving.prefill_chunk_tokens is not None:
        return s.serving.prefill_chunk_tokens
    prof = s.profile
    if prof.releases:
        tiers = release(prof.releases, s.serving.engine_version).tiers
        if tiers:
            return tiers[0].prefill_chunk_tokens
    return prof.prefill_chunk_tokens or 2**31


def _min(a: Any, b: Any) -> Any:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return min(a, b)
    import numpy as np

    return np.minimum(a, b)


def _max(a: Any, b: Any) -> Any:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return max(a, b)
    import numpy as np

    return np.maximum(a, b)


def capped_tokens(tokens: Any, prompt: Any, cap: int, chunk: int) -> Any:
    """The most tokens one layer of a sequence holds at once under the cap: decoding, the
    buffer in 256-token steps up to the cap; prefilling, the last ``cap - 1`` and one chunk
    (scalars, or numpy arrays for sweeps)."""
    decode = _min(-(-tokens // ROTATING_STEP) * ROTATING_STEP, cap)
    return _max(decode, _min(prompt, cap - 1 + chunk))


def cap_note(s: Scenario, arch: Arch) -> str | None:
    """The estimate's assumption about ``serving.max_kv_size`` (None: not set)."""
    if s.serving.max_kv_size is None or s.workload.trains:
        return None
    cap = kv_cap(s, arch)
    if cap is not None:
        return f"KV cache capped at {cap:,} tokens per sequence (mlx-lm --max-kv-size, RotatingKVCache)"
    return "serving.max_kv_size not taken: mlx-lm builds this model's own caches (make_cache)"
