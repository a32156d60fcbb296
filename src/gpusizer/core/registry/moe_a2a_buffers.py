"""The communication buffers a DeepEP backend allocates on every GPU of its expert-parallel group
(``serving.moe_a2a_backend``; bytes per GPU), as DeepEP V1 sizes them and as each engine asks.

DeepEP V1 (deepseek-ai/DeepEP, the kernels SGLang and vLLM ran in 2025; read at f0d34aa,
2025-08-20, and 92fe2de) allocates, in ``Buffer.__init__`` (``csrc/deep_ep.cpp``):

- an NVLink buffer of ``num_nvl_bytes`` (``cudaMalloc``, shared with the node's peers by CUDA
  IPC) and a 32 MiB workspace (``NUM_WORKSPACE_BYTES``), both outside PyTorch's allocator;
- an RDMA buffer of ``num_rdma_bytes`` from NVSHMEM's symmetric heap (``nvshmem_align``), which
  NVSHMEM maps in granules of ``NVSHMEM_CUMEM_GRANULARITY``: DeepEP sets 2^29 (512 MiB,
  ``deep_ep/buffer.py``: "NVSHMEM initialization requires at least 256 MiB"), so the heap
  holds whole granules.

The sizes are the hints DeepEP publishes (``csrc/config.hpp``):

- normal kernels, NVLink (``Config.get_nvl_buffer_size_hint(hidden_bytes, ranks)``): ``channels
  x nvl_ranks x (2 x rdma_ranks + 3) x 4`` bytes of counters plus ``channels x nvl_ranks x
  recv_tokens`` slots of ``hidden_bytes + 8`` (``SourceMeta``) ``+ 128 x 8 + 128 x 4 + 128 x 4``
  (top-k indices, weights and scales at their maxima ``kNumMaxTopK`` and ``kNumMaxScales``),
  rounded up to 128; channels = ``Buffer.num_sms / 2`` = 10, nvl_ranks = min(ranks, 8),
  rdma_ranks = max(ranks / 8, 1);
- normal kernels, RDMA (``get_rdma_buffer_size_hint``; 0 at 8 ranks or fewer): ``channels x
  rdma_ranks x (8 x 2 + 2) x 2 x 4`` plus ``channels x rdma_ranks x recv x 2`` slots of the same
  bytes and a 16-byte ``int4``, recv the config's 128 RDMA tokens rounded up to its send chunk;
- low-latency kernels (``get_low_latency_rdma_size_hint(tokens, hidden, ranks, experts)``,
  ``LowLatencyLayout``): two send, two receive and two signalling buffers, a receive buffer
  ``experts x tokens`` messages of ``16 + max(2 x hidden, hidden + hidden / 128 x 4)``
  (dispatch) or ``hidden / 128 x 4 + 2 x hidden`` (combine, with LogFMT's per-128-channel
  min/max since DeepEP PR 345, 2025-08-07), rounded up past 128. Checked to the byte on DeepEP
  issue 368 (``test_low_latency.py``, 128 tokens, hidden 7,168, 256 experts: "Allocating
  buffer size: 1908.410496 MB").

The dispatch and combine configs (``Buffer.get_dispatch_config`` / ``get_combine_config``) by EP
size are DeepEP's own table; a size it does not list takes the next listed above (DeepEP
asserts "Unsupported number of EP ranks" there: the stand-in is stated, not run).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

MiB = 2**20
NUM_SMS = 20  # deep_ep Buffer.num_sms: 10 channels of two SMs
NVL_PEERS = 8  # NUM_MAX_NVL_PEERS (csrc/kernels/configs.cuh)
WORKSPACE_BYTES = 32 * MiB  # NUM_WORKSPACE_BYTES
NVSHMEM_GRANULE = 2**29  # NVSHMEM_CUMEM_GRANULARITY as deep_ep/buffer.py sets it
ALIGN = 128  # NUM_BUFFER_ALIGNMENT_BYTES
# a token slot of the normal kernels beside its hidden bytes: SourceMeta, top-k int64 indices,
# top-k float weights, float scales (kNumMaxTopK = kNumMaxScales = 128)
_SLOT_EXTRA = 8 + 128 * 8 + 128 * 4 + 128 * 4
RDMA_RECV_TOKENS = 128
# Buffer.get_dispatch_config / get_combine_config (DeepEP 92fe2de): EP -> (NVL receive tokens,
# RDMA send chunk) of the dispatch config and of the combine config
NORMAL_CONFIGS: dict[int, tuple[tuple[int, int], tuple[int, int]]] = {
    2: ((256, 6), (256, 6)),
    4: ((256, 6), (256, 6)),
    8: ((256, 6), (256, 6)),
    16: ((288, 20), (288, 12)),
    24: ((288, 8), (288, 8)),
    32: ((288, 8), (288, 8)),
    48: ((288, 8), (288, 8)),
    64: ((288, 8), (288, 8)),
    96: ((480, 12), (480, 8)),
    128: ((560, 12), (560, 8)),
    144: ((720, 12), (720, 8)),
    160: ((720, 12), (720, 8)),
}


@dataclass(frozen=True)
class BufferShape:
    """What an engine passes DeepEP's hints: the EP group, the token's hidden size, the routed
    experts with their replicas, whether the group spans nodes over the network, and the
    low-latency kernels' tokens a rank where the scenario states them."""

    ranks: int
    hidden: int
    experts: int
    internode: bool
    dispatch_tokens: int | None = None  # the low-latency kernels' tokens a rank (None: the engine's)


