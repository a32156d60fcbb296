#!/usr/bin/env python3
"""Measure the memory of real transformers models on a CPU (the calibration methodology).

Reproduces how ``shared/calibration/hf-measured.json`` was made (see its README.md) and writes
records of the same shape (``param_counts``, ``training_memory``, ``kv_cache``), so the tests can
compare them with ``gpusizer.estimate_report``. Needs ``torch`` and ``transformers`` (the
``measure`` extra); the package and its tests never import this file.

    python scripts/measure_hf.py --config CONFIG.json --batch 2 --seq 256 --dtype bfloat16 \
        --attn sdpa --ckpt 0 --out out.json
    python scripts/measure_hf.py --suite --out suite.json

What is measured:
* parameters: ``AutoModelForCausalLM.from_config`` on the meta device, ``model.parameters()``
  (tied weights once);
* a training step of a fresh model (``torch.optim.AdamW(foreach=True)``, ``labels=input_ids``,
  no attention mask, ``model.train()``; ``--param-dtype float32 --dtype bfloat16`` runs the
  forward and the loss under ``torch.autocast``): parameter, gradient and optimizer-state bytes;
  the tensors autograd's pack hook receives during the forward, deduplicated by storage, with
  parameter/buffer storages excluded; the live storages of a second (steady-state) iteration,
  tracked by a ``TorchDispatchMode``, with the peak of each phase;
* the KV cache: key/value tensor bytes of the ``DynamicCache`` after a ``use_cache=True``
  forward of the prompt (and ``--decode`` greedy steps), plus the unique bytes of their storages
  (a sliding-window layer keeps a view of the whole prompt's keys after the prefill).
"""

from __future__ import annotations

import argparse
import copy
import gc
import json
import platform
import re
import sys
import time
import weakref
from collections import defaultdict
from contextlib import nullcontext
from functools import partial
from typing import Any

import torch
import transformers
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten
from transformers import AutoConfig, AutoModelForCausalLM

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
LAYER_RE = re.compile(r"(^|\.)(layers|h|blocks|layer|decoder_layers)\.(\d+)(\.|$)")

# --------------------------------------------------------------------------------------------
# model construction


def make_config(cfg: dict[str, Any], attn: str | None = None):
    """A transformers config from a config.json-like dict (``model_type`` required)."""
    kw = {k: v for k, v in cfg.items() if k not in ("model_type", "num_parameters")}
    config = AutoConfig.for_model(cfg["model_type"], **kw)
    if attn is not None:
        config._attn_implementation = attn
    return config


def build(cfg: dict[str, Any], attn: str, dtype: torch.dtype, seed: int = 0):
    torch.manual_seed(seed)
    config = make_config(cfg, attn)
    # built in fp32 and cast (buffers too), as the calibration file was
    model = AutoModelForCausalLM.from_config(config, attn_implementation=attn)
    return model.to(dtype)


def _resolved(config) -> dict[str, Any]:
    """The config as transformers filled it in (defaults included), JSON-safe."""
    d = config.get_text_config().to_dict()
    return json.loads(json.dumps(d, default=str))


def _sbytes(t: torch.Tensor) -> int:
    return t.untyped_storage().nbytes()


def _skey(t: torch.Tensor) -> int:
    return t.untyped_storage()._cdata


def _tbytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()


def _generic(name: str) -> str:
    return re.sub(r"\.\d+(?=\.|$)", ".*", name)


def _region(name: str) -> str:
    if name == "":
        return "causal_lm_top_level(loss)"
    if LAYER_RE.search(name):
        return "decoder_layers"
    last = name.rsplit(".", 1)[-1]
    if "embed" in last or last in ("wte", "wpe", "word_embeddings"):
        return "embedding"
    if last == "lm_head":
        return "lm_head"
    if "norm" in last or last in ("ln_f",):
        return "final_norm"
    return "other"


def _layer_index(name: str) -> int | None:
    m = LAYER_RE.search(name)
    return int(m.group(3)) if m else None


# --------------------------------------------------------------------------------------------
# parameter counts


