"""The training step model's mechanisms (core/speed/train_step.py, train_dp.py, train_ops.py)
and the report fields it fills. The published figures are replayed in test_training_speed.py."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.flops import every_other_matmul_share, tensor_parallel_pairs
from gpusizer.core.model.presets import gpu_spec
from gpusizer.core.pipeline.report import estimate_report
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.speed.train_rates import collective_seconds, group_link, matmul_rate


def _scenario(**blocks: Any) -> dict[str, Any]:
    s: dict[str, Any] = {
        "model": {"preset": "llama-3.1-8b"},
        "workload": {
            "kind": "pretraining",
            "sequence_length": 8192,
            "micro_batch_size": 2,
            "training_tokens": 1e12,
        },
        "parallelism": {"data": 8, "zero_stage": 3},
        "framework": "fsdp",
        "hardware": {"gpu": "h100-sxm-80gb"},
    }
    for block, fields in blocks.items():
        s[block] = {**s[block], **fields} if isinstance(s.get(block), dict) else fields
    return s


def _step(**blocks: Any) -> dict[str, Any]:
    return estimate_report(_scenario(**blocks))["training_step"]


def _rate(**blocks: Any) -> float:
    return estimate_report(_scenario(**blocks))["compute"]["tokens_per_second_per_gpu"]


def test_training_report_fills_speed_fields() -> None:
    rep = estimate_report(_scenario())
    c, step = rep["compute"], rep["training_step"]
    assert step["from_layout"] and 0 < c["mfu"] < 1 and 0 < c["model_flops_utilization"] <= c["mfu"]
    assert c["tokens_per_second"] == pytest.approx(c["tokens_per_second_per_gpu"] * 8)
    assert c["time_seconds"] == pytest.approx(1e12 / c["tokens_per_second"])
    parts = sum(v for k, v in step.items() if k.endswith("_seconds") and k != "seconds")
    assert step["seconds"] == pytest.approx(parts)
    assert step["tokens"] == 16 * 8192 and c["tokens_per_second_per_gpu"] == pytest.approx(
        step["tokens_per_second_per_gpu"]
    )
    assert c["mfu"] == pytest.approx(
        c["flops_per_token"] * c["tokens_per_second_per_gpu"] / c["peak_flops_per_s"]
    )


def test_mfu_setting_overrides_the_step_model() -> None:
    rep = estimate_report(_scenario(compute={"mfu": 0.5}))
    c = rep["compute"]
    assert not rep["training_step"]["from_layout"] and c["mfu"] == pytest.approx(0.5)
    assert c["tokens_per_second_per_gpu"] == pytest.approx(0.5 * c["peak_flops_per_s"] / c["flops_per_token"])
    assert rep["scenario"]["compute"]["mfu"] == 0.5
    assert estimate_report(_scenario())["scenario"]["compute"]["mfu"] is None  # echoed: from the layout


def test_inference_reports_keep_their_compute_block() -> None:
    rep = estimate_report({"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}})
    assert rep["compute"]["mfu"] == 0.4 and "training_step" not in rep


def test_recompute_costs_time() -> None:
    none, sel, full = (_rate(parallelism={"recompute": r}) for r in ("none", "selective", "full"))
    assert none > sel > full
    # full recompute reruns the forward: between the matmul share's 4/3 and 1 (comm and the
    # optimizer do not grow)
    assert 1.0 < none / full < 4 / 3


def test_torchtitan_selective_reruns_every_second_matmul() -> None:
    arch = resolve(parse_scenario({"model": {"preset": "llama-3.1-8b"}}).model)
    # q, k, v, o, gate, up, down: k + o + up of all weights (4096, 1024, 14336)
    share = (4096 * 1024 + 4096 * 4096 + 4096 * 14336) / (4096 * (4096 * 2 + 1024 * 2) + 3 * 4096 * 14336)
    assert every_other_matmul_share(arch) == pytest.approx(share)
    tt = estimate_report(_scenario(framework="torchtitan", parallelism={"recompute": "selective"}))
    none = estimate_report(_scenario(framework="torchtitan", parallelism={"recompute": "none"}))
    m = (none["compute"]["flops_per_token"] - none["compute"]["attention_flops_per_token"]) / 6
    extra = tt["compute"]["flops_per_token"] - none["compute"]["flops_per_token"]
    assert extra == pytest.approx(2 * m * share, rel=1e-6)


def test_torchtitan_profile_fills_its_defaults() -> None:
    echo = estimate_report(_scenario(framework="torchtitan", parallelism={"data": 8}))["scenario"]
    p, prec = echo["parallelism"], echo["precision"]
    assert (p["zero_stage"], p["sequence_parallel"], p["recompute"]) == (3, True, "selective")
    assert (prec["weights"], prec["master_weights"], prec["gradients"]) == ("fp32", None, "fp32")


def test_async_tp_hides_all_but_the_first_chunk() -> None:
    tp = {"tensor": 8, "data": 1, "sequence_parallel": True}
    vanilla = _step(parallelism=tp)["tp_communication_seconds"]
    overlapped = _step(parallelism={**tp, "async_tensor_parallel": True})["tp_communication_seconds"]
    assert vanilla / 8 <= overlapped < vanilla


def test_tp_pairs_cover_the_layer() -> None:
    for preset in ("llama-3.1-8b", "deepseek-v3", "gpt-2"):
        arch = resolve(parse_scenario({"model": {"preset": preset}}).model)
        assert sum(tensor_parallel_pairs(arch)) == pytest.approx(1.0)


def test_fsdp_collectives_hide_behind_compute_until_the_network_is_slow() -> None:
    fast = _step(parallelism={"data": 64})
    slow = _step(parallelism={"data": 64}, hardware={"gpu": "h100-sxm-80gb", "network_gb_per_s": 1.0})
    assert fast["dp_communication_seconds"] < 0.01 * fast["seconds"]
    assert slow["dp_communication_seconds"] > 0.5 * slow["seconds"]


def test_zero_1_parameter_gather_overlaps_under_megatron_not_deepspeed() -> None:
    layout = {"data": 64, "zero_stage": 1}
    megatron = _step(framework="megatron", parallelism=layout)["dp_communication_seconds"]
    deepspeed = _step(framework="deepspeed", parallelism=layout)["dp_communication_seconds"]
    assert megatron < deepspeed


def test_float8_matmuls_need_fp8_units() -> None:
    assert _rate(precision={"matmuls": "fp8"}) > 1.2 * _rate()
    a100 = {"gpu": "a100-sxm-80gb"}
    assert _rate(precision={"matmuls": "fp8"}, hardware=a100) == pytest.approx(_rate(hardware=a100))


def test_compile_fuses_elementwise_ops() -> None:
    eager, compiled = _step(), _step(workload={"compile": True})
    assert compiled["memory_seconds"] < 0.5 * eager["memory_seconds"]
    assert compiled["matmul_seconds"] == pytest.approx(eager["matmul_seconds"])


def test_rates_and_links() -> None:
    h100 = gpu_spec("h100-sxm-80gb")
    # MAMF table: 794.5 TFLOPS BF16, 1402.6 FP8 on H100 SXM
    assert matmul_rate(h100, "bf16") == pytest.approx(794.5e12)
    assert matmul_rate(h100, "fp8") == pytest.approx(1402.6e12)
    # an unlisted NVIDIA GPU: the NVIDIA rows' median efficiency (80.3%) times its peak
    assert matmul_rate(gpu_spec("h100-pcie-80gb"), "bf16") == pytest.approx(0.803 * 756.5e12, rel=1e-3)
    inside = group_link(h100, 8, 1, 8, 50.0)
    across = group_link(h100, 32, 8, 8, 50.0)  # one rank per node: one NIC each
    assert inside.kind == "nvlink" and inside.beta == pytest.approx(370e9)
    assert across.kind == "network" and across.beta == pytest.approx(47e9)
    # eight ranks a node apart, one per node: eight NICs' worth never beats NVLink
    assert group_link(h100, 64, 1, 8, 50.0).beta == pytest.approx(370e9)
    # ring all-reduce moves 2(n-1)/n of the bytes: 8 GPUs, 1 GB over NVLink (collectives.py:
    # NCCL's Simple protocol, 8.4 us + 14 hops of 3.4 us)
    assert collective_seconds("all_reduce", 1e9, 8, inside) == pytest.approx(56e-6 + 1.75 / 370, rel=1e-3)


def test_amd_fp8_training_gemms_run_at_azures_hipblaslt_rate() -> None:
    # Microsoft Azure AI-benchmarking-guide, ND MI300X v5 (yosoyjay fork @a8263ef): hipBLASLt FP8,
    # random inputs, 10,000 warm-up iterations, 1,222.9 TFLOPS at 8192^3, the best of its shapes;
    # the MAMF table has no FP8 row for AMD. Before, the MI300X took every vendor's median FP8
    # share (0.766 x 2,614.9 = 2,003 TFLOPS), 1.64x the measured rate.
    assert matmul_rate(gpu_spec("mi300x-192gb"), "fp8") == pytest.approx(1222.9e12)
    assert matmul_rate(gpu_spec("mi300x-192gb"), "bf16") == pytest.approx(668.4e12)  # MAMF table
    # the MI325X its own measured rate, AMD's Max-Achievable FLOPs (1,519 TFLOPS, ROCm/rocm-blogs
    # measuring-max-achievable-flops-part2 @8e011952; before, 0.468 x 2,614.9 = 1,224); the
    # MI355X that share of its own FP8 peak (the AMD FP8 row)
    assert matmul_rate(gpu_spec("mi325x-256gb"), "fp8") == pytest.approx(1519.0e12)
    assert matmul_rate(gpu_spec("mi355x-288gb"), "fp8") == pytest.approx(0.468 * 5033.2e12)
    # no NVIDIA rate moves: an unlisted NVIDIA GPU keeps the NVIDIA FP8 rows' median (73.95 %)
    assert matmul_rate(gpu_spec("h100-pcie-80gb"), "fp8") == pytest.approx(0.7395 * 1513e12, rel=1e-3)


def test_geforce_qlora_matmuls_follow_the_cards_fp32_accumulate_rates() -> None:
    # GeForce runs PyTorch's BF16 GEMMs (FP32 accumulate) at half the FP16-accumulate rate: the
    # catalog's 165.2 (RTX 4090) and 209.5 TFLOPS (RTX 5090), Ada and Blackwell GeForce
    # whitepapers. Neither card has a training run of its own, so both take one sustained share
    # and the 5090's QLoRA matmuls are faster by the ratio of the peaks (they were equal).
    def qlora(gpu: str) -> dict[str, Any]:
        return _step(
            workload={"kind": "qlora", "sequence_length": 2048, "micro_batch_size": 1},
            precision={"weights": "nf4", "activations": "bf16"},
            parallelism={"data": 1, "zero_stage": 0, "recompute": "full"},
            framework="huggingface",
            hardware={"gpu": gpu},
        )

    old, new = qlora("rtx-4090-24gb"), qlora("rtx-5090-32gb")
    assert old["matmul_seconds"] / new["matmul_seconds"] == pytest.approx(209.5 / 165.2, rel=1e-3)
    assert new["tokens_per_second_per_gpu"] > 1.25 * old["tokens_per_second_per_gpu"]
