#!/usr/bin/env python3
"""Exact parameter counts of released configs, as transformers builds them (meta device).

For every ``tests/io/configs/*.json`` given (or all of them): the model class named by the
config's ``architectures`` (``AutoModelForCausalLM`` when transformers has no such class) is
built on the meta device and its ``parameters()`` summed (tied weights once), split into the
vision tower + projector (names under ``vision_tower``/``vision_model``/``multi_modal_projector``)
and the language model. ``model_type`` values transformers does not register (``kimi_k2``,
which its config maps to the DeepSeek-V3 classes) are built as the type their ``auto_map``
names. Needs torch and transformers (see README.md); the package and its tests never import it.

    python scripts/measure_presets.py tests/io/configs/llama-4-scout.json --out counts.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM

_ALIASES = {"kimi_k2": "deepseek_v3"}
_VISION = ("vision_tower", "vision_model", "multi_modal_projector", "visual")


def build(cfg: dict[str, Any]) -> torch.nn.Module:
    cfg = dict(cfg)
    model_type = _ALIASES.get(cfg["model_type"], cfg["model_type"])
    cfg.pop("auto_map", None)
    cfg.pop("quantization_config", None)  # count the architecture, not a quantised layout
    text = cfg.get("text_config")
    if isinstance(text, dict) and isinstance(text.get("attn_temperature_tuning"), int):
        # Llama 4's released configs write 4; transformers 5 validates it as a bool
        cfg["text_config"] = {**text, "attn_temperature_tuning": bool(text["attn_temperature_tuning"])}
    kw = {k: v for k, v in cfg.items() if k not in ("model_type", "_name_or_path")}
    config = AutoConfig.for_model(model_type, **kw)
    arch = (cfg.get("architectures") or [""])[0]
    cls = getattr(transformers, arch, None) or AutoModelForCausalLM
    with torch.device("meta"):
        return cls._from_config(config) if hasattr(cls, "_from_config") else cls(config)


def count(model: torch.nn.Module) -> dict[str, int]:
    total = vision = 0
    for name, p in model.named_parameters():
        total += p.numel()
        if any(part in name.split(".") for part in _VISION):
            vision += p.numel()
    return {"total_params": total, "vision_params": vision, "text_params": total - vision}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("configs", nargs="*", type=Path)
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    paths = a.configs or sorted(Path("tests/io/configs").glob("*.json"))
    res: dict[str, Any] = {"transformers": transformers.__version__, "torch": torch.__version__, "counts": {}}
    for path in paths:
        cfg = json.loads(path.read_text(encoding="utf-8"))
        try:
            res["counts"][path.stem] = count(build(cfg))
        except Exception as exc:  # keep going: report the family that fails
            res["counts"][path.stem] = {"error": repr(exc)}
        print(path.stem, res["counts"][path.stem], file=sys.stderr)
    text = json.dumps(res, indent=1)
    if a.out:
        Path(a.out).write_text(text + "\n", encoding="utf-8")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