def measure_params(cfg: dict[str, Any], name: str | None = None) -> dict[str, Any]:
    config = make_config(cfg)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    params = list(model.parameters())
    total = sum(p.numel() for p in params)
    twice = sum(p.numel() for _, p in model.named_parameters(remove_duplicate=False))
    emb = model.get_input_embeddings()
    out = model.get_output_embeddings()
    tied = out is not None and out.weight is emb.weight
    pos = sum(
        p.numel()
        for n, p in model.named_parameters()
        if re.search(r"(wpe|position_embeddings|embed_positions)", n)
    )
    per_layer: dict[int, int] = defaultdict(int)
    for n, p in model.named_parameters():
        i = _layer_index(n)
        if i is not None:
            per_layer[i] += p.numel()
    buffers = sum(b.numel() for b in model.buffers())
    return {
        "name": name or cfg.get("model_type"),
        "model_class": type(model).__name__,
        "built_on": "meta device via AutoModelForCausalLM.from_config",
        "config": cfg,
        "measured": {
            "total_params": total,
            "total_params_counting_tied_twice": twice,
            "n_param_tensors": len(params),
            "input_embedding_params": emb.weight.numel(),
            "lm_head_params_untied": 0 if tied or out is None else out.weight.numel(),
            "tied_word_embeddings": tied,
            "position_embedding_params": pos,
            "non_embedding_params": total
            - emb.weight.numel()
            - (0 if tied or out is None else out.weight.numel()),
            "n_layers": len(per_layer),
            "params_per_layer_distinct_values": sorted(set(per_layer.values())),
            "params_all_layers": sum(per_layer.values()),
            "buffer_elements": buffers,
        },
    }


# --------------------------------------------------------------------------------------------
# live storages (TorchDispatchMode)


class LiveTracker(TorchDispatchMode):
    """Bytes of every live tensor storage, by tag, with the peak of each phase."""

    def __init__(self) -> None:
        super().__init__()
        self.live: dict[int, list] = {}  # key -> [bytes, tag, weakref]
        self.by_tag: dict[str, int] = defaultdict(int)
        self.cur = 0
        self.phase = "fwd"
        self.peak = 0
        self.peak_tags: dict[str, int] = {}

    def _free(self, key: int, _ref: Any) -> None:
        ent = self.live.pop(key, None)
        if ent is not None:
            self.cur -= ent[0]
            self.by_tag[ent[1]] -= ent[0]

    def register(self, t: torch.Tensor, tag: str) -> None:
        st = t.untyped_storage()
        key, nb = st._cdata, st.nbytes()
        ent = self.live.get(key)
        if ent is None:
            self.live[key] = [nb, tag, weakref.ref(st, partial(self._free, key))]
            self.cur += nb
            self.by_tag[tag] += nb
        elif ent[0] != nb:  # resized in place
            self.cur += nb - ent[0]
            self.by_tag[ent[1]] += nb - ent[0]
            ent[0] = nb

    def retag(self, t: torch.Tensor, tag: str) -> None:
        key = _skey(t)
        ent = self.live.get(key)
        if ent is None:
            self.register(t, tag)
        elif ent[1] != tag:
            self.by_tag[ent[1]] -= ent[0]
            self.by_tag[tag] += ent[0]
            ent[1] = tag
        self._check()

    def _check(self) -> None:
        if self.cur > self.peak:
            self.peak = self.cur
            self.peak_tags = {k: v for k, v in self.by_tag.items() if v}

    def start_phase(self, phase: str) -> None:
        self.phase = phase
        self.peak = self.cur
        self.peak_tags = {k: v for k, v in self.by_tag.items() if v}

    def snapshot(self) -> tuple[int, dict[str, int]]:
        return self.cur, {k: v for k, v in self.by_tag.items() if v}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in tree_flatten(out)[0]:
            if isinstance(t, torch.Tensor) and t.device.type != "meta":
                self.register(t, self.phase)
        self._check()
        return out


