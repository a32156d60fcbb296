"""Preset data: one JSON file per model, per GPU and per system, read with importlib.resources.

Files live in ``gpusizer/presets/models``, ``gpusizer/presets/gpus`` and
``gpusizer/presets/systems``; each carries its sources. User GPUs (stored with the app's
settings) are merged in by id, never overriding a catalog id. Systems (the units a buyer buys:
servers, racks, workstations, desk-side boxes; core/model/system_spec.py) are read strictly:
strict JSON, at most :data:`MAX_SYSTEM_BYTES` each, the file named after its id, its GPU a
catalog GPU; a bad file is an error at first use, not a skipped entry (it ships with the app).
"""

from __future__ import annotations

import json
import os
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..errors import ScenarioError, excerpt, from_validation
from ..readfile import MiB, parse_json_object, read_json
from ..registry.host_cpus import DEFAULT_HOST_CPU, HOST_CPUS, HostCPU
from .specs import GPUSpec, HardwareSpec, Scenario
from .system_spec import SystemSpec
from .unified import effective_gpu

USER_GPUS_ENV = "GPUSIZER_USER_GPUS"  # a JSON file of user GPUs (the GUI points it at settings)


def _read_dir(sub: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    folder = resources.files("gpusizer.presets").joinpath(sub)
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".json"):
            continue
        data = json.loads(entry.read_text(encoding="utf-8"))
        out[data.get("id", entry.name[:-5])] = data
    return out


@cache
def model_presets() -> dict[str, dict[str, Any]]:
    """All model presets by id: ``{"llama-3.1-8b": {...model fields..., "source_url": ...}}``."""
    return _read_dir("models")


@cache
def _catalog_gpus() -> dict[str, dict[str, Any]]:
    return _read_dir("gpus")


MAX_SYSTEM_BYTES = 32 * 1024  # a system entry is about 3 KB


@cache
def system_presets() -> dict[str, SystemSpec]:
    """Catalog systems by id, validated (ScenarioError naming the file and field otherwise)."""
    out: dict[str, SystemSpec] = {}
    folder = resources.files("gpusizer.presets").joinpath("systems")
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".json"):
            continue
        raw = entry.read_bytes()
        field = f"systems/{entry.name}"
        if len(raw) > MAX_SYSTEM_BYTES:
            raise ScenarioError(field, f"{len(raw):,} bytes; at most {MAX_SYSTEM_BYTES:,}")
        data = parse_json_object(raw.decode("utf-8"), field, entry.name)
        try:
            spec = SystemSpec(**data)
        except ValidationError as exc:
            raise from_validation(exc, (field,)) from None
        if spec.id != entry.name[:-5] or spec.gpu not in _catalog_gpus():
            raise ScenarioError(field, f"id must be the file name and gpu a catalog GPU; got {spec.gpu!r}")
        out[spec.id] = spec
    return out


def gpu_systems(gpu_id: str) -> list[SystemSpec]:
    """The catalog systems built of this GPU (or catalog alias), fewest GPUs first."""
    gid = resolve_gpu_id(gpu_id)
    return sorted((s for s in system_presets().values() if s.gpu == gid), key=lambda s: (s.gpus, s.id))


def nvlink_domain(gpu_id: str) -> int | None:
    """GPUs of the one NVLink domain that every catalog system of this GPU is (its scale-up
    link an NVLink spanning the whole system: 72 in a GB200/GB300 NVL72 rack, 8 on an HGX
    board); None where the GPU has no catalog system or its systems are not all one NVLink
    domain of one size (a workstation's PCIe cards, a Mac, an Instinct's Infinity Fabric).

    The domain, not the host: an NVL72 compute tray (4 GPUs, 2 Grace CPUs) is the host where
    host-side links matter (core/model/node.py ``host_gpus``); the domain is what tensor
    and expert parallelism and NCCL's collectives span (multi-node NVLink, the system file's
    ``scale_up.source``)."""
    systems = gpu_systems(gpu_id)
    sizes = {s.scale_up.domain_gpus for s in systems if s.scale_up.kind == "nvlink"}
    whole = all(s.scale_up.kind == "nvlink" and s.scale_up.domain_gpus == s.gpus for s in systems)
    return sizes.pop() if systems and whole and len(sizes) == 1 else None


