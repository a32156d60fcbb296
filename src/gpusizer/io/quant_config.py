"""The precision a checkpoint declares: ``config.json`` ``quantization_config`` (or
``torch_dtype``) -> ``{weights, quantization_rule, modules}`` (core/model/checkpoint.py).

Each ``quant_method`` as its loader reads it:

- ``gptq`` / ``auto-round`` (transformers ``GPTQConfig``: ``bits``, ``group_size``, ``lm_head``),
  ``awq`` (``AwqConfig``: ``bits``, ``modules_to_not_convert``): decoder-block linears in
  GPTQ/AWQ int4 (int8), rule ``gptq-awq``.
- ``fp8`` (``FineGrainedFP8Config``, DeepSeek-V3, Qwen3 FP8: ``weight_block_size``,
  ``modules_to_not_convert``): rule ``fp8-block``. ``fbgemm_fp8`` (Meta's Llama 3.1 405B FP8:
  ``modules_to_not_convert`` lists every layer's attention and the first and last layers'
  MLPs): rule ``meta-fp8`` when it lists exactly that, else ``llm-compressor``.
- ``compressed-tensors`` (llm-compressor; compressed-tensors ``QuantizationConfig``:
  ``config_groups.*.weights`` ``num_bits``/``type``/``group_size``, ``ignore``): FP8, INT8,
  W4A16 (GPTQ-like int4 groups), NVFP4 (FP4, groups of 16), MXFP4 (groups of 32); rule
  ``llm-compressor``.
- ``modelopt`` (NVIDIA ModelOpt, vLLM ``modelopt.py``: ``quant_algo`` FP8 / NVFP4 /
  W4A16_AWQ, ``exclude_modules``; also the ``hf_quant_config.json`` layout with a nested
  ``quantization`` block): rule ``modelopt``.
- ``mxfp4`` (gpt-oss ``Mxfp4Config``: ``modules_to_not_convert``): rule ``mxfp4-experts``
  when attention is left alone on an MoE model.
- ``bitsandbytes`` (``BitsAndBytesConfig``: ``load_in_4bit`` with ``bnb_4bit_quant_type``
  nf4/fp4, default fp4, and ``bnb_4bit_use_double_quant``; ``load_in_8bit``;
  ``llm_int8_skip_modules``): rule ``bitsandbytes``.

Each method's reader is in io/quant_methods.py (``METHODS``).

A list of modules left alone (``modules_to_not_convert``, ``ignore``, ``exclude_modules``,
``llm_int8_skip_modules``) becomes ``modules: {group: "unquantised"}`` for the groups the rule
would otherwise quantise (io/tensor_groups.py names the groups). An entry that names only some
layers of a group is reported in ``notes``, not modelled per layer; the safetensors headers
then give the exact bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.errors import ScenarioError, excerpt
from ..core.registry.quant_rules import quant_rule
from .quant_methods import METHODS
from .tensor_groups import layer_index, pattern_group

__all__ = ["METHODS", "TORCH_DTYPES", "Declared", "declared_precision", "stored_dtype"]

TORCH_DTYPES = {"bfloat16": "bf16", "float16": "fp16", "half": "fp16", "float32": "fp32", "float": "fp32"}
_SKIP_KEYS = ("modules_to_not_convert", "ignore", "exclude_modules", "llm_int8_skip_modules")


@dataclass
class Declared:
    """What a config declares: ``precision`` (the checkpoint precision fields), whether the
    format packs its matrices (``quantised``: integer tensors in the headers are this format),
    and notes for the user."""

    precision: dict[str, Any]
    quantised: bool = False
    notes: list[str] = field(default_factory=list)


def _inner(cfg: dict[str, Any]) -> dict[str, Any]:
    inner = cfg.get("text_config")
    return inner if isinstance(inner, dict) else {}


def _q(cfg: dict[str, Any]) -> dict[str, Any] | None:
    """The quantisation block of a config (top level, ``compression_config``, text_config)."""
    for holder in (cfg, _inner(cfg)):
        for key in ("quantization_config", "compression_config"):
            q = holder.get(key)
            if q is None:
                continue
            if not isinstance(q, dict):
                raise ScenarioError("config", f"{key} must be an object; got {excerpt(q)}")
            return q
    return None


def stored_dtype(cfg: dict[str, Any]) -> str | None:
    """The 16/32-bit dtype the config says its tensors are stored in (``torch_dtype``;
    transformers 5 writes ``dtype``), or None."""
    for holder in (cfg, _inner(cfg)):
        for key in ("torch_dtype", "dtype"):
            value = holder.get(key)
            if isinstance(value, str) and value.removeprefix("torch.") in TORCH_DTYPES:
                return TORCH_DTYPES[value.removeprefix("torch.")]
    return None


def _excluded(q: dict[str, Any], layers: int) -> tuple[set[str], dict[str, set[int]], list[str]]:
    """(groups left alone in every layer, {group: the only layers left alone}, unknown names)."""
    whole: set[str] = set()
    partial: dict[str, set[int]] = {}
    unknown: list[str] = []
    for key in _SKIP_KEYS:
        entries = q.get(key) or []
        for entry in entries if isinstance(entries, list) else [entries]:
            group = pattern_group(entry) if isinstance(entry, str) else None
            if group is None:
                unknown.append(excerpt(entry, 40))
                continue
            index = layer_index(entry) if isinstance(entry, str) and "*" not in entry else None
            if index is None:
                whole.add(group)
            else:
                partial.setdefault(group, set()).add(index)
    for group, found in list(partial.items()):
        if len(found) >= layers or group in whole:
            whole.add(group)
            del partial[group]
    return whole, partial, unknown


def _finish(out: Declared, q: dict[str, Any], layers: int, rule: str) -> Declared:
    """Set the rule and turn the skip lists into per-group overrides and notes."""
    whole, partial, unknown = _excluded(q, layers)
    if rule == "fbgemm":  # Meta's FP8: all attention, the first and last MLPs left alone
        meta = "attention" in whole and partial.get("mlp") == {0, layers - 1}
        rule = "meta-fp8" if meta else "llm-compressor"
        if meta:
            partial.pop("mlp")
    spec = quant_rule(rule)
    mods = {g: "unquantised" for g in sorted(whole) if spec.spec(g) != "unquantised"}
    if q.get("lm_head") is True:  # GPTQ's "lm_head": true quantises the head too
        mods["lm_head"] = "weights"
    out.precision.update(quantization_rule=rule, modules=mods or None)
    for group, found in sorted(partial.items()):
        out.notes.append(
            f"{len(found)} of {layers} layers keep {group} unquantised; not "
            "modelled per layer (the safetensors headers give the exact bytes)"
        )
    if unknown:
        out.notes.append(f"modules left alone but not recognised: {', '.join(unknown[:4])}")
    return out


def declared_precision(cfg: dict[str, Any], layers: int, moe: bool) -> Declared:
    """The checkpoint precision a config.json declares (module doc); ``layers`` and ``moe``
    come from the imported model block."""
    q = _q(cfg)
    stored = stored_dtype(cfg)
    if q is None:
        out = Declared({"weights": stored or "bf16"})
        if stored is None:
            out.notes.append("the config names no torch_dtype: bf16 assumed")
        return out
    method = str(
        q.get("quant_method") or ("bitsandbytes" if "load_in_4bit" in q or "load_in_8bit" in q else "")
    ).lower()
    handler = METHODS.get(method)
    if handler is None:
        out = Declared({"weights": stored or "bf16"})
        out.notes.append(
            f"quant_method {excerpt(method)} is not modelled: the weights are "
            f"costed as {out.precision['weights']} (the safetensors headers give "
            "the exact bytes)"
        )
        return out
    out = Declared({}, quantised=True)
    weights, rule = handler(q, out.notes)
    out.precision["weights"] = weights
    if method == "mxfp4" and not moe:
        rule = "llm-compressor"
    return _finish(out, q, layers, rule)