class CopyWatch(TorchDispatchMode):
    """Storages of low-precision copies of parameters (autocast's weight casts)."""

    def __init__(self, param_keys: set[int]) -> None:
        super().__init__()
        self.param_keys = param_keys
        self.copies: dict[int, torch.Tensor] = {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if (
            func in (torch.ops.aten._to_copy.default, torch.ops.aten.to.dtype)
            and args
            and isinstance(args[0], torch.Tensor)
            and _skey(args[0]) in self.param_keys
        ):
            self.copies[_skey(out)] = out
        return out


# --------------------------------------------------------------------------------------------
# training step


def _forward(model, ids, amp: torch.dtype | None):
    ctx = torch.autocast("cpu", dtype=amp) if amp is not None else nullcontext()
    with ctx:
        out = model(input_ids=ids, labels=ids)
    return out


def _grad_bytes(model) -> tuple[int, list[str]]:
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    return sum(_tbytes(g) for g in grads), sorted({str(g.dtype).split(".")[-1] for g in grads})


def _opt_state(opt) -> tuple[int, dict[str, int], dict[str, list[str]]]:
    by_key: dict[str, int] = defaultdict(int)
    dts: dict[str, set[str]] = defaultdict(set)
    for st in opt.state.values():
        for k, v in st.items():
            if isinstance(v, torch.Tensor):
                by_key[k] += _tbytes(v)
                dts[k].add(str(v.dtype).split(".")[-1])
    return sum(by_key.values()), dict(by_key), {k: sorted(v) for k, v in dts.items()}


def saved_tensor_step(
    model, opt, ids: torch.Tensor, amp: torch.dtype | None, names: dict[int, str], param_keys: set[int]
) -> dict[str, Any]:
    """Iteration 1: a training step whose forward runs under autograd's pack hook (every saved
    tensor, with the innermost module running when it was saved), then backward, gradient bytes,
    ``opt.step()`` and the optimizer state. ``names`` maps ``id(module)`` to its name."""
    stack: list[str] = [""]
    saved: list[dict[str, Any]] = []
    keep: list[torch.Tensor] = []

    def pre(mod, _args):
        stack.append(names.get(id(mod), "?"))

    def post(mod, _args, _out):
        if len(stack) > 1:
            stack.pop()

    def pack(t):
        keep.append(t)
        saved.append(
            {
                "key": _skey(t),
                "storage_bytes": _sbytes(t),
                "tensor_bytes": _tbytes(t),
                "shape": list(t.shape),
                "dtype": str(t.dtype).split(".")[-1],
                "module": stack[-1],
            }
        )
        return t

    h1 = torch.nn.modules.module.register_module_forward_pre_hook(pre)
    h2 = torch.nn.modules.module.register_module_forward_hook(post)
    watch = CopyWatch(param_keys) if amp is not None else nullcontext()
    t0 = time.perf_counter()
    try:
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t), watch:
            out = _forward(model, ids, amp)
    finally:
        h1.remove()
        h2.remove()
    copies = set(watch.copies) if isinstance(watch, CopyWatch) else set()
    logits = out.logits
    logits_info = (
        None
        if logits is None
        else {  # None: the loss kept no whole logits tensor
            "shape": list(logits.shape),
            "dtype": str(logits.dtype).split(".")[-1],
            "bytes": _tbytes(logits),
            "fp32_bytes": logits.numel() * 4,
        }
    )
    loss = out.loss
    del out, logits
    loss.backward()
    del loss
    keep.clear()
    if isinstance(watch, CopyWatch):
        watch.copies.clear()
    grad_bytes, grad_dtypes = _grad_bytes(model)
    opt.step()
    opt_bytes, opt_by_key, opt_dtypes = _opt_state(opt)
    opt.zero_grad(set_to_none=True)
    seconds = time.perf_counter() - t0
    gc.collect()
    return {
        "saved": saved,
        "copies": copies,
        "logits": logits_info,
        "grad_bytes": grad_bytes,
        "grad_dtypes": grad_dtypes,
        "opt_bytes": opt_bytes,
        "opt_by_key": opt_by_key,
        "opt_dtypes": opt_dtypes,
        "seconds": seconds,
    }


def summarise_saved(
    saved: list[dict[str, Any]],
    param_keys: set[int],
    buffer_keys: set[int],
    copies: set[int],
    all_saved: bool = False,
) -> dict[str, Any]:
    """The ``saved_for_backward`` block: saved tensors deduplicated by storage, parameter and
    buffer storages excluded, grouped by region, module type, dtype and layer."""
    seen: dict[int, dict[str, Any]] = {}
    for s in saved:
        seen.setdefault(s["key"], s)
    acts = {k: s for k, s in seen.items() if k not in param_keys and k not in buffer_keys}
    act_saved = [s for s in saved if s["key"] in acts]
    by_region: dict[str, int] = defaultdict(int)
    by_mod: dict[str, int] = defaultdict(int)
    by_dtype: dict[str, int] = defaultdict(int)
    per_layer: dict[int, int] = defaultdict(int)
    for s in acts.values():
        by_region[_region(s["module"])] += s["storage_bytes"]
        by_mod[_generic(s["module"])] += s["storage_bytes"]
        by_dtype[s["dtype"]] += s["storage_bytes"]
        i = _layer_index(s["module"])
        if i is not None:
            per_layer[i] += s["storage_bytes"]
    act_bytes = sum(s["storage_bytes"] for s in acts.values())
    copy_bytes = sum(s["storage_bytes"] for k, s in acts.items() if k in copies)
    pkeys = {k for k in seen if k in param_keys}
    largest = sorted(acts.values(), key=lambda s: -s["storage_bytes"])[:12]
    rec = {
        "n_saved_tensors": len(saved),
        "n_unique_storages": len(seen),
        "naive_sum_bytes_all": sum(s["tensor_bytes"] for s in saved),
        "unique_storage_bytes_all": sum(s["storage_bytes"] for s in seen.values()),
        "params_appear_among_saved": bool(pkeys),
        "n_param_storages_saved": len(pkeys),
        "param_storage_bytes_saved": sum(seen[k]["storage_bytes"] for k in pkeys),
        "buffer_storage_bytes_saved": sum(s["storage_bytes"] for k, s in seen.items() if k in buffer_keys),
        "activation_bytes": act_bytes,
        "weight_copy_bytes_among_activations": copy_bytes,
        "activation_bytes_excluding_weight_copies": act_bytes - copy_bytes,
        "activation_naive_sum_bytes": sum(s["tensor_bytes"] for s in act_saved),
        "activation_by_region": dict(by_region),
        "activation_by_module_type": dict(sorted(by_mod.items())),
        "activation_by_dtype": dict(by_dtype),
        "activation_per_layer": [per_layer[i] for i in sorted(per_layer)],
        "largest_saved_activation_storages": [
            {k: s[k] for k in ("module", "shape", "dtype", "storage_bytes")} for s in largest
        ],
    }
    if all_saved:  # every saved activation storage, in the order the forward saved them
        rec["activation_storages"] = [
            {k: s[k] for k in ("module", "shape", "dtype", "storage_bytes")} for s in acts.values()
        ]
    return rec


