"""The moves between a colocated RL step's phases (core/pipeline/rl_transitions.py): engine
sleep and wake, training states to and from the host, and the refit's gather."""

from __future__ import annotations

import pytest

from gpusizer import estimate_report
from gpusizer.core.model.presets import gpu_spec
from gpusizer.core.pipeline.rl_transitions import (
    HOST_EFFICIENCY,
    Resident,
    host_link_gb_per_s,
    refit_seconds,
    transitions,
)

H100 = "h100-sxm-80gb"

BASE = {
    "model": {"preset": "qwen2.5-7b"},
    "workload": {"kind": "rl"},
    "framework": "fsdp",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "parallelism": {"data": 8, "zero_stage": 3, "recompute": "full"},
}


def _rl(**rl: object) -> dict:
    return estimate_report({**BASE, "rl": rl})["rl"]


def test_each_move_is_its_bytes_over_the_host_link() -> None:
    r = Resident(engine=16 * 10**9, weights=2 * 10**9, optimizer=12 * 10**9, reference=0)
    moves = {t.name: t for t in transitions(r, 1, True, 64.0)}
    assert list(moves) == ["engine_sleep", "state_reload", "state_offload", "engine_wake"]
    rate = 64e9 * HOST_EFFICIENCY  # PCIe Gen5 x16 at the measured 25/32 of Gen4's peak
    assert moves["engine_sleep"].seconds == pytest.approx(16e9 / rate)
    assert moves["state_reload"].bytes == moves["state_offload"].bytes == 14 * 10**9  # no gradients
    # level 2 drops the weights (nothing copied), and without offload the states stay
    quiet = transitions(r, 2, False, 64.0)
    assert all(t.bytes == 0 and t.seconds == 0 for t in quiet)


def test_the_refit_gathers_the_model_inside_then_across_nodes() -> None:
    w = 100e9
    pack = 2 * w / 1e12  # the whole model packed into the IPC buffers: read and write of HBM
    # one GPU: only the pack (the engine's load of its shard overlaps it, NeMo RL's ping-pong)
    assert refit_seconds(w, 1, 8, w, (1e11, 1e10, 1e12)) == pytest.approx(pack)
    assert refit_seconds(w, 1, 8, w / 4, (1e11, 1e10, 1e12)) == pytest.approx(pack)
    # 8 holders in a node of 8: 7/8 over NVLink; 32 holders: the node receives 24/32 over its
    # 8 GPUs' network links while each GPU receives the 31/32 it lacks over NVLink (pipelined)
    assert refit_seconds(w, 8, 8, 0, (1e11, 1e10, 1e12)) == pytest.approx(w * 7 / 8 / 1e11 + pack)
    assert refit_seconds(w, 32, 8, 0, (1e12, 1e10, 1e12)) == pytest.approx(w * 24 / 32 / 8e10 + pack)
    assert refit_seconds(w, 32, 8, 0, (4e10, 1e10, 1e12)) == pytest.approx(w * 31 / 32 / 4e10 + pack)


def test_the_refit_blogs_deepseek_v3_gather_by_phase() -> None:
    from gpusizer.core.model.params import count_parameters
    from gpusizer.core.pipeline.rl_colocated import colocated_refit, exported_tensors, shard_holders
    from gpusizer.core.pipeline.scenario import parse_scenario

    # source: NeMo RL refit blog (2025-08-12) Table 1, v0.3: DeepSeek V3 trained at EP 64 PP 8
    # (512 H100), generated at vLLM TP 64: policy parameter gather 12.2 s (speed of light 3.3),
    # IPC handle transfer 33.5 s (the v0.3 path NeMo RL v0.4 replaced by its ZMQ stream: not
    # modelled), generation parameter update 1.5 s.
    s = parse_scenario(
        {
            "model": {"preset": "deepseek-v3"},
            "framework": "megatron",
            "hardware": {"gpu": H100},
            "workload": {"kind": "rl"},
            "parallelism": {"expert": 64, "pipeline": 8, "data": 64, "zero_stage": 1, "recompute": "full"},
            "rl": {"rollout": {"tensor": 64}},
        }
    )
    w = count_parameters(s.model).total * 2
    nominal = (450e9, 50e9, 0.0)  # NVLink per direction, one GPU's 400 Gb/s NIC: the blog's rates
    # the bytes at nominal rates are the blog's speed of light, within 1 %
    assert refit_seconds(w, shard_holders(s), 8, 0, nominal) == pytest.approx(3.3, rel=0.01)
    # at the achieved rates and 99 us a tensor: 9.2 s against the measured 12.2 (0.75; the
    # per-tensor rate comes from this row, at the blog's 90,000 tensors where the model exports
    # 45,337), the whole refit with the pack 10.2 s against the gather and update's 13.7 (0.74)
    gpu = gpu_spec(H100)
    gather = refit_seconds(w, shard_holders(s), 8, 0, (315e9, 35e9, 0.0), exported_tensors(s.model))
    assert gather / 12.2 == pytest.approx(0.75, abs=0.02)
    assert colocated_refit(s, gpu) / (12.2 + 1.5) == pytest.approx(0.74, abs=0.02)


