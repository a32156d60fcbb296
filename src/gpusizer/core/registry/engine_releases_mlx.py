"""mlx-lm releases (Apple MLX): the defaults that decide its memory and its step.

mlx-lm runs a model's modules from Python over MLX's lazy graph: ``mlx_lm.generate`` and
``mlx_lm.server`` (ml-explore/mlx-lm ``mlx_lm/generate.py``, ``server.py``). What the rules read:

- one sequence at a time (``generate_step``; the server before 0.28.4 answered one request
  after another): ``max_sequences`` 1; from 0.28.4 (2025-12-03, PR #626 "Batching in the
  server") ``mlx_lm.server`` decodes up to ``--decode-concurrency`` 32 requests together
  (``BatchGenerator``), prefilling new prompts in steps of their own (up to
  ``--prompt-concurrency`` 8): ``max_sequences`` 32, prompts not mixed with decodes;
- the prompt in pieces of ``prefill_step_size`` tokens (``generate_step``: "while y.size >
  prefill_step_size: model(y[:prefill_step_size][None], cache=prompt_cache)"): 512 until PR #40
  "Updates for causal mask" (2025-03-21, version 0.22.2) raised it to 2048;
- the KV cache grows in steps of 256 tokens (``mlx_lm/models/cache.py`` ``KVCache.step = 256``:
  keys and values are re-allocated ``((step + S - 1) // step) * step`` tokens at a time), one
  block of the scheduler;
- no CUDA graphs and no per-kernel launch from the host (Metal command buffers, and MLX's
  ``mx.async_eval`` builds the next token's graph while the GPU runs this one).

0.19.0 (2024-10) is the first to wire the model's memory (ml-explore/mlx-examples PR #1069); a
version between two releases takes the older one's rules. Read at ml-explore/mlx-lm d78bf58
(2026-08, version 0.32.0) and the tags named.
"""

from __future__ import annotations

from typing import Literal

from .engines import BatchTier, EngineRelease, Scheduling

PREFILL_STEP_TOKENS = 2048  # generate.py generate_step prefill_step_size (512 before 0.22.2)
KV_STEP_TOKENS = 256  # models/cache.py KVCache.step

DECODE_CONCURRENCY = 32  # server.py --decode-concurrency (0.28.4 and later)
_SOURCES = (
    "ml-explore/mlx-lm mlx_lm/generate.py generate_step (prefill_step_size 2048, one "
    "sequence), mlx_lm/models/cache.py KVCache (step 256), RotatingKVCache (max_kv_size)",
)


# Before PR #406 the tokens left after the whole chunks (1 to prefill_step_size of them) went
# through generate_step's _step, whose model call returns the logits of every one of them
# before ``logits[:, -1, :]``: read at ml-explore/mlx-examples 9f34fdbd (0.19.3)
# llms/mlx_lm/utils.py, ml-explore/mlx-lm v0.22.0 mlx_lm/utils.py and v0.26.4 mlx_lm/generate.py.
_LAST_CHUNK = (
    "ml-explore/mlx-lm v0.26.4 mlx_lm/generate.py generate_step: the last prompt chunk's logits "
    "over every position (the LM head on the last token from v0.27.0, PR #406)"
)

# mlx_lm/models/llama.py defines make_cache since PR #505 (dcb4b9ba, 2025-09-26, first in
# v0.28.1, for layers with use_sliding): make_prompt_cache then never builds the RotatingKVCache
# of --max-kv-size for Llama, nor for Mistral (utils.py MODEL_REMAPPING "mistral": "llama").
LLAMA_OWN_CACHE = ("llama", "mistral")


def _mlx_lm(
    version: str,
    date: str,
    sequences: int,
    prefill: int,
    *sources: str,
    own: tuple[str, ...] = (),
    head: Literal["last_token", "last_chunk"] = "last_token",
) -> EngineRelease:
    return EngineRelease(
        version,
        date,
        None,
        tiers=(BatchTier(0, sequences, prefill),),
        kv_block_tokens=KV_STEP_TOKENS,
        chunked_prefill="always",
        cuda_graphs=False,
        scheduling=Scheduling(mixed=False, admission="reserve", graph_batch=1, graph_prefill=False),
        kv_layout="whole_context",
        own_cache_families=own,
        prefill_head=head,
        sources=(*_SOURCES, *sources),
    )


MLX_LM = (
    _mlx_lm("0.19.0", "2024-10", 1, 512, _LAST_CHUNK, head="last_chunk"),
    _mlx_lm(
        "0.22.2",
        "2025-03",
        1,
        PREFILL_STEP_TOKENS,
        "ml-explore/mlx-lm PR #40 (fd175f11, version 0.22.2): prefill_step_size 512 -> 2048",
        _LAST_CHUNK,
        head="last_chunk",
    ),
    _mlx_lm(
        "0.27.0",
        "2025-08",
        1,
        PREFILL_STEP_TOKENS,
        "ml-explore/mlx-lm PR #406 (24fefe3d, 2025-08-28, first in v0.27.0): the prompt's chunks "
        "evaluate only the cache, the LM head runs on the last prompt token",
    ),
    _mlx_lm(
        "0.28.4",
        "2025-12",
        DECODE_CONCURRENCY,
        PREFILL_STEP_TOKENS,
        "ml-explore/mlx-lm PR #626 (first in v0.28.4): server.py BatchGenerator, "
        "--decode-concurrency 32, --prompt-concurrency 8",
        "ml-explore/mlx-lm PR #505 (v0.28.1): llama.py make_cache, --max-kv-size not taken by Llama",
        own=LLAMA_OWN_CACHE,
    ),
)