def _tag_grad(tr: LiveTracker):
    """A post-accumulate-grad hook tagging the gradient (gone already when an optimizer stepped
    in an earlier hook and freed it, as optimizer-in-backward does)."""

    def hook(p: torch.Tensor) -> None:
        if p.grad is not None:
            tr.retag(p.grad, "grad")

    return hook


def live_step(
    model,
    opt,
    ids: torch.Tensor,
    amp: torch.dtype | None,
    act_bytes: int,
    extra_param_tensors: tuple[torch.Tensor, ...] = (),
) -> tuple[dict[str, Any], float]:
    """Iteration 2 (optimizer state exists): every live storage through forward, backward and
    the optimizer step, with each phase's peak. ``extra_param_tensors`` (e.g. bitsandbytes
    ``quant_state`` tensors) count as weights. Returns the block and its seconds."""
    params = list(model.parameters())
    tr = LiveTracker()
    for p in (*params, *extra_param_tensors):
        tr.register(p, "param")
    for b in model.buffers():
        tr.register(b, "buffer")
    for st in opt.state.values():
        for v in st.values():
            if isinstance(v, torch.Tensor):
                tr.register(v, "opt_state")
    tr.register(ids, "input")
    hooks = [p.register_post_accumulate_grad_hook(_tag_grad(tr)) for p in params if p.requires_grad]
    base_bytes, base_tags = tr.snapshot()
    phases: dict[str, Any] = {}
    t0 = time.perf_counter()
    with tr:
        tr.start_phase("fwd")
        out = _forward(model, ids, amp)
        loss = out.loss
        fwd_peak_with_logits = tr.peak
        del out
        phases["forward"] = (tr.peak, tr.peak_tags, *tr.snapshot())
        tr.start_phase("bwd")
        loss.backward()
        del loss
        phases["backward"] = (tr.peak, tr.peak_tags, *tr.snapshot())
        tr.start_phase("opt")
        opt.step()
        phases["optimizer_step"] = (tr.peak, tr.peak_tags, *tr.snapshot())
        opt.zero_grad(set_to_none=True)
    gc.collect()
    end_bytes = tr.cur
    seconds = time.perf_counter() - t0
    for h in hooks:
        h.remove()
    live: dict[str, Any] = {
        "note": "Second training iteration (optimizer state exists). Bytes of all live tensor "
        "storages tracked with a TorchDispatchMode; tags: param/buffer/opt_state/input = "
        "pre-existing, fwd/bwd/opt = created in that phase and still alive, grad = "
        "parameter .grad storages. No allocator rounding, fragmentation, CUDA context "
        "or workspace.",
        "baseline_bytes": base_bytes,
        "baseline_breakdown": base_tags,
    }
    for ph, (pk, pkt, endb, endt) in phases.items():
        live[ph] = {
            "peak_bytes": pk,
            "peak_breakdown_by_tag": pkt,
            "end_bytes": endb,
            "end_breakdown_by_tag": endt,
        }
    live["forward_peak_bytes_with_logits_still_referenced"] = fwd_peak_with_logits
    live["activations_retained_after_forward_bytes"] = live["forward"]["end_breakdown_by_tag"].get("fwd", 0)
    live["forward_peak_transient_over_saved_activations_bytes"] = (
        live["forward"]["peak_breakdown_by_tag"].get("fwd", 0) - act_bytes
    )
    live["backward_peak_new_tensor_bytes"] = live["backward"]["peak_breakdown_by_tag"].get("bwd", 0)
    live["end_bytes"] = end_bytes
    peak_phase = max(phases, key=lambda k: phases[k][0])
    live["peak_bytes"] = phases[peak_phase][0]
    live["peak_phase"] = peak_phase
    return live, seconds


def token_ids(vocab: int, batch: int, seq: int, seed: int = 0) -> torch.Tensor:
    """The random input ids every measurement uses (a seeded generator, independent of the
    model's initialisation)."""
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, vocab, (batch, seq), generator=g)


