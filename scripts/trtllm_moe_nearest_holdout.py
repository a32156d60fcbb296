"""Check the nearest-row rule for TensorRT-LLM's CUTLASS MoE table
(core/speed/moe_measured_group_nearest.py) against the table itself (tests/core/
trtllm_moe_holdout.py: each shape held out and read from the rest), beside the grouped rates
(docs/evidence/speed.md, the section on TensorRT-LLM's MoE floors on Blackwell).

    PYTHONPATH=src:. python scripts/trtllm_moe_nearest_holdout.py [--rows]

Prints, at each of a rank's tokens, the median of rule / measured and rates / measured and how
many series each reads within 25 %.
"""

from __future__ import annotations

import statistics
import sys

from tests.core.trtllm_moe_holdout import TOKENS, Series, series, shares


def main(rows: bool) -> None:
    got: dict[Series, list[tuple[float, float]]] = {}
    for row in series():
        one = shares(row)
        if one is not None:
            got[row] = one
            if rows:
                print(row, " ".join(f"{a:.2f}/{b:.2f}" for a, b in one))
    for label, keep in (("all", lambda r: True), ("blackwell", lambda r: r[0].startswith("b200"))):
        sub = [v for r, v in got.items() if keep(r)]
        for col, what in ((0, "rule"), (1, "rates")):
            cells = []
            for j, n in enumerate(TOKENS):
                v = [one[j][col] for one in sub]
                cells.append(f"{n}: {statistics.median(v):.2f} {sum(abs(x - 1) <= 0.25 for x in v)}/{len(v)}")
            print(f"{label:9s} {what:5s}", "; ".join(cells))


if __name__ == "__main__":
    main("--rows" in sys.argv)