def host_cpu(hw: HardwareSpec) -> HostCPU:
    """The host CPU of ``hw`` (core/registry/host_cpus.py): ``hardware.host_cpu`` where given
    and it hosts the GPU's vendor, else the one every catalog system of a catalog GPU names
    (Grace for a GB200 or GB300, whose only systems are NVL72 racks), else x86 (a GPU sold in
    x86 servers, or one without systems). A scenario naming a host its own GPU cannot have is
    refused (:func:`check_host`); the vendor test here keeps ``plan`` and ``compare``,
    which carry the scenario's host to every GPU type, from timing an AMD or Apple GPU on Grace."""
    stated = HOST_CPUS.get(hw.host_cpu) if hw.host_cpu is not None else None
    if stated is not None and stated.hosts(_vendor(hw.gpu)):
        return stated
    return HOST_CPUS[_systems_host(hw.gpu) if isinstance(hw.gpu, str) else DEFAULT_HOST_CPU]


def _vendor(gpu: str | GPUSpec) -> str:
    if isinstance(gpu, GPUSpec):
        return gpu.vendor
    try:
        return gpu_spec(gpu).vendor
    except KeyError:  # not a GPU of the catalog or the user's file: as an inline spec
        return "custom"


def check_host(s: Scenario) -> None:
    """``hardware.host_cpu`` hosts the GPU's vendor (core/registry/host_cpus.py: Grace only
    NVIDIA's); timing an AMD or Apple GPU's launches on Grace was a silent answer."""
    name = s.hardware.host_cpu
    cpu = HOST_CPUS.get(name) if name is not None else None
    if cpu is None:
        return
    vendor = scenario_gpu(s).vendor
    if not cpu.hosts(vendor):
        able = ", ".join(c.id for c in HOST_CPUS.values() if c.hosts(vendor))
        only = " or ".join(cpu.gpu_vendors)
        msg = f"{cpu.short} hosts only {only} GPUs; the GPU's vendor is {vendor}: set {able} or null"
        raise ScenarioError("hardware.host_cpu", msg)


@cache
def _systems_host(gpu_id: str) -> str:
    named = {s.host_cpu for s in gpu_systems(gpu_id)}
    if len(named) == 1:
        return named.pop() or DEFAULT_HOST_CPU
    return DEFAULT_HOST_CPU


MAX_USER_GPU_BYTES = 1 * MiB  # a GPU entry is about 400 bytes
MAX_USER_GPUS = 1024  # entries read (the catalog has about 50 GPUs)
SHOWN_PROBLEMS = 3  # skipped entries named in the warning; the rest are counted
_GPU_META_KEYS = ("notes", "family", "form_factor", "release_year", "aliases")
# the last read: "key" (path, mtime, size), "gpus", "problems" (phrases), "skipped" (entries)
_USER: dict[str, Any] = {}


def user_gpu_file() -> Path | None:
    path = os.environ.get(USER_GPUS_ENV)
    return Path(path) if path else None


def _spec_fields(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in _GPU_META_KEYS}


def _catalog_id(gid: str) -> str | None:
    """What in the catalog already has this id ("GPU", "GPU's former id", "system") or None.
    A user GPU named like a system was priced at the system's price per card (a price keyed
    by a system id is per system), and one named like a catalog GPU was silently hidden."""
    if gid in _catalog_gpus():
        return "GPU"
    if gid in gpu_aliases():
        return "GPU's former id"
    return "system" if gid in system_presets() else None


def _read_user_gpus(path: Path) -> tuple[dict[str, dict[str, Any]], list[str], int]:
    """Valid entries by id, a phrase per problem and the entries skipped (validated here, so
    that a bad entry is skipped, never raised later by whoever lists or uses the GPUs)."""
    try:
        items, _ = read_json(path, "user GPUs", MAX_USER_GPU_BYTES)
    except ScenarioError as exc:
        return {}, [str(exc)], 1
    if not isinstance(items, list):
        return {}, [f"{path.name} must be a JSON list of GPU objects"], 1
    gpus: dict[str, dict[str, Any]] = {}
    problems: list[str] = []
    skipped = max(0, len(items) - MAX_USER_GPUS)
    if skipped:
        problems.append(f"{len(items):,} entries; the first {MAX_USER_GPUS:,} are read")
    for i, item in enumerate(items[:MAX_USER_GPUS], 1):
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            problems.append(f'entry {i} has no "id" string')
        elif (taken := _catalog_id(item["id"])) is not None:
            problems.append(f"{excerpt(item['id'])}: the id of a catalog {taken}")
        else:
            try:
                GPUSpec(**_spec_fields(item))
            except ValidationError as exc:
                problems.append(f"{excerpt(item['id'])}: {from_validation(exc)}")
            else:
                gpus[item["id"]] = item
                continue
        skipped += 1
    return gpus, problems, skipped