def measure_training(
    cfg: dict[str, Any],
    batch: int,
    seq: int,
    param_dtype: str,
    compute_dtype: str,
    attn: str,
    ckpt: bool,
    name: str | None = None,
    seed: int = 0,
    all_saved: bool = False,
) -> dict[str, Any]:
    pdt = DTYPES[param_dtype]
    amp = DTYPES[compute_dtype] if compute_dtype != param_dtype else None
    model = build(cfg, attn, pdt, seed)
    model.train()
    if ckpt:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True, weight_decay=0.0)
    ids = token_ids(model.config.get_text_config().vocab_size, batch, seq, seed)
    names = {id(m): n for n, m in model.named_modules()}
    params = list(model.parameters())
    param_keys = {_skey(p) for p in params}
    buffer_keys = {_skey(b) for b in model.buffers()}
    param_bytes = sum(_tbytes(p) for p in params)

    it1 = saved_tensor_step(model, opt, ids, amp, names, param_keys)
    saved_rec = summarise_saved(it1["saved"], param_keys, buffer_keys, it1["copies"], all_saved)
    act_bytes = saved_rec["activation_bytes"]
    live, t2 = live_step(model, opt, ids, amp, act_bytes)

    text = model.config.get_text_config()
    cfg_out = dict(cfg)
    cfg_out["num_parameters"] = sum(p.numel() for p in params)
    label = name or cfg.get("model_type")
    rid = (
        f"{label}|b{batch}|s{seq}|{param_dtype}"
        f"{'' if amp is None else '+amp-' + compute_dtype}|{attn}|ckpt{int(ckpt)}"
    )
    return {
        "id": rid,
        "inputs": {
            "model": label,
            "model_type": cfg["model_type"],
            "config": cfg_out,
            "micro_batch": batch,
            "seq_len": seq,
            "tokens": batch * seq,
            "precision": compute_dtype if amp is None else f"amp({param_dtype}->{compute_dtype})",
            "param_dtype": param_dtype,
            "compute_dtype": compute_dtype,
            "autocast": amp is not None,
            "attn_implementation": attn,
            "gradient_checkpointing": bool(ckpt),
            "gradient_checkpointing_impl": (
                "transformers gradient_checkpointing_enable(): "
                "torch.utils.checkpoint, use_reentrant=False, every "
                "decoder layer"
            )
            if ckpt
            else None,
            "optimizer": "torch.optim.AdamW(foreach=True, weight_decay=0)",
            "loss": "causal-LM cross entropy inside the model (labels=input_ids)",
            "attention_mask_passed": False,
            "model_train_mode": True,
            "device": "cpu",
            "vocab_size": text.vocab_size,
            "config_resolved": _resolved(model.config),
        },
        "measured": {
            "param_bytes": param_bytes,
            "grad_bytes": it1["grad_bytes"],
            "grad_dtypes": it1["grad_dtypes"],
            "optimizer_state_bytes": it1["opt_bytes"],
            "optimizer_state_bytes_by_key": it1["opt_by_key"],
            "optimizer_state_dtypes": it1["opt_dtypes"],
            "saved_for_backward": saved_rec,
            "loss_saved_bytes": saved_rec["activation_by_region"].get("causal_lm_top_level(loss)", 0),
            "logits": it1["logits"],
            "live_bytes_steady_state_iteration": live,
            "seconds": {"iteration1": round(it1["seconds"], 3), "iteration2_tracked": round(t2, 3)},
        },
    }


# --------------------------------------------------------------------------------------------
# KV cache


def measure_kv(
    cfg: dict[str, Any],
    batch: int,
    prompt: int,
    decode: int,
    dtype: str,
    attn: str,
    name: str | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    model = build(cfg, attn, DTYPES[dtype], seed).eval()
    vocab = model.config.get_text_config().vocab_size
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, vocab, (batch, prompt), generator=g)
    with torch.no_grad():
        out = model(input_ids=ids, use_cache=True)
        cache = out.cache if hasattr(out, "cache") else out.past_key_values
        for _ in range(decode):
            nxt = out.logits[:, -1:].argmax(-1)
            out = model(input_ids=nxt, cache=cache, use_cache=True)
            cache = out.cache if hasattr(out, "cache") else out.past_key_values
    del out
    tensors: list[tuple[str, torch.Tensor]] = []
    classes: list[str] = []
    for layer in cache.layers:
        classes.append(type(layer).__name__)
        for kind in ("keys", "values"):
            t = getattr(layer, kind, None)
            if isinstance(t, torch.Tensor):
                tensors.append((kind, t))
    uniq = {_skey(t): _sbytes(t) for _, t in tensors}
    shapes = []
    for kind, t in tensors:
        if [kind, list(t.shape)] not in shapes:
            shapes.append([kind, list(t.shape)])
    label = name or cfg.get("model_type")
    return {
        "id": f"{label}|b{batch}|s{prompt}+{decode}|{dtype}|{attn}",
        "inputs": {
            "model": label,
            "model_type": cfg["model_type"],
            "config": cfg,
            "batch": batch,
            "prompt_len": prompt,
            "decode_steps": decode,
            "total_len": prompt + decode,
            "dtype": dtype,
            "attn_implementation": attn,
            "cache_class": type(cache).__name__,
            "cache_layer_classes": sorted(set(classes)),
            "cache_layer_class_per_layer": classes,
            "config_resolved": _resolved(model.config),
        },
        "measured": {
            "kv_cache_tensor_bytes": sum(_tbytes(t) for _, t in tensors),
            "kv_cache_unique_storage_bytes": sum(uniq.values()),
            "n_tensors": len(tensors),
            "tensor_shapes": shapes,
        },
    }


