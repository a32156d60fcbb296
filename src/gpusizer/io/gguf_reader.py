"""Read a GGUF file's metadata and tensor table, never its weights, within fixed bounds.

Format (llama.cpp ``ggml/docs/gguf.md``; gguf-py ``constants.py`` gives the numbers): the magic
``GGUF``, a u32 version (2 or 3; a file of the other byte order shows 0 in the low half), u64
tensor and key-value counts, the key-value pairs (a string key, a u32 value type, the value;
strings are a u64 length and UTF-8 bytes; an array is a u32 element type, a u64 count and the
elements), then per tensor its name, u32 dimension count, u64 dimensions (the fastest first),
u32 ggml type and u64 offset into the data, which starts at the next multiple of
``general.alignment`` (default 32). A tensor of a type with blocks of B values of S bytes
holds ``elements / B x S`` bytes (``GGML_QUANT_SIZES``).

Why not gguf-py's own ``GGUFReader``: it maps the whole file and builds numpy objects for every
metadata element and tensor with no limit on the counts. An array that claims 2^60 elements
past the end of the file loops forever (each element read there is empty and the offset does
not move), a 10^6-tensor table costs seconds and hundreds of MB, and ``np.memmap`` opens a FIFO
with a blocking open. Here the header is parsed from at most :data:`MAX_HEADER_BYTES` read from
a regular file (core/readfile.py), counts are checked against limits and against the bytes left
before anything is allocated for them, fixed-size arrays are skipped arithmetically, and only
small values are kept. The type tables are gguf-py's, so new llama.cpp types arrive with it.
"""

from __future__ import annotations

import itertools
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from ..core.errors import ScenarioError, excerpt
from ..core.readfile import MiB, open_regular

MAX_HEADER_BYTES = 64 * MiB  # Llama 3's header (128k tokens, 280k merges) is about 9 MB
MAX_TENSORS = 2**17  # as safetensors_header.MAX_TENSORS; DeepSeek-V3 GGUFs hold ~1,100
MAX_KEYS = 2**16  # real files carry 20-60 keys
MAX_STRINGS = 2**21  # per array; the largest vocabularies are 262,144 tokens (Gemma 3)
KEEP_ARRAY = 4096  # arrays up to this long are kept (per-layer head counts); longer: counted
KEEP_STRING = 4096  # longer strings (chat templates) are skipped
_SCALARS = {
    0: "B",
    1: "b",
    2: "H",
    3: "h",
    4: "I",
    5: "i",
    6: "f",
    7: "?",
    10: "Q",
    11: "q",
    12: "d",
}  # GGUFValueType -> struct format
_STRING, _ARRAY = 8, 9


@dataclass(frozen=True)
class GGUFArray:
    """An array value: its element type, length, and the values when short."""

    type: int
    count: int
    values: tuple[Any, ...] | None


@dataclass(frozen=True)
class GGUFTensor:
    name: str
    type: int  # GGMLQuantizationType
    dims: tuple[int, ...]  # fastest-varying first (ne0 = row length)
    elements: int
    bytes: int
    offset: int


@dataclass(frozen=True)
class GGUFFile:
    version: int
    metadata: dict[str, Any]
    tensors: tuple[GGUFTensor, ...]
    file_bytes: int
    data_start: int