def _user_state() -> dict[str, Any]:
    """The user file as last read, read again when its path, size or mtime changes."""
    path = user_gpu_file()
    unreadable = ""
    try:
        st = os.stat(path) if path is not None else None
    except OSError as exc:  # no file yet is no GPUs; a file that cannot be reached is a warning
        st = None
        if path is not None and (not isinstance(exc, FileNotFoundError) or path.is_symlink()):
            unreadable = f"cannot read {path.name}: {exc.strerror or type(exc).__name__}"
    key = (str(path), st.st_mtime_ns, st.st_size) if st is not None else (str(path), unreadable)
    if _USER.get("key") != key or not _USER:
        if path is not None and st is not None:
            gpus, problems, skipped = _read_user_gpus(path)
        else:
            gpus, problems, skipped = {}, [unreadable] if unreadable else [], int(bool(unreadable))
        _USER.update(key=key, gpus=gpus, problems=problems, skipped=skipped)
    return _USER


def user_gpus() -> dict[str, dict[str, Any]]:
    """User-defined GPUs from the settings file (a JSON list of GPU objects): the valid ones
    (see :func:`user_gpu_problems` for those skipped)."""
    return dict(_user_state()["gpus"])


def user_gpu_skipped(gid: str) -> str:
    """Why the user GPU file's entry ``gid`` was skipped, as a clause for the one line that
    calls the id unknown ("" when the file has no such entry): the warning that names skipped
    entries comes only after a command that succeeded."""
    head = f"{excerpt(gid)}: "
    why = next((p[len(head) :] for p in _user_state()["problems"] if p.startswith(head)), None)
    return f"; the user GPU file has {excerpt(gid)} but skipped it ({why})" if why else ""


def user_gpu_problems() -> list[str]:
    """Why entries of the user GPU file were skipped (empty when none were), for a warning:
    the first few reasons and a count (340,000 bad entries made an 11 MB line)."""
    state = _user_state()
    problems, skipped = state["problems"], state["skipped"]
    if not problems:
        return []
    shown = "; ".join(problems[:SHOWN_PROBLEMS])
    if len(problems) > SHOWN_PROBLEMS:
        shown += f"; {len(problems) - SHOWN_PROBLEMS:,} more"
    entries = "entry" if skipped == 1 else "entries"
    return [f"user GPU file {user_gpu_file()}: skipped {skipped:,} {entries} ({shown})"]


def gpu_presets() -> dict[str, dict[str, Any]]:
    """Catalog GPUs plus the user's own, by id (catalog wins on a clash)."""
    merged = dict(user_gpus())
    merged.update(_catalog_gpus())
    return merged


@cache
def gpu_aliases() -> dict[str, str]:
    """Former catalog ids that saved scenarios may still name -> the entry they resolve to
    (an entry's ``aliases`` list; ``mi250x-128gb`` is now the per-GCD ``mi250x-gcd-64gb``)."""
    return {alias: gid for gid, data in _catalog_gpus().items() for alias in data.get("aliases", ())}


def resolve_gpu_id(gpu_id: str) -> str:
    """The catalog id an alias stands for; any other id unchanged."""
    return gpu_aliases().get(gpu_id, gpu_id)


@cache
def _gpu_spec_cached(gpu_id: str) -> GPUSpec:
    return GPUSpec(**_spec_fields(gpu_presets()[gpu_id]))


def gpu_spec(gpu_id: str) -> GPUSpec:
    """The catalog (or user) GPU with this id or catalog alias; KeyError if unknown."""
    gpu_id = resolve_gpu_id(gpu_id)
    if gpu_id in _catalog_gpus():
        return _gpu_spec_cached(gpu_id)
    return GPUSpec(**_spec_fields(user_gpus()[gpu_id]))


def scenario_gpu(s: Scenario) -> GPUSpec:
    """The scenario's GPU: a catalog or user GPU by id, or the inline spec, with the
    scenario's unified-memory share applied (core/model/unified.py)."""
    gpu = s.hardware.gpu
    spec = gpu if isinstance(gpu, GPUSpec) else gpu_spec(gpu)
    return effective_gpu(spec, s.hardware.gpu_memory_fraction)
