"""List every published disaggregated (P/D) speed figure of fixed output length that the
evidence counts, with ours beside it, and the totals with and without Tencent TKE's H20 grid.

The count of docs/evidence/serving.md (and the README) is the figures that the P/D test modules
replay and count, each module with its own scenario builder; this script imports those builders
(it builds no scenario of its own), so the list is the tests' replay, figure for figure:

- Mooncake's single requests, 1P1D one request at a time (the first token of each prompt
  length): ``tests/core/test_disagg_evidence.py`` ``_single``;
- the measured P/D runs of ``serving-features.json`` ``disaggregated_measured`` (SGLang PR
  4880's A10 runs, llm-d's two gpt-oss-120b arms, triton_distributed's and Dynamo issue 402's
  70B runs: first token and time per token): the same module's ``_measured``;
- ``tests/core/test_disagg_published_runs.py`` ``_serving`` (vLLM PR 18242, two DGX Sparks);
- llm-d's P/D pages, the rows marked ``counted``: ``tests/core/test_disagg_llmd_pages.py``;
- the large-scale EP figures (SGLang team, Ant Group, Kimi K2), the rows marked ``counted``:
  ``tests/core/test_disagg_large_ep.py`` ``_ours``, ``test_disagg_large_ep_decode.py``
  ``per_node``;
- TKE's Dynamo grid (48 runs, first token and time per token): ``test_disagg_tke_grid.py``.
- Anyscale's MI325X runs (41 runs at a stated rate, the experts EP 8 inside TP 8, first token
  and time per token): ``tests/core/disagg_anyscale.py`` ``ours``.
- the blind round (stacks not replayed before, each run replayed once as stated: the vLLM
  Router's Llama 3.1 8B 8P8D runs, first token and time per token):
  ``tests/core/test_disagg_blind.py`` ``ours``.
- the second blind round (Mooncake's vLLM V0 P/D pages on A10, each run open loop at its stated
  rate, first token and time per token): ``tests/core/test_disagg_blind2.py`` ``ours``.
- the third blind round (the constant-rate runs of the two DGX Sparks' GuideLLM sweep, vLLM
  NixlConnector 1P1D, each open loop at its stated rate, first token and time per token):
  ``tests/core/test_disagg_blind3.py`` ``ours``.
- the fourth blind round (Anyscale's Ray Serve LLM P/D runs of gpt-oss-120b, vLLM 0.11.0
  NixlConnector on H100 and H200 at 4-64 users, first token and time per token):
  ``tests/core/test_disagg_blind4.py`` ``ours``.
- the fifth blind round (Anyscale's MultiConnector example: gpt-oss-120b 1P1D of TP 4 across two
  H100 nodes over EFA, NIXL alone and NIXL with LMCache's CPU tier, at 64 users, first token and
  time per token): ``tests/core/test_disagg_blind5.py`` ``ours``.

Not counted there, so not here: the aggregated baselines of the same pages, dstack's
EOS-terminated grid (output lengths only as means), aiconfigurator's silicon rows (their own
count, serving.md §17) and the KV bytes moved (their own count).

Within: ours within 25 % of the published (the issue's bar), ``|ours / published - 1| <= 0.25``.
The ratio printed is ours / published for every metric: above 1 a time of ours is longer (slow)
and a throughput of ours higher (fast).

    PYTHONPATH=src:. python scripts/disagg_figures.py [--misses] [--no-tke]
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

TOL = 0.25  # issue 36's bar
TKE = "tke-dynamo-qwen3-32b-h20"
# each group: the test module that replays and counts its figures
GROUPS = (
    "mooncake-single",
    "measured",
    "published-runs",
    "llmd-pages",
    "large-ep",
    "anyscale",
    "blind",
    "blind2",
    "blind3",
    "blind4",
    "blind5",
    "tke-grid",
)


@dataclass(frozen=True)
class Figure:
    """One counted figure: ``metric`` TTFT / TPOT (ms), E2E (s) or throughput (tokens/s);
    ``group`` one of ``GROUPS``."""

    group: str
    source: str
    row: str
    metric: str
    published: float
    ours: float

    @property
    def ratio(self) -> float:
        return self.ours / self.published

    @property
    def within(self) -> bool:
        return abs(self.ratio - 1) <= TOL

    @property
    def tke(self) -> bool:
        return self.group == "tke-grid"


def _mooncake() -> Iterator[Figure]:
    from tests.core.test_disagg_evidence import SINGLE, _single

    for src in SINGLE:
        for row in src["rows"]:
            sv = _single(src, row["prompt"])
            ours = sv["disaggregated_ttft_seconds"] * 1e3
            yield Figure("mooncake-single", src["id"], f"{row['prompt']} in", "TTFT", row["ttft_ms"], ours)


def _measured() -> Iterator[Figure]:
    from tests.core.test_disagg_evidence import MEASURED, _measured, published_tpot

    for row in MEASURED:
        sv = _measured(row)
        ttft, tpot = sv["disaggregated_ttft_seconds"] * 1e3, sv["disaggregated_tpot_seconds"] * 1e3
        yield Figure("measured", row["id"], f"{row['users']} users", "TTFT", row["published_ttft_ms"], ttft)
        # the time per token by its definition, not a per-chunk mean ITL (``published_tpot``)
        yield Figure("measured", row["id"], f"{row['users']} users", "TPOT", published_tpot(row), tpot)


def _published_runs() -> Iterator[Figure]:
    from tests.core.test_disagg_published_runs import RUNS, _serving

    for run in RUNS:
        sv = _serving(run)
        ttft, tpot = sv["disaggregated_ttft_seconds"] * 1e3, sv["disaggregated_tpot_seconds"] * 1e3
        yield Figure(
            "published-runs", run["id"], f"{run['users']} users", "TTFT", run["published_ttft_ms"], ttft
        )
        yield Figure(
            "published-runs", run["id"], f"{run['users']} users", "TPOT", run["published_tpot_ms"], tpot
        )


def _llmd() -> Iterator[Figure]:
    from tests.core.test_disagg_llmd_pages import DATA, _sequential_e2e, _split

    for row in (r for r in DATA["split_runs"] if r["counted"]):
        ttft, itl = _split(row)
        yield Figure("llmd-pages", row["id"], f"{row['users']} users", "TTFT", row["published_ttft_ms"], ttft)
        yield Figure("llmd-pages", row["id"], f"{row['users']} users", "TPOT", row["published_itl_ms"], itl)
    for row in (r for r in DATA["single_request"] if r["counted"]):
        ttft, _ = _split(row)
        yield Figure("llmd-pages", row["id"], "1 user", "TTFT", row["published_ttft_ms"], ttft)
    for row in (r for r in DATA["sequential"] if r["counted"]):
        e2e = _sequential_e2e(row, row["prompt"])
        yield Figure("llmd-pages", row["id"], "1 user", "E2E", row["published_e2e_s"], e2e)


def _large_ep() -> Iterator[Figure]:
    from tests.core.test_disagg_large_ep import ROWS, _ours
    from tests.core.test_disagg_large_ep_decode import ROWS as DECODE
    from tests.core.test_disagg_large_ep_decode import per_node
    from tests.core.test_disagg_large_ep_k2 import ROWS as K2

    for row in (r for r in ROWS if r["counted"]):
        yield Figure("large-ep", row["id"], row["measure"], "throughput", row["published"], _ours(row))
    for row in (r for r in DECODE + K2 if r["counted"]):
        yield Figure("large-ep", row["id"], row["measure"], "throughput", row["published"], per_node(row))


def _anyscale() -> Iterator[Figure]:
    from tests.core.disagg_anyscale import ours, runs

    for config, run in runs():
        ttft, tpot = ours(config, run)
        label = f"{config['folder'].removeprefix('pd_')} {run['file']}"
        yield Figure("anyscale", "anyscale-pd-amd-mi325x", label, "TTFT", run["published_ttft_ms"], ttft)
        yield Figure("anyscale", "anyscale-pd-amd-mi325x", label, "TPOT", run["published_tpot_ms"], tpot)


def _blind_round(group: str, module: str, label: Callable[[dict[str, Any]], str]) -> Iterator[Figure]:
    """One blind P/D round's runs (tests/core/<module>.py: its ``RUNS`` and ``ours``): each run's
    first token and time per token, published beside ours (ms)."""
    test = importlib.import_module(f"tests.core.{module}")
    for run in test.RUNS:
        ttft, tpot = test.ours(run)
        yield Figure(group, run["id"], label(run), "TTFT", run["published_ttft_ms"], ttft)
        yield Figure(group, run["id"], label(run), "TPOT", run["published_tpot_ms"], tpot)


def _lengths(run: dict[str, Any]) -> str:
    return f"{run['prompt']}/{run['output']}"


def _blind() -> Iterator[Figure]:
    yield from _blind_round(
        "blind", "test_disagg_blind", lambda r: f"{_lengths(r)} {r['users']} users {r['requests']} req"
    )


def _blind2() -> Iterator[Figure]:
    yield from _blind_round("blind2", "test_disagg_blind2", lambda r: f"{_lengths(r)} {r['rate']:g} req/s")


def _blind3() -> Iterator[Figure]:
    yield from _blind_round("blind3", "test_disagg_blind3", lambda r: f"{_lengths(r)} {r['rate']:g} req/s")


def _blind4() -> Iterator[Figure]:
    yield from _blind_round(
        "blind4", "test_disagg_blind4", lambda r: f"{_lengths(r)} {r['users']} users {r['gpu']}"
    )


def _blind5() -> Iterator[Figure]:
    yield from _blind_round(
        "blind5", "test_disagg_blind5", lambda r: f"{_lengths(r)} {r['users']} users {r['gpu']}"
    )


def _tke() -> Iterator[Figure]:
    from tests.core.test_disagg_tke_grid import GRID, _run

    for run in GRID["runs"]:
        x, tp, users, isl, osl = (int(v) for v in run[:5])
        ttft, tpot = _run(run)
        label = f"{x}xTP{tp} {isl}/{osl} {users} users"
        yield Figure("tke-grid", TKE, label, "TTFT", run[7], ttft)
        yield Figure("tke-grid", TKE, label, "TPOT", run[8], tpot)


def figures(*, tke: bool = True) -> list[Figure]:
    """Every counted P/D figure, in the order of the sources above (TKE's grid last)."""
    found = [
        *_mooncake(),
        *_measured(),
        *_published_runs(),
        *_llmd(),
        *_large_ep(),
        *_anyscale(),
        *_blind(),
        *_blind2(),
        *_blind3(),
        *_blind4(),
        *_blind5(),
    ]
    return found + list(_tke()) if tke else found


def totals(found: list[Figure]) -> dict[str, tuple[int, int]]:
    """(within, counted) of all figures and of those outside TKE's grid."""
    rest = [f for f in found if not f.tke]
    return {
        "all": (sum(f.within for f in found), len(found)),
        "without_tke": (sum(f.within for f in rest), len(rest)),
    }


def by_group(found: list[Figure]) -> dict[str, tuple[int, int]]:
    """(within, counted) of each group of ``GROUPS`` present."""
    return {
        g: (sum(f.within for f in found if f.group == g), sum(f.group == g for f in found))
        for g in GROUPS
        if any(f.group == g for f in found)
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--misses", action="store_true", help="list only the figures out of 25 %%")
    ap.add_argument("--no-tke", action="store_true", help="leave TKE's H20 grid out")
    args = ap.parse_args()
    found = figures(tke=not args.no_tke)
    print(f"{'source':<52} {'row':<28} {'metric':<10} {'published':>10} {'ours':>10} ratio  in")
    for f in found:
        if args.misses and f.within:
            continue
        row = f"{f.source:<52} {f.row:<28} {f.metric:<10} {f.published:>10.2f} {f.ours:>10.2f}"
        print(f"{row} {f.ratio:5.2f}  {'yes' if f.within else 'no'}")
    for name, (inside, n) in {**by_group(found), **totals(found)}.items():
        print(f"{name}: {inside} of {n} within 25 % ({inside / n:.0%})")


if __name__ == "__main__":
    main()
