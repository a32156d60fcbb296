"""NeMo RL's Megatron policy accumulates its gradients unfused, into a 16-bit ``main_grad``
(docs/evidence/rl.md section 108; core/pipeline/rl_grad_accumulation.py).

Sources (the local mirror of NVIDIA-NeMo/RL): v0.3.1 builds the model from NeMo 33259f2's
``GPTConfig`` (``gradient_accumulation_fusion = _grad_accum_fusion_available``, apex's
``fused_weight_gradient_mlp_cuda``); v0.4.0 and v0.5.0 from Megatron-Bridge 62f4704 / 1e9a459's
``GPTModelProvider`` (``default_factory=can_enable_gradient_accumulation_fusion``, the same apex
import); no tag's pyproject.toml or uv.lock installs apex, so both read false. v0.6.0 and v0.7.0
set ``megatron_cfg.gradient_accumulation_fusion: false`` in ``examples/configs/grpo_math_1B.yaml``
(no recipe sets it true). Every tag's ``grpo_math_1B.yaml`` sets
``distributed_data_parallel_config.grad_reduce_in_fp32: false``: Megatron-Core's grad buffer
then takes the parameters' bf16, so the hook's add moves 2 + 2 + 2 bytes a parameter."""

from __future__ import annotations

import copy

import pytest

from gpusizer import estimate_report
from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.rl_grad_accumulation import (
    BYTES_PER_PARAM,
    BYTES_PER_PARAM_16BIT_MAIN_GRAD,
    bytes_per_param,
    params_per_gpu,
    unfused_accumulation_seconds,
)
from gpusizer.core.pipeline.rl_roles import trainer_scenario
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.rl_framework_releases import NEMO_RL
from gpusizer.core.speed.train_rates import memory_rate
from gpusizer.core.speed.train_step import step_for

from .rl_figures import FIGURES, PHASED
from .rl_figures_v05 import V05_ON


def test_every_nemo_rl_release_leaves_the_fusion_off() -> None:
    # core/registry/rl_framework_releases.py: v0.3.1, v0.4.0 (carried to v0.5.0) and v0.6.0
    # (carried to v0.7.0) each state it, with the file it was read from
    for release in NEMO_RL:
        assert release.value("policy.gradient_accumulation_fusion") is False, release.version
    assert [r.version for r in NEMO_RL] == ["0.3.1", "0.4.0", "0.5.0", "0.6.0", "0.7.0"]


def test_the_add_moves_six_bytes_over_a_16_bit_main_grad() -> None:
    # Megatron-Core distributed_data_parallel.py: grad_dtype = torch.float if
    # grad_reduce_in_fp32 else param.dtype; the hook reads the bf16 grad (2 B) and reads and
    # writes main_grad (2 x 2 B; 2 x 4 B in FP32, verl's grad_reduce_in_fp32 True)
    policy = trainer_scenario(parse_scenario(FIGURES[3].scenario()))
    assert policy.precision.grad_reduce_in_fp32 is False
    assert bytes_per_param(policy) == BYTES_PER_PARAM_16BIT_MAIN_GRAD == 6.0
    unstated = policy.precision.model_copy(update={"grad_reduce_in_fp32": None})
    fp32 = policy.model_copy(update={"precision": unstated})
    assert bytes_per_param(fp32) == BYTES_PER_PARAM == 10.0


def _row(name: str):
    return next(f for f in (*FIGURES, *V05_ON, *(p[0] for p in PHASED)) if f.name == name)


def _training(sc: dict) -> float:
    return {p["name"]: p["seconds"] for p in estimate_report(sc)["rl"]["phases"]}["training"]


@pytest.mark.parametrize("name", ["v0.4 Qwen3-32B, 32 H100", "v0.5 Qwen3-32B, 16 GB200"])
def test_the_training_phase_gains_one_add_a_micro_batch(name: str) -> None:
    # NeMo RL performance summary rows (docs/about/performance-summary.md, Total Step time 393 s
    # and 381 s): the training phase with the fusion off is the fused phase plus micro-batches x
    # 6 B x the parameters a GPU holds / the achieved HBM rate. The count reads the phase's
    # compute, not its host pace and flags' kernels, so the add priced over the whole fused
    # phase is an upper bound (bounds: 85-100 % of it)
    sc = _row(name).scenario()
    on = copy.deepcopy(sc)
    on["rl"]["policy"]["gradient_accumulation_fusion"] = True
    fused, unfused = _training(on), _training(sc)
    s = parse_scenario(sc)
    policy = trainer_scenario(s)
    gpu = scenario_gpu(policy)
    add = unfused_accumulation_seconds(s, policy, gpu, fused)
    step = step_for(policy, gpu)
    per = 6.0 * params_per_gpu(policy) / memory_rate(gpu)
    assert add == pytest.approx(fused / step.seconds * step.microbatches * per)
    assert 0.85 * add < unfused - fused <= add
    assert 0.005 < add / fused < 0.05


def test_the_step_ratios_as_recorded() -> None:
    # rl.md section 108's table: estimate / published before -> after (tolerance 0.002, rounding)
    # the H100 rows re-read once vLLM 0.9.0's PIECEWISE decode was priced (speed.md section 136):
    # (0.948, 0.960) and (0.896, 0.905) before; the GB200 row runs vLLM 0.10.x too but its step
    # moves under the rounding
    recorded = {
        "v0.4 Qwen3-32B, 32 H100": (0.963, 0.974),
        "v0.5 Qwen3-32B, 16 GB200": (0.736, 0.744),
        "v0.3 Llama 3.1 8B, 8 H100": (0.913, 0.922),
    }
    for name, (before, after) in recorded.items():
        f = _row(name)
        sc = f.scenario()
        on = copy.deepcopy(sc)
        on["rl"]["policy"]["gradient_accumulation_fusion"] = True
        step = estimate_report(sc)["rl"]["time_per_step_seconds"] / f.measured
        fused = estimate_report(on)["rl"]["time_per_step_seconds"] / f.measured
        assert fused == pytest.approx(before, abs=0.002), name
        assert step == pytest.approx(after, abs=0.002), name
