"""NCCL's all-to-all at its measured time, where it was timed on the GPU and group size inside one
NVLink node (the training step's expert-parallel dispatch and combine, core/speed/train_layer.py).

Megatron-Core's all-to-all token dispatcher (``MoEAlltoAllTokenDispatcher.token_dispatch`` and
``token_combine``, Megatron-LM ``megatron/core/transformer/moe/token_dispatcher.py`` at d30c3ae)
sends each rank's routed copies, tokens x top_k hidden states in 16 bits, through
``torch.distributed.all_to_all_single`` (``megatron/core/tensor_parallel/mappings.py``
``_AllToAll``), i.e. NCCL's all-to-all: one grouped send and receive to every peer, not the ring
of hops the step model's all-gather prices (core/speed/collectives.py ``nccl_ring_seconds``). The
step priced it as an all-gather of the same bytes; NCCL's all-to-all is slower than that on every
NVLink system measured, most on Blackwell.

Measured: NVIDIA aiconfigurator 0.12.0's NCCL tables (``aiconfigurator_core/systems/data/<gpu>/
comm/nccl/2.29.2/nccl_perf.parquet``, nccl-tests ``alltoall_perf``, 16-bit, 2, 4 and 8 GPUs of
one node; GB200 and GB300 2 and 4, the GPUs of one compute tray), copied into
``src/gpusizer/presets/nccl-alltoall-times.json`` by ``scripts/nccl_alltoall_table.py``. At a
rank's 134 MB (Qwen3-30B-A3B's 4,096 tokens x top-8 x 2,048 x 2 B) over 8 GPUs: H100 404 us,
B200 235 us, where the all-gather price gave 350 and 191 (bus bandwidth 291 and 500 GB/s, against
the model's 0.82 of the NVLink rate, 369 and 738). Between two measured sizes the time is
interpolated linearly in bytes; past the largest (512 MiB) the last segment is extended (the
bandwidth the largest messages reach); below the smallest (1 MiB), the smallest's time. A group
or GPU not measured (EP groups of an NVL72 rack wider than a tray, groups crossing nodes, PCIe
cards) keeps the modelled price.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from functools import lru_cache
from importlib import resources

_PATH = resources.files("gpusizer.presets").joinpath("nccl-alltoall-times.json")

Points = tuple[tuple[float, float], ...]  # (bytes each rank sends, seconds), ascending


@lru_cache(maxsize=1)
def _tables() -> dict[tuple[str, int], Points]:
    out: dict[tuple[str, int], Points] = {}
    for r in json.loads(_PATH.read_text())["series"]:
        key = (r["gpu"], int(r["ranks"]))
        if key in out:
            raise ValueError(f"all-to-all times of {key} are listed twice")
        out[key] = tuple((float(b), t * 1e-6) for b, t in zip(r["bytes"], r["us"], strict=True))
    return out


def measured_all_to_all(gpu: str, ranks: int) -> Points:
    """NCCL's measured all-to-all on catalog GPU ``gpu`` over ``ranks`` GPUs of one node; empty
    where none was measured."""
    return _tables().get((gpu, ranks), ())


def all_to_all_seconds_measured(points: Points, nbytes: float) -> float:
    """Seconds of one all-to-all in which each rank sends ``nbytes`` (its whole buffer, its own
    share included) at the measured ``points`` (module docstring)."""
    xs = [b for b, _ in points]
    i = bisect_left(xs, nbytes)
    if i == 0:
        return points[0][1]
    if i == len(points):
        i -= 1
    (x0, y0), (x1, y1) = points[i - 1], points[i]
    return max(y0 + (y1 - y0) * (nbytes - x0) / (x1 - x0), 0.0)
