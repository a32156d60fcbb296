"""Build scenarios from the measured records of shared/calibration/hf-measured.json."""

from __future__ import annotations

from typing import Any

DTYPE = {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16"}


def llama_block(cfg: dict[str, Any]) -> dict[str, Any]:
    """A minimal Llama config.json -> model block (the io importer does the general case)."""
    return {
        "name": "calibration",
        "family": "llama",
        "layers": cfg["num_hidden_layers"],
        "hidden_size": cfg["hidden_size"],
        "attention_heads": cfg["num_attention_heads"],
        "kv_heads": cfg.get("num_key_value_heads", cfg["num_attention_heads"]),
        "head_dim": cfg.get("head_dim"),
        "ffn_hidden_size": cfg["intermediate_size"],
        "vocab_size": cfg["vocab_size"],
        "tied_embeddings": cfg.get("tie_word_embeddings", False),
    }


def training_scenario(rec: dict[str, Any], model: dict[str, Any] | None = None) -> dict[str, Any]:
    """The scenario a measured training record describes (HF Trainer-like single GPU); the
    model block defaults to the record's Llama config."""
    i = rec["inputs"]
    param, compute = DTYPE[i["param_dtype"]], DTYPE[i["compute_dtype"]]
    return {
        "model": model or llama_block(i["config"]),
        "workload": {
            "kind": "pretraining",
            "sequence_length": i["seq_len"],
            "micro_batch_size": i["micro_batch"],
        },
        "precision": {
            "weights": param,
            "activations": compute,
            "gradients": param,
            "master_weights": None,
            "optimizer": "adamw",
            "optimizer_states": param,
        },
        "parallelism": {
            "recompute": "full" if i["gradient_checkpointing"] else "none",
            "attention": "eager" if i["attn_implementation"] == "eager" else "flash",
        },
        "framework": "huggingface",
        "overhead": {"cuda_context_bytes": 0, "workspace_bytes": 0, "allocator_fraction": 0.0},
    }
