"""KV offload (``serving.kv_offload``): the prefix cache kept in host memory or on a local disk
and loaded back when a request finds its prefix there (vLLM's CPU offloading connector,
``--kv-offloading-size``; LMCache). It serves the reuse ``serving.prefix`` states: a hit loads
the cached tokens' KV over the link instead of recomputing them, and the GPU need not keep
the prefix between requests.

A tier without ``serving.prefix`` is accepted, as vLLM runs one whatever the prompts share
(llm-d's tiered prefix cache: ``OffloadingConnector`` with ``cpu_bytes_to_use``): it reports the
tokens it holds and prices no load (:func:`offload_note` says so in the assumptions).

Each request waits for its cached tokens' KV, ``cached x bytes per token`` on every GPU (each
loads its own heads' share), at ``bandwidth_gb_per_s`` per GPU; the loads overlap other
requests' steps (the connector copies asynchronously), so the wait is the request's, not the
step's. Default bandwidth: host memory over PCIe 5.0 x16, 54 GB/s as measured host-to-device
on an H20 (gahow/agentic-kvc ``v2/exp_a_tier_latency/results/pcie.json``: 53.7-54.9 GB/s from
100 MB to 6.4 GB); PCIe 4.0 (compute capability below 9.0) half of it; a GPU on a Grace CPU
(GH200, GB200, GB300) over NVLink-C2C, 450 GB/s a direction (core/speed/host_link.py), at the
share of its link PCIe 5.0 reaches (54 of 64 GB/s): 380 GB/s; a local NVMe disk 6 GB/s (an
assumption: a PCIe 4.0 x4 drive's sequential read).

From host memory each copy also costs a fixed time beside its bytes (the DMA's setup and
completion): vLLM's offloading connector copies one engine block at a time, and before 0.12.0
each layer's share of a block on its own (``VLLMKnobs.offload_copies_per_layer``; the vLLM blog
"Inside vLLM's new KV offloading connector", 2026-01-08: per-layer transfers of 8-72 KB, made one
contiguous 0.5-2 MB block across the layers in 0.12.0, 4-5x faster). ``COPY_SECONDS`` from the
connector's own micro-benchmark as its author quotes it (vLLM issue 33398: Llama-3.1-8B on an
H100 loads 32 KB copies at about 5 GB/s, 6.4 us each, of which 32 KB at 54 GB/s is 0.6 us).

The tier's capacity in tokens: vLLM splits ``--kv-offloading-size`` evenly over the tensor x
pipeline ranks (``VllmConfig._post_init_kv_transfer_config``: ``cpu_bytes_to_use`` = size /
(tp x pp)) and each rank keeps ``cpu_bytes_to_use // block bytes`` whole blocks
(``CPUOffloadingSpec``: ``num_cpu_blocks``), a block being the engine's tokens a block times the
rank's KV bytes a token across its layers (the vLLM blog's table of physical block sizes from
0.12.0: 2 MB for Llama-3.1-8B, 0.87 MB for Qwen2.5-7B at 16 tokens).
"""

from __future__ import annotations

from typing import Any

from ..model.architecture import resolve
from ..model.serving_features import KvOffloadSpec
from ..model.specs import GPUSpec, Scenario
from ..registry.engines import release
from ..speed.host_link import GRACE_GPUS, NVLINK_C2C, PCIE_GEN5_X16
from .prefix import cached_tokens, prefix_of, shared_tokens

PCIE5_GB_PER_S = 54.0
PCIE4_GB_PER_S = 27.0
DISK_GB_PER_S = 6.0
COPY_SECONDS = 5.8e-6  # fixed cost of one host-to-device copy (module docstring)


def offload_of(s: Scenario) -> KvOffloadSpec | None:
    """The scenario's KV offload when on (a serving scenario with a capacity)."""
    spec = s.serving.kv_offload
    if spec is None or spec.capacity_gb is None or s.workload.trains:
        return None
    return spec