class _Header:
    """The file read forward from its start, into memory at most MAX_HEADER_BYTES."""

    def __init__(self, fh: BinaryIO, size: int, path: Path) -> None:
        self.fh, self.size, self.path = fh, size, path
        self.buf, self.pos, self.order = bytearray(), 0, "<"

    def bad(self, why: str) -> ScenarioError:
        return ScenarioError("gguf", f"{self.path.name}: {why}")

    def fill(self, end: int) -> None:
        """Have the file's first ``end`` bytes in memory (read forward in 1 MiB steps)."""
        if end <= len(self.buf):
            return
        if end > self.size:
            raise self.bad(f"truncated: the header runs past the end of the file at byte {end:,}")
        if end > MAX_HEADER_BYTES:
            raise self.bad(f"the header is over {MAX_HEADER_BYTES // MiB} MiB; not read")
        want = min(max(end - len(self.buf), MiB), MAX_HEADER_BYTES - len(self.buf))
        try:
            self.buf += self.fh.read(want)
        except OSError as exc:
            raise self.bad(f"cannot read: {exc.strerror or exc}") from None
        if end > len(self.buf):
            raise self.bad("truncated: the file ended while its header was read")

    def need(self, n: int) -> int:
        """Make ``n`` more bytes available; return where they start."""
        start = self.pos
        self.fill(start + n)
        self.pos = start + n
        return start

    def skip_strings(self, count: int) -> None:
        """Step over ``count`` strings (a tokenizer's list) without decoding or keeping them."""
        unpack = struct.Struct(self.order + "Q").unpack_from
        pos, buf = self.pos, self.buf
        for _ in range(count):
            if pos + 8 > len(buf):
                self.fill(pos + 8)
            end = pos + 8 + unpack(buf, pos)[0]
            if end > len(buf):
                self.fill(end)
            pos = end
        self.pos = pos

    def scalar(self, fmt: str) -> Any:
        size = struct.calcsize(fmt)
        return struct.unpack_from(self.order + fmt, self.buf, self.need(size))[0]

    def string(self, limit: int) -> str | None:
        """A string; None when longer than ``limit`` (skipped, never decoded)."""
        n = self.scalar("Q")
        if n > self.size - self.pos:
            raise self.bad(f"truncated: a string of {n:,} bytes runs past the end of the file")
        start = self.need(n)
        if n > limit:
            return None
        try:
            return bytes(self.buf[start : start + n]).decode("utf-8")
        except UnicodeDecodeError:
            raise self.bad(f"a string at byte {start:,} is not UTF-8") from None

    def value(self, vtype: int, nested: bool = False) -> Any:
        if vtype in _SCALARS:
            return self.scalar(_SCALARS[vtype])
        if vtype == _STRING:
            return self.string(KEEP_STRING)
        if vtype == _ARRAY and not nested:
            return self.array()
        raise self.bad(
            f"unknown metadata value type {vtype}"
            if vtype != _ARRAY
            else "arrays of arrays are not GGUF metadata"
        )

    def array(self) -> GGUFArray:
        etype, count = self.scalar("I"), self.scalar("Q")
        if etype in _SCALARS:
            size = struct.calcsize(_SCALARS[etype])
            if count * size > self.size - self.pos:
                raise self.bad(f"truncated: an array of {count:,} values runs past the end")
            if count > KEEP_ARRAY:
                self.need(count * size)  # skipped, not parsed
                return GGUFArray(etype, count, None)
            start = self.need(count * size)
            values = struct.unpack_from(f"{self.order}{count}{_SCALARS[etype]}", self.buf, start)
            return GGUFArray(etype, count, tuple(values))
        if etype != _STRING:
            raise self.bad(f"unknown array element type {etype}")
        if count > MAX_STRINGS or count * 8 > self.size - self.pos:
            raise self.bad(f"an array claims {count:,} strings; at most {MAX_STRINGS:,} are read")
        if count > KEEP_ARRAY:
            self.skip_strings(count)
            return GGUFArray(etype, count, None)
        return GGUFArray(etype, count, tuple(self.string(KEEP_STRING) for _ in range(count)))


def _open(path: Path) -> tuple[BinaryIO, int]:
    fh, _ = open_regular(path, "gguf", 2**62)  # regular files only; the size is not a limit
    return fh, os.fstat(fh.fileno()).st_size


