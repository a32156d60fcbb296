"""What one request holds in an engine's KV cache, per kind of layer, and the pool as requests
use it (:class:`RequestKV`). After vllm/v1/kv_cache_interface.py (0.11.0): one spec per kind of
layer, each owning what one request of ``tokens`` tokens holds (``max_memory_usage_bytes``), in
pages of ``block`` tokens of one layer (``page_size_bytes``). Which specs a request is built from
is core/serving/kv_request.py's (the release's KV layout).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..model.architecture import ceil_div
from .engine_result import Load


@dataclass(frozen=True)
class FullAttentionSpec:
    """``layers`` full-attention layers: a page per block of the request's tokens."""

    layers: int

    def pages(self, tokens: int, block: int) -> int:
        return self.layers * ceil_div(tokens, block)


@dataclass(frozen=True)
class SlidingWindowSpec:
    """``layers`` sliding-window layers of ``window`` tokens, prefilled in chunks of ``chunk``
    tokens (None: whole prompts): vLLM ``SlidingWindowSpec.max_memory_usage_bytes``."""

    layers: int
    window: int
    chunk: int | None

    def pages(self, tokens: int, block: int) -> int:
        kept = min(self.window - 1 + (self.chunk or tokens), tokens)
        return self.layers * (ceil_div(kept, block) + 1)


@dataclass(frozen=True)
class RotatingSpec:
    """``layers`` layers whose cache keeps at most ``cap`` tokens (mlx-lm ``RotatingKVCache``,
    core/memory/kv_cap.py): the last ``cap - 1`` and one chunk of ``chunk`` while prefilling."""

    layers: int
    cap: int
    chunk: int

    def pages(self, tokens: int, block: int) -> int:
        return self.layers * ceil_div(min(tokens, max(self.cap, self.cap - 1 + self.chunk)), block)


AttentionSpec = FullAttentionSpec | SlidingWindowSpec | RotatingSpec


@dataclass(frozen=True)
class RequestKV:
    """One GPU's KV cache as requests use it: the page of one attention layer, the specs one
    request is made of, and the recurrent state it holds beside its pages."""

    page_bytes: float  # one block of one attention layer
    block_tokens: int
    layers: int  # attention layers on this GPU (the pool's block spans them all)
    specs: tuple[AttentionSpec, ...]
    state_bytes: float = 0.0  # recurrent state per request (vLLM MambaSpec)
    # the specs the start-up check sums when they differ from the allocation's (vLLM 0.8.3 -
    # 0.9.0: checked per layer kind, allocated as full attention)
    check_specs: tuple[AttentionSpec, ...] | None = None

    @property
    def block_bytes(self) -> float:
        """One block of every attention layer: the pool's unit."""
        return self.page_bytes * self.layers

    @property
    def per_token(self) -> float:
        """Bytes one token adds over every attention layer."""
        return self.page_bytes / self.block_tokens * self.layers

    def request_bytes(self, tokens: int) -> float:
        """Bytes one request of ``tokens`` tokens holds (pages rounded to whole blocks, its
        state included)."""
        pages = sum(spec.pages(tokens, self.block_tokens) for spec in self.specs)
        return self.page_bytes * pages + self.state_bytes

    def check_bytes(self, tokens: int) -> float:
        """What the start-up check counts for one request of ``tokens`` tokens
        (``check_enough_kv_cache_memory``): the allocation's bytes unless it sums other specs."""
        if self.check_specs is None:
            return self.request_bytes(tokens)
        pages = sum(spec.pages(tokens, self.block_tokens) for spec in self.check_specs)
        return self.page_bytes * pages + self.state_bytes

    def load_bytes(self, load: Load) -> float:
        """Bytes the load's tokens take in the pool, in whole blocks: the pool's token count
        (what vLLM logs as "GPU KV cache size: N tokens", and the requests the speed model
        runs at once) holds every user's prompt and output."""
        return self.block_bytes * ceil_div(load.total_tokens, self.block_tokens)

    def blocks(self, pool: float) -> int:
        """Whole blocks a pool of ``pool`` bytes holds."""
        unit = self.block_bytes
        return int(pool // unit) if pool > 0 and unit > 0 else 0

    def pool_tokens(self, pool: float) -> int:
        """Tokens of one sequence the pool holds (the engine's "KV cache size")."""
        return self.blocks(pool) * self.block_tokens

    def whole_blocks(self, nbytes: float) -> float:
        """``nbytes`` rounded up to whole blocks of the pool."""
        unit = self.block_bytes
        return math.ceil(nbytes / unit) * unit if unit > 0 else nbytes

    def holds(self, pool: float, nbytes: float) -> bool:
        """Whether the pool's whole blocks hold ``nbytes`` of pages and state."""
        unit = self.block_bytes
        return nbytes <= 0 or (unit > 0 and math.ceil(nbytes / unit) <= self.blocks(pool))

    def largest_context(self, pool: float, max_context: int) -> int:
        """vLLM's ``estimate_max_model_len`` (v1/core/kv_cache_utils.py, PR #16168): the largest
        max_model_len in 1..max_context whose request fits the pool, by binary search (0 when
        none does). Under the whole-context layout it is the pool's tokens, as V0 printed."""
        low, high, best = 1, max_context, 0
        while low <= high:
            mid = (low + high) // 2
            if self.check_bytes(mid) <= pool:
                best, low = mid, mid + 1
            else:
                high = mid - 1
        return best