# --------------------------------------------------------------------------------------------
# built-in suite of tiny configs

ROPE = {"rope_type": "default", "rope_theta": 10000.0}


def _llama(**kw):
    c = {
        "model_type": "llama",
        "vocab_size": 4000,
        "hidden_size": 256,
        "intermediate_size": 688,
        "num_hidden_layers": 2,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "head_dim": 32,
        "tie_word_embeddings": False,
        "max_position_embeddings": 4096,
        "hidden_act": "silu",
        "rms_norm_eps": 1e-5,
        "rope_parameters": dict(ROPE),
    }
    c.update(kw)
    return c


SUITE_CONFIGS: dict[str, dict[str, Any]] = {
    "llama-gqa": _llama(),
    "llama-gqa-tied": _llama(tie_word_embeddings=True, vocab_size=8000),
    "qwen2": {
        "model_type": "qwen2",
        "vocab_size": 4000,
        "hidden_size": 256,
        "intermediate_size": 704,
        "num_hidden_layers": 2,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "tie_word_embeddings": False,
        "max_position_embeddings": 4096,
        "use_sliding_window": False,
        "rope_parameters": dict(ROPE),
    },
    "qwen3": {
        "model_type": "qwen3",
        "vocab_size": 4000,
        "hidden_size": 256,
        "intermediate_size": 704,
        "num_hidden_layers": 2,
        "num_attention_heads": 8,
        "num_key_value_heads": 4,
        "head_dim": 64,
        "tie_word_embeddings": False,
        "max_position_embeddings": 4096,
        "use_sliding_window": False,
        "rope_parameters": dict(ROPE),
    },
    "gemma2": {
        "model_type": "gemma2",
        "vocab_size": 4000,
        "hidden_size": 256,
        "intermediate_size": 512,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 64,
        "sliding_window": 64,
        "attn_logit_softcapping": 50.0,
        "final_logit_softcapping": 30.0,
        "query_pre_attn_scalar": 64,
        "max_position_embeddings": 4096,
        "tie_word_embeddings": True,
    },
    "gemma3": {
        "model_type": "gemma3_text",
        "vocab_size": 4000,
        "hidden_size": 256,
        "intermediate_size": 512,
        "num_hidden_layers": 4,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 64,
        "sliding_window": 64,
        "sliding_window_pattern": 2,
        "query_pre_attn_scalar": 64,
        "max_position_embeddings": 4096,
        "tie_word_embeddings": True,
    },
    "mistral": {
        "model_type": "mistral",
        "vocab_size": 4000,
        "hidden_size": 256,
        "intermediate_size": 688,
        "num_hidden_layers": 2,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "head_dim": 32,
        "sliding_window": 64,
        "max_position_embeddings": 4096,
        "tie_word_embeddings": False,
    },
    "phi3": {
        "model_type": "phi3",
        "vocab_size": 4000,
        "hidden_size": 256,
        "intermediate_size": 688,
        "num_hidden_layers": 2,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "max_position_embeddings": 4096,
        "tie_word_embeddings": False,
        "pad_token_id": 0,
    },
    "mixtral": {
        "model_type": "mixtral",
        "vocab_size": 4000,
        "hidden_size": 256,
        "intermediate_size": 384,
        "num_hidden_layers": 2,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "head_dim": 32,
        "num_local_experts": 4,
        "num_experts_per_tok": 2,
        "max_position_embeddings": 4096,
        "tie_word_embeddings": False,
        "sliding_window": None,
    },
    "qwen3_moe": {
        "model_type": "qwen3_moe",
        "vocab_size": 4000,
        "hidden_size": 256,
        "intermediate_size": 512,
        "moe_intermediate_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 8,
        "num_key_value_heads": 4,
        "head_dim": 32,
        "num_experts": 8,
        "num_experts_per_tok": 2,
        "decoder_sparse_step": 1,
        "mlp_only_layers": [],
        "norm_topk_prob": True,
        "max_position_embeddings": 4096,
        "tie_word_embeddings": False,
        "use_sliding_window": False,
    },
    "olmo2": {
        "model_type": "olmo2",
        "vocab_size": 4000,
        "hidden_size": 256,
        "intermediate_size": 688,
        "num_hidden_layers": 2,
        "num_attention_heads": 8,
        "num_key_value_heads": 8,
        "max_position_embeddings": 4096,
        "tie_word_embeddings": False,
        "pad_token_id": 1,
    },
    "gpt2": {
        "model_type": "gpt2",
        "vocab_size": 4000,
        "n_embd": 256,
        "n_layer": 2,
        "n_head": 4,
        "n_positions": 1024,
        "n_inner": None,
        "activation_function": "gelu_new",
        "resid_pdrop": 0.1,
        "embd_pdrop": 0.1,
        "attn_pdrop": 0.1,
        "tie_word_embeddings": True,
    },
    "falcon": {
        "model_type": "falcon",
        "vocab_size": 4000,
        "hidden_size": 256,
        "num_hidden_layers": 2,
        "num_attention_heads": 8,
        "num_kv_heads": 1,
        "multi_query": True,
        "new_decoder_architecture": False,
        "parallel_attn": True,
        "bias": False,
        "alibi": False,
        "max_position_embeddings": 2048,
        "tie_word_embeddings": True,
    },
    "deepseek_v3": {
        "model_type": "deepseek_v3",
        "vocab_size": 4000,
        "hidden_size": 256,
        "intermediate_size": 512,
        "moe_intermediate_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 4,
        "n_shared_experts": 1,
        "n_routed_experts": 8,
        "num_experts_per_tok": 2,
        "n_group": 2,
        "topk_group": 1,
        "first_k_dense_replace": 1,
        "q_lora_rank": 96,
        "kv_lora_rank": 64,
        "qk_nope_head_dim": 32,
        "qk_rope_head_dim": 16,
        "v_head_dim": 32,
        "max_position_embeddings": 4096,
        "tie_word_embeddings": False,
        "rope_interleave": True,
    },
}

