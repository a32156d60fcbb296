"""TRL's releases (huggingface/trl ``GRPOTrainer`` with ``use_vllm``): the ``rl.*`` knobs each
sets by default, read at its git tag (``trl/trainer/grpo_config.py``,
``trl/trainer/grpo_trainer.py``, ``trl/scripts/vllm_serve.py``; the table's types and rules:
core/registry/rl_framework_releases.py).

Before v1.0.0 TRL's vLLM runs on GPUs of its own: ``vllm_device`` "auto" (the first GPU after
the training processes) at v0.14.0-v0.17.0, ``vllm_mode`` "server" (``trl vllm-serve``, TP 1 by
default) at v0.18.0-v0.29.x; the training ranks wait while vLLM generates and vLLM waits while
they train: the pools take turns. From v1.0.0 ``vllm_mode`` "colocate" (vLLM in each training
process, on its GPU).
Before v0.17.0 ``_prepare_inputs`` generates once per gradient-accumulation micro-step (the
rounds derived from the batch: core/pipeline/rl_micro_rounds.py); PR #3283 (first in v0.17.0)
buffers one generation for the optimizer step.

Not set (no field, or the user's): ``use_vllm`` (default False: transformers' ``generate``, which
no rollout engine here prices; the table is TRL's vLLM path); the vLLM release (the extras pin
ranges, ``vllm>=0.8.3``, except v0.24.0-v0.25.x's ``vllm==0.10.2``); DeepSpeed's ZeRO stage (the
user's accelerate config: ``examples/accelerate_configs/deepspeed_zero{1,2,3}.yaml``, no
default); ``sync_ref_model`` (False at every tag: the reference never follows the policy).
"""

from __future__ import annotations

from dataclasses import replace

from .rl_framework_releases import RLDefault, RLRelease, changed

_CFG = "trl/trainer/grpo_config.py"
_TRAINER = "trl/trainer/grpo_trainer.py"


def _layout(path: str, value: object, source: str) -> RLDefault:
    """A knob of the run's layout: named in TRL's report only (RLDefault ``own_only``)."""
    return RLDefault(path, value, source, own_only=True)