@dataclass(frozen=True)
class BufferBytes:
    """One GPU's DeepEP buffers (bytes): the NVLink buffer, the RDMA buffer as requested, and
    the NVSHMEM heap it takes (whole granules)."""

    nvl: int = 0
    rdma: int = 0

    @property
    def heap(self) -> int:
        """NVSHMEM's heap for the RDMA buffer: whole 512 MiB granules (0 without one)."""
        return math.ceil(self.rdma / NVSHMEM_GRANULE) * NVSHMEM_GRANULE if self.rdma else 0

    @property
    def total(self) -> int:
        """What the GPU gives up: the NVLink buffer, the heap and the workspace (0: none)."""
        if not (self.nvl or self.rdma):
            return 0
        return self.nvl + self.heap + WORKSPACE_BYTES


def _round(n: int, to: int = ALIGN) -> int:
    return -(-n // to) * to


def _config(ranks: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """DeepEP's dispatch and combine configs for the EP size (the next listed above)."""
    listed = sorted(NORMAL_CONFIGS)
    return NORMAL_CONFIGS[next((r for r in listed if r >= ranks), listed[-1])]


def nvl_hint(hidden_bytes: int, ranks: int, recv_tokens: int) -> int:
    """``Config.get_nvl_buffer_size_hint`` (bytes)."""
    channels, nvl = NUM_SMS // 2, min(ranks, NVL_PEERS)
    rdma = max(ranks // NVL_PEERS, 1)
    n = channels * nvl * (2 * rdma + 3) * 4 + channels * nvl * recv_tokens * (hidden_bytes + _SLOT_EXTRA)
    return _round(n)


def rdma_hint(hidden_bytes: int, ranks: int, send_chunk: int) -> int:
    """``Config.get_rdma_buffer_size_hint`` (bytes; 0 at 8 ranks or fewer)."""
    if ranks <= NVL_PEERS:
        return 0
    channels, rdma = NUM_SMS // 2, ranks // NVL_PEERS
    recv = _round(RDMA_RECV_TOKENS, send_chunk)
    n = channels * rdma * (NVL_PEERS * 2 + 2) * 2 * 4
    n += channels * rdma * recv * (hidden_bytes + _SLOT_EXTRA + 16) * 2
    return _round(n)


def normal_bytes(hidden_bytes: int, ranks: int) -> BufferBytes:
    """The normal kernels' buffers as SGLang sizes them: the larger hint of the dispatch and the
    combine config, NVLink and RDMA each (``DeepEPBuffer.get_deepep_buffer``)."""
    configs = _config(ranks)
    nvl = max(nvl_hint(hidden_bytes, ranks, recv) for recv, _ in configs)
    rdma = max(rdma_hint(hidden_bytes, ranks, send) for _, send in configs)
    return BufferBytes(nvl, rdma)


def low_latency_hint(tokens: int, hidden: int, experts: int) -> int:
    """``Buffer.get_low_latency_rdma_size_hint`` (bytes): the layout's two send, two receive
    and two signalling buffers, then DeepEP's rounding, which adds up to 128 bytes."""
    scales = hidden // 128
    dispatch_msg = 16 + max(hidden * 2, hidden + scales * 4)
    combine_msg = scales * 4 + hidden * 2
    send = max(tokens * dispatch_msg, experts * tokens * combine_msg)
    recv = max(experts * tokens * dispatch_msg, experts * tokens * combine_msg)
    total = 2 * send + 2 * recv + 2 * _round(experts * 4)
    return (total + ALIGN) // ALIGN * ALIGN


@dataclass(frozen=True)
class EngineSizing:
    """How one engine asks DeepEP for its buffers, and when it allocates them against its own
    KV-pool sizing (``before_pool``: the engine's memory measurement sees them, so its pool is
    smaller by them; else they come out of the memory it leaves outside its budget)."""

    engine: str
    dispatch_tokens: int  # the low-latency kernels' num_max_dispatch_tokens_per_rank
    fixed_bytes: int  # 0: DeepEP's normal-kernel hints; else the engine's own buffer size
    before_pool: bool
    when: str  # where the engine allocates them, in words
    source: str

    def buffers(self, normal: bool, low_latency: bool, x: BufferShape) -> BufferBytes:
        """The buffers of the kernels the backend enables (``deepep_auto``: both)."""
        tokens = x.dispatch_tokens or self.dispatch_tokens
        ll = low_latency_hint(tokens, x.hidden, x.experts) if low_latency else 0
        if self.fixed_bytes:  # vLLM: its own NVLink size always, RDMA across nodes or for LL
            rdma = ll if low_latency else (self.fixed_bytes if x.internode else 0)
            return BufferBytes(self.fixed_bytes, rdma)
        b = normal_bytes(2 * x.hidden, x.ranks) if normal else BufferBytes()
        return BufferBytes(b.nvl, max(b.rdma, ll))


ENGINE_SIZING: dict[str, EngineSizing] = {
    "sglang": EngineSizing(
        "sglang",
        128,
        0,
        False,
        "at the first MoE dispatch (CUDA graph capture), after SGLang sized its KV pool: out of "
        "the memory left outside mem_fraction_static",
        "sglang token_dispatcher DeepEPBuffer.get_deepep_buffer (hidden x 2 bytes to the normal "
        "hints; SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK 128); model_runner.initialize: "
        "init_memory_pool before init_cuda_graphs",
    ),
    "vllm": EngineSizing(
        "vllm",
        256,
        1024 * MiB,
        True,
        "at model load, before vLLM's memory profile: non-torch memory inside "
        "gpu_memory_utilization, the KV pool smaller by it",
        "vllm all2all.py DeepEPHTAll2AllManager / DeepEPLLAll2AllManager (VLLM_DEEPEP_BUFFER_SIZE_MB "
        "1024; VLLM_MOE_DP_CHUNK_SIZE 256 tokens); gpu_model_runner.load_model: "
        "prepare_communication_buffer_for_model before the profile run",
    ),
}
