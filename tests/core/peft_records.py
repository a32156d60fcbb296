"""Scenarios of the measured training records: PEFT / QLoRA (scripts/measure_peft.py) and
techniques (scripts/measure_techniques.py), shared by the calibration replays and
scripts/compare_training.py."""

from __future__ import annotations

from typing import Any

from gpusizer import import_hf_config

NO_OVERHEAD = {"cuda_context_bytes": 0, "workspace_bytes": 0, "allocator_fraction": 0.0}
# PEFT module names -> scenario targets (a fused module is named by its parts)
TARGET = {
    "q_proj": ("q",),
    "k_proj": ("k",),
    "v_proj": ("v",),
    "o_proj": ("o",),
    "gate_proj": ("gate",),
    "up_proj": ("up",),
    "down_proj": ("down",),
    "qkv_proj": ("q", "k", "v"),
    "gate_up_proj": ("gate", "up"),
    "lm_head": ("lm_head",),
}
ADAPTER_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}


def peft_scenario(rec: dict[str, Any]) -> dict[str, Any]:
    """One GPU, bf16 base and compute, fp32 adapters, gradients and AdamW states (PEFT's
    ``autocast_adapter_dtype=True``); the record's dropout, ``prepare_model_for_kbit_training``
    and double quantisation (bitsandbytes without it: ``nf4_single``)."""
    i = rec["inputs"]
    targets = [t for m in i["lora"]["target_modules"] for t in TARGET[m]]
    weights = "nf4_single" if i.get("double_quant") is False else "bf16"
    return {
        "model": import_hf_config(i["config"]),
        "workload": {
            "kind": i["workload"],
            "sequence_length": i["seq_len"],
            "micro_batch_size": i["micro_batch"],
            "lora_rank": i["lora"]["r"],
            "lora_targets": targets,
            "lora_dropout": i["lora"]["lora_dropout"],
            "kbit_prepare": i["kbit_prepare"],
        },
        "precision": {
            "weights": weights,
            "activations": "bf16",
            "gradients": "fp32",
            "master_weights": None,
            "optimizer": "adamw",
            "optimizer_states": "fp32",
            "adapters": "fp32",
        },
        "parallelism": {
            "recompute": "full" if i["gradient_checkpointing"] else "none",
            "attention": "eager" if i["attn_implementation"] == "eager" else "flash",
        },
        "framework": "huggingface",
        "overhead": NO_OVERHEAD,
    }


def cpu_dropout_excess(rec: dict[str, Any]) -> float:
    """Bytes by which the CPU's dropout exceeds CUDA's: on a CPU each LoRA dropout keeps its
    scaled noise in the adapter dtype (ATen ``_dropout_impl``), on CUDA ``native_dropout``
    keeps a 1-byte mask, which is what the estimator counts."""
    noise = rec["measured"]["activation_breakdown"].get("lora_dropout_noise", 0)
    a = ADAPTER_BYTES[rec["inputs"]["lora"]["adapter_dtype"]]
    return noise * (1 - 1 / a)


# measured loss -> (workload.loss, compile_loss): LinearCrossEntropyLoss saves what the chunked
# loss saves (its forward transient is smaller: ``chunked`` is its upper bound)
LOSS = {
    "full": ("full", False),
    "chunked": ("chunked", False),
    "chunked_compiled": ("chunked", True),
    "linear_ce": ("linear_chunked", False),
    "linear_ce_compiled": ("linear_chunked", True),
    "fused": ("fused", False),
}


def technique_scenario(rec: dict[str, Any]) -> dict[str, Any]:
    """Full fine-tuning in bf16 with bf16 AdamW states and no fp32 master (torchtune's
    ``dtype: bf16``), with the record's loss, optimizer and optimizer-in-backward."""
    i = rec["inputs"]
    name = i["optimizer"]
    opt = ("paged_adamw_8bit" if "paged" in name else "adamw_8bit") if "8bit" in name else "adamw"
    opt = "adamw_forloop" if name == "adamw_forloop" else opt  # torch.optim.AdamW(foreach=False)
    loss, compiled = LOSS[i["loss"]]
    return {
        "model": import_hf_config(i["config"]),
        "workload": {
            "kind": "full_finetune",
            "sequence_length": i["seq_len"],
            "micro_batch_size": i["micro_batch"],
            "loss": loss,
            "compile_loss": compiled,
            "loss_chunks": i["loss_chunks"] if loss == "chunked" else None,
        },
        "precision": {
            "weights": "bf16",
            "activations": "bf16",
            "gradients": "bf16",
            "master_weights": None,
            "optimizer": opt,
            "optimizer_states": "bf16",
        },
        "parallelism": {
            "recompute": "full" if i["gradient_checkpointing"] else "none",
            "attention": "eager" if i["attn_implementation"] == "eager" else "flash",
            "optimizer_in_backward": "in_backward" in name,
        },
        "framework": "huggingface",
        "overhead": NO_OVERHEAD,
    }
