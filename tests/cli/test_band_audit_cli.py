"""Every surface states the band of its derived figures (core/evidence/derived.py,
io/band_text.py): ``estimate --json`` adds keys only, ``estimate``'s text words them,
``compare`` prices the speed band, and a verdict that flips inside the memory band says so.
Buyer cases of tests/cli/data/buyer; the ranges are the regime's band (presets/
evidence-bands.json) on the figure, so the assertions rebuild them from that band."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.cli import main
from gpusizer.core.evidence.bands import Band, band

DATA = Path(__file__).parent / "data" / "buyer"


def _case(name: str) -> Path:
    return DATA / f"{name}.gpusizer.json"


def _json(name: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["estimate", str(_case(name)), "--json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def _pair(r: tuple[float, float] | None) -> list[float]:
    assert r is not None
    return [r[0], r[1]]


def _speed_band(rep: dict[str, Any]) -> Band:
    """The report's own speed band (its ``evidence.speed.band``: p10, p90 of estimate / published)."""
    p10, p90 = rep["evidence"]["speed"]["band"]
    return Band("speed", 0, 0, p10, p90)


def test_pd_pools_carry_the_pd_bands_and_cost_the_serving_band(capsys: pytest.CaptureFixture[str]) -> None:
    # the P/D pools' figures carry the bands of the 244 published P/D figures that
    # scripts/disagg_figures.py replays, by metric (speed/disagg/ttft, tpot, throughput;
    # scripts/evidence_bands.py ``_disagg``, docs/evidence/speed.md, the P/D bands section);
    # cost per million tokens keeps the serving regime's band (a time, 1 / speed)
    rep = _json("serve-gpt-oss-120b-pd", capsys)
    sv, b = rep["serving"], _speed_band(rep)
    assert b.has_band and sv["disaggregated_prefill_gpus"]
    ttft, tpot, rate = (band(f"speed/disagg/{m}") for m in ("ttft", "tpot", "throughput"))
    assert ttft.has_band and tpot.has_band and rate.has_band
    assert sv["disaggregated_ttft_seconds_range"] == pytest.approx(
        _pair(ttft.time_range(sv["disaggregated_ttft_seconds"]))
    )
    assert sv["disaggregated_tpot_seconds_range"] == pytest.approx(
        _pair(tpot.time_range(sv["disaggregated_tpot_seconds"]))
    )
    assert sv["disaggregated_tokens_per_second_range"] == pytest.approx(
        _pair(rate.size_range(sv["disaggregated_tokens_per_second"]))
    )
    assert sv["cost_per_million_tokens_range"] == pytest.approx(
        _pair(b.time_range(sv["cost_per_million_tokens"]))
    )
    assert sv["ttft_p99_seconds_range"] == pytest.approx(_pair(b.time_range(sv["ttft_p99_seconds"])))


def test_text_words_the_pools_bands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["estimate", str(_case("serve-gpt-oss-120b-pd"))]) == 0
    out = capsys.readouterr().out
    split = next(x for x in out.splitlines() if "split P/D" in x)
    # said where the band comes from: the P/D regimes, with their counts of published figures
    assert "bands of the P/D regimes (213 first token, 194 per token" in split
    cost = next(x for x in out.splitlines() if x.strip().startswith("cost"))
    assert cost.count("$") == 3  # the estimate and its band's two ends


