"""16 processes saving at once keep every entry (io/filelock.py): 16 concurrent custom-GPU
saves lost 7-12 entries while each caller was told it succeeded (each read the file, added its
GPU and wrote back what it had read)."""

from __future__ import annotations

import multiprocessing as mp
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from gpusizer.core.model.presets import USER_GPUS_ENV, user_gpus
from gpusizer.io.user_prices import load_user_prices, save_price

WRITERS = 16
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="fork start method (POSIX)")


def _gpu_saver(path: str, i: int, start: Any, out: Any) -> None:
    from gpusizer.io.user_gpus import save_user_gpu

    os.environ[USER_GPUS_ENV] = path
    start.wait()  # every writer at once
    gid = save_user_gpu({"name": f"card {i}", "memory_gb_as_sold": 24, "memory_bytes": 24 * 10**9})
    out.put(gid)


def _price_saver(path: str, i: int, start: Any, out: Any) -> None:
    start.wait()
    save_price(Path(path), _GPUS[i], {"price_per_hour": i + 0.5})  # _GPUS: set before the fork
    out.put(i)


def _run(target: Any, path: Path) -> list[Any]:
    ctx = mp.get_context("fork")
    start, out = ctx.Barrier(WRITERS), ctx.Queue()
    procs = [ctx.Process(target=target, args=(str(path), i, start, out)) for i in range(WRITERS)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert all(p.exitcode == 0 for p in procs), [p.exitcode for p in procs]
    return [out.get(timeout=10) for _ in procs]


def test_sixteen_concurrent_gpu_saves_keep_every_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "settings" / "gpus.json"
    told = _run(_gpu_saver, path)
    monkeypatch.setenv(USER_GPUS_ENV, str(path))
    assert len(set(told)) == WRITERS  # each told a distinct id
    assert set(user_gpus()) == set(told)  # and each kept


_GPUS: list[str] = []


def test_sixteen_concurrent_price_saves_keep_every_entry(tmp_path: Path) -> None:
    from gpusizer.core.model.presets import gpu_presets

    _GPUS[:] = sorted(gpu_presets())[:WRITERS]
    path = tmp_path / "prices.json"
    _run(_price_saver, path)
    assert len(load_user_prices(path)) == WRITERS
