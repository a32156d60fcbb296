"""An engine's custom all-reduce at its measured time per call, where it has been timed on the
GPU and group size (core/speed/step_terms.py takes it in place of alpha + bytes / beta).

vLLM's custom all-reduce (``csrc/custom_all_reduce.cuh`` ``CustomAllreduce::allreduce``, the
``REDUCE_CASE`` macro) picks its algorithm by group size and bytes: two GPUs always run
``cross_device_reduce_1stage`` (each rank reads every peer's whole buffer and sums it); a fully
NVLink-connected group runs one stage when ``(world_size_ <= 4 && bytes < 512 * 1024) ||
(world_size_ <= 8 && bytes < 256 * 1024)``, else ``cross_device_reduce_2stage`` (a
reduce-scatter then an all-gather through the peers' buffers, each stage behind a barrier).
SGLang's sgl-kernel copies the kernel and the switch ("Adapted from
https://github.com/vllm-project/vllm/blob/main/csrc/custom_all_reduce.cuh"). Two stages cost a
second barrier over the group: on 8 x B200 SGLang 0.5.9's all-reduce of 128 KB takes 9.4 us
and of 256 KB 25.6 us.

Measured: NVIDIA aiconfigurator 0.12.0's tables (src/gpusizer/presets/allreduce-times.json,
written by scripts/custom_allreduce_table.py): bf16, replayed from a CUDA graph, 256 B-8 MiB
(the largest message the kernel takes; NCCL beyond), 2, 4 and 8 GPUs of one node; SGLang at
0.5.9, vLLM at 0.14.0 (Hopper, GB200, GB300) and 0.19.0 (B200, B300). Between two measured sizes
of the same algorithm the time is interpolated linearly in bytes; a size on one side of the
switch never reads the other side's points (a one-stage 200 KB message extends the one-stage
line, it is not averaged with the two-stage 256 KB time). Below the smallest size, the
smallest's time.

AMD (src/gpusizer/presets/allreduce-times-amd.json): vLLM's kernel on 8 x MI355X as vLLM PR
#39080 timed it before its own change (bf16, 24 KB-1.5 MB: 6.3 us at 24 KB, 10.0 at 192 KB, 13.1
at 384 KB, 24.2 at 1.5 MB), read with the same switch (the ROCm build compiles the same
``custom_all_reduce.cuh``); the step takes it up to its largest timed message only
(core/speed/step_terms.py), as nothing larger was timed.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from functools import lru_cache
from importlib import resources

SGLANG_CUSTOM = "sglang-custom-ar"
VLLM_CUSTOM = "vllm-custom-ar"
TABLES = (SGLANG_CUSTOM, VLLM_CUSTOM)
_PATH = resources.files("gpusizer.presets").joinpath("allreduce-times.json")
# AMD GPUs' times, entered by hand from their own source (the file's ``source``): aiconfigurator
# times no AMD GPU, and the script that writes the file above would drop them
_PATH_AMD = resources.files("gpusizer.presets").joinpath("allreduce-times-amd.json")
KiB = 1024

Points = tuple[tuple[float, float], ...]  # (bytes, seconds), ascending


@lru_cache(maxsize=1)
def _tables() -> dict[tuple[str, str, int], Points]:
    out: dict[tuple[str, str, int], Points] = {}
    for path in (_PATH, _PATH_AMD):
        for table, rows in json.loads(path.read_text())["tables"].items():
            for r in rows:
                pts = tuple((float(b), t * 1e-6) for b, t in zip(r["bytes"], r["us"], strict=True))
                key = (table, r["gpu"], int(r["ranks"]))
                if key in out:
                    raise ValueError(f"all-reduce times of {key} are listed twice")
                out[key] = pts
    return out


def measured_all_reduce(table: str, gpu: str, ranks: int) -> Points:
    """The measured calls of ``table``'s kernel on catalog GPU ``gpu`` over ``ranks`` GPUs;
    empty where none was measured (``table`` "" included)."""
    if not table:
        return ()
    return _tables().get((table, gpu, ranks), ())


def two_stage_from(ranks: int) -> float:
    """The smallest message (bytes) the kernel reduces in two stages over ``ranks`` fully
    NVLink-connected GPUs (module docstring); infinity for two GPUs."""
    if ranks <= 2:
        return float("inf")
    return 512 * KiB if ranks <= 4 else 256 * KiB


def all_reduce_seconds_measured(points: Points, ranks: int, nbytes: float) -> float:
    """Seconds of one all-reduce of ``nbytes`` (the tensor each rank holds) at the measured
    ``points`` (module docstring: linear within the message's own algorithm)."""
    switch = two_stage_from(ranks)
    side = [p for p in points if (p[0] < switch) == (nbytes < switch)] or list(points)
    xs = [b for b, _ in side]
    i = bisect_left(xs, nbytes)
    if i == 0:
        return side[0][1]
    if i == len(side):
        i -= 1  # past the side's last point: its last segment extended
        if i == 0:
            return side[0][1]
    (x0, y0), (x1, y1) = side[i - 1], side[i]
    return max(y0 + (y1 - y0) * (nbytes - x0) / (x1 - x0), 0.0)
