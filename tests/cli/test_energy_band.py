"""A run's energy and electricity carry the band its time carries, as its cost does
(core/sizing/compare_costs.py ``per_work``, docs/evidence/rl.md section 55's "Not done"): the
system draws ``power_watts`` for every hour of the run, so its kWh (kW x h) and their price
(kWh x ``electricity_usd_per_kwh``) scale with the time as the hourly bill does, and the band
on the time (``time_seconds_range``; RL ``rl_run_seconds_range``) is the band on both. The RL
deadline note names the run's cost at the band's edges (core/sizing/rl_notes.py
``priced_notes``), and ``plan``'s table for pre-training and fine-tuning shows the run's time
and cost with their bands. The ranking stays on the estimate. Each case runs on one or a few
GPU types to keep it short (tests/cli/data/buyer/)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer.cli import main
from gpusizer.core.sizing.compare_options import ELECTRICITY_USD_PER_KWH
from gpusizer.core.sizing.compare_rank import sort_options
from gpusizer.core.sizing.rl_notes import priced_notes
from gpusizer.core.sizing.solver import plan_text
from gpusizer.core.views.settings import DEFAULT_HIDDEN_COLUMNS
from gpusizer.io.compare_table import band_tip_lines, columns_for, plan_columns

DATA = Path(__file__).parent / "data" / "buyer"
BANDS = ("energy_kwh_range", "electricity_cost_range")


def case(name: str) -> dict[str, Any]:
    return json.loads((DATA / f"{name}.gpusizer.json").read_text())


def row(name: str, gpu: str) -> dict[str, Any]:
    return gpusizer.compare_gpus(case(name), gpus=[gpu])[0]


@pytest.fixture(scope="module")
def split_row() -> dict[str, Any]:
    # GRPO of Llama 8B, split, 2-day deadline: the A40 meets it at the estimate (2.0 days) while
    # its RL run band reaches 4.1 days (the deadline band note, core/sizing/rl_notes.py)
    return row("rl-llama-8b-split", "a40-48gb")


def test_rl_energy_band_is_the_run_band_at_system_power(split_row: dict[str, Any]) -> None:
    o = split_row
    kw = o["power_watts"] / 1000
    run_lo, run_hi = o["rl_run_seconds_range"]
    lo, hi = o["energy_kwh_range"]
    # kW x each edge of the run's time (exact: the same arithmetic as energy_kwh)
    assert lo == pytest.approx(kw * run_lo / 3600, rel=1e-12)
    assert hi == pytest.approx(kw * run_hi / 3600, rel=1e-12)
    # the same ratio as the time band and the cost band: power x time, price x time
    assert lo / o["energy_kwh"] == pytest.approx(run_lo / o["rl_run_seconds"], rel=1e-12)
    assert hi / o["energy_kwh"] == pytest.approx(o["training_cost_range"][1] / o["training_cost"], rel=1e-12)
    # electricity: the kWh at the default price (EIA 2023 US commercial average, 0.13 USD/kWh)
    e_lo, e_hi = o["electricity_cost_range"]
    assert e_lo == pytest.approx(lo * ELECTRICITY_USD_PER_KWH, rel=1e-12)
    assert e_hi == pytest.approx(hi * ELECTRICITY_USD_PER_KWH, rel=1e-12)


def test_training_energy_band_follows_its_time_band() -> None:
    # pre-training's band is compute.time_seconds_range's (core/evidence/ranges.py); it holds the
    # estimate in this regime (rl.md section 55: all 234 training bands do)
    o = row("pretrain-1b-100b", "h100-sxm-80gb")
    t_lo, t_hi = o["time_seconds_range"]
    lo, hi = o["energy_kwh_range"]
    assert lo == pytest.approx(o["energy_kwh"] * t_lo / o["time_seconds"], rel=1e-12)
    assert hi == pytest.approx(o["energy_kwh"] * t_hi / o["time_seconds"], rel=1e-12)
    assert lo < o["energy_kwh"] < hi
    e_lo, e_hi = o["electricity_cost_range"]
    assert e_lo < o["electricity_cost"] < e_hi


def test_electricity_band_uses_the_price_asked() -> None:
    # the user's electricity price (compare_gpus' electricity_usd_per_kwh) prices the band too
    o = gpusizer.compare_gpus(case("pretrain-1b-100b"), gpus=["h100-sxm-80gb"], electricity_usd_per_kwh=0.39)[
        0
    ]
    assert o["electricity_cost_range"] == pytest.approx([e * 0.39 for e in o["energy_kwh_range"]], rel=1e-12)


def test_null_where_nothing_is_timed_or_served() -> None:
    # serving has no run: every option still carries the keys, null (the JSON and CSV align)
    served = row("serve-70b-chat", "h100-sxm-80gb")
    assert all(k in served and served[k] is None for k in BANDS)
    # no workload.training_tokens: no run time, so neither its energy nor its band
    data = case("pretrain-1b-100b")
    data["workload"].pop("training_tokens", None)
    untimed = gpusizer.compare_gpus(data, gpus=["h100-sxm-80gb"])[0]
    assert untimed["energy_kwh"] is None and all(untimed[k] is None for k in BANDS)


def test_ranking_stays_on_the_estimate() -> None:
    # the bands are readings beside the energy, not a rank: dropping them changes no order
    gpus = ["mi325x-256gb", "h100-sxm-80gb", "a40-48gb"]
    opts = gpusizer.compare_gpus(case("pretrain-1b-100b"), gpus=gpus)
    bare = [o | dict.fromkeys(BANDS) for o in opts]
    assert [o["gpu"] for o in sort_options(bare, "cost")] == [o["gpu"] for o in opts]


def test_compare_table_shows_each_band_beside_its_figure(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", str(DATA / "pretrain-1b-100b.gpusizer.json"), "--gpus", "h100-sxm-80gb"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert "kWh  kWh band" in head and "Power $  Power $ band" in head
    keys = [c.key for c in columns_for(True, False)]
    assert keys.index("energy_kwh_range") == keys.index("energy_kwh") + 1
    assert keys.index("electricity_cost_range") == keys.index("electricity_cost") + 1
    assert not set(BANDS) & {c.key for c in columns_for(False, False)}  # serving: no run
    # the window hides them at first, as every band column (every row's tooltip states the band)
    assert set(BANDS) <= set(DEFAULT_HIDDEN_COLUMNS)


def test_deadline_note_prices_the_band(split_row: dict[str, Any]) -> None:
    o = split_row
    lo, hi = o["training_cost_range"]
    (note,) = [n for n in o["notes"] if "the RL run band, " in n]
    # "... (the RL run band, 1.7 days to 4.1 days); at the band's edges the run costs $573-$1,396
    # ($673 at the estimate)": what a budget signed for the deadline pays at the slow edge
    est = o["training_cost"]
    tail = f"; at the band's edges the run costs ${lo:,.0f}-${hi:,.0f} (${est:,.0f} at the estimate)"
    assert note.endswith(tail)
    assert note.startswith("meets the 2-day deadline at the estimate (2.0 days)")


def test_priced_notes_leave_other_notes_and_unpriced_options() -> None:
    note = (
        "meets the 2-day deadline at the estimate (1.4 days); runs like it have taken up to 3.0 days "
        "(the RL run band, 1.2 days to 3.0 days)"
    )
    other = "buys 2 x server (16 GPUs) and uses 12; the rest idle"
    # the H20 has no on-demand price: its note stays as it was, with no cost to name
    assert priced_notes([note, other], {"training_cost": None, "training_cost_range": None}) == [note, other]
    priced = priced_notes([note, other], {"training_cost": 100.0, "training_cost_range": [90.0, 210.0]})
    assert priced == [f"{note}; at the band's edges the run costs $90-$210 ($100 at the estimate)", other]


def test_plan_training_table_shows_the_run_time_cost_and_bands() -> None:
    # docs/evidence/rl.md section 55: plan's pre-training and fine-tuning table showed neither
    opts = gpusizer.plan(case("pretrain-1b-100b"), gpus=["h100-sxm-80gb"])
    head, _, first, *_ = plan_text(opts, (), plan_columns(opts)).splitlines()
    assert (
        head.index("Max micro-batch")
        < head.index("Time band")
        < head.index("$ to train band")
        < head.index("$/hour")
    )
    lo, hi = opts[0]["training_cost_range"]
    assert f"{opts[0]['training_cost']:,.0f}" in first and f"{lo:,.0f}-{hi:,.0f}" in first
    # serving has no run to time, an untimed training run neither: no columns
    served = gpusizer.plan(case("serve-70b-chat"), gpus=["h100-sxm-80gb"])
    assert plan_columns(served) == []
    data = case("pretrain-1b-100b")
    data["workload"].pop("training_tokens", None)
    assert plan_columns(gpusizer.plan(data, gpus=["h100-sxm-80gb"])) == []


def test_hardware_tooltip_states_the_energy_band(split_row: dict[str, Any]) -> None:
    # the window's row tooltip (gui/hardware/table.py) lists band_tip_lines; the columns are hidden
    lo, hi = split_row["energy_kwh_range"]
    assert f"At that time band the run draws {lo:,.0f}-{hi:,.0f} kWh" in band_tip_lines(split_row)
