"""The rollout engine's weight dtype (``rl.rollout.weights``; contract: docs/scenario-format.md
"RL post-training"): what the engine holds is what the policy syncs into it, not the format the
model's checkpoint is released in.

A serving scenario of a model whose checkpoint is stored quantised (DeepSeek-V3's FP8 128 x 128
blocks, gpt-oss's MXFP4 experts) follows that checkpoint (core/model/checkpoint.py). The RL
frameworks do not: the policy trains in 16-bit, and its engine is built in that dtype, each
refit loading the policy's 16-bit tensors:

- verl: vLLM is started with ``dtype`` = ``rollout.dtype`` (``bfloat16``, "Align with actor
  model's FSDP/Megatron type", volcengine/verl@v0.7.0 verl/trainer/config/rollout/rollout.yaml:29;
  verl/workers/rollout/vllm_rollout/vllm_async_server.py:295) and ``quantization`` null unless
  ``rollout.quantization: fp8`` (rollout.yaml:332, vllm_async_server.py:313); its DeepSeek-V3
  recipes say to "remove the `quantization_config` in the DeepSeek-V3's `config.json`"
  (examples/grpo_trainer/run_deepseek671b_math_megatron_96gb.sh:12).
- NeMo RL: vLLM's ``dtype`` is ``vllm_cfg.precision`` (nemo_rl/models/generation/vllm/
  vllm_worker.py:224 and :446 at NVIDIA-NeMo/RL@v0.7.0), ``${policy.precision}`` (``bfloat16``)
  in every example config (examples/configs/grpo_math_1B.yaml:112, :339), ``fp8`` only where a
  recipe states it; its DeepSeek-V3 guide first makes a BF16 checkpoint
  (RL/docs/guides/deepseek.md "Create BF16 Hugging Face checkpoint", ``fp8_cast_bf16.py``,
  ``del(.quantization_config)``).
- OpenRLHF: its vLLM engines are created with ``"dtype": "bfloat16"`` and no quantisation
  (OpenRLHF/OpenRLHF@v0.11.0 openrlhf/trainer/ray/vllm_engine.py:275).
- slime: FP8 rollout is opt-in, by pointing SGLang's ``--hf-checkpoint`` at an FP8 checkpoint
  (THUDM/slime@v0.3.1 slime/docs/en/examples/qwen3-30B-A3B.md "BF16 Training with FP8 Inference";
  the BF16 one otherwise): a stated ``rl.rollout.weights``.

So a null ``rl.rollout.weights`` is the policy's 16-bit dtype, 2 bytes a parameter whatever the
checkpoint; a stated one wins. Unsloth's one copy (``rl.rollout.shared_weights``) reads the
policy's own base at its storage dtype (core/pipeline/rl_one_copy.py).
"""

from __future__ import annotations

from ..model.rl_spec import RLSpec
from ..model.specs import Scenario

SIXTEEN_BIT = ("bf16", "fp16")
SYNCED_DEFAULT = "bf16"  # verl rollout.dtype, OpenRLHF's vLLM dtype, NeMo RL policy.precision


def synced_dtype(s: Scenario) -> str:
    """The 16-bit dtype the policy computes in and syncs (NeMo RL: ``policy.precision``): its
    FSDP ``param_dtype``, else its weights, else its activations where one is 16-bit; bf16
    otherwise (fp32 or quantised weights under bf16 autocast, verl's ``rollout.dtype``)."""
    p = s.precision
    return next((d for d in (p.param_dtype, p.weights, p.activations) if d in SIXTEEN_BIT), SYNCED_DEFAULT)


def engine_weights(s: Scenario, rl: RLSpec) -> str:
    """The rollout engine's ``precision.weights``: as stated, the policy's base at its storage
    with one copy, else the 16-bit weights the policy syncs (module docstring)."""
    ro = rl.rollout
    if ro.weights is not None:  # the engine's own dtype (NeMo RL FP8 generation)
        return ro.weights
    if ro.shared_weights:  # the policy's own base at its storage (rl_one_copy.py)
        return s.precision.weights
    return synced_dtype(s)
