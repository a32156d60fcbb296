#!/usr/bin/env python3
"""Measure what torch.compile changes in the tensors a decoder layer saves for backward.

Same method as ``scripts/measure_hf.py`` (tiny transformers models on a CPU, bf16, sdpa, the
tensors autograd's pack hook receives during the forward, deduplicated by storage, parameters
and buffers excluded), once eager and once with every decoder layer compiled
(``layer.compile()``: Dynamo + AOTAutograd + Inductor, the default min-cut partitioner of
``torch/_functorch/partitioners.py``). The layers are the only thing compiled, so the
difference of the two totals divided by the layer count is what compiling one layer changes.

    python scripts/measure_compile.py --out compile-measured.json

Needs ``torch`` (with a C++ compiler for Inductor's CPU backend) and ``transformers``.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from typing import Any

import torch
import transformers

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from measure_hf import SUITE_CONFIGS, make_config

FAMILIES = ("llama-gqa", "qwen2", "qwen3", "olmo2", "gemma3")


def _no_window(cfg: dict[str, Any]) -> dict[str, Any]:
    """Windows longer than the sequence: sdpa runs causal with no explicit mask."""
    cfg = dict(cfg)
    if "sliding_window" in cfg:
        cfg["sliding_window"] = 4096
    return cfg


AUTOCAST = {"on": False}  # --autocast: fp32 parameters, the forward under bf16 autocast


def saved_bytes(model: torch.nn.Module, ids: torch.Tensor) -> int:
    """Bytes of the distinct storages autograd saves in one forward (parameters excluded)."""
    own = {p.untyped_storage().data_ptr() for p in model.parameters()}
    own |= {b.untyped_storage().data_ptr() for b in model.buffers()}
    seen: dict[int, int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        st = t.untyped_storage()
        if st.data_ptr() not in own:
            seen[st.data_ptr()] = st.nbytes()
        return t

    amp = torch.autocast("cpu", dtype=torch.bfloat16, enabled=AUTOCAST["on"])
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t), amp:
        out = model(input_ids=ids).logits
    out.float().sum().backward()
    return sum(seen.values())


def measure(name: str, batch: int, seq: int, lora: bool = False) -> dict[str, Any]:
    # every layer is its own compile of one code object (Gemma 3's local and global layers
    # guard differently): past the default limit of 8 Dynamo would leave layers eager
    torch._dynamo.config.recompile_limit = 256
    cfg = _no_window(SUITE_CONFIGS[name])
    config = make_config(cfg, "sdpa")
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(config, attn_implementation="sdpa")
    model = model.to(torch.float32 if AUTOCAST["on"] else torch.bfloat16)
    if lora:  # PEFT LoRA r 8 on q and v, fp32 adapters (PEFT's default), no dropout
        from peft import LoraConfig, get_peft_model

        model = get_peft_model(model, LoraConfig(r=8, target_modules=["q_proj", "v_proj"], lora_dropout=0.0))
    model = model.train()
    ids = torch.randint(0, config.vocab_size, (batch, seq))
    eager = saved_bytes(model, ids)
    layers = model.base_model.model.model.layers if lora else model.model.layers
    for layer in layers:
        layer.compile()
    saved_bytes(model, ids)  # compiles (the first call of each shape)
    compiled = saved_bytes(model, ids)
    n = len(layers)
    return {
        "name": name,
        "model_type": cfg["model_type"],
        "config": cfg,
        "batch": batch,
        "seq": seq,
        "dtype": "float32 parameters, bfloat16 autocast" if AUTOCAST["on"] else "bfloat16",
        "attention": "sdpa",
        "layers": n,
        "saved_eager_bytes": eager,
        "saved_compiled_bytes": compiled,
        "per_layer_saving_bytes": (eager - compiled) / n,
        "lora": {"r": 8, "target_modules": ["q_proj", "v_proj"], "lora_dropout": 0.0} if lora else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--seq", type=int, default=256)
    ap.add_argument("--families", nargs="*", default=list(FAMILIES))
    ap.add_argument("--lora", action="store_true", help="PEFT LoRA on q and v (needs peft)")
    ap.add_argument("--autocast", action="store_true", help="fp32 parameters under bf16 autocast")
    a = ap.parse_args()
    AUTOCAST["on"] = a.autocast
    records = []
    for name in a.families:
        rec = measure(name, a.batch, a.seq, a.lora)
        print(json.dumps({k: v for k, v in rec.items() if k != "config"}), flush=True)
        records.append(rec)
    meta = {
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "python": platform.python_version(),
        "method": "scripts/measure_compile.py: saved_tensors_hooks, storages deduplicated, "
        "parameters and buffers excluded; every decoder layer compiled with layer.compile()",
    }
    with open(a.out, "w") as f:
        json.dump({"meta": meta, "records": records}, f, indent=1)


if __name__ == "__main__":
    main()
