#!/usr/bin/env python3
"""Plain-PyTorch CPU measurements of training techniques the calibration files do not cover.

Each technique is written here as the framework's source does it (file paths in ``SOURCES`` and
in each record's ``inputs.recipe``), on a small transformers Llama (bf16 weights, no fp32
master, AdamW states in bf16, as torchtune's ``dtype: bf16`` trains):

* the loss (``LOSSES``): torchtune's plain loss on fp32 logits, ``CEWithChunkedOutputLoss``
  (the model emits 8 logit chunks, each upcast inside the loss), the same with
  ``compute_cross_entropy`` under ``torch.compile`` (what the recipes do with ``compile: True``),
  ``LinearCrossEntropyLoss`` (the projection moves into the loss, 8 token chunks) eager and
  compiled, and a fused linear cross-entropy (Liger's algorithm: gradients computed chunk by
  chunk in the forward, no logits kept) in plain PyTorch, since Liger's and cut-cross-entropy's
  Triton kernels do not run on a CPU;
* the optimizer step (``OPTIMIZERS``): ``torch.optim.AdamW`` stepped after backward (foreach,
  the CUDA default, or the for-loop), or torchtune's ``optimizer_in_bwd``: one AdamW per
  parameter stepped in ``register_post_accumulate_grad_hook``, its gradient freed right after.

Measured like ``measure_hf.py``: iteration 1 records what autograd saves (pack hook,
deduplicated by storage, parameters excluded); iteration 2 (optimizer state exists) the live
bytes. Live bytes come from ``torch.profiler``'s allocator events (``profile_memory=True``),
which see the buffers of compiled (inductor) code too; for eager code the ``TorchDispatchMode``
tracker of ``measure_hf.py`` gives the same peaks and is recorded beside them.

    python scripts/measure_techniques.py --out tests/core/data/techniques-measured.json
    python scripts/measure_techniques.py --only loss --list
"""

from __future__ import annotations

import argparse
import gc
import inspect
import json
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn
from torch.profiler import ProfilerActivity, profile, record_function

sys.path.insert(0, str(Path(__file__).resolve().parent))
import measure_hf as hf  # a sibling script, not a package

IGNORE = -100
CHUNKS = 8  # torchtune's num_output_chunks default
SOURCES = {
    "full": "torchtune v0.3.1 torchtune/modules/transformer.py TransformerDecoder.forward "
    "(`output = self.output(h).float()` without chunks) + recipes/"
    "full_finetune_single_device.py _loss_step (labels shifted with an ignore_index "
    "column, logits reshaped, torch.nn.CrossEntropyLoss, `del logits`)",
    "chunked": "torchtune v0.3.1 torchtune/modules/transformer.py chunked_output "
    "(`[self.output(chunk) for chunk in h.chunk(num_output_chunks, dim=1)]`) + "
    "torchtune/modules/loss/ce_chunked_output_loss.py CEWithChunkedOutputLoss "
    "(num_output_chunks=8; per chunk F.cross_entropy(logits.float(), reduction='sum'))",
    "chunked_compiled": "as chunked, with torchtune/training/_compile.py compile_loss: "
    "`loss.compute_cross_entropy = torch.compile(...)` (compile: True)",
    "linear_ce": "torchtune main torchtune/modules/loss/cross_entropy_loss.py "
    "LinearCrossEntropyLoss (the output projection moves into the loss: ignored "
    "tokens masked with index_select, tensor_split into 8 token chunks, per chunk "
    "logits = output(hidden_chunk); F.cross_entropy(logits.float(), reduction='sum'))",
    "linear_ce_compiled": "as linear_ce, compute_cross_entropy under torch.compile (apply_compile_strategy)",
    "fused": "Liger-Kernel src/liger_kernel/ops/fused_linear_cross_entropy.py "
    "(fused_linear_cross_entropy_forward: chunk_size = next_pow2(ceil(BT / ceil(V/H))); "
    "per chunk logits = x @ W.T, the CE kernel writes d(loss)/d(logits) in place, "
    "grad_input[chunk] = g @ W, grad_weight += g.T @ x; save_for_backward(grad_input, "
    "grad_weight)); the Triton kernel replaced by torch ops on the chunk",
    "optimizer_in_backward": "torchtune torchtune/training/memory.py register_optim_in_bwd_hooks "
    "(`optim_dict[param].step(); optim_dict[param].zero_grad()` in "
    "register_post_accumulate_grad_hook) + recipes/"
    "full_finetune_single_device.py _setup_optimizer "
    "(`{p: config.instantiate(cfg_optimizer, [p]) for p in "
    "model.parameters()}`)",
}