def test_host_links_by_gpu() -> None:
    assert host_link_gb_per_s(gpu_spec("h100-sxm-80gb")) == 64.0  # PCIe Gen5 x16
    assert host_link_gb_per_s(gpu_spec("a100-sxm-80gb")) == 32.0  # PCIe Gen4 x16
    # NVLink-C2C, 450 GB/s a direction a Grace, shared by its superchip's GPUs: GH200 one, GB200 and
    # GB300 two (core/speed/host_link.py; 450 for every Grace GPU before rl.md section 28)
    assert host_link_gb_per_s(gpu_spec("gh200-96gb")) == 450.0
    assert host_link_gb_per_s(gpu_spec("gb200-186gb")) == 225.0
    assert host_link_gb_per_s(gpu_spec("gb300-288gb")) == 225.0


def test_a_grace_blackwell_gpus_host_link_as_measured() -> None:
    # source: NVIDIA/Megatron-LM issue #6491 (2026-08-13/15): nvbandwidth copy-engine tests with all
    # four GPUs of a tray copying, per GPU, GB300 host_to_all 168.6-175.4 GB/s and all_to_host
    # 181.9-183.8 GB/s; "the measured bandwidth is only 176 GB/s on GB200". The moves' rate, the
    # GPU's share of the C2C at the links' achieved share (no figure of the issue sets it):
    # tolerance, the measured spread
    for gpu in ("gb200-186gb", "gb300-288gb"):
        rate = host_link_gb_per_s(gpu_spec(gpu)) * HOST_EFFICIENCY
        assert 168.6 <= rate <= 183.8, gpu
    assert host_link_gb_per_s(gpu_spec("gb200-186gb")) * HOST_EFFICIENCY == pytest.approx(176, rel=0.01)
    # GH200's own C2C: 411.6-421.1 GB/s host to GPU measured, the model's 351 below it
    assert host_link_gb_per_s(gpu_spec("gh200-96gb")) * HOST_EFFICIENCY < 411.6


def test_the_report_lists_the_moves_colocated_only() -> None:
    co = _rl()
    names = [t["name"] for t in co["transitions"]]
    assert names == ["engine_sleep", "state_reload", "state_offload", "engine_wake"]
    assert all(t["link"] == "host" and t["gb_per_s"] == 64.0 for t in co["transitions"])
    slow = _rl(host_link_gb_per_s=16.0)
    assert slow["time_per_step_seconds"] > co["time_per_step_seconds"]
    assert _rl(rollout={"sleep_level": 2})["transitions"][0]["bytes"] == 0
    assert _rl(placement="split", rollout={"gpus": 8, "tensor": 2})["transitions"] == []


def test_a_frozen_role_is_laid_out_as_the_policy() -> None:
    from gpusizer.core.model.params import count_parameters
    from gpusizer.core.pipeline.rl_colocated import frozen_bytes
    from gpusizer.core.pipeline.scenario import parse_scenario

    # DeepSeek V3 on TP 1 x PP 16 x EP 16 (NeMo RL's 256-GPU recipe): the routed experts are
    # spread over EP too, so a reference holds about 1/256 of the experts, not 1/16 of all
    s = parse_scenario(
        {
            "model": {"preset": "deepseek-v3"},
            "workload": {"kind": "rl"},
            "framework": "megatron",
            "parallelism": {"pipeline": 16, "expert": 16, "data": 16, "zero_stage": 1, "recompute": "full"},
            "rl": {"rollout": {"tensor": 32}},
        }
    )
    whole = count_parameters(s.model).total * 2
    assert whole / 256 < frozen_bytes(s.model, s) < whole / 16 / 4


def test_the_refit_pays_each_exported_tensor() -> None:
    from gpusizer.core.pipeline.rl_colocated import exported_tensors
    from gpusizer.core.pipeline.rl_transitions import EXPORT_SECONDS_PER_TENSOR
    from gpusizer.core.pipeline.scenario import parse_scenario

    # source: NeMo RL refit blog (2025-08-12) Table 1: DeepSeek V3's gather 12.2 s measured
    # against 3.3 s at the speed of light of its bytes, "over 90 thousand" tensors
    assert pytest.approx(99e-6, rel=0.01) == EXPORT_SECONDS_PER_TENSOR
    w = 100e9
    assert refit_seconds(w, 1, 8, w, (1e11, 1e10, 1e12), 10_000) == pytest.approx(
        2 * w / 1e12 + 10_000 * EXPORT_SECONDS_PER_TENSOR
    )

    def tensors(preset: str) -> int:
        return exported_tensors(parse_scenario({"model": {"preset": preset}}).model)

    # the Hugging Face checkpoints' tensor counts (model.safetensors.index.json weight_map):
    # Qwen3-30B-A3B 18,867 (48 layers x (128 experts x 3 + 9) + 3); DeepSeek V3 without its
    # FP8 scales and the MTP layer: 58 MoE layers x (256 x 3 + 3 shared + 2 router) + 3 dense
    # layers, attention and norms; tolerance 2 % for biases and norms counted per family
    assert tensors("qwen3-30b-a3b") == pytest.approx(48 * (128 * 3 + 9) + 3, rel=0.02)
    assert 44_000 < tensors("deepseek-v3") < 46_000
    assert tensors("llama-3.1-8b") == 32 * 9 + 3
