"""A purchasable unit: the server, rack, workstation or desk-side box a buyer actually buys
(catalog entries in ``gpusizer/presets/systems/``, one JSON file each).

A system names its GPU (a catalog GPU id) and how many it holds, the links between them
(scale-up: NVLink, Infinity Fabric, on-chip Ethernet, PCIe; the domain it spans) and to other
systems (scale-out: InfiniBand, Ethernet, Thunderbolt), its power as a whole (a vendor
maximum or a measured wall figure, never the sum of GPU TDPs) and its prices: a 2025-26
street price of the whole unit and, where it is rented, an on-demand rate per system-hour.
Every figure carries its source and date; a price that is missing says why
(``*_null_reason``). Field names are part of docs/scenario-format.md ("Systems").
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from ..errors import check_id
from ..limits import Degree, LinkRate, NonNegRate, PosInt, Strict
from ..registry.host_cpus import HOST_CPUS
from .hardware_spec import LinkKind, PriceDate

PowerBasis = Literal["specified", "measured", "estimate"]
Text = Annotated[str, Field(min_length=3, max_length=2000)]


class LinkSpec(Strict):
    """One link of a system, per GPU and per direction (GB/s = 10^9 bytes/s). ``domain_gpus``:
    how many GPUs the link joins (scale-up: 8 in an HGX server, 72 in an NVL72 rack; 1 when
    there is no GPU-to-GPU link inside the box)."""

    kind: LinkKind
    gb_per_s_per_gpu: LinkRate = 0.0
    domain_gpus: Degree = 1
    generation: str | None = None  # "NVLink 5 + NVLink Switch", "PCIe 5.0 x16"
    source: Text


class SystemSpec(Strict):
    """One purchasable unit (see the module docstring). Prices in USD: ``list_price_usd`` per
    unit, ``price_per_hour`` per unit-hour; ``rental_gpus``: the fewest GPUs of it a cloud
    rents (1: by the GPU, a share of the unit; ``gpus`` : only whole units)."""

    id: str
    name: str
    vendor: str
    gpu: str  # a catalog GPU id
    gpus: Degree
    scale_up: LinkSpec
    scale_out: LinkSpec
    power_watts: NonNegRate
    power_basis: PowerBasis
    power_source: Text
    list_price_usd: NonNegRate | None = None
    list_price_date: PriceDate | None = None
    list_price_source: Text | None = None
    list_price_basis: Text | None = None
    list_price_condition: Literal["new", "used"] | None = None  # None: new
    list_price_null_reason: Text | None = None
    price_per_hour: NonNegRate | None = None
    price_per_hour_provider: str | None = None
    price_per_hour_date: PriceDate | None = None
    price_per_hour_source: Text | None = None
    price_per_hour_basis: Text | None = None
    price_per_hour_null_reason: Text | None = None
    rental_gpus: Degree = 1
    price_per_hour_marketplace: NonNegRate | None = None
    price_per_hour_marketplace_provider: str | None = None
    price_per_hour_marketplace_date: PriceDate | None = None
    price_per_hour_marketplace_source: Text | None = None
    notes: list[str] = Field(default_factory=list)
    # the CPU its engines' Python runs on (core/registry/host_cpus.py; null: not stated, x86)
    host_cpu: str | None = None
    # system RAM of the whole unit as its spec sheet ships it (null: not stated; the advice then
    # checks no offload against it, core/sizing/unit_host.py)
    host_memory_bytes: PosInt | None = None
    host_memory_source: Text | None = None

    @field_validator("host_cpu", mode="before")  # any type: the message names the ids
    @classmethod
    def _host_cpu(cls, v: object) -> str | None:
        return None if v is None else check_id(v, HOST_CPUS, "host CPU")

    @model_validator(mode="after")
    def _sourced(self) -> SystemSpec:
        """Each price names its source (and a rental its provider), or says why there is none;
        an undated price is allowed but does not count as covered (tests/core/test_systems.py)."""
        for price, keys, reason in (
            ("list_price_usd", ("list_price_source",), "list_price_null_reason"),
            (
                "price_per_hour",
                ("price_per_hour_source", "price_per_hour_provider"),
                "price_per_hour_null_reason",
            ),
            (
                "price_per_hour_marketplace",
                ("price_per_hour_marketplace_source", "price_per_hour_marketplace_provider"),
                None,
            ),
        ):
            if getattr(self, price) is not None:
                missing = [k for k in keys if not getattr(self, k)]
                if missing:
                    raise ValueError(f"{price} needs {', '.join(missing)}")
            elif reason is not None and not getattr(self, reason):
                raise ValueError(f"{price} is null: give {reason}")
        if self.gpus % self.rental_gpus:
            raise ValueError(f"rental_gpus ({self.rental_gpus}) must divide gpus ({self.gpus})")
        return self
