"""``workload.expert_kernel`` (core/registry/expert_kernels.py, core/memory/expert_loop.py):
transformers 4.55's eager expert loop copies each hit expert and builds a zero-filled gradient
of the whole expert tensor per expert; the grouped default and MegaBlocks keep neither."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from gpusizer.core.memory.expert_loop import expert_loop
from gpusizer.core.memory.training import stage_phases
from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.params import count_parameters
from gpusizer.core.model.sharding import stage_params
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.expert_kernels import EXPERT_KERNELS, ExpertKernel, register
from tests.cli.test_cli_hostile_pd_framework import refused_in_one_line
from tests.core.hostile_inputs import NOT_COUNTS, at, refused

GiB = 2**30
# axolotl examples/gpt-oss/gpt-oss-120b-fft-fsdp2-offload.yaml (50f2b94d5): use_kernels: false,
# sequence_len 4096, micro_batch_size 1, gradient_checkpointing, FSDP2 with offload_params
OSS_120: dict[str, Any] = {
    "framework": "axolotl",
    "model": {"preset": "gpt-oss-120b"},
    "hardware": {"gpu": "h100-sxm-80gb"},
    "precision": {"weights": "bf16", "master_weights": None, "optimizer": "adamw"},
    "workload": {
        "kind": "full_finetune",
        "micro_batch_size": 1,
        "sequence_length": 4096,
        "global_batch_size": 32,
        "expert_kernel": "hf_eager_loop",
    },
    "parallelism": {
        "data": 16,
        "zero_stage": 3,
        "offload_parameters": True,
        "offload_optimizer": True,
        "recompute": "full",
        "fsdp_version": 2,
    },
}


LAYER = 128 * (3 * 2880**2 + 8640) * 2  # one MoE layer's expert weights and biases, bf16
GATE_UP = 128 * (2880 * 5760 + 5760) * 2  # gate_up_proj and its bias


def _with(kernel: str, **par: Any) -> dict[str, Any]:
    d = at(OSS_120, "workload.expert_kernel", kernel)
    d["parallelism"].update(par)
    return d


def _phases(d: dict[str, Any]) -> dict[str, float]:
    s = parse_scenario(d)
    return stage_phases(s, resolve(s.model), count_parameters(s.model), True).totals


def test_eager_loop_bytes_of_gpt_oss_120b() -> None:
    # transformers v4.55.0 modeling_gpt_oss.py GptOssExperts.forward: per hit expert the
    # [1, 2880, 5760] and [1, 2880, 2880] bf16 copies and their biases' [1, 5760] and
    # [1, 2880]: 128 x (3 x 2880^2 + 8640) x 2 B = 5.93 GiB per layer; IndexBackward0's
    # zero-filled [128, 2880, 5760] bf16 gradient (with its bias's: 2/3 of that): 3.96 GiB
    s = parse_scenario(OSS_120)
    arch = resolve(s.model)
    sp = stage_params(count_parameters(s.model), arch, 1, 1, 1, True)
    loop = expert_loop(s, arch, sp)
    assert loop.saved_per_layer == pytest.approx(LAYER, rel=1e-9)
    assert loop.layer_backward == pytest.approx(GATE_UP, rel=1e-9)
    assert loop.saved_per_layer / GiB == pytest.approx(5.93, abs=0.01)


def test_full_recompute_carries_them_in_the_rebuilt_layer_only() -> None:
    # under torch.utils.checkpoint the forward keeps no copy; the rebuilt layer keeps all
    # of them until its backward, beside one more whole gate_up_proj gradient
    grouped, eager = _phases(_with("grouped")), _phases(_with("hf_eager_loop"))
    assert eager["forward"] == grouped["forward"]
    assert eager["recompute"] - grouped["recompute"] == pytest.approx(LAYER + GATE_UP, rel=1e-9)


def test_without_recompute_every_moe_layer_keeps_its_copies() -> None:
    # FSDP1: FSDP2's held reduce-scatter input (core/memory/fsdp2_buffers.py) adds what it
    # exceeds one layer's freed saved tensors by, which the copies enlarge
    no_ac = {"recompute": "none", "offload_parameters": False, "fsdp_version": 1}
    grouped = _phases(_with("grouped", **no_ac))
    eager = _phases(_with("hf_eager_loop", **no_ac))
    copies = 36 * LAYER  # 36 MoE layers
    assert eager["forward"] - grouped["forward"] == pytest.approx(copies, rel=1e-9)
    assert eager["backward"] - grouped["backward"] == pytest.approx(copies + GATE_UP, rel=1e-9)


def test_frozen_experts_build_no_expert_gradient() -> None:
    # LoRA: the experts need no gradient, so IndexBackward0 runs for no weight; the copies
    # are still saved (the input gradient reads them)
    s = parse_scenario(at(at(OSS_120, "workload.kind", "lora"), "workload.lora_targets", ["q", "v"]))
    arch = resolve(s.model)
    sp = stage_params(count_parameters(s.model), arch, 1, 1, 1, True)
    loop = expert_loop(s, arch, sp)
    assert loop.layer_backward == 0 and loop.saved_per_layer > 5 * GiB


@pytest.mark.parametrize("kernel", ["grouped", "megablocks"])
def test_grouped_and_megablocks_answer_as_before(kernel: str) -> None:
    # the default, and MegaBlocks (kernels-community 885c7a29 layers.py forward_once: binned
    # [E, C, H] tokens and bmm on the whole expert tensors, no weight copy), give the answer
    # of a scenario without the field to the byte
    base = copy.deepcopy(OSS_120)
    del base["workload"]["expert_kernel"]
    assert estimate(_with(kernel)).memory == estimate(base).memory


def test_a_dense_model_ignores_the_field() -> None:
    dense = at(at(OSS_120, "model.preset", "llama-3.1-8b"), "parallelism.data", 8)
    plain = copy.deepcopy(dense)
    del plain["workload"]["expert_kernel"]
    assert estimate(dense).memory == estimate(plain).memory


def test_a_registered_implementation_is_accepted() -> None:
    # dispatch is by the entry's properties: a copy under another id behaves as the original
    copy_id = "hf_eager_loop_copy"
    if copy_id not in EXPERT_KERNELS:
        register(ExpertKernel(copy_id, "copy", indexed_copies=True, whole_tensor_gradient=True))
    try:
        assert estimate(_with(copy_id)).memory == estimate(_with("hf_eager_loop")).memory
    finally:
        EXPERT_KERNELS.pop(copy_id)


@pytest.mark.parametrize("bad", ["eager", "", "GROUPED", *NOT_COUNTS])
def test_a_bad_expert_kernel_names_the_field_and_the_ids(bad: Any) -> None:
    scenario = at(OSS_120, "workload.expert_kernel", bad)
    refused(scenario, "workload.expert_kernel", "grouped", "hf_eager_loop", "megablocks")


def test_the_cli_refuses_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = at(OSS_120, "workload.expert_kernel", "loop")
    refused_in_one_line(tmp_path, capsys, bad, ("workload.expert_kernel", "hf_eager_loop"), "estimate")