def read_gguf(path: str | Path) -> GGUFFile:
    """The metadata and tensor table of a GGUF file; ScenarioError (field ``gguf``) naming the
    file for anything that is not a well-formed GGUF (module doc)."""
    p = Path(path)
    fh, size = _open(p)
    with fh:
        h = _Header(fh, size, p)
        if size < 24 or bytes(h.buf[h.need(4) : 4]) != b"GGUF":
            raise h.bad("not a GGUF file (it does not start with the GGUF magic)")
        version = h.scalar("I")
        if version & 0xFFFF == 0:  # written on the other byte order (gguf-py GGUFReader)
            h.order, version = ">", int.from_bytes(struct.pack("<I", version), "big")
        if version not in (2, 3):
            raise h.bad(f"GGUF version {version} is not read (versions 2 and 3 are)")
        tensor_count, kv_count = h.scalar("Q"), h.scalar("Q")
        if tensor_count > MAX_TENSORS or kv_count > MAX_KEYS:
            raise h.bad(
                f"{tensor_count:,} tensors and {kv_count:,} metadata keys; at most "
                f"{MAX_TENSORS:,} and {MAX_KEYS:,} are read"
            )
        metadata = _metadata(h, kv_count)
        tensors = [_tensor_info(h) for _ in range(tensor_count)]
        data_start = _data_start(h, metadata)
    return GGUFFile(version, metadata, _checked(h, tensors, data_start, metadata), size, data_start)


def _metadata(h: _Header, count: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for _ in range(count):
        key = h.string(KEEP_STRING)
        if key is None or key in out:
            raise h.bad(f"metadata key {excerpt(key)} is too long or given twice")
        out[key] = h.value(h.scalar("I"))
    return out


def _tensor_info(h: _Header) -> tuple[str, tuple[int, ...], int, int]:
    name = h.string(1024)
    if name is None:
        raise h.bad("a tensor name is over 1,024 bytes")
    n_dims = h.scalar("I")
    if not 1 <= n_dims <= 4:  # GGML_MAX_DIMS
        raise h.bad(f"tensor {excerpt(name)} has {n_dims} dimensions (1 to 4 are allowed)")
    dims = tuple(h.scalar("Q") for _ in range(n_dims))
    return name, dims, h.scalar("I"), h.scalar("Q")


def _data_start(h: _Header, metadata: dict[str, Any]) -> int:
    align = metadata.get("general.alignment", 32)
    if isinstance(align, bool) or not isinstance(align, int) or align <= 0 or align & (align - 1):
        raise h.bad(f"general.alignment must be a power of two; got {excerpt(align)}")
    return -(-h.pos // align) * align


def _checked(
    h: _Header, infos: list[tuple[str, tuple[int, ...], int, int]], data_start: int, metadata: dict[str, Any]
) -> tuple[GGUFTensor, ...]:
    """Known types, whole blocks, unique names, aligned tensors inside the file, no overlap."""
    from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType

    sizes = {int(t): s for t, s in GGML_QUANT_SIZES.items()}
    align = metadata.get("general.alignment", 32)
    out: list[GGUFTensor] = []
    for name, dims, ttype, offset in infos:
        if ttype not in sizes:
            raise h.bad(f"tensor {excerpt(name)} has unknown ggml type {ttype}")
        block, type_size = sizes[ttype]
        elements = 1
        for d in dims:
            elements *= d
        if elements > 2**50 or dims[0] % block:
            raise h.bad(
                f"tensor {excerpt(name)}: shape {list(dims)} does not fit type "
                f"{GGMLQuantizationType(ttype).name}"
            )
        nbytes = elements // block * type_size
        if offset % align or data_start + offset + nbytes > h.size:
            raise h.bad(
                f"truncated or misplaced: tensor {excerpt(name)} ({nbytes:,} bytes at "
                f"offset {offset:,}) does not lie inside the file"
            )
        out.append(GGUFTensor(name, ttype, dims, elements, nbytes, offset))
    if len({t.name for t in out}) != len(out):
        raise h.bad("a tensor name appears twice")
    ordered = sorted(out, key=lambda t: t.offset)
    for a, b in itertools.pairwise(ordered):
        if b.offset < a.offset + a.bytes:
            raise h.bad(f"tensors {excerpt(a.name)} and {excerpt(b.name)} overlap")
    return tuple(out)
