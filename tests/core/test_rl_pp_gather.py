"""The refit gather's pipeline broadcast (``rl.refit_gather``, core/pipeline/rl_pp_gather.py;
docs/evidence/rl.md section 37): under PP whose groups span nodes, each GPU receives the
other stages through its own network link."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.params import count_parameters
from gpusizer.core.model.presets import gpu_spec
from gpusizer.core.pipeline.rl_colocated import weight_sync_seconds
from gpusizer.core.pipeline.rl_pp_gather import (
    broadcast_bytes,
    pipeline_broadcast_seconds,
    pipeline_peers_beyond,
)
from gpusizer.core.pipeline.scenario import parse_scenario

from .rl_figures import FIGURES, PHASED
from .rl_phase_logs import LOGS

H100 = gpu_spec("h100-sxm-80gb")


def _llama70b(**rl: Any) -> dict[str, Any]:
    # NeMo RL v0.3.0 examples/configs/grpo_math_70B_megatron.yaml: TP 4 PP 4 on 8 x 8 H100
    return {
        "model": {"preset": "llama-3.1-70b"},
        "framework": "megatron",
        "hardware": {"gpu": "h100-sxm-80gb"},
        "workload": {"kind": "rl"},
        "parallelism": {"tensor": 4, "pipeline": 4, "data": 4},
        "rl": {"rollout": {"tensor": 4, "prompts_per_step": 64, "samples_per_prompt": 32}, **rl},
    }


def test_full_tensors_cross_each_gpus_own_link() -> None:
    # source: nemo_rl/models/megatron/refit_utils.py gather_params at v0.3.0 (TP all-gather, then
    # a broadcast of the whole tensor over the PP group); Megatron-Core's "tp-cp-ep-dp-pp" order
    # puts PP ranks 16 GPUs apart, so the other 3 stages come from other nodes. Exact: 3/4 of the
    # 16-bit model over 50 GB/s x 0.7 (106 GB a GPU, 3.0 s)
    s = parse_scenario(_llama70b(refit_gather="full"))
    assert pipeline_peers_beyond(s) == 3
    weights = count_parameters(s.model).total * 2
    assert broadcast_bytes(s) == pytest.approx(weights)
    assert pipeline_broadcast_seconds(s, H100) == pytest.approx(0.75 * weights / 35e9)
    assert pipeline_broadcast_seconds(s, H100) == pytest.approx(3.0, abs=0.05)
    null = parse_scenario(_llama70b())
    assert weight_sync_seconds(s, H100) - weight_sync_seconds(null, H100) == pytest.approx(
        pipeline_broadcast_seconds(s, H100)
    )


def test_a_shard_is_a_tp_th_and_stages_in_one_node_stay_home() -> None:
    # Megatron-Bridge export_hf_weights (62f4704, NeMo RL v0.4.0): broadcast_from_pp_rank sends
    # the GPU's own shard before the TP all-gather: a quarter of the full tensors at TP 4
    full = parse_scenario(_llama70b(refit_gather="full"))
    shard = parse_scenario(_llama70b(refit_gather="shard"))
    assert broadcast_bytes(shard) == pytest.approx(broadcast_bytes(full) / 4)
    # TP 1 PP 2 DP 4 on one 8-GPU node: the PP peer is 4 GPUs away, in the node
    near = _llama70b(refit_gather="full")
    near["parallelism"] = {"tensor": 1, "pipeline": 2, "data": 4}
    assert pipeline_peers_beyond(parse_scenario(near)) == 0
    assert pipeline_broadcast_seconds(parse_scenario(near), H100) == 0.0


def test_null_answers_as_before() -> None:
    # the default: every answer as without the field
    assert estimate_report(_llama70b()) == estimate_report(_llama70b(refit_gather=None))
    assert pipeline_broadcast_seconds(parse_scenario(_llama70b()), H100) == 0.0


@pytest.mark.parametrize("bad", ["sometimes", 3, True, ["full"]])
def test_hostile_refit_gather_names_the_field(bad: object) -> None:
    with pytest.raises(ScenarioError) as err:
        parse_scenario(_llama70b(refit_gather=bad))
    assert "rl.refit_gather" in str(err.value)


def test_only_the_v03_70b_replays_move() -> None:
    # the v0.3 blog's and issue #959's rows state "full" (NeMo RL v0.3.0); only the 70B's layout
    # has stages on other nodes (the 8B's TP 1 PP 2 sits in one node): its refit timer, model /
    # measured (weight sync + the states' offload + the engine's wake), 0.257 -> 0.373 (#959's
    # 26 s) and 0.478 -> 0.693 (the blog's 14 s)
    for figure in [f for f, _ in PHASED] + [f for f, _, _ in LOGS]:
        s = parse_scenario(figure.scenario())
        moved = pipeline_broadcast_seconds(s, H100)
        assert (moved > 0) == ("70B" in figure.name and "DTensor" not in figure.name), figure.name
    # the v0.4-v0.7 tables' rows state "shard" (Megatron-Bridge's export; rl.md section 43)
    assert all(f.refit_gather == "shard" for f in FIGURES)
