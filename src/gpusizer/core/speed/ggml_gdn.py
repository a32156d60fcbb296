"""What a llama.cpp build runs for a Gated DeltaNet layer in a one-token decode: its ggml nodes
(each a kernel and a floor, core/speed/step_kernels.py) and how many times the layer's recurrent
state is read and written in full (core/speed/recurrent_update.py ``state_seconds``).

Which path runs. ``llm_build_delta_net_base::build_delta_net`` (llama.cpp
``src/models/delta-net-base.cpp``) takes ``build_delta_net_fused`` for a one-token step when
``cparams.fused_gdn_ar`` holds, else ``build_delta_net_autoregressive`` (12 ggml ops, eight of
them over the whole state). ``src/llama-context.cpp`` sets ``fused_gdn_ar = true`` with
``auto_fgdn``: ``sched_reserve`` reserves a one-token graph and turns the fused path off only
where a ``GGML_OP_GATED_DELTA_NET`` node lands off its layer's device ("usually due to missing
support"); ``LLAMA_DISABLE_FUSED_GDN_AR`` turns it off by hand. The op came with
ggml-org/llama.cpp PR #19504 (CPU and CUDA, synced to ggml-org/ggml as 36ae4059, 2026-03-07); its
Metal kernel (``kernel_gated_delta_net_impl``, ggml-metal.metal) with PR #20340 / #20361 (ggml
6dafac00, 2026-03-11). At ggml-org/ggml 78de6069 (2026-07-31, the sync after llama.cpp ebd048f
of 2026-07-29) Metal's ``supports_op`` keeps it wherever ``has_simdgroup_reduction && S_v % 32
== 0`` (Qwen3.5 / 3.6: S_v = 128, every Apple GPU with simdgroup reduction) and ggml-cuda's
everywhere but MUSA: builds from 2026-03 run the fused op on both. PR #27877 (2026-08-28)
removes the unfused paths ("These ops have good backend coverage now (Metal, CUDA, Vulkan,
SYCL)").

The fused path's nodes per layer (``src/models/qwen35moe.cpp`` / ``qwen35.cpp``
``build_layer_attn_linear``; empty views and zero-row copies skipped, ggml-metal-ops.cpp
``ggml_is_empty``): the qkv, z, beta and alpha mul_mats (4), sigmoid(beta), alpha + dt bias,
softplus, x A (4), the conv state's ``get_rows`` (``llm_graph_context::build_rs``,
src/llama-graph.cpp), concat and its cpy back to the cache (3), the delta state's ``get_rows``
(1), ``ssm_conv``, silu, two ``l2_norm`` (4), ``GATED_DELTA_NET`` and the cpy of its new state
into the cache (``build_recurrent_attn``, 2), the gated norm's rms_norm, weight mul, silu(z), mul
(4) and ``ssm_out`` (1): 23 nodes, one rms_norm + mul pair among them, against the 9 of the Llama
attention block they take the place of (q, k, v, 2 rope, 2 cache cpy, flash attention, o:
core/speed/step_kernels.py ``GGML_LAYER_FA``).

The state (fp32: ``recurrent_type_s`` GGML_TYPE_F32 in src/llama-model.cpp ``create_memory``) is
read and written three times a token: ``build_rs``'s ``get_rows`` copies the cell's row out, the
op reads it and writes the new state after its output, the cpy writes that into the cache.
ggml-cuda fuses the last: "Remove redundant CUDA copies after gated_delta_net" (PR #23940, ggml
ed6ad30f, 2026-07-03: the kernel writes the state into the recurrent cache, the cpy skipped), so
two on CUDA and ROCm (ggml-cuda's code, hipified); Metal's own cache fusion (PR #25788, 2026-07-16) was
closed unmerged and SYCL's (ggml 64b739ca) landed 2026-08-13, after the build.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..model.specs import Scenario
from ..registry.table import add
from .ggml_graph import GgmlExtra
from .step_costs import EngineCosts

ATTENTION_BLOCK_NODES = 9  # the Llama attention block's kernels with flash attention (above)


@dataclass(frozen=True)
class GdnDecode:
    """One Gated DeltaNet layer of a one-token llama.cpp decode (module docstring)."""

    nodes: int  # ggml nodes of the block, projections included
    norms: int  # rms_norm + mul pairs among them (one kernel each where ggml fuses them)
    passes: int  # full reads and writes of the recurrent state a token, the graph as built
    fused_cache: frozenset[str] = frozenset()  # backends whose op writes the cache itself

    def extra_kernels(self, fused_norms: bool) -> int:
        """Kernels a layer launches beyond the attention block it is counted as."""
        return self.nodes - ATTENTION_BLOCK_NODES - (self.norms if fused_norms else 0)

    def state_passes(self, backend: str) -> int:
        """Full reads and writes of the state a token on ``backend``."""
        return self.passes - (1 if backend in self.fused_cache else 0)


GDN_DECODE: dict[str, GdnDecode] = {}
add(
    GDN_DECODE,
    "fused-op",
    GdnDecode(23, 1, 3, frozenset({"cuda", "rocm"})),
    "llama.cpp Gated DeltaNet decode path",
)


def gdn_decode(name: str) -> GdnDecode | None:
    """The decode path a llama.cpp build names (``LlamaCppKnobs.gdn_decode``); None: not read,
    the layer counted as the Llama attention block with its state read and written once."""
    return GDN_DECODE.get(name) if name else None


def with_gdn(extra: GgmlExtra, s: Scenario, costs: EngineCosts) -> GgmlExtra:
    """``extra`` with the model's Gated DeltaNet layers as the build runs them (module
    docstring): their kernels beyond the attention block (counted where ggml's fusion is,
    Metal: core/speed/step_kernels.py; each rms_norm + mul one kernel there) and the state's
    passes on the scenario's backend."""
    path = gdn_decode(costs.gdn_decode) if costs.library == "ggml" else None
    la = s.model.linear_attention
    if path is None or la is None or not la.layers:
        return extra
    recurrent = la.layers * path.extra_kernels(fused_norms=True)
    return replace(extra, recurrent=recurrent, state_passes=path.state_passes(costs.backend))
