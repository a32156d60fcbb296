"""The host RAM check (``hardware.host_memory_bytes``) names what it checks per: one host, the
GPUs that share its RAM (core/model/node.py ``host_gpus``): an HGX board's 8 GPUs, or in a
GB200/GB300 NVL72 rack (a 72-GPU NVLink node) one 4-GPU compute tray."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.cli import main

GiB = 2**30
# paged AdamW states in host RAM: about 60 GiB per GPU of Llama 3.1 8B on 8 data-parallel GPUs
_PAGED = {
    "model": {"preset": "llama-3.1-8b"},
    "workload": {"kind": "full_finetune"},
    "precision": {"optimizer": "paged_adamw", "master_weights": None},
    "parallelism": {"data": 8},
}


def _short(**hardware: Any) -> dict[str, Any]:
    return estimate_report({**_PAGED, "hardware": {"host_memory_bytes": 16 * GiB, **hardware}})


def test_an_hgx_board_is_checked_per_host_of_8_gpus() -> None:
    r = _short()
    assert r["scenario"]["hardware"]["gpus_per_node"] == 8
    need = 8 * r["host_memory_bytes"] / GiB
    assert r["fit_reason"] == (
        f"needs {need:,.2f} GiB of system RAM per host (8 GPUs) beside the GPUs, more than "
        "the 16.00 GiB of hardware.host_memory_bytes"
    )
    assert r["host_memory"]["per_node_bytes"] == 8 * r["host_memory_bytes"]
    assert f"host RAM does not suffice: {need:.1f} GiB needed per host (8 GPUs)" in "\n".join(
        r["assumptions"]
    )


def test_an_nvl72_rack_is_checked_per_4_gpu_tray() -> None:
    # GB200 NVL72: the node is the 72-GPU NVLink domain, a host one compute tray of 4 GPUs
    r = _short(gpu="gb200-186gb")
    assert r["scenario"]["hardware"]["gpus_per_node"] == 72
    need = 4 * r["host_memory_bytes"] / GiB
    assert r["fit_reason"].startswith(f"needs {need:,.2f} GiB of system RAM per host (4 GPUs) beside")
    # the report's block and its assumption line count the same 4 GPUs as the fit check
    assert r["host_memory"]["per_node_bytes"] == 4 * r["host_memory_bytes"]
    assert r["host_memory"]["fits"] is False
    assert f"host RAM does not suffice: {need:.1f} GiB needed per host (4 GPUs)" in "\n".join(
        r["assumptions"]
    )


def test_a_bad_host_memory_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "s.gpusizer.json"
    path.write_text(json.dumps({**_PAGED, "hardware": {"host_memory_bytes": -1}}))
    assert main(["estimate", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "hardware.host_memory_bytes" in err[0]