# --------------------------------------------------------------------------------------------
# losses, as the frameworks compute them (h: final-norm output [b, s, H]; head: the output
# projection; labels: [b, s], already shifted)


def loss_full(h, head, labels):
    logits = head(h).float()
    logits = logits.reshape(-1, logits.size(-1))
    return F.cross_entropy(logits, labels.reshape(-1), ignore_index=IGNORE)


def _chunk_ce(logits, labels):
    return F.cross_entropy(logits.float(), labels, ignore_index=IGNORE, reduction="sum")


_chunk_ce_compiled = torch.compile(_chunk_ce)


def _chunked(h, head, labels, ce):
    logits = [head(chunk) for chunk in h.chunk(CHUNKS, dim=1)]
    total = (labels != IGNORE).sum()
    labs = [t.reshape(-1) for t in labels.chunk(CHUNKS, dim=1)]
    logits = [c.reshape(-1, c.size(-1)) for c in logits]
    loss = 0.0
    for lc, tc in zip(logits, labs, strict=True):
        loss += ce(lc, tc)
    return loss / total


def loss_chunked(h, head, labels):
    return _chunked(h, head, labels, _chunk_ce)


def loss_chunked_compiled(h, head, labels):
    return _chunked(h, head, labels, _chunk_ce_compiled)


def _linear_ce(hidden, target, head):
    return F.cross_entropy(head(hidden).float(), target, reduction="sum", ignore_index=IGNORE)


_linear_ce_compiled = torch.compile(_linear_ce)


def _linear(h, head, labels, ce):
    n_valid = torch.where(labels != IGNORE)[0].numel()
    targets = labels.reshape(-1)
    outputs = h.reshape(-1, h.shape[-1])
    idx = torch.where(targets != IGNORE)[0]
    outputs, targets = outputs.index_select(0, idx), targets.index_select(0, idx)
    total = torch.tensor(0.0)
    for hc, tc in zip(outputs.tensor_split(CHUNKS, dim=0), targets.tensor_split(CHUNKS, dim=0), strict=True):
        total += ce(hc, tc, head)
    return total / n_valid


def loss_linear_ce(h, head, labels):
    return _linear(h, head, labels, _linear_ce)


def loss_linear_ce_compiled(h, head, labels):
    return _linear(h, head, labels, _linear_ce_compiled)


class FusedLinearCE(torch.autograd.Function):
    """Liger's fused linear cross-entropy (mean over non-ignored tokens), its Triton CE kernel
    replaced by torch ops on one chunk: gradients are computed in the forward, chunk by chunk,
    and only ``grad_input`` (tokens x H) and ``grad_weight`` (V x H) are saved."""

    @staticmethod
    def forward(ctx, x, weight, target):
        bt, hid = x.shape
        v = weight.shape[0]
        chunk = 2 ** math.ceil(math.log2(math.ceil(bt / math.ceil(v / hid))))
        n = (target != IGNORE).sum().item()
        grad_input = torch.zeros_like(x)
        grad_weight = torch.zeros_like(weight) if weight.requires_grad else None
        loss = torch.zeros((), dtype=torch.float32)
        for s in range(0, bt, chunk):
            xc, tc = x[s : s + chunk], target[s : s + chunk]
            logits = xc @ weight.t()
            lf = logits.float()
            lse = torch.logsumexp(lf, -1)
            ok = tc != IGNORE
            tsafe = tc.clamp(min=0)
            loss += ((lse - lf.gather(1, tsafe[:, None])[:, 0]) * ok).sum() / n
            g = torch.softmax(lf, -1) * (ok[:, None] / n)
            g[torch.arange(len(tc)), tsafe] -= ok.float() / n
            del lf
            logits.copy_(g)  # Liger writes the logits' gradient in place, in the logits' dtype
            del g
            grad_input[s : s + chunk] = logits @ weight
            if grad_weight is not None:
                grad_weight += logits.t() @ xc
        ctx.save_for_backward(grad_input, grad_weight)
        return loss

    @staticmethod
    def backward(ctx, grad_out):
        gi, gw = ctx.saved_tensors
        return gi * grad_out.to(gi.dtype), (None if gw is None else gw * grad_out.to(gw.dtype)), None


