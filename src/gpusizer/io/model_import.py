"""Import what users have on disk: a model folder, a config.json or a GGUF file.

``import_model(path)`` returns a dict:

- ``model``: a scenario model block (io/hf_config.py, io/gguf_import.py) carrying
  ``checkpoint_precision``; named from the config's ``_name_or_path``, the GGUF's
  ``general.name``, or else the folder (file) name;
- ``precision``: the precision that follows the checkpoint (``weights``,
  ``quantization_rule``, ``modules``): the declared format (``quantization_config``,
  io/quant_config.py; a GGUF file type), corrected per group where the stored tensors show
  otherwise (io/checkpoint_check.py);
- ``checkpoint``: the stored bytes per tensor group from the safetensors headers or the GGUF
  tensor table, with the estimator's bytes for ``precision`` beside them (null for a config.json
  without weights beside it);
- ``notes``: what the import assumed; ``source``, ``format`` (``huggingface`` | ``gguf``).

Only headers and tables are read, never the weights; every read goes through the bounded
readers (core/readfile.py, io/safetensors_header.py, io/gguf_reader.py).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..core.errors import ScenarioError
from ..core.model.checkpoint import PRECISION_FIELDS, follows_checkpoint
from ..core.readfile import MiB, open_regular, parse_json_object, read_json, read_text
from .checkpoint_check import Record, check, dominant, follow_headers, group_table
from .gguf_import import import_gguf
from .hf_config import MAX_CONFIG_BYTES, import_hf_config
from .quant_config import Declared, declared_precision
from .safetensors_header import read_tensor_table

# safetensors dtypes stored whole in one of our dtypes (others are packed parts of a format)
SAFETENSORS_DTYPES = {"BF16": "bf16", "F16": "fp16", "F32": "fp32", "F8_E4M3": "fp8", "F8_E5M2": "fp8"}
_WEIGHT_FILES = ("model.safetensors.index.json", "model.safetensors")
_MATRICES = ("attention", "mlp", "experts", "shared_experts")


def _exists(path: Path) -> bool:
    try:
        os.stat(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise ScenarioError("import", f"cannot read {path}: {exc.strerror or exc}") from None
    return True


def _is_gguf(path: Path) -> bool:
    """Whether a regular file starts with the GGUF magic (a FIFO or device is refused)."""
    fh, _ = open_regular(path, "import", 2**62)
    with fh:
        try:
            return fh.read(4) == b"GGUF"
        except OSError as exc:
            raise ScenarioError("import", f"cannot read {path}: {exc.strerror or exc}") from None


def _folder_gguf(folder: Path) -> Path | None:
    """The GGUF of a folder holding no config.json: its only model file (or first shard)."""
    try:
        names = sorted(
            e.name for e in os.scandir(folder) if e.name.endswith(".gguf") and "mmproj" not in e.name
        )
    except OSError as exc:
        raise ScenarioError("import", f"cannot read {folder}: {exc.strerror or exc}") from None
    firsts = [n for n in names if "-00001-of-" in n] or names
    return folder / firsts[0] if len(firsts) == 1 else None


def _config(folder: Path) -> dict[str, Any]:
    """config.json, with ModelOpt's hf_quant_config.json when the config names no format."""
    text, p = read_text(folder / "config.json", "config", MAX_CONFIG_BYTES)
    cfg = parse_json_object(text, "config", str(p))
    if "quantization_config" not in cfg and _exists(folder / "hf_quant_config.json"):
        extra, _ = read_json(folder / "hf_quant_config.json", "config", MiB)
        if isinstance(extra, dict):
            cfg["quantization_config"] = {"quant_method": "modelopt", **extra}
    return cfg


def _records(tensors: dict[str, tuple[str, int, int]]) -> list[Record]:
    return [(name, dtype, size, SAFETENSORS_DTYPES.get(dtype)) for name, (dtype, _, size) in tensors.items()]


def _from_config(cfg: dict[str, Any], name: str) -> tuple[dict[str, Any], Declared, dict[str, Any]]:
    """A config.json's model block (named ``name`` unless the config names its model), what
    it declares (io/quant_config.py), and the precision fields it sets."""
    block = import_hf_config(cfg)
    if not cfg.get("_name_or_path"):
        block["name"] = name or block["name"]
    declared = declared_precision(cfg, block["layers"], "moe" in block)
    return block, declared, {k: v for k, v in declared.precision.items() if v is not None}


