"""The refit gather NeMo RL v0.4.0-v0.7.0 runs (``rl.refit_gather: "shard"``): stated for the
v0.4-v0.7 tables' rows and set by NeMo RL's releases (core/registry/rl_framework_releases.py;
docs/evidence/rl.md section 43).

Source: NVIDIA-NeMo/RL ``megatron_policy_worker.py`` at tags v0.4.0-v0.7.0 (both refits,
``stream_weights_via_ipc_zmq`` and ``broadcast_weights_for_collective``, iterate Megatron-Bridge's
``export_hf_weights``) and Megatron-Bridge ``param_mapping.py`` at the commits those tags pin
(62f4704, 1e9a459, 95e5f38): ``megatron_to_hf`` calls ``broadcast_from_pp_rank`` on the GPU's own
shard, then ``gather_from_tp_ranks``; v0.3.1's ``refit_utils.gather_params`` broadcasts the
TP-gathered tensor whole ("full")."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.model.params import count_parameters
from gpusizer.core.model.presets import gpu_spec
from gpusizer.core.pipeline.rl_colocated import colocated_refit, shard_holders
from gpusizer.core.pipeline.rl_pp_gather import broadcast_bytes, pipeline_broadcast_seconds
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.rl_frameworks import RL_FRAMEWORKS

from .rl_figures import OFF_POLICY

H100 = gpu_spec("h100-sxm-80gb")
DSV3 = "v0.4 DeepSeek V3 1-off, 256+256 H100"


def _row(name: str, **rl: Any) -> dict[str, Any]:
    """The row's scenario with ``rl.refit_gather`` left out, then ``rl`` merged in."""
    sc = next(f for f in OFF_POLICY if f.name == name).scenario()
    sc["rl"].pop("refit_gather", None)
    sc["rl"] |= rl
    return sc


@pytest.mark.parametrize(
    ("version", "gather"),
    [("0.3.1", "full"), ("0.4.0", "shard"), ("0.5.0", "shard"), ("0.6.0", "shard"), ("0.7.0", "shard")],
)
def test_each_nemo_rl_release_sets_its_gather(version: str, gather: str) -> None:
    # source: refit_utils.gather_params at v0.3.1; Megatron-Bridge broadcast_from_pp_rank from v0.4.0
    assert RL_FRAMEWORKS["nemo_rl"].release(version).value("refit_gather") == gather


@pytest.mark.parametrize(("version", "gather"), [("0.3.1", "full"), ("0.6.0", "shard")])
def test_the_release_fills_the_gather_and_prices_it(version: str, gather: str) -> None:
    filled = estimate_report(_row(DSV3, framework="nemo_rl", framework_version=version))
    assert filled["scenario"]["rl"]["refit_gather"] == gather
    assert filled["rl"]["framework"]["defaults"]["rl.refit_gather"] == gather
    stated = parse_scenario(_row(DSV3, refit_gather=gather))
    assert pipeline_broadcast_seconds(stated, H100) > 3.0  # DeepSeek V3's 15 stages beyond the node


def test_an_explicit_null_wins_over_the_release() -> None:
    rep = estimate_report(_row(DSV3, framework="nemo_rl", refit_gather=None))
    assert rep["scenario"]["rl"]["refit_gather"] is None
    assert "rl.refit_gather" in rep["rl"]["framework"]["as_set"]


def test_no_framework_leaves_the_gather_null() -> None:
    s = parse_scenario(_row(DSV3))
    assert s.rl is not None and s.rl.refit_gather is None
    assert pipeline_broadcast_seconds(s, H100) == 0.0


def test_the_shard_is_not_the_node_shared_gather_again() -> None:
    # DeepSeek V3 at TP 1 EP 16 PP 16 on 256 H100: the node-shared gather's network share, 1.30 TB
    # beyond the node over its 8 NICs (163 GB a GPU), is the EP 16 all-gather's: a ring over two
    # nodes carries 15/16 of the 1.31 TB of experts over each of 8 rails (153 GB a NIC). The
    # pipeline broadcast is another collective in the same loop: each GPU's own shard, 34 GB of
    # dense weights and 1/16 of the experts (116 GB), from the 15 stages on other nodes
    s = parse_scenario(_row(DSV3, refit_gather="shard"))
    counts = count_parameters(s.model)
    weights = counts.total * 2
    holders = shard_holders(s)
    node_shared = weights * (holders - 8) / holders / 8
    ep_ring = 15 / 16 * counts.expert_params * 2 / 8
    assert node_shared == pytest.approx(ep_ring, rel=0.07)
    dense = counts.total - counts.expert_params
    assert broadcast_bytes(s) == pytest.approx((dense + counts.expert_params / 16) * 2)
    seconds = 15 / 16 * broadcast_bytes(s) / (50e9 * 0.7)
    assert pipeline_broadcast_seconds(s, H100) == pytest.approx(seconds)
    null = parse_scenario(_row(DSV3))
    assert colocated_refit(s, H100) - colocated_refit(null, H100) == pytest.approx(seconds)