def test_a_fit_that_flips_inside_the_band_says_so(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # the 3B pre-training at 6,144 tokens: 77.1 GiB of 79.6 usable fits; the Megatron band's
    # high end (80.6 GiB) does not. (At 7,168 tokens it was 82.2 GiB and fitted at the band's
    # low end, 73.6 GiB, until the vocabulary-parallel loss's backward was read in place,
    # core/memory/megatron_loss.py: 80.4 GiB, and the band, 0.96-0.99 of the published
    # figures, lies wholly above the estimate, so only this direction can flip.)
    case = json.loads(_case("pretrain-3b-300b-3weeks").read_text())
    case["workload"]["sequence_length"] = 6144
    path = tmp_path / "flip.gpusizer.json"
    path.write_text(json.dumps(case))
    assert main(["estimate", str(path), "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["fits"] and rep["fits_at_band_low"] and rep["fits_at_band_high"] is False
    high = rep["per_gpu"]["total_range"][1] / 2**30
    # above the H100's usable 79.65 GiB; the Megatron full-training band is 0.71-0.99 since the
    # functional-test goldens' fused cross-entropy run (training.md §57): 77.1 / 0.71 = 108.5 GiB
    assert 79.65 < high < 110.0
    assert main(["estimate", str(path)]) == 0
    assert f"it would not fit at the band's high end, {high:,.2f} GiB" in capsys.readouterr().out


def test_a_verdict_that_holds_is_not_qualified(capsys: pytest.CaptureFixture[str]) -> None:
    rep = _json("pretrain-1b-100b", capsys)  # 31.5 GiB, band 30.4-35.3 GiB, 79.6 usable
    assert rep["fits_at_band_low"] and rep["fits_at_band_high"]
    assert main(["estimate", str(_case("pretrain-1b-100b"))]) == 0
    assert "fit at the band's" not in capsys.readouterr().out


def test_training_run_cost_and_hours_banded(capsys: pytest.CaptureFixture[str]) -> None:
    # billed by the hour: GPU-hours and cost scale with the time, so they take its band
    c = _json("pretrain-3b-300b-3weeks", capsys)["compute"]
    lo, hi = c["time_seconds_range"]
    t = c["time_seconds"]
    assert c["cost_range"] == pytest.approx([c["cost"] * lo / t, c["cost"] * hi / t])
    assert c["gpu_hours_range"] == pytest.approx([c["gpu_hours"] * lo / t, c["gpu_hours"] * hi / t])


def test_rl_cost_and_throughputs_banded(capsys: pytest.CaptureFixture[str]) -> None:
    rl = _json("rl-qwen3-8b-split-7days", capsys)["rl"]
    lo, hi = rl["run_seconds_range"]
    t = rl["run_seconds"]
    assert rl["cost_range"] == pytest.approx([rl["cost"] * lo / t, rl["cost"] * hi / t])
    assert rl["tokens_trained_per_second_range"] == pytest.approx(
        [rl["tokens_trained_per_second"] * t / hi, rl["tokens_trained_per_second"] * t / lo]
    )


def test_no_band_regime_keeps_null_ranges(capsys: pytest.CaptureFixture[str]) -> None:
    # serve-70b-chat: the engine does not start (no speed, no cost): every derived range null
    sv = _json("serve-70b-chat", capsys)["serving"]
    assert sv["cost_per_million_tokens_range"] is None and sv["ttft_p99_seconds_range"] is None


def test_compare_prices_the_speed_band(capsys: pytest.CaptureFixture[str]) -> None:
    # $/M tok = $/h x 1e6 / (tokens/s x 3600): the fast edge is the cheap one
    assert (
        main(["compare", str(_case("serve-gpt-oss-120b-200-cheapest")), "--gpus", "b200-192gb", "--json"])
        == 0
    )
    (o,) = json.loads(capsys.readouterr().out)
    lo, hi = o["tokens_per_second_range"]
    c, tps = o["cost_per_million_tokens"], o["tokens_per_second"]
    assert o["cost_per_million_tokens_range"] == pytest.approx([c * tps / hi, c * tps / lo])
    assert main(["compare", str(_case("serve-gpt-oss-120b-200-cheapest")), "--gpus", "b200-192gb"]) == 0
    assert "$/M tok band" in capsys.readouterr().out.splitlines()[0]


def test_hardware_tooltip_states_the_ttft_and_tpot_bands() -> None:
    # the row's TTFT and TPOT columns had bands in --json (core/sizing/option_band.py) but none
    # in words; the tooltip (gui/hardware/table.py) now states them in the columns' units
    from gpusizer import compare_gpus
    from gpusizer.io.compare_table import band_tip_lines

    case = json.loads(_case("serve-gpt-oss-120b-200-cheapest").read_text())
    (o,) = compare_gpus(case, gpus=["b200-192gb"])
    lines = band_tip_lines(o)
    lo, hi = o["tpot_seconds_range"]
    assert f"Runs like this: {lo * 1e3:,.1f}-{hi * 1e3:,.1f} ms per output token" in lines, lines
    assert any(x.endswith("s to the first token") for x in lines), lines
