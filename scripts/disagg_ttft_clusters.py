"""The P/D first-token misses of issue 36's list, split into what ours charges a lone request and
what the load adds, beside what the published mean leaves for the prefill pool's service.

Each run is replayed by its own test module's builder (as ``scripts/disagg_figures.py`` counts
it), once as run and once alone (the same scenario at one request in flight: the rate divided by
1,000, or one closed-loop user), so that

- ``lone``: ours' first token of one request with nothing else in the service, the sum of
  ``forward`` (the prefill pool's first token: its API server, the forward and the first token,
  core/serving/disagg_queue.py), ``transfer`` (the KV over the link), ``path`` (the connector's
  hops, core/registry/pd_connectors.py) and ``dwait`` (a decode slot);
- ``load``: ours as run less ``lone``: the prefill pool's queue at the stated arrivals, and
  anything else the load adds (core/serving/disagg_rate.py);
- ``implied``: the prefill service a prompt that the published mean leaves, where the run's
  arrivals give one: Poisson arrivals at one prefill replica (SGLang's ``bench_serving`` with a
  request rate draws exponential gaps) through the M/D/1 mean wait of Pollaczek and Khinchine,
  ``W = rho S / (2 (1 - rho))``, ``rho = rate S`` (Kleinrock, Queueing Systems vol. 1, 1975,
  §5.6), solved for ``S`` from ``published - transfer - path = S + W``; regular arrivals above a
  replica's capacity from an idle start (Anyscale's sweeps, one request every 1 / rate seconds,
  ``n`` of them) through the backlog's linear growth, the k-th request waiting ``(k - 1)
  (S - 1 / rate)``, so the mean wait ``(n - 1) / 2 (S - 1 / rate)`` over the first token at the
  configuration's quietest run, solved for ``S`` at each replica's share of the rate and of the
  requests (the prompts a step batches counted as one service of their summed work: ``S`` is the
  time a replica spends per prompt; with no wait it is the bound 1 / rate);
- ``ours_service`` ("ours S"): the same inversion of ours' own mean, so that the two services
  compare on one footing.

    PYTHONPATH=src:. python scripts/disagg_ttft_clusters.py
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

Report = dict[str, Any]


@dataclass(frozen=True)
class Split:
    """One run's first token, ours split (ms; module docstring)."""

    source: str
    row: str
    published: float
    ours: float
    lone: float
    transfer: float
    path: float
    dwait: float
    implied: float | None = None
    ours_service: float | None = None

    @property
    def forward(self) -> float:
        return self.lone - self.transfer - self.path - self.dwait

    @property
    def load(self) -> float:
        return self.ours - self.lone


def _ms(sv: Report, key: str) -> float:
    return float(sv[f"disaggregated_{key}_seconds"]) * 1e3


def _split(
    source: str,
    row: str,
    published: float,
    run: Report,
    lone: Report,
    implied: tuple[float, float] | None,
) -> Split:
    """``implied``: the service the published mean leaves and the one ours' mean leaves by the
    same inversion (ms), or None."""
    return Split(
        source,
        row,
        published,
        _ms(run, "ttft"),
        _ms(lone, "ttft"),
        _ms(lone, "kv_transfer"),
        _ms(lone, "path"),
        _ms(lone, "decode_wait"),
        *(implied or (None, None)),
    )


def md1_service(rate: float, mean: float) -> float:
    """The deterministic service ``S`` (s) whose M/D/1 sojourn ``S + rate S^2 / (2 (1 - rate S))``
    is ``mean`` (s) at Poisson ``rate`` (1/s) (module docstring): the root below 1 / rate."""
    lo, hi = 0.0, min(mean, 1.0 / rate)
    for _ in range(100):
        mid = (lo + hi) / 2
        rho = rate * mid
        if mid + rho * mid / (2 * (1 - rho)) < mean:
            lo = mid
        else:
            hi = mid
    return lo


def ramp_service(rate: float, requests: int, wait: float) -> float:
    """The per-prompt service ``S`` (s) of a replica fed one request every 1 / ``rate`` s from idle
    whose ``requests`` wait ``wait`` (s) on average (module docstring); 1 / rate when none waits."""
    return 1.0 / rate + max(0.0, wait) * 2 / max(1, requests - 1)


