"""Each option of plan and compare carries its evidence band and confidence; the pessimistic
ranking (cost_band / speed_band) and ``--margin band`` on the CLI."""

from __future__ import annotations

import pytest

from gpusizer.cli import main
from gpusizer.core.evidence.confidence import memory_evidence, speed_evidence
from gpusizer.core.model.presets import gpu_spec
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.sizing.compare import compare_gpus
from gpusizer.core.sizing.option_band import BAND_FIELDS, cost_at_slow_edge, slow_edge
from gpusizer.core.sizing.solver import plan, plan_text

SC = {
    "model": {"preset": "llama-3.1-8b"},
    "workload": {"kind": "inference"},
    "framework": "vllm",
    "hardware": {"gpu": "h100-sxm-80gb"},
}
GPUS = ["h100-sxm-80gb", "a100-sxm-80gb", "gaudi-2-96gb"]


@pytest.fixture(scope="module")
def options() -> list[dict]:
    return compare_gpus(SC, gpus=GPUS)


def test_every_option_has_the_band_fields(options: list[dict]) -> None:
    for o in options:
        assert set(BAND_FIELDS) <= set(o)


def test_ranges_are_the_regimes_band(options: list[dict]) -> None:
    s = parse_scenario(SC)
    h100 = next(o for o in options if o["gpu"] == "h100-sxm-80gb")
    mem, speed = memory_evidence(s, gpu_spec("h100-sxm-80gb")), speed_evidence(s, gpu_spec("h100-sxm-80gb"))
    assert h100["memory_confidence"] == mem.confidence
    assert h100["per_gpu_total_range"] == [
        round(h100["per_gpu_total"] / mem.band.p90),
        round(h100["per_gpu_total"] / mem.band.p10),
    ]
    lo, _hi = h100["tokens_per_second_per_user_range"]
    assert lo == pytest.approx(h100["tokens_per_second_per_user"] / speed.band.p90)
    assert slow_edge(h100) == lo
    assert cost_at_slow_edge(h100) == pytest.approx(
        h100["cost_per_million_tokens"] * h100["tokens_per_second_per_user"] / lo
    )


def test_vllm_on_gaudi_speed_is_extrapolated_without_a_band(options: list[dict]) -> None:
    gaudi = next(o for o in options if o["gpu"] == "gaudi-2-96gb")
    assert gaudi["speed_confidence"] == "extrapolated"
    assert gaudi["tokens_per_second_per_user_range"] is None


def test_vllm_on_mi300x_at_batch_one_has_a_band() -> None:
    # AMD's dev-docker tables (Llama 3.1 70B FP8 on 8 MI300X) gave vLLM on AMD at batch one its
    # fifth figure, so it takes the pooled band of every engine's AMD batch-one figures
    (mi,) = compare_gpus(SC, gpus=["mi300x-192gb"])
    assert mi["speed_confidence"] == "validated" and mi["tokens_per_second_per_user_range"] is not None


def test_pessimistic_ranking_puts_the_unbanded_speed_last() -> None:
    ranked = compare_gpus(SC, gpus=GPUS, sort="cost_band")
    assert ranked[-1]["gpu"] == "gaudi-2-96gb"
    assert [o["rank"] for o in ranked] == [1, 2, 3]


def test_plan_table_shows_peak_band_and_confidence() -> None:
    text = plan_text(plan(SC, gpus=["h100-sxm-80gb"]))
    assert "Peak band" in text and "measured/validated" in text


def test_cli_margin_band_and_band_columns(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["compare", "--model", "llama-3.1-8b", "--kind", "inference", "--framework", "vllm"]
    code = main([*argv, "--gpus", "h100-sxm-80gb", "--margin", "band", "--sort", "speed_band"])
    out = capsys.readouterr().out
    assert code == 0
    assert "Tok/s/user band" in out and "Peak band" in out and "Speed sure" in out
    assert main([*argv, "--margin", "wide"]) == 2


def test_models_that_fit_takes_the_band_margin(capsys: pytest.CaptureFixture[str]) -> None:
    from gpusizer.core.sizing.fit_models import models_that_fit

    s = {
        "model": {"preset": "llama-3.1-8b"},
        "workload": {"kind": "lora"},
        "framework": "huggingface",
        "hardware": {"gpu": "rtx-4090-24gb"},
    }
    band = {r["model"] for r in models_that_fit(s, margin="band")}
    none = {r["model"] for r in models_that_fit(s, margin=0.0)}
    assert band and band <= none  # room for the band's upper edge never fits more
    assert main(["fit-models", "--kind", "lora", "--gpu", "rtx-4090-24gb", "--margin", "band"]) == 0
