"""The loading, replay and counting that the blind-round tests share: a record file of
tests/core/data, the RL step a record's scenario estimates and its ratio to the published step,
a training record's peak per GPU over its published one, the records within 25 % either way,
one pinned figure of a blind serving-speed set and a source table's pinned grid, an engine-log
round's counts, and a P/D run's ratio against the ratio and the verdict its record holds.

Only the mechanics live here. Each test module keeps its pinned values, their tolerances and
the source comment beside its assertion; nothing here knows a pinned number.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest

from gpusizer import estimate_report

if TYPE_CHECKING:
    from tests.core.blind_speeds import BlindSpeeds

DATA = Path(__file__).parent / "data"
WITHIN = 0.25  # "within 25 %": docs/evidence/rl.md's and speed.md's bar for a blind round

Record = dict[str, Any]
K = TypeVar("K")  # a figure's key: a record id, or (record id, label)


def load(name: str) -> Any:
    """The parsed JSON of ``tests/core/data/<name>``."""
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def by_id(records: Iterable[Record], record_id: str) -> Record:
    """The record with this ``id`` (StopIteration when none has it)."""
    return next(r for r in records if r["id"] == record_id)


def rl_step(scenario: Record) -> float:
    """The estimated RL step (seconds) of a scenario: the report's ``rl.time_per_step_seconds``."""
    return float(estimate_report(scenario)["rl"]["time_per_step_seconds"])


def step_ratio(record: Record) -> float:
    """Estimate / published step of one record (its ``scenario`` and ``measured.step``)."""
    return rl_step(record["scenario"]) / record["measured"]["step"]


def peak_ratio(rec: Record, scenario: Record | None = None) -> float:
    """Estimate / published peak per GPU (bytes / bytes) of a training record: the report's
    ``per_gpu.total`` of its ``recipe_scenario`` (or ``scenario``) over its ``figure_bytes``."""
    sc = rec["recipe_scenario"] if scenario is None else scenario
    return float(estimate_report(sc)["per_gpu"]["total"]) / rec["figure_bytes"]


def within(ratios: Mapping[K, float], tol: float = WITHIN) -> list[K]:
    """The keys whose estimate / published lies within ``tol`` of 1, in the mapping's order."""
    return [k for k, v in ratios.items() if abs(v - 1) <= tol]


def within_inverted(ratios: Mapping[K, float], tol: float = WITHIN) -> list[K]:
    """The keys whose published / estimate (the evidence bands' ratio) lies within ``tol`` of 1."""
    return [k for k, v in ratios.items() if 1 - tol <= 1 / v <= 1 + tol]


def figures_and_starts(rows: Iterable[Any], ok: Callable[[Any], bool]) -> tuple[tuple[int, int], ...]:
    """((within, of) figures, (within, of) start-up verdicts) of engine-log replay rows: a row
    named ``starts`` is a verdict, any other a figure; ``ok`` says whether a row is within."""
    rows = list(rows)
    figures = [r for r in rows if r.name != "starts"]
    starts = [r for r in rows if r.name == "starts"]
    return (sum(map(ok, figures)), len(figures)), (sum(map(ok, starts)), len(starts))


def pinned_speed(blind: BlindSpeeds, key: tuple[str, str]) -> float:
    """The speed ratio (estimate / published, a time inverted) of the one figure of record
    ``key[0]`` whose label starts with ``key[1]``; two such figures fail, naming the key."""
    rid, label = key
    (r, e), *more = [(r, e) for r, e in blind.figures if r["id"] == rid and e["label"].startswith(label)]
    assert not more, key
    return blind.speed(r, e)


def pinned_tests(
    blind: BlindSpeeds, pinned: dict[tuple[str, str], float], figures: int
) -> tuple[Callable[..., None], Callable[[], None]]:
    """The two pinned-ratio checks of one blind speed set, for a test module to bind to
    module-level names after its ``pinned`` table (and any ``update`` of it) is complete: each
    figure reads its pinned speed ratio within 0.02 (a later change that moves one shows), and
    every one of the set's ``figures`` is pinned."""

    @pytest.mark.parametrize("key", list(pinned))
    def test_each_figure_reads_its_pinned_speed_ratio(key: tuple[str, str]) -> None:
        assert pinned_speed(blind, key) == pytest.approx(pinned[key], abs=0.02)

    def test_every_figure_is_pinned() -> None:
        assert len(pinned) == len(blind.figures) == figures

    return test_each_figure_reads_its_pinned_speed_ratio, test_every_figure_is_pinned


def pinned_grid(
    record: str, metrics: tuple[str, ...], by_users: dict[int, tuple[float, ...]], prefix: str = ""
) -> dict[tuple[str, str], float]:
    """A source table's pinned ratios, one row of ``metrics`` per user count, keyed as the
    record's figures are ("<prefix><metric> (c=<users>)")."""
    return {
        (record, f"{prefix}{m} (c={c})"): v
        for c, vals in by_users.items()
        for m, v in zip(metrics, vals, strict=True)
    }


def check_pd_run(run: Record, ttft_ms: float, tpot_ms: float, pin: float, tol: float) -> None:
    """A P/D run's first token and time per token (ms, ours) against its record's published
    ``published_ttft_ms`` / ``published_tpot_ms``, each checked by :func:`check_recorded`."""
    for metric, value, published in (
        ("ttft", ttft_ms, run["published_ttft_ms"]),
        ("tpot", tpot_ms, run["published_tpot_ms"]),
    ):
        check_recorded(run, metric, value / published, pin, tol)


def check_recorded(run: Record, metric: str, ratio: float, pin: float, tol: float) -> None:
    """A P/D run's ``ratio`` for ``metric`` is its record's ``<metric>_ratio`` within ``pin``,
    and within ``tol`` of 1 exactly where the record's ``<metric>_within`` says so."""
    assert ratio == pytest.approx(run[f"{metric}_ratio"], abs=pin), (metric, ratio)
    assert (abs(ratio - 1) <= tol) is run[f"{metric}_within"], (metric, ratio)