# (config, batch, seq, param dtype, compute dtype, attention, checkpointing)
SUITE_TRAINING = [
    ("llama-gqa", 2, 128, "float32", "float32", "eager", 0),
    ("llama-gqa", 2, 128, "float32", "float32", "sdpa", 0),
    ("llama-gqa", 2, 128, "bfloat16", "bfloat16", "eager", 0),
    ("llama-gqa", 2, 128, "bfloat16", "bfloat16", "sdpa", 0),
    ("llama-gqa", 2, 128, "float32", "bfloat16", "sdpa", 0),
    ("llama-gqa", 2, 128, "float32", "bfloat16", "eager", 0),
    ("llama-gqa", 2, 128, "float32", "bfloat16", "sdpa", 1),
    ("llama-gqa", 2, 128, "bfloat16", "bfloat16", "sdpa", 1),
    ("llama-gqa-tied", 2, 128, "bfloat16", "bfloat16", "sdpa", 0),
    ("qwen2", 2, 128, "bfloat16", "bfloat16", "sdpa", 0),
    ("qwen3", 2, 128, "bfloat16", "bfloat16", "sdpa", 0),
    ("gemma2", 2, 128, "bfloat16", "bfloat16", "eager", 0),
    ("gemma2", 2, 128, "float32", "bfloat16", "eager", 0),
    ("gemma3", 2, 128, "bfloat16", "bfloat16", "sdpa", 0),
    ("mistral", 2, 128, "bfloat16", "bfloat16", "sdpa", 0),
    ("mistral", 2, 128, "bfloat16", "bfloat16", "eager", 0),
    ("phi3", 2, 128, "bfloat16", "bfloat16", "sdpa", 0),
    ("mixtral", 2, 128, "bfloat16", "bfloat16", "sdpa", 0),
    ("qwen3_moe", 2, 128, "bfloat16", "bfloat16", "sdpa", 0),
    ("olmo2", 2, 128, "bfloat16", "bfloat16", "sdpa", 0),
    ("gpt2", 2, 128, "float32", "float32", "eager", 0),
    ("gpt2", 2, 128, "bfloat16", "bfloat16", "sdpa", 0),
    ("falcon", 2, 128, "bfloat16", "bfloat16", "sdpa", 0),
    ("deepseek_v3", 2, 128, "bfloat16", "bfloat16", "eager", 0),
]

