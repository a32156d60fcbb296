"""NeMo RL steps logged phase by phase, replayed by tests/core/test_rl_phase_logs.py.

Section 2h of docs/evidence/rl.md. Each row is a colocated GRPO step whose timers NeMo RL
prints ("Timing": total_step_time, generation, policy_and_reference_logprobs,
policy_training, and the refit in prepare_for_generation; nemo_rl/algorithms/grpo.py at tag
v0.3.0), with settings stated in the thread or the defaults of the named recipe at that tag.

Source: NVIDIA-NeMo/RL issue #959 ("70B GRPO training is slower than reported", 2025-08-21):
the issue's own reruns of the NeMo RL v0.3 blog's steps and the blog's PyTorch DTensor rows
(the blog's Megatron rows are tests/core/rl_figures.py PHASED). Recipes at tag v0.3.0:
- Megatron: examples/configs/grpo_math_8B_megatron.yaml (8 H100, TP 1 PP 2, vLLM TP 1) and
  grpo_math_70B_megatron.yaml (64 H100, TP 4 PP 4, vLLM TP 4), as in PHASED;
- DTensor: examples/configs/grpo_math_8B.yaml over grpo_math_1B.yaml: FSDP2 over 8 H100,
  dtensor_cfg.tensor_parallel_size 1, activation_checkpointing false, cpu_offload false,
  sequence packing on, vLLM TP 1 at gpu_memory_utilization 0.6.
All: 64 prompts x 32 generations, train_global_batch_size 512, micro-batch 1,
max_total_sequence_length 4096. The issue gives the mean generated tokens per sample; the
prompt is rl_figures.PROMPT (not published). The blog's DTensor 70B rows have no recipe at
v0.3.0 (no grpo_math_70B.yaml): read, not replayed."""

from __future__ import annotations

from typing import Any

from .rl_figures import H100, RLFigure


def dtensor(figure: RLFigure) -> dict[str, Any]:
    """The recipe's scenario trained by FSDP2 (NeMo RL's DTensor policy worker) instead."""
    scenario = figure.scenario()
    scenario["framework"] = "fsdp"
    scenario["parallelism"]["zero_stage"] = 3
    # the DTensor worker runs torch's log_softmax over the FP32 logits, not DistributedLogprob's
    # eager passes (dtensor_policy_worker.py at v0.3.0): not priced
    scenario["rl"]["policy"]["fp32_logprobs"] = False
    # each packed training row padded to train_mb_tokens, 4,096 (dtensor_policy_worker.py train at
    # v0.3.0: pack_sequences min_seq_len; get_logprobs without one): docs/evidence/rl.md section 44
    scenario["rl"]["policy"]["pad_rows_to_capacity"] = "training"
    return scenario


def _llama8b(name: str, generated: int, measured: float) -> RLFigure:
    return RLFigure(
        name,
        "llama-3.1-8b",
        H100,
        8,
        (1, 1, 1, 2),
        2048,
        generated,
        4096,
        1,
        measured,
        recompute="none",
    )


def _llama8b_dtensor(name: str, generated: int, measured: float) -> RLFigure:
    return RLFigure(
        name,
        "llama-3.1-8b",
        H100,
        8,
        (1, 1, 1, 1),
        2048,
        generated,
        4096,
        1,
        measured,
        recompute="none",
    )


# (figure, "megatron" or "dtensor", measured seconds of each timer)
LOGS = (
    (
        _llama8b("#959 rerun Llama 3.1 8B Megatron, 8 H100", 811, 116),
        "megatron",
        {"rollout": 56.0, "log_probs": 18.0, "training": 27.0, "refit": 8.0},
    ),
    (
        RLFigure(
            "#959 rerun Llama 3.1 70B Megatron, 64 H100",
            "llama-3.1-70b",
            H100,
            64,
            (4, 1, 1, 4),
            2048,
            396,
            4096,
            4,
            178,
            recompute="none",
        ),
        "megatron",
        {"rollout": 87.0, "log_probs": 20.0, "training": 31.0, "refit": 26.0},
    ),
    (
        _llama8b_dtensor("v0.3 blog Llama 3.1 8B DTensor, 8 H100", 777, 122),
        "dtensor",
        {"rollout": 57.0, "log_probs": 19.0, "training": 38.0, "refit": 4.0},
    ),
    (
        _llama8b_dtensor("#959 rerun Llama 3.1 8B DTensor, 8 H100", 802, 129),
        "dtensor",
        {"rollout": 55.0, "log_probs": 19.0, "training": 40.0, "refit": 6.0},
    ),
)