def loss_fused(h, head, labels):
    return FusedLinearCE.apply(h.reshape(-1, h.shape[-1]), head.weight, labels.reshape(-1))


LOSSES: dict[str, Callable] = {
    "full": loss_full,
    "chunked": loss_chunked,
    "chunked_compiled": loss_chunked_compiled,
    "linear_ce": loss_linear_ce,
    "linear_ce_compiled": loss_linear_ce_compiled,
    "fused": loss_fused,
}
COMPILED = {"chunked_compiled", "linear_ce_compiled"}
RECIPES: dict[str, list[Callable]] = {
    "full": [loss_full],
    "chunked": [_chunked, _chunk_ce, loss_chunked],
    "chunked_compiled": [_chunked, _chunk_ce, loss_chunked_compiled],
    "linear_ce": [_linear, _linear_ce, loss_linear_ce],
    "linear_ce_compiled": [_linear, _linear_ce, loss_linear_ce_compiled],
    "fused": [FusedLinearCE, loss_fused],
}


class TuneStyleLM(nn.Module):
    """A transformers Llama body (``model.model``, its final norm included) with the output
    projection and loss of a torchtune recipe: labels shifted by one with an ``ignore_index``
    column appended (``_loss_step``)."""

    def __init__(self, lm: nn.Module, loss: str) -> None:
        super().__init__()
        self.lm = lm
        self.loss_name = loss

    def forward(self, input_ids, labels):
        h = self.lm.model(input_ids=input_ids).last_hidden_state
        pad = torch.full((labels.shape[0], 1), IGNORE, dtype=labels.dtype)
        labels = torch.hstack((labels[..., 1:], pad))
        loss = LOSSES[self.loss_name](h, self.lm.lm_head, labels)
        return SimpleNamespace(loss=loss, logits=None)


# --------------------------------------------------------------------------------------------
# optimizers


class InBackwardOptimizers:
    """torchtune's ``optimizer_in_bwd``: one optimizer per parameter, stepped and zeroed
    (``set_to_none``) in the parameter's post-accumulate-grad hook; ``step`` and ``zero_grad``
    of the recipe's loop are no-ops."""

    def __init__(self, params: list[torch.Tensor], make: Callable[[list], Any]) -> None:
        self.optims = {p: make([p]) for p in params}
        for p in params:
            p.register_post_accumulate_grad_hook(self._step)

    def _step(self, p: torch.Tensor) -> None:
        self.optims[p].step()
        self.optims[p].zero_grad()

    @property
    def state(self) -> dict:
        merged: dict = {}
        for o in self.optims.values():
            merged.update(o.state)
        return merged

    def step(self) -> None:
        pass

    def zero_grad(self, set_to_none: bool = True) -> None:
        pass


def _adamw(foreach: bool) -> Callable[[list], Any]:
    return lambda ps: torch.optim.AdamW(ps, lr=1e-5, foreach=foreach, weight_decay=0.0)


