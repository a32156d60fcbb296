"""Scenarios of the measured PEFT / QLoRA records (scripts/measure_peft.py), shared by the
calibration replays."""

from __future__ import annotations

from typing import Any

from gpusizer import import_hf_config

NO_OVERHEAD = {"cuda_context_bytes": 0, "workspace_bytes": 0, "allocator_fraction": 0.0}
# PEFT module names -> scenario targets (a fused module is named by its parts)
TARGET = {"q_proj": ("q",), "k_proj": ("k",), "v_proj": ("v",), "o_proj": ("o",),
          "gate_proj": ("gate",), "up_proj": ("up",), "down_proj": ("down",),
          "qkv_proj": ("q", "k", "v"), "gate_up_proj": ("gate", "up"), "lm_head": ("lm_head",)}
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
        "workload": {"kind": i["workload"], "sequence_length": i["seq_len"],
                     "micro_batch_size": i["micro_batch"], "lora_rank": i["lora"]["r"],
                     "lora_targets": targets, "lora_dropout": i["lora"]["lora_dropout"],
                     "kbit_prepare": i["kbit_prepare"]},
        "precision": {"weights": weights, "activations": "bf16", "gradients": "fp32",
                      "master_weights": None, "optimizer": "adamw", "optimizer_states": "fp32",
                      "adapters": "fp32"},
        "parallelism": {"recompute": "full" if i["gradient_checkpointing"] else "none",
                        "attention": "eager" if i["attn_implementation"] == "eager" else "flash"},
        "framework": "huggingface", "overhead": NO_OVERHEAD,
    }


def cpu_dropout_excess(rec: dict[str, Any]) -> float:
    """Bytes by which the CPU's dropout exceeds CUDA's: on a CPU each LoRA dropout keeps its
    scaled noise in the adapter dtype (ATen ``_dropout_impl``), on CUDA ``native_dropout``
    keeps a 1-byte mask, which is what the estimator counts."""
    noise = rec["measured"]["activation_breakdown"].get("lora_dropout_noise", 0)
    a = ADAPTER_BYTES[rec["inputs"]["lora"]["adapter_dtype"]]
    return noise * (1 - 1 / a)
