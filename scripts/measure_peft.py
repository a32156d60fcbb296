#!/usr/bin/env python3
"""Measure LoRA and QLoRA training steps of real PEFT + bitsandbytes models on a CPU.

The method of ``shared/calibration/peft-measured.json`` (its README.md, section
``peft-measured.json``), on the shared harness of ``measure_hf.py`` (same saved-tensor hooks,
same live-storage tracker, same record blocks):

* the model is ``AutoModelForCausalLM.from_config`` (seed 0) cast to bf16; QLoRA saves it
  locally and reloads it with ``BitsAndBytesConfig(load_in_4bit, nf4, double quant, compute
  bf16)``, optionally followed by ``prepare_model_for_kbit_training``;
* gradient checkpointing is ``gradient_checkpointing_enable(use_reentrant=False)`` before
  ``get_peft_model`` (through ``prepare_model_for_kbit_training`` when that runs);
* ``get_peft_model(LoraConfig(r, lora_alpha=2r, lora_dropout, target_modules, bias="none"))``,
  PEFT's default ``autocast_adapter_dtype=True`` keeps the adapters in fp32;
* ``torch.optim.AdamW(trainable, foreach=True, weight_decay=0)``; ``labels=input_ids``.

    python scripts/measure_peft.py --reproduce ../shared/calibration/peft-measured.json
    python scripts/measure_peft.py --suite --out tests/core/data/peft-extra-measured.json
    python scripts/measure_peft.py --suite --only qwen3-h512 --list

Needs torch 2.13.0 (CPU), transformers 5.24.0, peft 0.21.2, bitsandbytes 0.50.2 (the
``.venv-measure`` environment, see scripts/README.md).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))  # measure_hf: a sibling script
import bitsandbytes
import measure_hf as hf
import peft
from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training
from transformers import AutoModelForCausalLM, BitsAndBytesConfig

# module names of the targets, per naming scheme (Phi-3 fuses q/k/v and gate/up)
TARGETS: dict[str, dict[str, list[str]]] = {
    "llama": {
        "qv": ["q_proj", "v_proj"],
        "attn": ["q_proj", "k_proj", "v_proj", "o_proj"],
        "all": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
    },
    "phi3": {
        "attn": ["qkv_proj", "o_proj"],
        "all": ["qkv_proj", "o_proj", "gate_up_proj", "down_proj"],
    },
}
OPTIMIZER = "torch.optim.AdamW(trainable params, foreach=True, weight_decay=0)"
LOSS = "labels=input_ids inside the model; fp32 log_softmax"
CKPT_IMPL = (
    "gradient_checkpointing_enable(use_reentrant=False) before get_peft_model; "
    "transformers 5.24 then also calls enable_input_require_grads()"
)
# activation_by_module_type -> activation_breakdown (first match wins)
BREAKDOWN = [
    (r"^$", "loss(log_softmax+labels)"),
    (r"\.lora_dropout\.[^.]+$", "lora_dropout_noise"),
    (r"\.lora_A\.[^.]+$", "lora_A_input(cast/dropout out)"),
    (r"\.lora_B\.[^.]+$", "lora_B_input(rank r)"),
    (r"^model\.layers\.\*$", "ckpt_layer_inputs"),
    (r"\.\*\.[a-z_]*layernorm$", "layer_norms"),
    (r"\.mlp(\.|$)", "mlp(gate,act,up)"),
    (r"\.self_attn(\.|$)", "attention(q,k,v,out,lse,cos/sin)"),
    (r"^model\.norm$", "final_norm"),
    (r"^model\.embed_tokens$", "embedding"),
    (r"^lm_head", "lm_head"),
]


def _scheme(model_type: str) -> str:
    return "phi3" if model_type == "phi3" else "llama"


def target_modules(model_type: str, key: str) -> list[str]:
    """Module names for a targets key: ``qv``, ``attn``, ``all``, each optionally ``+lm_head``."""
    base, _, extra = key.partition("+")
    names = list(TARGETS[_scheme(model_type)][base])
    return [*names, "lm_head"] if extra == "lm_head" else names


# --------------------------------------------------------------------------------------------
# model construction


def _bnb_config(double_quant: bool) -> BitsAndBytesConfig:
    return BitsAndBytesConfig(
        load_in_4bit=True,
        bnb_4bit_quant_type="nf4",
        bnb_4bit_use_double_quant=double_quant,
        bnb_4bit_compute_dtype=torch.bfloat16,
    )


def base_model(
    cfg: dict[str, Any], attn: str, qlora: bool, double_quant: bool, scratch: str, label: str, seed: int = 0
):
    """The bf16 model from config (seed ``seed``); for QLoRA saved under ``scratch/label`` and
    reloaded in NF4."""
    model = hf.build(cfg, attn, torch.bfloat16, seed)
    if not qlora:
        return model
    path = f"{scratch}/{label}"
    model.save_pretrained(path)
    del model
    return AutoModelForCausalLM.from_pretrained(
        path, quantization_config=_bnb_config(double_quant), dtype=torch.bfloat16, attn_implementation=attn
    )


def peft_model(model, r: int, dropout: float, targets: list[str], ckpt: bool, kbit_prepare: bool):
    """Checkpointing (or ``prepare_model_for_kbit_training``) then ``get_peft_model``."""
    model.config.use_cache = False
    kw = {"gradient_checkpointing_kwargs": {"use_reentrant": False}}
    if kbit_prepare:
        model = prepare_model_for_kbit_training(model, use_gradient_checkpointing=ckpt, **kw)
    elif ckpt:
        model.gradient_checkpointing_enable(**kw)
    cfg = LoraConfig(r=r, lora_alpha=2 * r, lora_dropout=dropout, target_modules=targets, bias="none")
    pm = get_peft_model(model, cfg)
    pm.train()
    return pm


def quant_state_tensors(model) -> list[torch.Tensor]:
    """The tensors of every bitsandbytes ``quant_state``: absmax (uint8 when nested), the NF4
    code table (16 fp32), and with double quantisation the offset, the nested absmax (fp32 per
    256 blocks) and the nested code (256 fp32)."""
    out: list[torch.Tensor] = []
    for p in model.parameters():
        qs = getattr(p, "quant_state", None)
        if qs is None:
            continue
        for st in (qs, qs.state2):
            if st is None:
                continue
            out += [
                t for t in (st.absmax, st.code, getattr(st, "offset", None)) if isinstance(t, torch.Tensor)
            ]
    return out


# --------------------------------------------------------------------------------------------
# the record


def _weights(model, qstate: list[torch.Tensor]) -> dict[str, Any]:
    train = [p for p in model.parameters() if p.requires_grad]
    frozen = [p for p in model.parameters() if not p.requires_grad]
    by_td: dict[str, int] = defaultdict(int)
    for p in frozen:
        by_td[f"{type(p).__name__}:{str(p.dtype).split('.')[-1]}"] += hf._tbytes(p)
    tb, fb = sum(hf._tbytes(p) for p in train), sum(hf._tbytes(p) for p in frozen)
    qb = sum(hf._tbytes(t) for t in qstate)
    return {
        "trainable_params": sum(p.numel() for p in train),
        "trainable_param_bytes": tb,
        "n_trainable_tensors": len(train),
        "frozen_param_bytes": fb,
        "frozen_param_bytes_by_type_dtype": dict(by_td),
        "quant_state_bytes": qb,
        "weight_bytes": tb + fb + qb,
        "buffer_bytes": sum(hf._tbytes(b) for b in model.buffers()),
    }


def breakdown(by_module_type: dict[str, int]) -> dict[str, int]:
    """Saved bytes by mechanism (``BREAKDOWN``), in the order of the sorted module types."""
    out: dict[str, int] = defaultdict(int)
    for mod, nb in by_module_type.items():
        cat = next((c for pat, c in BREAKDOWN if re.search(pat, mod)), f"other:{mod}")
        out[cat] += nb
    return dict(out)


LIVE_KEYS = (
    "baseline_bytes",
    "baseline_breakdown",
    "forward",
    "backward",
    "optimizer_step",
    "forward_peak_bytes_with_logits_still_referenced",
    "activations_retained_after_forward_bytes",
    "end_bytes",
    "peak_bytes",
    "peak_phase",
)


def _measure(pm, ids: torch.Tensor, qstate: list[torch.Tensor]) -> tuple[dict[str, Any], bool]:
    """Both iterations; returns the ``measured`` block and whether the embedding output
    required grad."""
    inner = pm.get_base_model()
    names = {id(m): n for n, m in inner.named_modules()}
    params = list(pm.parameters())
    pkeys, bkeys = {hf._skey(p) for p in params}, {hf._skey(b) for b in pm.buffers()}
    trainable = [p for p in params if p.requires_grad]
    opt = torch.optim.AdamW(trainable, lr=1e-4, foreach=True, weight_decay=0.0)
    emb_rg: list[bool] = []
    hook = inner.get_input_embeddings().register_forward_hook(
        lambda _m, _a, out: emb_rg.append(bool(out.requires_grad))
    )
    weights = _weights(pm, qstate)
    it1 = hf.saved_tensor_step(pm, opt, ids, None, names, pkeys)
    hook.remove()
    frozen_with_grad = sum(1 for p in params if not p.requires_grad and p.grad is not None)
    sfb = hf.summarise_saved(it1["saved"], pkeys, bkeys, it1["copies"])
    live, t2 = hf.live_step(pm, opt, ids, None, sfb["activation_bytes"], tuple(qstate))
    per_layer = sfb["activation_per_layer"]
    logits = {k: it1["logits"][k] for k in ("bytes", "dtype", "fp32_bytes")}
    measured = {
        **weights,
        "grad_bytes": it1["grad_bytes"],
        "grad_dtypes": it1["grad_dtypes"],
        "frozen_params_with_grad": frozen_with_grad,
        "optimizer_state_bytes": it1["opt_bytes"],
        "optimizer_state_bytes_by_key": it1["opt_by_key"],
        "saved_for_backward": sfb,
        "activation_bytes": sfb["activation_bytes"],
        "activation_breakdown": breakdown(sfb["activation_by_module_type"]),
        "activation_layer0": per_layer[0] if per_layer else 0,
        "activation_last_layer": per_layer[-1] if per_layer else 0,
        "logits": logits,
        "live_bytes_steady_state_iteration": {k: live[k] for k in LIVE_KEYS},
        "seconds": {"iteration1": round(it1["seconds"], 2), "iteration2_tracked": round(t2, 2)},
    }
    return measured, bool(emb_rg and emb_rg[0])


def _base_weights(qlora: bool, double_quant: bool, kbit_prepare: bool) -> str:
    if not qlora:
        return "bfloat16"
    dq = ", double quant" if double_quant else ""
    rest = "fp32 (prepare_model_for_kbit_training)" if kbit_prepare else "bf16"
    return f"nf4 (bitsandbytes Linear4bit{dq}, blocksize 64), other params {rest}"


def _workload_tag(qlora: bool, double_quant: bool, kbit_prepare: bool) -> str:
    if not qlora:
        return "lora-bf16"
    return "qlora-nf4" + ("" if double_quant else "-nodq") + ("-kbitprep" if kbit_prepare else "")


def measure_peft(
    cfg: dict[str, Any],
    label: str,
    batch: int,
    seq: int,
    r: int,
    targets_key: str,
    dropout: float,
    attn: str,
    ckpt: bool,
    qlora: bool,
    kbit_prepare: bool = False,
    double_quant: bool = True,
    scratch: str = "./scratch/ckpt",
    seed: int = 0,
) -> dict[str, Any]:
    """One LoRA / QLoRA record in the format of peft-measured.json."""
    targets = target_modules(cfg["model_type"], targets_key)
    model = base_model(cfg, attn, qlora, double_quant, scratch, label, seed)
    pm = peft_model(model, r, dropout, targets, ckpt, kbit_prepare)
    inner = pm.get_base_model()
    ids = hf.token_ids(inner.config.get_text_config().vocab_size, batch, seq, seed)
    measured, emb_rg = _measure(pm, ids, quant_state_tensors(pm))
    n_lora = sum(1 for m in pm.modules() if hasattr(m, "lora_A") and len(m.lora_A))
    tag = _workload_tag(qlora, double_quant, kbit_prepare)
    inputs = {
        "model": label,
        "model_type": cfg["model_type"],
        "config": cfg,
        "hf_config": json.loads(json.dumps(inner.config.to_dict(), default=str)),
        "micro_batch": batch,
        "seq_len": seq,
        "tokens": batch * seq,
        "workload": "qlora" if qlora else "lora",
        "base_weights": _base_weights(qlora, double_quant, kbit_prepare),
        "compute_dtype": "bfloat16",
        "lora": {
            "r": r,
            "lora_alpha": 2 * r,
            "lora_dropout": dropout,
            "target_modules": targets,
            "targets_key": targets_key,
            "bias": "none",
            "autocast_adapter_dtype": True,
            "adapter_dtype": "float32",
            "n_lora_modules": n_lora,
        },
        "kbit_prepare": kbit_prepare,
        **({"double_quant": double_quant} if qlora else {}),
        "attn_implementation": attn,
        "gradient_checkpointing": ckpt,
        "gradient_checkpointing_impl": CKPT_IMPL if ckpt else None,
        "embedding_output_requires_grad": emb_rg,
        "optimizer": OPTIMIZER,
        "loss": LOSS,
        "device": "cpu",
    }
    rid = f"{label}|b{batch}|s{seq}|{tag}|r{r}|{targets_key}|drop{dropout}|{attn}|ckpt{int(ckpt)}"
    return {"id": rid, "inputs": inputs, "measured": measured}


def remeasure(rec: dict[str, Any], scratch: str) -> dict[str, Any]:
    """Measure again from a record's inputs."""
    i = rec["inputs"]
    return measure_peft(
        i["config"],
        i["model"],
        i["micro_batch"],
        i["seq_len"],
        i["lora"]["r"],
        i["lora"]["targets_key"],
        i["lora"]["lora_dropout"],
        i["attn_implementation"],
        i["gradient_checkpointing"],
        i["workload"] == "qlora",
        i["kbit_prepare"],
        i.get("double_quant", True),
        scratch,
    )