def _measured() -> Iterator[Split]:
    from tests.core.test_disagg_evidence import MEASURED, _measured

    for row in (r for r in MEASURED if "a10" in r["id"]):
        run, lone = _measured(row), _measured({**row, "rate": row["rate"] / 1e3})
        fixed = (_ms(lone, "kv_transfer") + _ms(lone, "path")) / 1e3
        published, ours = (
            md1_service(row["rate"], t / 1e3 - fixed) * 1e3
            for t in (row["published_ttft_ms"], _ms(run, "ttft"))
        )
        pair = (published, ours)
        yield _split(row["id"], f"{row['rate']:g} req/s", row["published_ttft_ms"], run, lone, pair)


def _published_runs() -> Iterator[Split]:
    from tests.core.test_disagg_published_runs import RUNS, _serving

    for run in (r for r in RUNS if "spark" in r["id"]):
        sv = _serving(run)
        yield _split(run["id"], f"{run['users']} user", run["published_ttft_ms"], sv, sv, None)


def _llmd() -> Iterator[Split]:
    from tests.core.test_disagg_llmd_pages import DATA, _scenario

    from gpusizer import estimate_report

    for row in (r for r in DATA["split_runs"] if r["counted"] and "readme" in r["id"]):
        rate = {"load": "rate", "request_rate": row["rate"], "requests": row["requests"]}
        run = estimate_report(_scenario(row, row["users"], **rate))["serving"]
        lone = estimate_report(_scenario(row, 1))["serving"]
        yield _split(row["id"], f"{row['rate']:g} req/s", row["published_ttft_ms"], run, lone, None)


def _anyscale() -> Iterator[Split]:
    from tests.core.disagg_anyscale import runs, scenario

    from gpusizer import estimate_report

    folders = ("pd_1p2d_isl16k_osl1k_hr0", "pd_2p2d_isl16k_osl1k_hr0")
    for folder in folders:
        todo = sorted((r for c, r in runs() if c["folder"] == folder), key=lambda r: r["rate"])
        config = next(c for c, _ in runs() if c["folder"] == folder)
        low = min(r["published_ttft_ms"] for r in todo)  # the configuration's quietest run
        replicas = config["prefill_instances"]  # each fed every replicas-th request in turn
        for r in todo:
            s = scenario(config, r)
            quiet = copy.deepcopy(s)
            quiet["serving"]["request_rate"] = r["rate"] / 1e3
            run, lone = estimate_report(s)["serving"], estimate_report(quiet)["serving"]
            n = r["requests"] // replicas if r["mode"] == "sweep" else 0
            waits = ((r["published_ttft_ms"] - low) / 1e3, (_ms(run, "ttft") - _ms(lone, "ttft")) / 1e3)
            each = r["rate"] / replicas
            pair = (
                (ramp_service(each, n, waits[0]) * 1e3, ramp_service(each, n, waits[1]) * 1e3) if n else None
            )
            label = f"{folder.removeprefix('pd_')[:4]} {r['rate']:g} req/s"
            yield _split("anyscale-pd-amd-mi325x", label, r["published_ttft_ms"], run, lone, pair)


SOURCES: tuple[Callable[[], Iterator[Split]], ...] = (_measured, _published_runs, _llmd, _anyscale)


def splits() -> list[Split]:
    """Every run of the clusters read (module docstring), in the order of ``SOURCES``."""
    return [s for source in SOURCES for s in source()]


def main() -> None:
    head = ("published", "ours", "lone", "forward", "transfer", "path", "dwait", "load", "implied", "ours S")
    print(f"{'source':<40} {'row':<16} " + " ".join(f"{h:>9}" for h in head))
    for s in splits():
        vals = (s.published, s.ours, s.lone, s.forward, s.transfer, s.path, s.dwait, s.load)
        tail = " ".join(f"{v:>9.1f}" for v in (s.implied, s.ours_service) if v is not None)
        print(f"{s.source:<40} {s.row:<16} " + " ".join(f"{v:>9.1f}" for v in vals) + f" {tail}")


if __name__ == "__main__":
    main()
