"""The bytes one request holds in an engine's KV cache: the one rule every memory rule, the
start-up check, the inverse and the pool chart use (core/serving/rules).

After vllm/v1/kv_cache_interface.py (0.11.0): one spec per kind of layer, each owning what one
request of ``tokens`` tokens holds (``max_memory_usage_bytes``), in pages of ``block`` tokens of
one layer (``page_size_bytes``; every attention layer of a model shares one page size here):

- :class:`FullAttentionSpec`: a page per block of the context, ``cdiv(tokens, block)``;
- :class:`SlidingWindowSpec`: ``min(window - 1 + max_num_batched_tokens, tokens)`` tokens plus
  one block ("the sliding window may not start from the beginning of the block");
- a hybrid model's recurrent state (``MambaSpec``): one state per request, whatever its length.

Which specs a request is built from is the release's KV layout (``EngineRelease.kv_layout``), a
key of :data:`KV_LAYOUTS`: ``"per_layer"`` (vLLM V1's hybrid KV cache manager, and the engines
that page alike: SGLang, TensorRT-LLM) or ``"whole_context"`` (vLLM V0 ``CacheEngine``: every
attention layer charged the whole context, ``raise_if_cache_size_invalid``; transformers'
DynamicCache as a request count, block 1). A new layout is one :class:`KVLayout` subclass
registered with :func:`register_layout`.

The pool itself is counted in blocks of every attention layer (``get_num_blocks``:
``available // page_size // num_layers``) and its tokens are those blocks' (the engine's "GPU
KV cache size"); the scenario's load, ``concurrency`` x (prompt + output) tokens, fits when its
tokens in whole blocks do (:meth:`RequestKV.load_bytes`, :meth:`RequestKV.holds`).
The specs and :class:`RequestKV` are core/serving/kv_specs.py's.
"""

from __future__ import annotations

from typing import TypeVar, cast, overload

from ..errors import registered
from ..memory.inference import attention_layers, kv_bytes_per_token_layer
from ..memory.kv_cap import kv_cap, prefill_step
from ..model.architecture import Arch, ceil_div
from ..model.sharding import StageParams
from ..model.specs import Scenario
from ..model.state import state_bytes
from ..registry.engines import EngineRelease
from ..registry.table import add_keyed
from .engine_settings import EngineSettings
from .kv_specs import AttentionSpec, FullAttentionSpec, RequestKV, RotatingSpec, SlidingWindowSpec

__all__ = [
    "KV_LAYOUTS",
    "WHOLE_CONTEXT",
    "AttentionSpec",
    "FullAttentionSpec",
    "KVLayout",
    "RequestKV",
    "RotatingSpec",
    "SlidingWindowSpec",
    "kv_layout",
    "register_layout",
    "request_kv",
]


KV_LAYOUTS: dict[str, KVLayout] = {}
_L = TypeVar("_L", bound="KVLayout")


@overload
def register_layout(layout: type[_L]) -> type[_L]: ...
@overload
def register_layout(layout: _L) -> _L: ...
def register_layout(layout: _L | type[_L]) -> _L | type[_L]:
    """Add a KV layout under its key (what ``EngineRelease.kv_layout`` names; a DuplicateId if
    taken): an instance, or as a decorator the class, registered where it is defined."""
    return cast("_L | type[_L]", add_keyed(KV_LAYOUTS, layout, "KV layout"))


class KVLayout:
    """Which specs one request is built from (a release's ``kv_layout``)."""

    key = ""
    label = ""

    def specs(
        self, s: Scenario, arch: Arch, st: EngineSettings, sp: StageParams, layers: int
    ) -> tuple[tuple[AttentionSpec, ...], float]:
        """(attention specs, recurrent state bytes) of one request on this stage."""
        raise NotImplementedError

    def request(
        self, s: Scenario, arch: Arch, st: EngineSettings, sp: StageParams, layers: int, page: float
    ) -> RequestKV:
        """The stage's KV cache as this layout pages it (``layers`` attention layers)."""
        specs, state = self.specs(s, arch, st, sp, layers)
        return RequestKV(page, st.kv_block_tokens, layers, specs, state)


@register_layout
class WholeContext(KVLayout):
    """vLLM V0 (worker/cache_engine.py): every attention layer keeps the whole context, the
    pool has no state pages (V0's Mamba cache lived outside it); transformers' cache counted
    as tokens."""

    key = "whole_context"
    label = "every attention layer keeps the whole context"

    def specs(
        self, s: Scenario, arch: Arch, st: EngineSettings, sp: StageParams, layers: int
    ) -> tuple[tuple[AttentionSpec, ...], float]:
        cap = kv_cap(s, arch)  # serving.max_kv_size where the engine takes it
        if cap is not None:
            return (RotatingSpec(layers, cap, prefill_step(s)),), 0.0
        return (FullAttentionSpec(layers),), 0.0


def _local_layers(arch: Arch, sp: StageParams, layers: int) -> int:
    """Sliding-window layers among the stage's ``layers`` attention layers."""
    spec = arch.spec
    return min(spec.sliding_window_layers, layers, sp.sliding_layers) if spec.sliding_window else 0