# --------------------------------------------------------------------------------------------
# reproduction


def flat(x: Any, prefix: str = "") -> dict[str, Any]:
    """Nested dicts -> {"a.b.c": leaf}."""
    if not isinstance(x, dict):
        return {prefix: x}
    out: dict[str, Any] = {}
    for k, v in x.items():
        out.update(flat(v, f"{prefix}.{k}" if prefix else str(k)))
    return out


def differences(old: dict[str, Any], new: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """Fields whose values differ (timings left out)."""
    a, b = flat(old), flat(new)
    return [
        (k, a.get(k), b.get(k))
        for k in sorted(set(a) | set(b))
        if a.get(k) != b.get(k) and not k.startswith("seconds")
    ]


def reproduce(path: Path, scratch: str) -> int:
    """Re-measure every record of a peft-measured.json file; print each differing field."""
    data = json.loads(path.read_text())
    n_bad = 0
    for rec in data["records"]:
        new = remeasure(rec, scratch)
        diff = differences(rec["measured"], new["measured"])
        hdiff = differences(rec["inputs"]["hf_config"], new["inputs"]["hf_config"])
        n_bad += bool(diff)
        print(
            f"{rec['id']}: {len(flat(rec['measured']))} measured fields, "
            f"{len(diff)} differ; hf_config differs in {[d[0] for d in hdiff]}"
        )
        for k, a, b in diff:
            delta = b - a if isinstance(a, int) and isinstance(b, int) else ""
            print(f"    {k}: {a} -> {b} {delta}")
    return n_bad


# --------------------------------------------------------------------------------------------
# the suite of extra records (small models: hidden 256-1024, a few seconds each on 2 cores)

ROPE = {"rope_type": "default", "rope_theta": 10000.0}
SUITE_CONFIGS: dict[str, dict[str, Any]] = {
    "llama-h512-L4-gqa4": {
        "model_type": "llama",
        "vocab_size": 32000,
        "hidden_size": 512,
        "intermediate_size": 1376,
        "num_hidden_layers": 4,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "head_dim": 64,
        "tie_word_embeddings": False,
        "max_position_embeddings": 4096,
        "hidden_act": "silu",
        "attention_bias": False,
        "mlp_bias": False,
        "rope_parameters": dict(ROPE),
        "rms_norm_eps": 1e-05,
    },
    "llama-h256-L2-mha": {
        "model_type": "llama",
        "vocab_size": 16000,
        "hidden_size": 256,
        "intermediate_size": 688,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 4,
        "head_dim": 64,
        "tie_word_embeddings": False,
        "max_position_embeddings": 4096,
        "hidden_act": "silu",
        "rope_parameters": dict(ROPE),
    },
    "llama-h1024-L2-gqa4-tied": {
        "model_type": "llama",
        "vocab_size": 16000,
        "hidden_size": 1024,
        "intermediate_size": 2816,
        "num_hidden_layers": 2,
        "num_attention_heads": 16,
        "num_key_value_heads": 4,
        "head_dim": 64,
        "tie_word_embeddings": True,
        "max_position_embeddings": 4096,
        "hidden_act": "silu",
        "rope_parameters": dict(ROPE),
    },
    "qwen2-h512-L2-gqa4": {
        "model_type": "qwen2",
        "vocab_size": 32000,
        "hidden_size": 512,
        "intermediate_size": 1376,
        "num_hidden_layers": 2,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "tie_word_embeddings": False,
        "max_position_embeddings": 4096,
        "hidden_act": "silu",
        "sliding_window": None,
        "layer_types": ["full_attention", "full_attention"],
        "rope_parameters": dict(ROPE),
        "rms_norm_eps": 1e-05,
    },
    "mistral-h512-L2-gqa4": {
        "model_type": "mistral",
        "vocab_size": 32000,
        "hidden_size": 512,
        "intermediate_size": 1376,
        "num_hidden_layers": 2,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "head_dim": 64,
        "tie_word_embeddings": False,
        "max_position_embeddings": 4096,
        "hidden_act": "silu",
        "sliding_window": 4096,
        "rope_parameters": dict(ROPE),
        "rms_norm_eps": 1e-05,
    },
    "mistral-h512-L2-swa128": {
        "model_type": "mistral",
        "vocab_size": 32000,
        "hidden_size": 512,
        "intermediate_size": 1376,
        "num_hidden_layers": 2,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "head_dim": 64,
        "tie_word_embeddings": False,
        "max_position_embeddings": 4096,
        "hidden_act": "silu",
        "sliding_window": 128,
        "rope_parameters": dict(ROPE),
        "rms_norm_eps": 1e-05,
    },
    "qwen3-h512-L2-gqa2": {
        "model_type": "qwen3",
        "vocab_size": 32000,
        "hidden_size": 512,
        "intermediate_size": 1536,
        "num_hidden_layers": 2,
        "num_attention_heads": 8,
        "num_key_value_heads": 4,
        "head_dim": 64,
        "tie_word_embeddings": True,
        "max_position_embeddings": 4096,
        "use_sliding_window": False,
        "rope_parameters": dict(ROPE),
    },
    "gemma2-h512-L2": {
        "model_type": "gemma2",
        "vocab_size": 32000,
        "hidden_size": 512,
        "intermediate_size": 1024,
        "num_hidden_layers": 2,
        "num_attention_heads": 8,
        "num_key_value_heads": 4,
        "head_dim": 64,
        "sliding_window": 128,
        "attn_logit_softcapping": 50.0,
        "final_logit_softcapping": 30.0,
        "query_pre_attn_scalar": 64,
        "max_position_embeddings": 4096,
        "tie_word_embeddings": True,
    },
    "phi3-h512-L2": {
        "model_type": "phi3",
        "vocab_size": 32064,
        "hidden_size": 512,
        "intermediate_size": 1376,
        "num_hidden_layers": 2,
        "num_attention_heads": 8,
        "num_key_value_heads": 8,
        "max_position_embeddings": 4096,
        "tie_word_embeddings": False,
        "pad_token_id": 0,
    },
}

# (config, batch, seq, rank, targets, dropout, attention, checkpointing, qlora, kbit prep, dq)
SUITE: list[tuple[str, int, int, int, str, float, str, int, int, int, int]] = [
    # rank
    ("llama-h512-L4-gqa4", 2, 256, 8, "all", 0.0, "sdpa", 0, 0, 0, 1),
    ("llama-h512-L4-gqa4", 2, 256, 64, "all", 0.0, "sdpa", 0, 0, 0, 1),
    ("llama-h512-L4-gqa4", 2, 256, 64, "all", 0.1, "sdpa", 0, 0, 0, 1),
    # targets
    ("llama-h512-L4-gqa4", 2, 256, 16, "attn", 0.0, "sdpa", 0, 0, 0, 1),
    ("llama-h512-L4-gqa4", 2, 256, 16, "attn", 0.05, "sdpa", 0, 0, 0, 1),
    ("llama-h512-L4-gqa4", 2, 256, 16, "all+lm_head", 0.0, "sdpa", 0, 0, 0, 1),
    ("llama-h512-L4-gqa4", 2, 256, 16, "all+lm_head", 0.05, "sdpa", 0, 0, 0, 1),
    ("llama-h512-L4-gqa4", 2, 256, 16, "all+lm_head", 0.0, "sdpa", 1, 0, 0, 1),
    # dropout
    ("llama-h512-L4-gqa4", 2, 256, 16, "all", 0.1, "sdpa", 0, 0, 0, 1),
    ("llama-h512-L4-gqa4", 2, 256, 16, "all", 0.1, "eager", 0, 0, 0, 1),
    ("llama-h512-L4-gqa4", 2, 256, 16, "qv", 0.1, "eager", 1, 0, 0, 1),
    # sequence and batch
    ("llama-h256-L2-mha", 1, 128, 16, "all", 0.05, "sdpa", 0, 0, 0, 1),
    ("llama-h256-L2-mha", 4, 512, 16, "all", 0.05, "sdpa", 0, 0, 0, 1),
    ("llama-h256-L2-mha", 1, 1024, 8, "attn", 0.0, "eager", 0, 0, 0, 1),
    ("llama-h256-L2-mha", 1, 1024, 8, "all", 0.0, "sdpa", 1, 0, 0, 1),
    ("llama-h256-L2-mha", 3, 384, 16, "qv", 0.05, "eager", 0, 0, 0, 1),
    ("llama-h1024-L2-gqa4-tied", 1, 256, 16, "all", 0.05, "sdpa", 0, 0, 0, 1),
    ("llama-h1024-L2-gqa4-tied", 1, 256, 16, "all", 0.0, "sdpa", 1, 1, 1, 1),
    # families
    ("qwen2-h512-L2-gqa4", 2, 256, 16, "all", 0.0, "eager", 0, 0, 0, 1),
    ("qwen2-h512-L2-gqa4", 2, 256, 8, "attn", 0.1, "sdpa", 1, 0, 0, 1),
    ("mistral-h512-L2-gqa4", 2, 256, 16, "all", 0.0, "sdpa", 0, 0, 0, 1),
    ("mistral-h512-L2-swa128", 2, 256, 16, "all", 0.0, "sdpa", 0, 0, 0, 1),
    ("mistral-h512-L2-swa128", 2, 256, 16, "all", 0.0, "eager", 0, 0, 0, 1),
    ("qwen3-h512-L2-gqa2", 2, 256, 16, "all", 0.05, "sdpa", 0, 0, 0, 1),
    ("qwen3-h512-L2-gqa2", 2, 256, 16, "all", 0.0, "eager", 0, 1, 0, 1),
    ("gemma2-h512-L2", 2, 256, 16, "all", 0.0, "eager", 0, 0, 0, 1),
    ("gemma2-h512-L2", 2, 256, 16, "all", 0.05, "eager", 1, 0, 0, 1),
    ("gemma2-h512-L2", 1, 512, 8, "attn", 0.1, "eager", 0, 0, 0, 1),  # no sdpa for Gemma 2
    ("phi3-h512-L2", 2, 256, 16, "all", 0.0, "sdpa", 0, 0, 0, 1),
    ("phi3-h512-L2", 2, 256, 16, "attn", 0.05, "eager", 0, 0, 0, 1),
    # QLoRA: prepare_model_for_kbit_training, double quantisation
    ("llama-h512-L4-gqa4", 2, 256, 16, "all", 0.0, "sdpa", 0, 1, 0, 0),
    ("llama-h512-L4-gqa4", 2, 256, 16, "all", 0.0, "sdpa", 0, 1, 1, 1),
    ("llama-h512-L4-gqa4", 2, 256, 16, "all", 0.0, "sdpa", 1, 1, 1, 1),
    ("llama-h512-L4-gqa4", 2, 256, 64, "all", 0.1, "sdpa", 0, 1, 1, 0),
    ("llama-h512-L4-gqa4", 2, 256, 16, "attn", 0.05, "eager", 0, 1, 0, 1),
    ("qwen2-h512-L2-gqa4", 2, 256, 16, "all", 0.05, "sdpa", 0, 1, 1, 1),
    ("mistral-h512-L2-gqa4", 1, 512, 8, "all", 0.0, "sdpa", 1, 1, 0, 1),
    ("phi3-h512-L2", 2, 256, 16, "all", 0.05, "sdpa", 0, 1, 0, 1),
    ("gemma2-h512-L2", 2, 256, 16, "all", 0.0, "eager", 0, 1, 1, 1),
    ("qwen3-h512-L2-gqa2", 2, 256, 16, "all+lm_head", 0.0, "sdpa", 0, 1, 1, 1),
    ("llama-h256-L2-mha", 4, 1024, 16, "all", 0.05, "sdpa", 1, 1, 0, 0),
    ("llama-h256-L2-mha", 2, 512, 16, "all", 0.05, "eager", 0, 1, 1, 1),
    ("llama-h512-L4-gqa4", 2, 256, 16, "qv", 0.1, "sdpa", 0, 1, 0, 1),
]


def meta() -> dict[str, Any]:
    m = hf.meta()
    m.update({"peft": peft.__version__, "bitsandbytes": bitsandbytes.__version__})
    return m


def run_suite(only: list[str] | None, scratch: str, out: Path | None) -> dict[str, Any]:
    """Measure the suite (or the cases of the configs in ``only``); keeps going past a failure
    and rewrites ``out`` after every record."""
    res: dict[str, Any] = {
        "description": "LoRA / QLoRA single training steps of small random-initialised models, "
        "measured on CPU with scripts/measure_peft.py, the method of "
        "shared/calibration/peft-measured.json (see its README.md). Records "
        "of the same format.",
        "meta": meta(),
        "records": [],
        "errors": [],
    }
    for case in SUITE:
        name, b, s, r, tk, p, attn, ck, q, kp, dq = case
        if only and name not in only:
            continue
        t0 = time.perf_counter()
        try:
            rec = measure_peft(
                SUITE_CONFIGS[name],
                name,
                b,
                s,
                r,
                tk,
                p,
                attn,
                bool(ck),
                bool(q),
                bool(kp),
                bool(dq),
                scratch,
            )
            res["records"].append(rec)
            print(f"[{time.perf_counter() - t0:6.1f}s] {rec['id']}", file=sys.stderr)
        except Exception as e:  # keep going: one family failing must not lose the rest
            res["errors"].append({"case": list(case), "error": repr(e)})
            print(f"FAILED {case}: {e!r}", file=sys.stderr)
        if out is not None:
            out.write_text(json.dumps(res, indent=1) + "\n")
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reproduce", type=Path, help="re-measure a peft-measured.json file")
    ap.add_argument("--suite", action="store_true", help="measure the built-in cases")
    ap.add_argument("--only", nargs="*", help="with --suite: only these config names")
    ap.add_argument("--list", action="store_true", help="with --suite: list the cases")
    ap.add_argument(
        "--scratch",
        default="./scratch/ckpt",
        help="where QLoRA saves the bf16 model before reloading it in NF4",
    )
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", type=Path)
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    if a.reproduce:
        return 1 if reproduce(a.reproduce, a.scratch) else 0
    if not a.suite:
        ap.error("give --reproduce FILE or --suite")
    if a.list:
        for case in SUITE:
            if not a.only or case[0] in a.only:
                print(case)
        return 0
    res = run_suite(a.only, a.scratch, a.out)
    if a.out is None:
        print(json.dumps(res, indent=1))
    return 1 if res["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
