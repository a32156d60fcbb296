"""Usable memory of the 96 GB Hopper entries, read from ``nvidia-smi`` (docs/evidence/speed.md,
the section on the GH200's usable memory).

Sources:

- slitvinov/grace ``README.md`` (Harvard FAS RC Grace Hopper node, driver 535.154.05):
  ``nvidia-smi`` of an "NVIDIA GH200 480GB" (the 96 GB HBM3 module), "1MiB / 97871MiB";
- NVIDIA/nccl-tests issue 338 (2025-08-13): ``nvidia-smi`` of an H20, "0MiB /  97871MiB".

Both 96 GB HBM3 Hoppers print the same total; the H100's 361 MiB loss, scaled to 96 GiB, gave
97,943 MiB, 72 MiB too many."""

from __future__ import annotations

import pytest

from gpusizer.core.model.presets import gpu_spec as gpu_preset

MIB = 2**20


@pytest.mark.parametrize("gpu_id", ["gh200-96gb", "h20-96gb"])
def test_96gb_hopper_usable_memory_is_nvidia_smi_total(gpu_id: str) -> None:
    gpu = gpu_preset(gpu_id)
    # nvidia-smi total 97871 MiB (slitvinov/grace README.md; nccl-tests issue 338), exact
    assert gpu.usable_memory_bytes == 97871 * MIB
    assert gpu.memory_bytes == 96 * 2**30


def test_96gb_hopper_loses_more_than_the_h100_scaled() -> None:
    """The 96 GB modules lose 433 MiB to the driver, not the H100 80GB's 361 MiB."""
    gh200 = gpu_preset("gh200-96gb")
    assert gh200.usable_memory_bytes is not None
    assert (gh200.memory_bytes - gh200.usable_memory_bytes) // MIB == 96 * 1024 - 97871 == 433