# (config, batch, prompt, decode, dtype, attention)
SUITE_KV = [
    ("llama-gqa", 2, 100, 5, "bfloat16", "sdpa"),
    ("mistral", 2, 200, 3, "bfloat16", "sdpa"),
    ("mistral", 1, 40, 0, "float32", "sdpa"),
    ("gemma2", 2, 200, 3, "bfloat16", "eager"),  # no sdpa for Gemma 2
    ("gemma3", 1, 150, 0, "bfloat16", "sdpa"),
    ("qwen3", 2, 64, 4, "bfloat16", "sdpa"),
    ("phi3", 1, 77, 2, "float32", "sdpa"),
    ("mixtral", 2, 50, 0, "bfloat16", "sdpa"),
    ("qwen3_moe", 1, 60, 2, "bfloat16", "sdpa"),
    ("olmo2", 1, 64, 0, "bfloat16", "sdpa"),
    ("gpt2", 2, 64, 3, "float32", "eager"),
    ("falcon", 2, 64, 1, "bfloat16", "sdpa"),
    ("deepseek_v3", 2, 64, 2, "bfloat16", "eager"),
    ("deepseek_v3", 1, 100, 0, "float32", "sdpa"),
]


def meta() -> dict[str, Any]:
    return {
        "generated_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "torch_threads": torch.get_num_threads(),
        "units": {"memory": "bytes", "params": "count"},
    }


def run_suite(only: list[str] | None, quiet: bool, all_saved: bool = False) -> dict[str, Any]:
    res: dict[str, Any] = {
        "meta": meta(),
        "param_counts": [],
        "kv_cache": [],
        "training_memory": [],
        "errors": [],
    }

    def ok(name: str) -> bool:
        return not only or name in only

    def attempt(kind: str, label: str, fn, *a, **kw):
        t0 = time.perf_counter()
        try:
            rec = fn(*a, **kw)
            res[kind].append(rec)
            if not quiet:
                print(f"[{time.perf_counter() - t0:6.2f}s] {kind}: {rec.get('id', label)}", file=sys.stderr)
        except Exception as e:  # keep going: one family failing must not lose the rest
            res["errors"].append({"kind": kind, "case": label, "error": repr(e)})
            print(f"FAILED {kind} {label}: {e!r}", file=sys.stderr)

    for name, cfg in SUITE_CONFIGS.items():
        if ok(name):
            attempt("param_counts", name, measure_params, cfg, name)
    for name, b, s, d, n, attn in SUITE_KV:
        if ok(name):
            attempt("kv_cache", name, measure_kv, SUITE_CONFIGS[name], b, s, d, n, attn, name)
    for name, b, s, pd, cd, attn, ck in SUITE_TRAINING:
        if ok(name):
            attempt(
                "training_memory",
                name,
                measure_training,
                SUITE_CONFIGS[name],
                b,
                s,
                pd,
                cd,
                attn,
                bool(ck),
                name,
                all_saved=all_saved,
            )
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", help="config.json of the model (needs model_type)")
    ap.add_argument("--name", help="label of the model in record ids")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--seq", type=int, default=128, help="training sequence / KV prompt length")
    ap.add_argument(
        "--dtype",
        default="float32",
        choices=sorted(DTYPES),
        help="compute dtype (and parameter dtype unless --param-dtype)",
    )
    ap.add_argument(
        "--param-dtype",
        choices=sorted(DTYPES),
        help="parameter dtype; differing from --dtype runs the step under autocast",
    )
    ap.add_argument("--attn", default="sdpa", choices=["eager", "sdpa"])
    ap.add_argument("--ckpt", type=int, default=0, choices=[0, 1])
    ap.add_argument("--decode", type=int, default=0, help="decode steps after the KV prefill")
    ap.add_argument("--what", default="all", choices=["all", "params", "train", "kv"])
    ap.add_argument("--suite", action="store_true", help="run the built-in tiny configs")
    ap.add_argument("--only", nargs="*", help="with --suite: only these config names")
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: leave)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", help="output JSON (default: stdout)")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument(
        "--all-saved",
        action="store_true",
        help="list every saved activation storage (module, shape, dtype, bytes)",
    )
    a = ap.parse_args(argv)
    if a.threads:
        torch.set_num_threads(a.threads)
    if a.suite:
        res = run_suite(a.only, a.quiet, a.all_saved)
    elif a.config:
        with open(a.config) as f:
            cfg = json.load(f)
        res = {"meta": meta(), "param_counts": [], "kv_cache": [], "training_memory": []}
        name = a.name or cfg.get("model_type")
        if a.what in ("all", "params"):
            res["param_counts"].append(measure_params(copy.deepcopy(cfg), name))
        if a.what in ("all", "train"):
            res["training_memory"].append(
                measure_training(
                    copy.deepcopy(cfg),
                    a.batch,
                    a.seq,
                    a.param_dtype or a.dtype,
                    a.dtype,
                    a.attn,
                    bool(a.ckpt),
                    name,
                    a.seed,
                    a.all_saved,
                )
            )
        if a.what in ("all", "kv"):
            res["kv_cache"].append(
                measure_kv(copy.deepcopy(cfg), a.batch, a.seq, a.decode, a.dtype, a.attn, name, a.seed)
            )
    else:
        ap.error("give --config or --suite")
    text = json.dumps(res, indent=1)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