BNB_NOTE = (
    "bitsandbytes 0.50.2 CPU backend: the state bytes are the real layout (uint8 states, "
    "fp32 absmax per 256 values, fp32 states under 4096 elements; the shared 256-entry "
    "qmap is counted once per parameter by optimizer_state_bytes_by_key). The profiler "
    "peak includes the CPU backend's fp32 temporaries of the update (not seen by the "
    "dispatch tracker, which sees only the custom op); CUDA's blockwise kernel updates "
    "in place."
)


def _bnb(name: str) -> Callable[[list], Any]:
    """bitsandbytes 8-bit AdamW (blockwise, 256 values per fp32 absmax; tensors under
    min_8bit_size=4096 keep fp32 states). On a CPU the paged variant falls back to ordinary
    buffers (bitsandbytes/optim/optimizer.py get_state_buffer), so its bytes equal AdamW8bit's;
    on CUDA they live in managed memory outside PyTorch's allocator."""

    def make(ps: list) -> Any:
        import bitsandbytes as bnb  # only these cases need it

        return getattr(bnb.optim, name)(ps, lr=1e-5, weight_decay=0.0)

    return make


OPTIMIZERS: dict[str, Callable[[list], Any]] = {
    "adamw_foreach": lambda ps: _adamw(True)(ps),
    "adamw_forloop": lambda ps: _adamw(False)(ps),
    "adamw_in_backward": lambda ps: InBackwardOptimizers(ps, _adamw(True)),
    "adamw8bit_bnb": _bnb("AdamW8bit"),
    "paged_adamw8bit_bnb": _bnb("PagedAdamW8bit"),
    "paged_adamw8bit_bnb_in_backward": lambda ps: InBackwardOptimizers(ps, _bnb("PagedAdamW8bit")),
}


# --------------------------------------------------------------------------------------------
# measurement


def profiled_step(model, opt, ids: torch.Tensor, baseline: int) -> dict[str, Any]:
    """One training step under ``torch.profiler(profile_memory=True)``: the allocator's
    allocations and frees in time order, summed, give the live bytes over ``baseline`` (the
    storages alive before the step); each phase's peak is read inside its record_function."""
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        with record_function("phase:forward"):
            loss = model(input_ids=ids, labels=ids).loss
        with record_function("phase:backward"):
            loss.backward()
            del loss
        with record_function("phase:optimizer_step"):
            opt.step()
            opt.zero_grad(set_to_none=True)
    events = list(prof.profiler.kineto_results.events())
    spans = {
        e.name().split(":", 1)[1]: (e.start_ns(), e.end_ns()) for e in events if e.name().startswith("phase:")
    }
    mem = sorted((e.start_ns(), e.nbytes()) for e in events if e.name() == "[memory]")
    peaks = {ph: 0 for ph in spans}
    cur = 0
    for t, nb in mem:
        cur += nb
        ph = next((p for p, (a, b) in spans.items() if a <= t <= b), None)
        if ph is not None:
            peaks[ph] = max(peaks[ph], cur)
    out: dict[str, Any] = {"baseline_bytes": baseline}
    for ph in ("forward", "backward", "optimizer_step"):
        out[f"{ph}_peak_bytes"] = baseline + peaks.get(ph, 0)
    phase = max(peaks, key=lambda p: peaks[p])
    out.update({"peak_bytes": baseline + peaks[phase], "peak_phase": phase, "end_bytes": baseline + cur})
    return out


def _baseline(model, opt, ids: torch.Tensor) -> int:
    keys: dict[int, int] = {}
    for t in (*model.parameters(), *model.buffers(), ids):
        keys[hf._skey(t)] = hf._sbytes(t)
    for st in opt.state.values():
        for v in st.values():
            if isinstance(v, torch.Tensor):
                keys[hf._skey(v)] = hf._sbytes(v)
    return sum(keys.values())


def _loss_region(sfb: dict[str, Any]) -> int:
    """Saved bytes of the loss and the output projection (the rest is the decoder body)."""
    reg = sfb["activation_by_region"]
    return reg.get("causal_lm_top_level(loss)", 0) + reg.get("lm_head", 0)