def _windowed(arch: Arch, st: EngineSettings, full: int, local: int) -> tuple[AttentionSpec, ...]:
    out: tuple[AttentionSpec, ...] = (FullAttentionSpec(full),)
    if local:
        out += (SlidingWindowSpec(local, arch.spec.sliding_window or 0, st.prefill_chunk_tokens),)
    return out


@register_layout
class PerLayer(KVLayout):
    """vLLM V1's hybrid KV cache manager (0.9.1 on; v1/kv_cache_interface.py,
    v1/core/kv_cache_utils.py ``_get_kv_cache_config_uniform_page_size``): full-attention layers
    page the context, sliding-window layers their window, recurrent layers one state. Layers
    are grouped by kind in groups of ``min(full, window)`` layers, the larger kind padded to a
    whole number of groups ("Add %d padding layers, may waste at most %.2f%% KV cache memory":
    Gemma 3 27B's 52 window layers beside 10 global ones take 60 layers' pages), and the
    pool's blocks span the groups: tokens = blocks // groups x block size."""

    key = "per_layer"
    label = "full layers page the context, window layers their window, recurrent layers a state"

    def specs(
        self, s: Scenario, arch: Arch, st: EngineSettings, sp: StageParams, layers: int
    ) -> tuple[tuple[AttentionSpec, ...], float]:
        local = _local_layers(arch, sp, layers)
        return _windowed(arch, st, layers - local, local), _state_per_request(s, arch)

    def request(
        self, s: Scenario, arch: Arch, st: EngineSettings, sp: StageParams, layers: int, page: float
    ) -> RequestKV:
        local = _local_layers(arch, sp, layers)
        full = layers - local
        if full and local:  # groups of min(full, local) layers; the other kind padded
            g = min(full, local)
            full, local = ceil_div(full, g) * g, ceil_div(local, g) * g
        specs = _windowed(arch, st, full, local)
        return RequestKV(page, st.kv_block_tokens, full + local, specs, _state_per_request(s, arch))


@register_layout
class Unified(KVLayout):
    """vLLM V1 0.8.3 - 0.9.0.1 (v1/core/kv_cache_utils.py ``get_kv_cache_config``):
    ``check_enough_kv_cache_memory`` sums each layer's own spec (window layers their window),
    then ``unify_hybrid_kv_cache_specs`` turns every window layer of a model that mixes both
    kinds into full attention, so the pool, its tokens and the concurrency count every layer
    at the whole context; a model whose attention layers all use the window keeps it."""

    key = "unified"
    label = "checked per layer kind, allocated as full attention when the kinds mix"

    def specs(
        self, s: Scenario, arch: Arch, st: EngineSettings, sp: StageParams, layers: int
    ) -> tuple[tuple[AttentionSpec, ...], float]:
        local = _local_layers(arch, sp, layers)
        if local and local < layers:
            return (FullAttentionSpec(layers),), 0.0
        return _windowed(arch, st, layers - local, local), 0.0

    def request(
        self, s: Scenario, arch: Arch, st: EngineSettings, sp: StageParams, layers: int, page: float
    ) -> RequestKV:
        specs, state = self.specs(s, arch, st, sp, layers)
        local = _local_layers(arch, sp, layers)
        check = _windowed(arch, st, layers - local, local)
        return RequestKV(page, st.kv_block_tokens, layers, specs, state, check_specs=check)


def _state_per_request(s: Scenario, arch: Arch) -> float:
    """Recurrent-state bytes one request holds on one GPU (0 for a transformer): vLLM's hybrid
    allocator gives each request one state page per recurrent layer from the same pool as the
    attention blocks (``MambaSpec.page_size_bytes``)."""
    if not arch.mixer_layers:
        return 0.0
    p = s.parallelism
    return state_bytes(arch, s.profile, s.precision.activations, p.tensor, p.pipeline)


WHOLE_CONTEXT: KVLayout = KV_LAYOUTS[WholeContext.key]


def kv_layout(rel: EngineRelease | None, default: KVLayout = WHOLE_CONTEXT) -> KVLayout:
    """The layout a release names (``default`` without a release); an unknown key is a
    ScenarioError naming the registered ones."""
    if rel is None:
        return default
    return registered(
        KV_LAYOUTS, rel.kv_layout, "serving.engine_version", f"release {rel.version} names KV layout"
    )


def request_kv(
    s: Scenario, arch: Arch, st: EngineSettings, sp: StageParams, layout: KVLayout | None = None
) -> RequestKV:
    """The KV cache of one GPU of the stage ``sp`` as requests use it (``layout``: the
    release's, else whole-context)."""
    layers = attention_layers(arch, sp, s.parallelism.pipeline)
    page = kv_bytes_per_token_layer(arch, s.precision.kv_cache, s.parallelism.tensor) * st.kv_block_tokens
    return (layout or kv_layout(st.release)).request(s, arch, st, sp, layers, page)
