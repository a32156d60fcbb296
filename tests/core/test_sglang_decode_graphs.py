"""SGLang 0.4.x's decode CUDA graphs (core/registry/engine_releases_sglang.py, core/serving/
load.py ``_graph_sizes``): the release captures 1, 2, 4, 8 and every 8th batch size to 160,
cut at ``cuda_graph_max_bs``, which its server_args.py sets from the GPU's memory and the TP
size (8 at TP < 4 and 80 at TP >= 4 below 25,000 MB, else 160; cuda_graph_runner.py of April
2025: ``can_run`` takes ``batch_size <= max_bs``, ``replay_prepare`` pads to the next captured
size). The A10's P/D runs of SGLang PR 4880 (docs/evidence/serving.md §21) decode 27 requests
at TP 2: eager in SGLang 0.4.5."""

from __future__ import annotations

from typing import Any

from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.serving.engine_settings import engine_settings
from gpusizer.core.serving.load import engine_costs
from gpusizer.core.speed.step import EngineCosts, StepModel
from gpusizer.core.speed.step_model import step_model

CAPTURED = (1, 2, 4, *range(8, 161, 8))


def _costs(tp: int, gpu: str = "a10-24gb", version: str | None = "0.4.5", **serving: Any) -> EngineCosts:
    sv: dict[str, Any] = {"concurrency": 27, **serving}
    if version:
        sv["engine_version"] = version
    s = parse_scenario(
        {
            "model": {"preset": "qwen2.5-7b"},
            "framework": "sglang",
            "hardware": {"gpu": gpu},
            "parallelism": {"tensor": tp},
            "precision": {"weights": "int4"},
            "workload": {"kind": "inference", "prompt_tokens": 2048, "batch_size": 27},
            "serving": sv,
        }
    )
    g = scenario_gpu(s)
    return engine_costs(s, g, engine_settings(s, g))


def _step(tp: int, version: str | None) -> StepModel:
    s = parse_scenario(
        {
            "model": {"preset": "qwen2.5-7b"},
            "framework": "sglang",
            "hardware": {"gpu": "a10-24gb"},
            "parallelism": {"tensor": tp},
            "precision": {"weights": "int4"},
            "workload": {"kind": "inference", "batch_size": 27},
            "serving": {"engine_version": version} if version else {},
        }
    )
    g = scenario_gpu(s)
    return step_model(s, g, engine_costs(s, g, engine_settings(s, g)))


def test_the_cut_follows_gpu_memory_and_tp() -> None:
    """An A10 (23,028 MiB) is below 25,000 MB: 8 at TP 2, 80 at TP 4; an H100 160."""
    assert _costs(2).graph_sizes == (1, 2, 4, 8)
    assert _costs(4).graph_sizes == tuple(b for b in CAPTURED if b <= 80)
    assert _costs(2, gpu="h100-sxm-80gb").graph_sizes == CAPTURED


def test_stated_sizes_win_and_other_releases_keep_their_own() -> None:
    assert _costs(2, cuda_graph_batch_sizes=[16, 32]).graph_sizes == (16, 32)
    assert _costs(2, version=None).graph_sizes == ()  # the newest release: list not read
    assert _costs(2, version="0.5.3").graph_sizes == ()


def test_a_batch_above_the_cut_runs_eager() -> None:
    """27 decodes at TP 2 under 0.4.5: no captured size holds them, so the host launches every
    kernel (55 us each); under the newest release the same step replays a graph."""
    old, new = _step(2, "0.4.5"), _step(2, None)
    assert old.graph_rows(27) == 0 and old.graph_rows(3) == 4
    eager = old.decode_seconds(27, 2304)
    assert eager >= old.kernels * old.costs.launch
    assert eager > 1.3 * new.decode_seconds(27, 2304)
    assert old.decode_seconds(8, 2304) < old.kernels * old.costs.launch  # replayed