def _result(
    block: dict[str, Any], precision: dict[str, Any], report: dict[str, Any] | None, notes: list[str]
) -> dict[str, Any]:
    """The import (module doc); the block carries the precision as ``checkpoint_precision``."""
    block["checkpoint_precision"] = precision
    return {"model": block, "precision": precision, "checkpoint": report, "notes": notes}


def import_folder(folder: Path) -> dict[str, Any]:
    """A Hugging Face model folder (config.json, safetensors headers when present)."""
    from ..core.pipeline.scenario import parse_scenario

    block, declared, precision = _from_config(_config(folder), folder.resolve().name)
    notes = list(declared.notes)
    weights = next((folder / n for n in _WEIGHT_FILES if _exists(folder / n)), None)
    report = None
    if weights is not None:
        tensors, files = read_tensor_table(weights)
        spec = parse_scenario({"model": block}).model
        table = group_table(_records(tensors), block["layers"])
        if not declared.quantised:  # unquantised: the matrices' stored dtype
            mats: dict[str, int] = {}
            for g in _MATRICES:
                for d, n in table.whole.get(g, {}).items():
                    mats[d] = mats.get(d, 0) + n
            precision["weights"] = dominant(mats) or precision["weights"]
        precision, more = follow_headers(spec, precision, table, declared.quantised)
        notes += more
        report = check(spec, precision, table)
        report.update(
            format="safetensors", files=len(files), file_bytes=sum(os.stat(f).st_size for f in files)
        )
    else:
        notes.append(
            "no model.safetensors (or index) beside config.json: the precision is the config's, unchecked"
        )
    return _result(block, precision, report, notes)


def import_model(path: str | Path) -> dict[str, Any]:
    """A model folder, a config.json (its folder's safetensors are read when it is named
    config.json), a ``.safetensors`` file or index in a model folder, or a GGUF file (or a
    folder holding one) -> the import (module doc). ScenarioError names what is wrong."""
    p = Path(path)
    if not _exists(p):
        raise ScenarioError("import", f"{p}: no such file or folder")
    if p.is_dir():
        if _exists(p / "config.json"):
            out, fmt = import_folder(p), "huggingface"
        else:
            gguf = _folder_gguf(p)
            if gguf is None:
                raise ScenarioError("import", f"{p}: a model folder needs a config.json or one .gguf file")
            out, fmt, p = import_gguf(gguf), "gguf", gguf
    elif _is_gguf(p):
        out, fmt = import_gguf(p), "gguf"
    elif p.name.endswith(".gguf"):  # was read as a config.json: "config holds NUL bytes"
        raise ScenarioError("import", f"{p.name} is not a GGUF file (it does not start with GGUF)")
    elif p.name == "config.json" or p.name.endswith((".safetensors", ".index.json")):
        out, fmt = import_folder(p.parent), "huggingface"
    else:  # another JSON file: a config without weights beside it
        cfg, _ = read_json(p, "config", MAX_CONFIG_BYTES)
        if not isinstance(cfg, dict):
            raise ScenarioError("import", f"{p.name} is neither a GGUF file nor a config.json")
        block, declared, precision = _from_config(cfg, p.stem)
        out, fmt = _result(block, precision, None, declared.notes), "huggingface"
    return {"source": str(p), "format": fmt, "name": out["model"]["name"], **out}


def imported_scenario(result: dict[str, Any], base: dict[str, Any] | None = None) -> dict[str, Any]:
    """A scenario dict with the imported model (``base``: a scenario whose other blocks are
    kept; default: serving the model). A serving scenario takes the checkpoint's precision;
    a training one keeps its own (core/model/checkpoint.py: training dequantises)."""
    data = dict(base or {"name": result["name"], "workload": {"kind": "inference"}})
    data["model"] = result["model"]
    if follows_checkpoint(data.get("workload")):
        precision = dict(data.get("precision") or {})
        for key in PRECISION_FIELDS:
            precision[key] = result["precision"].get(key)
        data["precision"] = precision
    return data