# v0.14.0 (2025-01-29); v0.15.0 and v0.16.0 change none of these knobs (v0.16.0 moves vLLM to
# `trl vllm-serve`: vllm_serve.py gpu_memory_utilization 0.9, tensor_parallel_size 1,
# enforce_eager not set), so they take this row
_TRL_014 = RLRelease(
    "0.14.0",
    "2025-01",
    (
        _layout(
            "placement",
            "split",
            f"{_TRAINER}: LLM(..., device=vllm_device) with vllm_device 'auto' = "
            "cuda:{num_processes}, a GPU beside the training processes (v0.14.0)",
        ),
        _layout(
            "overlap",
            False,
            f"{_TRAINER} _prepare_inputs: the ranks wait on broadcast_object_list while the main "
            "process generates, then score and train (v0.14.0)",
        ),
        _layout("rollout.gpus", 1, f"{_CFG} vllm_device: one device (v0.14.0)"),
        _layout("rollout.samples_per_prompt", 8, f"{_CFG} num_generations 8 (v0.14.0)"),
        _layout(
            "reference.enabled",
            True,
            f"{_CFG} beta 0.04; {_TRAINER}: a reference copy (create_reference_model) (v0.14.0)",
        ),
        RLDefault("rollout.memory_fraction", 0.9, f"{_CFG} vllm_gpu_memory_utilization 0.9 (v0.14.0)"),
        RLDefault("rollout.cuda_graphs", True, f"{_TRAINER}: LLM(...) without enforce_eager (v0.14.0)"),
        RLDefault(
            "policy.old_logprobs",
            False,
            f"{_TRAINER} compute_loss: the policy's own log-probs detached, no old-policy forward (v0.14.0)",
        ),
        RLDefault(
            "policy.sequence_packing",
            False,
            f"{_TRAINER}: _prepare_inputs pads a rank's completions to its longest "
            "(trl.trainer.utils pad) (v0.14.0)",
        ),
        RLDefault(
            "policy.micro_batch_unit",
            "response",
            f"{_CFG} per_device_train_batch_size: completions a micro-step (v0.14.0)",
        ),
        RLDefault(
            "policy.balanced_micro_batches",
            False,
            f"{_CFG} per_device_train_batch_size completions a rank a micro-step, no token-budget "
            "micro-batches (the same through v1.9.0) (v0.14.0)",
        ),
        RLDefault(
            "offload_states",
            False,
            f"{_TRAINER}: the training states stay on their GPUs (no offload around generation) (v0.14.0)",
        ),
        RLDefault("reference.offload", False, f"{_TRAINER}: the reference kept on the GPU (v0.14.0)"),
    ),
    rounds_per_micro_step=True,
)
# v0.17.0 (2025-04-24): one generation an optimizer step (PR #3283, 294f35bf3: generate_every =
# gradient_accumulation_steps x num_iterations, the completions buffered); v0.18.0's
# steps_per_generation (default gradient_accumulation_steps) and vllm_mode "server" keep it
_TRL_017 = replace(changed(_TRL_014, "0.17.0", "2025-04"), rounds_per_micro_step=False)
# v0.19.0 (2025-06-20): beta 0.0 by default, so no reference model (ref_model = None)
_TRL_019 = changed(
    _TRL_017,
    "0.19.0",
    "2025-06",
    _layout(
        "reference.enabled", False, f"{_CFG} beta 0.0; {_TRAINER}: beta == 0.0 -> ref_model None (v0.19.0)"
    ),
)
# v0.23.0 (2025-09-09): vllm_importance_sampling_correction True: old log-probs computed every
# generation with vLLM (the same through v0.29.0)
_TRL_023 = changed(
    _TRL_019,
    "0.23.0",
    "2025-09",
    RLDefault(
        "policy.old_logprobs",
        True,
        f"{_CFG} vllm_importance_sampling_correction True; {_TRAINER} _generate_and_score_completions: "
        "old_per_token_logps when use_vllm and the correction is on (v0.23.0)",
    ),
)
# v1.0.0 (2026-03-30): vllm_mode "colocate" by default (PR #5255, c0eabc40c): vLLM inside each
# training process on its GPU at vllm_gpu_memory_utilization 0.3 (the same through v1.9.0).
# vllm_enable_sleep_mode stays False, so the engine keeps its weights and KV pool through
# training (rl.rollout.sleep_level 0); set, trl/generation/vllm_generation.py sleeps it at
# level 2 (llm.sleep(level=2) after each generation, wake_up(tags=["weights"]) for the sync)
_TRL_100 = changed(
    _TRL_023,
    "1.0.0",
    "2026-03",
    _layout("placement", "colocated", f"{_CFG} vllm_mode 'colocate' (v1.0.0)"),
    _layout("overlap", None, f"{_CFG} vllm_mode 'colocate': one pool, nothing to overlap (v1.0.0)"),
    _layout("rollout.gpus", 0, f"{_CFG} vllm_mode 'colocate': the training GPUs (v1.0.0)"),
    RLDefault("rollout.memory_fraction", 0.3, f"{_CFG} vllm_gpu_memory_utilization 0.3 (colocate) (v1.0.0)"),
    RLDefault(
        "rollout.sleep_level",
        0,
        f"{_CFG} vllm_enable_sleep_mode False: the engine keeps its weights and KV pool through "
        "training (True: trl/generation/vllm_generation.py llm.sleep(level=2), rl.rollout.sleep_level 2) "
        "(v1.0.0)",
    ),
)
TRL: tuple[RLRelease, ...] = (_TRL_014, _TRL_017, _TRL_019, _TRL_023, _TRL_100)
