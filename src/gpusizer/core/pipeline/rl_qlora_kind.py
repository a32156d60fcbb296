"""``rl.policy.kind: "qlora"``: the stacks' own name of a LoRA policy on a 4-bit base, read as
``"lora"`` beside a bitsandbytes 4-bit ``precision.weights``.

Unsloth's GRPO notebooks load the policy with ``FastLanguageModel.from_pretrained(...,
load_in_4bit=True, fast_inference=True)`` and train a LoRA adapter on it (unslothai/notebooks
``nb/Llama3.1_(8B)-GRPO.ipynb``; unsloth-zoo ``vllm_utils.py`` ``load_vllm``:
``use_bitsandbytes = load_in_4bit``), and TRL's GRPOTrainer takes a PEFT model on a
``BitsAndBytesConfig(load_in_4bit=True)`` base: QLoRA, as the training kinds name it
(``workload.kind: "qlora"``). The estimate already prices that policy as ``"lora"`` with the
base at ``precision.weights`` (NF4 in 4.127 bits a weight with its scales,
core/registry/dtypes.py; the rollout engine reads it through vLLM's bitsandbytes loader,
core/pipeline/rl_one_copy.py), so ``"qlora"`` is read as that, and the echo states ``"lora"``.
Without a 4-bit base there is no QLoRA to read: refused naming the field and the weights to state.
"""

from __future__ import annotations

from typing import Any

from ..errors import ScenarioError, excerpt

# bitsandbytes' 4-bit storage types (Linear4bit quant_type nf4 / fp4, with or without
# double quantisation): what load_in_4bit loads
BNB_4BIT = ("nf4", "nf4_single", "fp4")


def read_qlora_policy(data: dict[str, Any]) -> None:
    """``rl.policy.kind`` ``"qlora"`` in ``data`` (a scenario dict, copied where changed) as
    ``"lora"`` when ``precision.weights`` is a bitsandbytes 4-bit type; ScenarioError else."""
    rl = data.get("rl")
    if not isinstance(rl, dict):
        return
    policy = rl.get("policy")
    if not isinstance(policy, dict) or policy.get("kind") != "qlora":
        return
    precision = data.get("precision")
    weights = precision.get("weights") if isinstance(precision, dict) else None
    if weights not in BNB_4BIT:
        got = "null" if weights is None else excerpt(weights)
        raise ScenarioError(
            "rl.policy.kind",
            "'qlora' is a LoRA policy on a bitsandbytes 4-bit base (Unsloth load_in_4bit, "
            "BitsAndBytesConfig): state precision.weights 'nf4', 'nf4_single' or 'fp4' beside it, "
            f"or rl.policy.kind 'lora'; got precision.weights {got}",
        )
    data["rl"] = {**rl, "policy": {**policy, "kind": "lora"}}
