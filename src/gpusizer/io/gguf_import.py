"""A GGUF file -> a model block and the precision its tensor types show.

The architecture's metadata keys become the Hugging Face config they were converted from
(io/gguf_config.py), which goes through the same family readers as a config.json
(io/hf_config.py).

The precision: ``general.file_type`` names the llama.cpp quantisation (a rule of
core/registry/quant_rules.py where one exists), and the tensor types give each group's stored bytes
(io/checkpoint_check.py). A vision tower sits in a separate ``mmproj`` GGUF and is not counted.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..core.errors import ScenarioError, excerpt
from .checkpoint_check import Record, check, dominant, follow_headers, group_table
from .gguf_config import ARCHS, gguf_config
from .gguf_reader import MAX_TENSORS, GGUFFile, read_gguf
from .hf_config import import_hf_config

__all__ = ["ARCHS", "FILE_TYPES", "GGML_DTYPES", "gguf_config", "import_gguf"]

# general.file_type (gguf-py LlamaFileType) -> (weights dtype, quantisation rule)
FILE_TYPES = {
    0: ("fp32", "uniform"),
    1: ("fp16", "gguf-f16"),
    2: ("gguf_q4_0", "gguf-q4_0"),
    3: ("gguf_q4_1", "gguf-q4_1"),
    7: ("gguf_q8_0", "gguf-q8_0"),
    15: ("gguf_q4_k_m", "gguf-q4_k_m"),
    17: ("gguf_q5_k_m", "gguf-q5_k_m"),
    32: ("bf16", "uniform"),
    38: ("mxfp4", "gguf-mxfp4_moe"),
}
# ggml tensor types stored whole in one of our dtypes (core/registry/dtypes.py)
GGML_DTYPES = {
    "F32": "fp32",
    "F16": "fp16",
    "BF16": "bf16",
    "Q8_0": "gguf_q8_0",
    "Q4_0": "gguf_q4_0",
    "Q4_1": "gguf_q4_1",
    "Q5_0": "gguf_q5_0",
    "Q5_1": "gguf_q5_1",
    "Q2_K": "gguf_q2_k",
    "Q3_K": "gguf_q3_k",
    "Q4_K": "gguf_q4_k",
    "Q5_K": "gguf_q5_k",
    "Q6_K": "gguf_q6_k",
    "IQ4_XS": "gguf_iq4_xs",
    "IQ4_NL": "gguf_iq4_nl",
    "MXFP4": "mxfp4",
}
_MATRICES = ("attention", "mlp", "experts", "shared_experts")


def _merged(files: list[GGUFFile]) -> GGUFFile:
    """The first file's metadata with every file's tensors (for the config's tensor checks)."""
    first = files[0]
    if len(files) == 1:
        return first
    return GGUFFile(
        first.version,
        first.metadata,
        tuple(t for f in files for t in f.tensors),
        first.file_bytes,
        first.data_start,
    )


_SPLIT = re.compile(r"^(.*)-(\d{5})-of-(\d{5})\.gguf$")


def _shards(p: Path, f: GGUFFile) -> list[GGUFFile]:
    """Every file of a split GGUF (``split.count``; llama.cpp's gguf-split names the files
    ``NAME-00001-of-00003.gguf``): the first holds the metadata, each its part of the table."""
    count = f.metadata.get("split.count")
    if not isinstance(count, int) or count <= 1:
        return [f]
    name = _SPLIT.match(p.name)
    if name is None or int(name.group(3)) != count:
        raise ScenarioError(
            "gguf", f"{p.name}: split into {count} files, but the name is not NAME-00001-of-NNNNN.gguf"
        )
    files = [
        f
        if i == int(name.group(2))
        else read_gguf(p.with_name(f"{name.group(1)}-{i:05d}-of-{count:05d}.gguf"))
        for i in range(1, count + 1)
    ]
    if sum(len(x.tensors) for x in files) > MAX_TENSORS:
        raise ScenarioError("gguf", f"{p.name}: more than {MAX_TENSORS:,} tensors in all")
    names = [t.name for x in files for t in x.tensors]
    if len(set(names)) != len(names):
        raise ScenarioError("gguf", f"{p.name}: a tensor appears in two of its files")
    return files


def _records(files: list[GGUFFile]) -> list[Record]:
    from gguf.constants import GGMLQuantizationType

    out: list[Record] = []
    for t in (t for f in files for t in f.tensors):
        kind = GGMLQuantizationType(t.type).name
        out.append((t.name, kind, t.bytes, GGML_DTYPES.get(kind)))
    return out


def import_gguf(path: str | Path) -> dict[str, Any]:
    """A GGUF file -> ``{"model", "precision", "checkpoint", "notes"}`` (io/model_import.py)."""
    from ..core.pipeline.scenario import parse_scenario

    p = Path(path)
    f = read_gguf(p)
    if isinstance(f.metadata.get("split.no"), int) and f.metadata["split.no"] > 0:
        name = _SPLIT.match(p.name)  # a later file of a split GGUF: start from the first
        if name is not None:
            p = p.with_name(f"{name.group(1)}-00001-of-{name.group(3)}.gguf")
            f = read_gguf(p)
    files = _shards(p, f)
    cfg, notes = gguf_config(_merged(files), _SPLIT.sub(r"\1", p.name).removesuffix(".gguf"))
    block = import_hf_config(cfg)
    block["name"] = cfg["_name_or_path"]
    spec = parse_scenario({"model": block}).model
    table = group_table(_records(files), block["layers"])
    ftype = f.metadata.get("general.file_type")
    if ftype in FILE_TYPES:
        weights, rule = FILE_TYPES[ftype]
    else:  # another llama.cpp mix: its matrices' main type, the rest per group
        mats: dict[str, int] = {}
        for g in _MATRICES:
            for d, n in table.whole.get(g, {}).items():
                mats[d] = mats.get(d, 0) + n
        weights, rule = dominant(mats) or "bf16", "uniform"
        notes.append(
            f"file type {excerpt(ftype)} has no rule of its own: {weights} matrices, "
            "the other groups as stored"
        )
    precision, more = follow_headers(
        spec, {"weights": weights, "quantization_rule": rule}, table, quantised=True
    )
    block["checkpoint_precision"] = precision
    report = check(spec, precision, table)
    report.update(
        format="gguf", files=len(files), file_bytes=sum(x.file_bytes for x in files), gguf_version=f.version
    )
    return {"model": block, "precision": precision, "checkpoint": report, "notes": notes + more}