def measure(
    cfg: dict[str, Any],
    label: str,
    batch: int,
    seq: int,
    loss: str,
    optimizer: str,
    ckpt: bool,
    attn: str = "sdpa",
    seed: int = 0,
) -> dict[str, Any]:
    """One record: a full fine-tuning step of the bf16 model with the given loss and optimizer."""
    lm = hf.build(cfg, attn, torch.bfloat16, seed)
    lm.config.use_cache = False
    lm.train()
    if ckpt:
        lm.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    model = TuneStyleLM(lm, loss)
    params = list(model.parameters())
    opt = OPTIMIZERS[optimizer](params)
    ids = hf.token_ids(cfg["vocab_size"], batch, seq, seed)
    names = {id(m): n.removeprefix("lm.") if n != "" else "" for n, m in model.named_modules()}
    pkeys = {hf._skey(p) for p in params}
    bkeys = {hf._skey(b) for b in model.buffers()}
    t0 = time.perf_counter()
    it1 = hf.saved_tensor_step(model, opt, ids, None, names, pkeys)
    sfb = hf.summarise_saved(it1["saved"], pkeys, bkeys, it1["copies"])
    gc.collect()
    prof = profiled_step(model, opt, ids, _baseline(model, opt, ids))
    live = None
    if loss not in COMPILED:  # a TorchDispatchMode sends compiled code back to eager
        live, _ = hf.live_step(model, opt, ids, None, sfb["activation_bytes"])
        live = {k: live[k] for k in ("baseline_bytes", "peak_bytes", "peak_phase")} | {
            f"{ph}_peak_bytes": live[ph]["peak_bytes"] for ph in ("forward", "backward", "optimizer_step")
        }
    n_params = sum(p.numel() for p in params)
    recipe = {"loss": SOURCES[loss], "loss_code": "\n".join(inspect.getsource(f) for f in RECIPES[loss])}
    if "bnb" in optimizer:
        recipe["optimizer_note"] = BNB_NOTE
    if optimizer.endswith("in_backward"):
        recipe["optimizer"] = SOURCES["optimizer_in_backward"]
        recipe["optimizer_code"] = inspect.getsource(InBackwardOptimizers)
    return {
        "id": f"{label}|b{batch}|s{seq}|bf16|{loss}|{optimizer}|{attn}|ckpt{int(ckpt)}",
        "inputs": {
            "model": label,
            "model_type": cfg["model_type"],
            "config": cfg,
            "params": n_params,
            "micro_batch": batch,
            "seq_len": seq,
            "tokens": batch * seq,
            "vocab_size": cfg["vocab_size"],
            "hidden_size": cfg["hidden_size"],
            "workload": "full_finetune",
            "param_dtype": "bfloat16",
            "optimizer_state_dtype": "bfloat16",
            "master_weights": None,
            "loss": loss,
            "loss_chunks": CHUNKS if loss != "full" else None,
            "compiled_loss": loss in COMPILED,
            "optimizer": optimizer,
            "optimizer_in_backward": optimizer.endswith("in_backward"),
            "attn_implementation": attn,
            "gradient_checkpointing": ckpt,
            "body": "transformers LlamaForCausalLM.model (bf16), final norm included",
            "recipe": recipe,
            "device": "cpu",
        },
        "measured": {
            "param_bytes": sum(hf._tbytes(p) for p in params),
            "grad_bytes_after_backward": it1["grad_bytes"],
            "optimizer_state_bytes": it1["opt_bytes"],
            "optimizer_state_bytes_by_key": it1["opt_by_key"],
            "activation_bytes": sfb["activation_bytes"],
            "loss_and_output_saved_bytes": _loss_region(sfb),
            "body_saved_bytes": sfb["activation_bytes"] - _loss_region(sfb),
            "saved_for_backward": sfb,
            "live_bytes_profiler": prof,
            "live_bytes_dispatch_tracker": live,
            "seconds": round(time.perf_counter() - t0, 2),
        },
    }


