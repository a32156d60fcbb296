"""The hardware a scenario runs on: one accelerator (:class:`GPUSpec`, the catalog's entries in
presets/gpus/) and the ``hardware`` block (:class:`HardwareSpec`: the GPU, the node shape,
host memory and CPU).

Field names are the public contract (docs/scenario-format.md "GPU fields"). Units: bytes
(GiB = 2^30), bandwidths in GB/s (10^9 bytes/s) per direction, dense rates in TFLOPS, prices in
US dollars with their date and source.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from ..errors import check_id, excerpt
from ..limits import Bytes, LinkRate, NodeGPUs, NonNegRate, PosBytes, PosInt, Rate, Strict
from ..registry.host_cpus import HOST_CPUS

Fraction = Annotated[float, Field(gt=0.0, le=1.0)]
# When a price was read: "2026-05", or "2026" where the source gives the year only
PriceDate = Annotated[str, Field(pattern=r"^\d{4}(-(0[1-9]|1[0-2]))?$")]
GPUCategory = Literal["datacenter", "workstation", "consumer", "unified_memory"]
ComputeCapability = Annotated[str, Field(pattern=r"^\d{1,2}\.\d$")]  # CUDA "major.minor", "9.0"
# The link a GPU's interconnect_gb_per_s is (a system's scale-up or scale-out link, system_spec.py)
LinkKind = Literal[
    "nvlink", "infinity_fabric", "ethernet", "infiniband", "pcie", "thunderbolt", "nvlink_c2c", "none"
]


PEAK_DTYPES = ("fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4")  # GPUSpec.dense_tflops keys


class GPUSpec(Strict):
    """One accelerator. Catalog entries are files in ``gpusizer/presets/gpus/``.

    ``memory_bytes`` is the physical capacity; ``usable_memory_bytes`` what the driver exposes
    (nvidia-smi total), which is what must hold the peak. For a ``unified_memory`` device
    (Apple M-series, DGX Spark, Ryzen AI Max) ``memory_bytes`` is the system RAM and the GPU
    may use ``gpu_memory_fraction`` of it (:attr:`capacity_bytes`).
    """

    id: str = "custom-gpu"
    name: str = "Custom GPU"
    vendor: str = "custom"
    memory_gb_as_sold: NonNegRate = 80.0
    memory_bytes: Bytes = 80 * 2**30
    usable_memory_bytes: PosBytes | None = None  # 0 would hold nothing (it was ignored)
    hbm_bandwidth_gb_per_s: Rate = 3350.0
    dense_tflops: dict[str, Rate] = Field(default_factory=lambda: {"bf16": 989.0})
    interconnect_gb_per_s: LinkRate = 450.0  # per direction, per GPU
    gpus_per_node: NodeGPUs = 8
    tdp_watts: NonNegRate | None = None
    price_per_hour: NonNegRate | None = None
    source_url: str | None = None
    # Additive (buyer's catalog, docs/scenario-format.md "GPU fields"): class, memory, dated
    # prices with sources, and the share of system RAM a unified-memory GPU may use.
    category: GPUCategory | None = None
    memory_type: str | None = None
    list_price_usd: NonNegRate | None = None
    list_price_date: PriceDate | None = None
    list_price_source: str | None = None
    price_per_hour_date: PriceDate | None = None
    price_per_hour_source: str | None = None
    # One stated basis per price column, the provider named, a reason where none.
    list_price_basis: str | None = None
    list_price_null_reason: str | None = None
    # new | used (None: new); rankings count used prices only when asked (compare_rank.Money)
    list_price_condition: Literal["new", "used"] | None = None
    price_per_hour_provider: str | None = None
    price_per_hour_basis: str | None = None
    price_per_hour_null_reason: str | None = None
    price_per_hour_marketplace: NonNegRate | None = None
    price_per_hour_marketplace_provider: str | None = None
    price_per_hour_marketplace_date: PriceDate | None = None
    price_per_hour_marketplace_source: str | None = None
    interconnect_kind: LinkKind | None = None  # what interconnect_gb_per_s is
    network_gb_per_s: LinkRate | None = None  # scale-out per GPU, per direction
    unified_memory: bool = False
    gpu_memory_fraction: Fraction | None = None
    # CUDA compute capability (NVIDIA only): engines pick kernels by it (core/serving/moe_layout.py)
    compute_capability: ComputeCapability | None = None
    # An Intel Gaudi HPU: driven by the Gaudi software stack (PyTorch's ``hpu`` device), not by
    # Intel's GPU stack (SYCL / Level Zero, ``xpu``); the frameworks without a Gaudi build
    # (FrameworkProfile.runs_on_hpu) do not run on it (core/pipeline/runs_on.py)
    hpu: bool = False

    @field_validator("dense_tflops")
    @classmethod
    def _peaks(cls, v: dict[str, float]) -> dict[str, float]:
        """Rates of dtypes the speed model knows (core/roofline.peak_tflops), with the 16-bit
        one that every dtype without a rate of its own falls back to (``{}`` ran at 0 FLOP/s)."""
        bad = [k for k in v if k not in PEAK_DTYPES]
        if bad:
            raise ValueError(f"unknown dtype {excerpt(bad[0])}; allowed: {', '.join(PEAK_DTYPES)}")
        if not v.keys() & {"bf16", "fp16"}:
            raise ValueError(
                'needs the 16-bit rate, {"bf16": TFLOPS} or {"fp16": TFLOPS}: '
                "dtypes without a rate of their own fall back to it"
            )
        return v

    @property
    def capacity_bytes(self) -> int:
        """Bytes the peak must fit in: the driver's total, else (unified memory) the GPU's
        share of system RAM, else the memory as sold."""
        if self.usable_memory_bytes:
            return self.usable_memory_bytes
        if self.unified_memory and self.gpu_memory_fraction is not None:
            return int(self.memory_bytes * self.gpu_memory_fraction)
        return self.memory_bytes


class HardwareSpec(Strict):
    """The GPU (catalog id or inline spec) and the node shape."""

    gpu: str | GPUSpec = "h100-sxm-80gb"
    gpus_per_node: NodeGPUs = 8
    allow_cross_node_tensor_parallel: bool = False
    # Unified-memory GPUs only (null: the device's default share); see core/model/unified.py.
    gpu_memory_fraction: Fraction | None = None
    host_memory_bytes: PosInt | None = None  # system RAM of one node (null: not checked)
    # Network bandwidth per GPU and direction between nodes (null: the GPU class's reference
    # NIC, core/speed/train_rates.py); training collectives that cross nodes use it.
    network_gb_per_s: Rate | None = None
    # The host CPU the engine's Python runs on (core/registry/host_cpus.py; null: the GPU's
    # systems' host where they agree, else x86): it sets the per-op launch cost of eager steps.
    host_cpu: str | None = None

    @field_validator("host_cpu", mode="before")  # any type: the message names the ids
    @classmethod
    def _host_cpu(cls, v: object) -> str | None:
        return None if v is None else check_id(v, HOST_CPUS, "host CPU")