def offload_note(s: Scenario, kv_bytes_per_token: float, block: int) -> str | None:
    """The assumption line for a tier with no stated reuse (no ``serving.prefix``): the tokens it
    holds and that nothing loads from it; None with a prefix or without the tier."""
    spec = offload_of(s)
    if spec is None or spec.capacity_gb is None or prefix_of(s) is not None:
        return None
    held = capacity_tokens(s, kv_bytes_per_token, block)
    return (
        f"KV offload ({spec.medium or 'cpu'}, {spec.capacity_gb:,.4g} GB) holds {held:,} tokens; no "
        "shared prefix stated (serving.prefix), so no request is priced as finding its prompt there"
    )


def bandwidth(spec: KvOffloadSpec, gpu: GPUSpec) -> float:
    """Bytes/s one GPU loads at (module docstring)."""
    if spec.bandwidth_gb_per_s is not None:
        return spec.bandwidth_gb_per_s * 1e9
    if spec.medium == "disk":
        return DISK_GB_PER_S * 1e9
    if gpu.id in GRACE_GPUS:  # NVLink-C2C at the share of its link PCIe 5.0 reaches
        return NVLINK_C2C * PCIE5_GB_PER_S / PCIE_GEN5_X16 * 1e9
    cc = gpu.compute_capability
    old = cc is not None and float(cc) < 9.0
    return (PCIE4_GB_PER_S if old else PCIE5_GB_PER_S) * 1e9


def load_seconds(s: Scenario, gpu: GPUSpec, kv_bytes_per_token: float, block: int) -> float:
    """Seconds a request waits for its cached tokens' KV (0 without offload; multi-turn chats:
    core/serving/multi_turn.py ``wait``, their system prompt never leaving the GPU)."""
    spec = offload_of(s)
    p = prefix_of(s)
    if spec is None or (p is not None and p.turns is not None):
        return 0.0
    cached = cached_tokens(s, block)
    return cached * kv_bytes_per_token / bandwidth(spec, gpu) + _copies(s, spec, cached, block) * COPY_SECONDS


def _copies(s: Scenario, spec: KvOffloadSpec, cached: int, block: int) -> int:
    """Host-to-device copies a request's cached tokens take: one per engine block, or one per
    layer of each block where the release copies layer by layer (module docstring); none
    counted from a disk (its reads are the bandwidth's)."""
    if spec.medium == "disk" or spec.bandwidth_gb_per_s is not None or cached <= 0:
        return 0
    blocks = -(-cached // max(1, block))
    prof = s.profile
    rel = release(prof.releases, s.serving.engine_version) if prof.releases else None
    if rel is not None and rel.vllm.offload_copies_per_layer:
        return blocks * resolve(s.model).attention_layers
    return blocks


def offload_fields(s: Scenario, gpu: GPUSpec, kv_bytes_per_token: float, block: int) -> dict[str, Any]:
    """The report's fields (empty without offload): the wait, whether the tier holds the
    shared prefix (every GPU's share of it) and the tokens it holds."""
    spec = offload_of(s)
    if spec is None or spec.capacity_gb is None:
        return {}
    p = s.parallelism
    need = shared_tokens(s, block) * kv_bytes_per_token * p.tensor * p.pipeline
    return {
        "kv_offload_load_seconds": load_seconds(s, gpu, kv_bytes_per_token, block),
        # no stated prefix: nothing to hold (null, as the report says without the tier)
        "kv_offload_holds_prefix": need <= spec.capacity_gb * 1e9 if prefix_of(s) is not None else None,
        "kv_offload_capacity_tokens": capacity_tokens(s, kv_bytes_per_token, block),
    }


def capacity_tokens(s: Scenario, kv_bytes_per_token: float, block: int) -> int:
    """Tokens the tier holds: each rank's even share of ``capacity_gb`` in whole blocks of
    ``block`` tokens at the rank's KV bytes a token (module docstring)."""
    spec = offload_of(s)
    if spec is None or spec.capacity_gb is None or kv_bytes_per_token <= 0:
        return 0
    p = s.parallelism
    per_rank = spec.capacity_gb * 1e9 / (p.tensor * p.pipeline)
    block = max(1, block)
    return int(per_rank // (block * kv_bytes_per_token)) * block
