"""The MoE token exchange a serving engine runs between expert-parallel ranks
(``serving.moe_a2a_backend``): a registry, one spec per backend owning the bytes it moves and
the rate it moves them at (the step model, core/speed/step_terms.py ``_comm``, asks it for one
layer's dispatch and combine).

Not set (null or ``"none"``), the step charges each token's 16-bit hidden state once per
routed expert at the link's alpha + bytes / beta (core/speed/collectives.py
``all_to_all_seconds``), as before. The DeepEP entries follow deepseek-ai/DeepEP V1 (the
kernels SGLang and vLLM ran in 2025; ``DeepEP/docs/legacy.md`` of the repository since V2), whose
README measures both kernel families on H800 (NVLink ~160 GB/s), one ConnectX-7 400 Gb/s
InfiniBand NIC a GPU (~50 GB/s), hidden 7,168, top-8 experts, FP8 dispatch and BF16 combine:

- normal (high-throughput) kernels: a token crosses InfiniBand once per destination node and is
  forwarded over NVLink to its ranks there (``csrc/kernels/internode.cu``; the README's
  "forwarding data from NVLink domain to RDMA domain"); their "bottleneck bandwidth" counts the
  (token, destination node) pairs at ``hidden x (1 + 4 / 128)`` bytes dispatched (e4m3 with a
  float32 scale per 128 channels: ``DeepEP/tests/test_internode.py`` ``num_rdma_token_sent`` and
  ``fp8_factor = (1 + 4 / 128) / 2``) and ``hidden x 2`` combined, the local node's pairs
  included ("logical bandwidth"): 43 / 43 GB/s at EP 16, 58 / 57 at EP 32, 51 / 50 at EP 64;
  inside one node 153 / 158 GB/s over NVLink, counted per destination rank
  (``DeepEP/tests/test_intranode.py``: the tokens a rank receives).
- low-latency kernels (pure RDMA, each token sent once per routed expert: the receive buffer is
  per local expert, ``internode_ll.cu``): at 128 tokens a rank, dispatch 77-194 us and combine
  114-369 us from EP 8 to 256, their bandwidths those token-expert pairs' bytes over the time.
  Where the EP group shares one NVLink domain (an 8-GPU node; a GB200 NVL72 rack with
  ``allow_mnnvl``) the same kernels write each message straight into the peer's buffer over
  NVLink, no NIC on the path (``nvshmemi_get_p2p_ptr`` non-zero: ``UNROLLED_WARP_COPY`` with
  ``st_na_global`` in place of ``nvshmemi_ibgda_put_nbi_warp``; DeepEP PR 173 "LL nvlink p2p",
  on by default since 2025-05-23, ``allow_nvlink_for_low_latency_mode=True``; the LMSYS GB200
  part I blog: "The new NVLink-only environment is supported by mapping remote GPU memory to
  the local virtual address space"). No DeepEP rate over multi-node NVLink is published, so
  those bytes go at the NVLink link's own alpha + bytes / beta, the rate the default
  all-to-all reads for that link (:func:`low_latency_nvlink_seconds`).

SGLang: ``--moe-a2a-backend deepep`` (``--enable-deepep-moe`` before) with ``--deepep-mode
normal | low_latency | auto``; ``auto`` resolves per step to normal when any rank has prompt
tokens in the batch, else low-latency (``DeepEPMode.resolve(is_extend_in_batch)``,
python/sglang/srt/layers/moe/utils.py). vLLM: ``--all2all-backend deepep_high_throughput |
deepep_low_latency`` (``VLLM_ALL2ALL_BACKEND`` before).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .moe_a2a_buffers import ENGINE_SIZING, BufferBytes, BufferShape
from .table import add

GB = 1e9
# e4m3 bytes a channel plus a float32 scale per 128 channels (DeepEP tests' fp8_factor x 2)
FP8_TOKEN_BYTES = 1 + 4 / 128
# DeepEP README (V1): normal kernels, H800 + CX7 400 Gb/s, (EP, dispatch GB/s, combine GB/s) over
# InfiniBand ("Internode" rows), and inside one node over NVLink as shares of the ~160 GB/s the
# README states H800's NVLink reaches at most (153 and 158 GB/s)
NORMAL_RDMA = ((16, 43.0, 43.0), (32, 58.0, 57.0), (64, 51.0, 50.0))
NORMAL_NVLINK_SHARE = (153 / 160, 158 / 160)
# low-latency kernels, 128 tokens a rank: (EP, dispatch GB/s, combine GB/s); the latencies
# (dispatch 77, 118, 155, 173, 192, 194 us; combine 114, 195, 273, 314, 369, 360 us) are those
# bytes over these rates
LOW_LATENCY_RDMA = (
    (8, 98.0, 127.0),
    (16, 63.0, 74.0),
    (32, 48.0, 53.0),
    (64, 43.0, 46.0),
    (128, 39.0, 39.0),
    (256, 39.0, 40.0),
)
SOURCE = "deepseek-ai/DeepEP docs/legacy.md 'Performance' (V1; H800, CX7 400 Gb/s)"


@dataclass(frozen=True)
class Exchange:
    """One MoE layer's exchange as the step model states it (bytes per element, rates in
    bytes/s, times in seconds)."""

    tokens: float  # this rank's tokens in the step
    hidden: int
    top_k: int
    ranks: int  # the expert-parallel group
    node_ranks: int  # GPUs a node (its NVLink domain)
    network: bool  # the group spans nodes
    nvlink_beta: float  # the node's scale-up link, as core/speed/collectives.py ``link`` reads it
    network_scale: float  # the network link's rate over the 400 Gb/s NIC the README measured on
    alpha: float  # the group's link latency a call
    busy_rank: float  # the busiest rank's routed tokens over the mean rank's
    busy_node: float  # the busiest node's over the mean node's
    fp8: bool  # the experts run 8-bit (or narrower) weights: the engine dispatches FP8
    act_b: float  # bytes an activation element (the combine's, and a 16-bit dispatch's)


def distinct(bins: int, draws: int) -> float:
    """Expected distinct bins of ``bins`` that ``draws`` uniform draws touch (a token's routed
    experts over ranks or nodes, as DeepEP's own tests route: random scores)."""
    if bins <= 1:
        return 1.0
    return bins * (1.0 - (1.0 - 1.0 / bins) ** draws)


def _row(table: tuple[tuple[float, ...], ...], ranks: int) -> tuple[float, ...]:
    """The measured row of the largest EP at most ``ranks`` (the first below the table)."""
    fit = [r for r in table if r[0] <= ranks]
    return fit[-1] if fit else table[0]


@dataclass(frozen=True)
class A2ABackend:
    """One backend: ``mode`` the DeepEP kernels it runs ("normal", "low_latency"; "auto": per
    step), ``engines`` the frameworks that run it."""

    id: str
    label: str
    mode: str
    engines: tuple[str, ...]
    source: str

    def resolve(self, extend: bool) -> str:
        """The kernels a step runs: SGLang's ``auto`` takes normal when the batch has prompt
        tokens ("is_extend_in_batch"), low-latency otherwise."""
        if self.mode != "auto":
            return self.mode
        return "normal" if extend else "low_latency"

    def legs(self, x: Exchange, extend: bool) -> tuple[float, float]:
        """One layer's (dispatch, combine) seconds on the busiest rank, apart: what two-batch
        overlap hides behind different stages (core/speed/step_tbo.py). Their sum is
        :meth:`seconds` up to rounding."""
        if self.mode == "none":
            return 0.0, 0.0
        return normal_legs(x) if self.resolve(extend) == "normal" else low_latency_legs(x)

    def seconds(self, x: Exchange, extend: bool) -> float:
        """One layer's dispatch and combine (s) on the busiest rank. The "none" entry is the
        step model's own all-to-all (core/speed/collectives.py), which never asks it: 0."""
        if self.mode == "none":
            return 0.0
        return normal_seconds(x) if self.resolve(extend) == "normal" else low_latency_seconds(x)

    def buffer_bytes(self, x: BufferShape, engine: str) -> BufferBytes:
        """The DeepEP buffers one GPU of the EP group holds for this backend under ``engine``
        (core/registry/moe_a2a_buffers.py): the normal kernels', the low-latency ones' or, for
        ``auto``, both (SGLang's ``DeepEPMode.enable_normal`` / ``enable_low_latency``). None
        for "none", or an engine that sizes no DeepEP buffer."""
        sizing = ENGINE_SIZING.get(engine)
        if self.mode == "none" or sizing is None:
            return BufferBytes()
        return sizing.buffers(self.mode != "low_latency", self.mode != "normal", x)


def normal_seconds(x: Exchange) -> float:
    """DeepEP's normal kernels: over the network each (token, destination node) pair at the
    README's RDMA rate for the EP size, the busiest node's share; the NVLink forward to the
    busiest rank beside it (the kernels pipeline the two: the slower one bounds); inside a node,
    each (token, destination rank) pair at the README's share of the NVLink rate. Each call
    also pays the link's latency."""
    return sum(normal_legs(x))


def low_latency_seconds(x: Exchange) -> float:
    """DeepEP's low-latency kernels: each (token, routed expert) pair to the busiest rank at the
    README's rate for the EP size (its 128-token latency is those bytes over it), at least the
    link's latency a call; inside one NVLink domain at the link's own rate
    (:func:`low_latency_nvlink_seconds`)."""
    return sum(low_latency_legs(x))


def low_latency_nvlink_seconds(x: Exchange) -> float:
    """DeepEP's low-latency kernels inside one NVLink domain: the same messages as over RDMA
    (each (token, routed expert) pair, FP8 with its scales dispatched, BF16 combined, the
    busiest rank's share) at the scale-up link's alpha + bytes / beta (core/speed/collectives.py:
    8 us and 0.82 of the per-direction line rate), as the default all-to-all reads that link.
    The README's RDMA rates do not apply: no NIC is on the path (module docstring). Checked, not
    fitted, on DeepEP PR 173's H20 EP 8 (128 tokens a rank over NVLink: dispatch 37 us, combine
    59 us): this gives 28 and 48 us."""
    return sum(_nvlink_legs(x))


def _nvlink_legs(x: Exchange) -> tuple[float, float]:
    """:func:`low_latency_nvlink_seconds` as (dispatch, combine)."""
    pairs = x.tokens * x.top_k * x.busy_rank
    disp_b = x.hidden * (FP8_TOKEN_BYTES if x.fp8 else x.act_b)
    return x.alpha + pairs * disp_b / x.nvlink_beta, x.alpha + pairs * x.hidden * x.act_b / x.nvlink_beta


def normal_legs(x: Exchange) -> tuple[float, float]:
    """:func:`normal_seconds` as (dispatch, combine), each with its call's latency."""
    disp_b = x.hidden * (FP8_TOKEN_BYTES if x.fp8 else x.act_b)
    comb_b = x.hidden * x.act_b
    share_d, share_c = NORMAL_NVLINK_SHARE
    pairs = x.tokens * distinct(x.ranks, x.top_k) * x.busy_rank
    nvl_d = pairs * disp_b / (share_d * x.nvlink_beta)
    nvl_c = pairs * comb_b / (share_c * x.nvlink_beta)
    if not x.network:
        return x.alpha + nvl_d, x.alpha + nvl_c
    nodes = math.ceil(x.ranks / max(1, x.node_ranks))
    _, rate_d, rate_c = _row(NORMAL_RDMA, x.ranks)
    node_pairs = x.tokens * distinct(nodes, x.top_k) * x.busy_node
    rdma_d = node_pairs * disp_b / (rate_d * GB * x.network_scale)
    rdma_c = node_pairs * comb_b / (rate_c * GB * x.network_scale)
    return x.alpha + max(rdma_d, nvl_d), x.alpha + max(rdma_c, nvl_c)


def low_latency_legs(x: Exchange) -> tuple[float, float]:
    """:func:`low_latency_seconds` as (dispatch, combine)."""
    if not x.network:
        return _nvlink_legs(x)
    pairs = x.tokens * x.top_k * x.busy_rank
    disp_b = x.hidden * (FP8_TOKEN_BYTES if x.fp8 else x.act_b)
    _, rate_d, rate_c = _row(LOW_LATENCY_RDMA, x.ranks)
    scale = x.network_scale
    disp = pairs * disp_b / (rate_d * GB * scale)
    comb = pairs * x.hidden * x.act_b / (rate_c * GB * scale)
    return max(x.alpha, disp), max(x.alpha, comb)


MOE_A2A_BACKENDS: dict[str, A2ABackend] = {}


def register(backend: A2ABackend) -> A2ABackend:
    """Add a backend (a DuplicateId if its id is taken)."""
    return add(MOE_A2A_BACKENDS, backend.id, backend, "MoE all-to-all backend")


_ENGINES = ("vllm", "sglang")
register(A2ABackend("none", "the engine's own all-to-all (16-bit, a copy per expert)", "none", (), ""))
register(A2ABackend("deepep_normal", "DeepEP normal (high-throughput)", "normal", _ENGINES, SOURCE))
register(A2ABackend("deepep_low_latency", "DeepEP low-latency", "low_latency", _ENGINES, SOURCE))
register(
    A2ABackend(
        "deepep_auto", "DeepEP auto (normal with prompts, else low-latency)", "auto", ("sglang",), SOURCE
    )
)

# The engines' own values for a registered backend, read as its id (the echo states the id):
# SGLang's ``--moe-a2a-backend deepep`` runs ``--deepep-mode`` "auto" unless that is set
# (python/sglang/srt/server_args.py, v0.5.x: ``moe_a2a_backend: Literal["none", "deepep", ...]``,
# ``deepep_mode: Literal["auto", "normal", "low_latency"] = "auto"``); vLLM's
# ``--all2all-backend deepep_high_throughput`` is DeepEP's normal kernels
# (vllm/config/parallel.py ``All2AllBackend``; FusedMoEParallelConfig ``use_deepep_ht_kernels``).
ENGINE_SPELLINGS: dict[str, str] = {"deepep": "deepep_auto", "deepep_high_throughput": "deepep_normal"}


def backend_id(value: object) -> object:
    """``value`` with an engine's own spelling (:data:`ENGINE_SPELLINGS`) read as the backend's
    id; any other value as given, for the id check to judge."""
    return ENGINE_SPELLINGS.get(value, value) if isinstance(value, str) else value


@dataclass(frozen=True)
class MoeA2A:
    """The exchange backend a serving scenario states (``serving.moe_a2a_backend``,
    core/registry/moe_a2a.py) and what it reads of the links: a node's GPUs, its scale-up link's
    rate (bytes/s; inf without one) and the network's rate over the reference NIC's."""

    backend: A2ABackend
    node_ranks: int
    nvlink_beta: float
    network_scale: float