# --------------------------------------------------------------------------------------------
# the suite

ROPE = {"rope_type": "default", "rope_theta": 10000.0}


def _llama(hidden: int, layers: int, vocab: int, ffn: int, heads: int, kv: int) -> dict[str, Any]:
    return {
        "model_type": "llama",
        "vocab_size": vocab,
        "hidden_size": hidden,
        "intermediate_size": ffn,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "num_key_value_heads": kv,
        "head_dim": hidden // heads,
        "tie_word_embeddings": False,
        "max_position_embeddings": 4096,
        "hidden_act": "silu",
        "rope_parameters": dict(ROPE),
        "rms_norm_eps": 1e-05,
    }


CONFIGS = {
    "llama-h256-L2-v32k": _llama(256, 2, 32000, 688, 4, 2),
    "llama-h256-L2-v128k": _llama(256, 2, 128256, 688, 4, 2),
    "llama-h512-L4-v32k": _llama(512, 4, 32000, 1376, 8, 2),
}
LOSS_CASES = [
    (m, b, s) for m in ("llama-h256-L2-v32k", "llama-h256-L2-v128k") for b, s in ((1, 512), (2, 1024))
]
# (technique, config, batch, seq, loss, optimizer, checkpointing)
SUITE: list[tuple[str, str, int, int, str, str, int]] = [
    *[("loss", m, b, s, loss, "adamw_foreach", 0) for m, b, s in LOSS_CASES for loss in LOSSES],
    ("loss", "llama-h256-L2-v128k", 2, 1024, "chunked", "adamw_foreach", 1),
    ("loss", "llama-h256-L2-v128k", 2, 1024, "fused", "adamw_foreach", 1),
    *[
        ("optimizer", "llama-h512-L4-v32k", 2, 256, loss, opt, ck)
        for loss in ("full", "chunked")
        for ck in (0, 1)
        for opt in ("adamw_foreach", "adamw_forloop", "adamw_in_backward")
    ],
    *[
        ("optimizer", "llama-h512-L4-v32k", 2, 256, "chunked", opt, 1)
        for opt in ("adamw8bit_bnb", "paged_adamw8bit_bnb", "paged_adamw8bit_bnb_in_backward")
    ],
]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", help="techniques (loss, optimizer), losses or optimizers to run")
    ap.add_argument("--append", action="store_true", help="add to the records already in --out")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", type=Path)
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    cases = [c for c in SUITE if not a.only or {c[0], c[4], c[5]} & set(a.only)]
    if a.list:
        for c in cases:
            print(c)
        return 0
    meta = hf.meta()
    res: dict[str, Any] = {
        "description": "Plain-PyTorch CPU measurements of training techniques (chunked / "
        "linear / fused cross-entropy, optimizer step in backward) with "
        "scripts/measure_techniques.py; every record carries the code it ran "
        "and the framework source it mirrors.",
        "meta": meta,
        "sources": SOURCES,
        "records": [],
        "errors": [],
    }
    if a.append and a.out is not None and a.out.exists():
        res["records"] = json.loads(a.out.read_text())["records"]
    for case in cases:
        tech, name, b, s, loss, opt, ck = case
        t0 = time.perf_counter()
        try:
            rec = measure(CONFIGS[name], name, b, s, loss, opt, bool(ck))
            rec["technique"] = tech
            res["records"].append(rec)
            print(f"[{time.perf_counter() - t0:6.1f}s] {rec['id']}", file=sys.stderr)
        except Exception as e:  # keep going: one case failing must not lose the rest
            res["errors"].append({"case": list(case), "error": repr(e)})
            print(f"FAILED {case}: {e!r}", file=sys.stderr)
        if a.out is not None:
            a.out.write_text(json.dumps(res, indent=1) + "\n")
    if a.out is None:
        print(json.dumps(res, indent=1))
    return 1 if res["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
