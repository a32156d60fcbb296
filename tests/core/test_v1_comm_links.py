"""vLLM V1's multi-GPU non-torch growth is charged on NVLink GPUs and not on PCIe ones
(core/registry/engine_releases_vllm_v1.py ``V1_COMM_FREE``, core/serving/rules/vllm.py ``_comm``).
Source of the PCIe side: the L40S log of tests/core/data/engine-logs-blind2.json (vLLM 0.10.2,
TP 8: "0.21 GiB for non-torch memory", NCCL inside that release's snapshot); of the NVLink side:
the llm-d v0.19.0 H100 sweep the constant was measured on (engine-logs.json)."""

from __future__ import annotations

import re

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.engine_releases_vllm_v1 import V1_COMM, V1_PEER

from .engine_replay_logs_blind2 import LOGS, Q235_L40S
from .replay_base import GiB, _vllm


def _pool(gpu: str, version: str, tp: int) -> int:
    sc = _vllm("qwen3-32b", version, gpu, tp=tp, max_context=8192)
    sv = estimate(parse_scenario(sc)).serving
    assert sv is not None
    return sv.kv_pool_bytes


def test_pcie_pool_is_the_nvlink_pool_plus_the_growth() -> None:
    # H100 SXM (NVLink) and H100 PCIe: the same 80 GB and the same batch tier, only the link
    # differs; at TP 2 the PCIe pool holds the 1.79 + 0.03 GiB the NVLink sweep charged
    for version in ("0.11.0", "0.19.0"):
        gap = _pool("h100-pcie-80gb", version, 2) - _pool("h100-sxm-80gb", version, 2)
        assert abs(gap - (V1_COMM + V1_PEER)) < 2**20, (version, gap / GiB)
    # 0.9.1-0.10.x count NCCL inside: the profile's 1 GiB workspace on both links
    gap = _pool("h100-pcie-80gb", "0.9.1", 2) - _pool("h100-sxm-80gb", "0.9.1", 2)
    assert abs(gap - (V1_COMM + V1_PEER)) < 2**20, gap / GiB


def test_one_gpu_a_pipeline_and_v0_are_unchanged_by_the_link() -> None:
    assert _pool("h100-pcie-80gb", "0.11.0", 1) == _pool("h100-sxm-80gb", "0.11.0", 1)
    # a pipeline keeps the growth on PCIe (no PCIe log of a pipeline's stages was found)
    pp = [
        estimate(parse_scenario(_vllm("qwen3-32b", "0.11.0", g, tp=2, pp=2, max_context=8192))).serving
        for g in ("h100-pcie-80gb", "h100-sxm-80gb")
    ]
    assert pp[0] is not None and pp[1] is not None and pp[0].kv_pool_bytes == pp[1].kv_pool_bytes
    # V0 0.7.0's own multi-GPU constants were read on PCIe logs (serving.md §66): kept on both
    assert _pool("h100-pcie-80gb", "0.7.0", 2) == _pool("h100-sxm-80gb", "0.7.0", 2)


def test_the_pcie_log_prints_less_non_torch_than_one_gpu_is_charged() -> None:
    # vLLM 0.10.2's own line at TP 8 on PCIe L40S (source: the record's ``source``): 0.21 GiB,
    # below the 0.25 GiB the entries charge one GPU, where the NVLink growth would add 2.0 GiB
    line = LOGS[Q235_L40S]["logged"]["usage"]
    m = re.search(r"([\d.]+) GiB for non-torch memory", line)
    assert m and float(m.group(1)) == 0.21
    assert float(m.group(1)) < 0.25 < (V1_COMM + 7 * V1_PEER) / GiB
