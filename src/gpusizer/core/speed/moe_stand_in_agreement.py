"""Which measured CUTLASS MoE row a GB200 reads where it stands in for the B200
(moe_measured_group_nearest.py ``STAND_IN``): the B200's where aiconfigurator's own GB200 table
agrees with it within the die's own difference, the GB200's own where it does not.

Why: the stand-in rests on the two GPUs running the same SM100 kernels on the same 8 TB/s HBM3e,
the GB200's GPU under a higher power cap (4.5 against 5 dense FP8 PFLOPS, NVIDIA's DGX B200 and
GB200 NVL72 data sheets), so a GB200 call reads 0.9-1.0 of the B200's. aiconfigurator measured
the same calls on the GB200 too (ai-dynamo/aiconfigurator@095f58a51c4c ``systems/data/gb200/moe/
trtllm/1.3.0rc20/moe_perf.parquet``, ``moe_torch_flow_cutlass``). Of the 52 keys (expert shape,
EP, routing, format) the package copies for the B200, 40 read GB200 / B200 0.92-1.02 in geometric
mean over their 27 token counts, as the power cap gives; 12 read 0.45-0.83, which no die
difference gives (scripts/gb200_b200_cutlass_agreement.py; docs/evidence/speed.md, the section on
the GB200 prefill the B200's DeepSeek rows made slow). Each row times the busiest EP rank under
expert loads drawn afresh on each collection (collector/helper.py ``sample_power_law``:
``torch.rand``, unseeded; collect_moe.py seeds only Python's ``random``), so two collections of
one key need not agree (one possible cause, not established: the balanced rows of DeepSeek's
shape at EP 4 differ too at 16,384 tokens). Where they do not, the B200's row is no reading of
the GB200's call, and
the GPU's own measured call is read instead: its rows at those 12 keys, copied with their source
into presets/trtllm-cutlass-moe-gb200.json (ms a call at the EP group's tokens, as
moe-module-times.json). Section 49 of speed.md set GB200's table aside from one of these keys
(Scout at EP 1); on the other 40 it agrees with the B200's.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from .moe_measured import Points

_PATH = resources.files("gpusizer.presets").joinpath("trtllm-cutlass-moe-gb200.json")
# GB200 / B200 of a key read as the die's difference (module docstring): 0.9 from the power cap;
# the table's agreeing keys sit at 0.92-1.02, the others at 0.45-0.83
AGREE = (0.9, 1.1)
Key = tuple[object, ...]  # moe_measured.py ``_tables``'s key past its kernel and GPU


@lru_cache(maxsize=1)
def own_rows() -> dict[Key, Points]:
    """The GB200's own measured calls (tokens of the EP group, seconds) at the keys where the
    B200's disagree (module docstring)."""
    doc = json.loads(_PATH.read_text())
    out: dict[Key, Points] = {}
    for r in doc["rows"]:
        key = (r["experts"], r["hidden"], r["intermediate"], r["top_k"], r["ep"], r["routing"], r["dtype"])
        out[key] = tuple((float(t), ms * 1e-3) for t, ms in zip(r["tokens"], r["ms"], strict=True))
    return out


def stand_in_points(key: tuple[object, ...], pts: Points) -> Points:
    """The calls a GB200 reads for the B200's row ``pts`` of table ``key`` (moe_measured.py
    ``_tables``'s key: kernel, GPU, experts, hidden, intermediate, top-k, EP, routing, format):
    its own where the two GPUs' rows of the key disagree, else the B200's."""
    return own_rows().get(tuple(key[2:]), pts)
