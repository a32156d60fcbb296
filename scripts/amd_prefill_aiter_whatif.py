"""The Anyscale MI325X P/D grid (tests/core/data/disagg-anyscale-mi325x.json) replayed as priced
and with its AITER-on prefill steps at AITER's measured gfx942 kernel times
(tests/core/aiter_prefill_whatif.py): each run's first token and time per token both ways, the
counts within 25 %, and one rank's 16K prompt step term by term. A what-if: nothing in the
package changes (docs/evidence/serving.md, the section on the 16K prefill at AITER's measured
times).

    PYTHONPATH=src:. /work/main/.venv/bin/python scripts/amd_prefill_aiter_whatif.py
"""

from __future__ import annotations

from typing import Any

from tests.core.aiter_prefill_whatif import aiter_on, aiter_terms, priced_terms, repriced
from tests.core.disagg_anyscale import TOL, ours, runs, scenario

import gpusizer.core.serving.load as load
from gpusizer import estimate_report


def _within(published: float, mine: float) -> bool:
    return abs(mine / published - 1.0) <= TOL


def step_terms() -> None:
    """One rank's prompt step of 16,000 and 32,000 tokens (1P2D's engine), the re-priced terms."""
    got: list[Any] = []
    orig = load.step_model

    def keep(*a: Any, **k: Any) -> Any:
        got.append(orig(*a, **k))
        return got[-1]

    load.step_model = keep
    c, r = next((c, r) for c, r in runs() if aiter_on(c))
    estimate_report(scenario(c, r))
    load.step_model = orig
    st = got[0]
    print("| tokens | step (ms) | 2 GEMMs priced / AITER | experts priced / AITER | step re-priced |")
    print("|---:|---:|---:|---:|---:|")
    for n, seqs in ((16000, 1), (32000, 2)):
        attn, read = st.chunk(0, n / seqs)
        step = st.seconds(0, 0.0, n, seqs, attn * seqs, read * seqs, seqs)
        (g0, e0), (g1, e1) = priced_terms(st, n), aiter_terms(st, n)
        new = step - g0 - e0 + g1 + e1
        cells = (f"{step * 1e3:.1f}", f"{g0 * 1e3:.1f} / {g1 * 1e3:.1f}", f"{e0 * 1e3:.1f} / {e1 * 1e3:.1f}")
        print(f"| {n:,} | " + " | ".join(cells) + f" | {new * 1e3:.1f} |")


def main() -> None:
    step_terms()
    rows = []
    for c, r in runs():
        with repriced(False):
            a = ours(c, r)
        with repriced(aiter_on(c)):
            b = ours(c, r)
        rows.append((c, r, a, b))
        print(
            f"| {c['folder'][3:-4]} | {r['rate']:g} {r['mode']} | {r['published_ttft_ms']:.0f} | "
            f"{a[0]:.0f} | {b[0]:.0f} | {r['published_tpot_ms']:.1f} | {a[1]:.1f} | {b[1]:.1f} |",
            flush=True,
        )
    for name, i, key in (("TTFT", 0, "published_ttft_ms"), ("TPOT", 1, "published_tpot_ms")):
        before = sum(_within(r[key], a[i]) for _, r, a, _ in rows)
        after = sum(_within(r[key], b[i]) for _, r, _, b in rows)
        print(f"{name}: {before} -> {after} of {len(rows)}")


if __name__ == "__main__":
    main()
