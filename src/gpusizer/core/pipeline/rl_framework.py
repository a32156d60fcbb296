"""``rl.framework`` and ``rl.framework_version``: a framework release's defaults for the
``rl.*`` knobs the user left out (core/registry/rl_frameworks.py), and what the answer says of
them.

The defaults are filled into the scenario dict before validation, as a training framework's
profile defaults are (core/memory/techniques.py ``fill_profile_defaults``): a knob present in
the input is the user's and always wins, and the echo states every knob, so a saved scenario
loads back the same. With ``rl.framework`` null nothing is filled: the answer is the one the
knobs give alone. The report's ``rl.framework`` block and the assumption line are read back
from the validated scenario: a knob whose value is the release's default is counted as set by
it (a saved echo states them all), any other as set by the user.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ScenarioError, excerpt
from ..model.rl_spec import RLSpec
from ..registry.engines import release
from ..registry.frameworks import FRAMEWORKS
from ..registry.rl_frameworks import RL_FRAMEWORKS, RLFramework, RLRelease
from ..registry.stack_names import rl_framework_hint
from ..suggest import did_you_mean
from .rl_micro_rounds import fill_micro_rounds, switch_rounds

FIELD, VERSION = "rl.framework", "rl.framework_version"
_ENGINE = RLSpec().rollout.engine  # the rollout engine where the input names none


def _framework(rl: dict[str, Any]) -> RLFramework | None:
    """The framework the ``rl`` block names (None: null); ScenarioError naming the field and
    the registered ids for any other value."""
    fid = rl.get("framework")
    if fid is None:
        if rl.get("framework_version") is not None:
            raise ScenarioError(VERSION, f"needs {FIELD} (one of {', '.join(RL_FRAMEWORKS)})")
        return None
    hint = None if isinstance(fid, str) and fid in RL_FRAMEWORKS else rl_framework_hint(fid)
    if hint:  # a framework's other spelling, or one whose defaults are not modelled
        raise ScenarioError(FIELD, f"{hint}; got {excerpt(fid)}")
    if not isinstance(fid, str) or fid not in RL_FRAMEWORKS:
        raise ScenarioError(
            FIELD,
            f"unknown RL framework {excerpt(fid)}{did_you_mean(fid, RL_FRAMEWORKS)}; must be one of "
            f"{', '.join(RL_FRAMEWORKS)}, or null (the knobs as set)",
        )
    return RL_FRAMEWORKS[fid]


def framework_release(fw: RLFramework, version: object) -> RLRelease:
    """The release of ``fw`` whose defaults apply to ``version``; ScenarioError naming
    ``rl.framework_version`` and the modelled releases where none does."""
    if version is not None and not isinstance(version, str):
        raise ScenarioError(
            VERSION, f"must be a version string, e.g. {fw.versions[-1]!r}; got {excerpt(version)}"
        )
    try:
        return fw.release(version)
    except KeyError:
        raise ScenarioError(
            VERSION,
            f"{fw.label} has no modelled release at or before {excerpt(version)}; modelled: "
            f"{', '.join(fw.versions)} (a version between two takes the older one's), or null "
            "(the newest)",
        ) from None


def fill_rl_framework(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with the release's defaults where the ``rl`` block leaves a knob out (a new
    dict; ``data`` itself untouched). Unchanged without ``rl.framework``."""
    rl = data.get("rl")
    if not isinstance(rl, dict):
        return data
    fw = _framework(rl)
    if fw is None:
        return data
    rel = framework_release(fw, rl.get("framework_version"))
    out = _copy_blocks(rl)
    rollout = out.get("rollout")
    engine = rollout.get("engine", _ENGINE) if isinstance(rollout, dict) else _ENGINE
    version = rollout.get("engine_version") if isinstance(rollout, dict) else None
    for d in rel.applicable(engine, version):
        *blocks, leaf = d.path.split(".")
        blk: Any = out
        for b in blocks:
            blk = blk.setdefault(b, {}) if isinstance(blk, dict) else None
        if isinstance(blk, dict) and leaf not in blk:
            blk[leaf] = d.value
    if rel.rounds_per_micro_step:
        fill_micro_rounds(data, out)
    return {**data, "rl": out}


def _copy_blocks(rl: dict[str, Any]) -> dict[str, Any]:
    """The ``rl`` block with its sub-blocks copied, so filling leaves the caller's dict alone."""
    return {k: dict(v) if isinstance(v, dict) else v for k, v in rl.items()}


def switch_edits(
    value: Callable[[str], object], old: RLRelease | None, new: RLRelease | None
) -> dict[str, object]:
    """The knob edits (paths under ``rl.``) of a switch of framework or release from ``old``
    (None: no framework) to ``new`` (None: none, the knobs stay as set), read as the report's
    ``as_set`` reads them: a knob at ``old``'s default, or at the field's own default where
    ``old`` does not set it, came with the framework and follows ``new`` (its default, else the
    field's); a knob set otherwise is the user's and stays, as an explicit knob in a file wins.
    ``value`` reads a path's current value (the window's state). Switching back and forth kept
    no hand-set knob before: each switch wrote every knob of the new release."""
    if new is None:
        return {}
    field = RLSpec()
    out: dict[str, object] = {}
    engine = value("rl.rollout.engine") or _ENGINE
    version = value("rl.rollout.engine_version")
    paths = (d.path for r in (old, new) if r is not None for d in r.applicable(engine, version))
    for path in dict.fromkeys(paths):
        own = _value(field, path)
        if value(f"rl.{path}") == _default(old, path, own):
            out[f"rl.{path}"] = _default(new, path, own)
    return {**out, **switch_rounds(value, old, new, out)}


def _default(rel: RLRelease | None, path: str, own: object) -> object:
    """``path``'s default under ``rel``, else ``own`` (the field's default)."""
    try:
        return own if rel is None else rel.value(path)
    except KeyError:
        return own


def _value(rl: RLSpec, path: str) -> object:
    obj: Any = rl
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def framework_block(rl: RLSpec) -> dict[str, Any] | None:
    """The report's ``rl.framework`` (contract: docs/scenario-format.md): the framework, the
    version asked, the release whose defaults apply, the knobs at its defaults (path under
    ``rl`` -> value) and those the user set otherwise; None where ``rl.framework`` is null.
    ``others_set``: knobs another modelled release sets (NeMo RL's ``sync_transport``
    ``collective`` under verl) that this one leaves alone, set away from the field's default:
    they win too, and are named, so a knob of another framework is not priced in silence; a
    layout knob (RLDefault ``own_only``: TRL's placement, reference, samples) is the user's run
    under another framework and not named there."""
    if rl.framework is None:
        return None
    fw = RL_FRAMEWORKS[rl.framework]
    rel = fw.release(rl.framework_version)
    # a vLLM pin is no default of an SGLang rollout, nor a V1 default of a V0 one
    mine = rel.applicable(rl.rollout.engine, rl.rollout.engine_version)
    applied = {f"rl.{d.path}": d.value for d in mine if _value(rl, d.path) == d.value}
    own = {d.path for d in rel.defaults}
    known = dict.fromkeys(
        d.path for f in RL_FRAMEWORKS.values() for r in f.releases for d in r.defaults if not d.own_only
    )
    field = RLSpec()
    return {
        "id": fw.id,
        "label": fw.label,
        "version": rl.framework_version,
        "release": rel.version,
        "release_date": rel.date,
        "defaults": applied,
        "as_set": [f"rl.{d.path}" for d in mine if f"rl.{d.path}" not in applied],
        "others_set": [f"rl.{p}" for p in known if p not in own and _value(rl, p) != _value(field, p)],
    }


def _shown(value: object) -> str:
    return "null" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


def framework_note(block: dict[str, Any] | None) -> str | None:
    """The assumption line of a report's ``rl.framework`` block (None: no framework), worded as
    the serving engines' release line (core/serving/engine_memory.py ``serving_notes``)."""
    if block is None:
        return None
    label, asked, rel = block["label"], block["version"], block["release"]
    if asked is not None and asked.strip().lower().removeprefix("v") != rel:  # "v0.7.0" is 0.7.0
        head = (
            f"{label} {asked}: the defaults of release {rel} ({block['release_date']}), "
            "the newest modelled not newer"
        )
    else:
        head = f"{label} {rel} defaults ({block['release_date']})"
    said = ", ".join(f"{p} {_shown(v)}" for p, v in block["defaults"].items())
    kept = f"; as set: {', '.join(block['as_set'])}" if block["as_set"] else ""
    others = block.get("others_set")
    beyond = f"; set beyond release {rel}'s defaults: {', '.join(others)}" if others else ""
    return f"{head}: {said or 'none of its knobs'}{kept}{beyond}"


def rollout_release_note(rl: RLSpec) -> str | None:
    """The assumption line of a rollout release the catalog does not model (a framework's pin,
    NeMo RL 0.4.0's vLLM 0.10.0, or the user's): the modelled release whose rules it takes,
    worded as a serving estimate's (core/serving/engine_memory.py ``serving_notes``). None where
    the release is modelled, unset, or unknown (the rollout's own check names it)."""
    asked = rl.rollout.engine_version
    profile = FRAMEWORKS.get(rl.rollout.engine)
    if asked is None or profile is None or not profile.releases:
        return None
    try:
        rel = release(profile.releases, asked)
    except KeyError:
        return None
    if rel.version == asked:
        return None
    return (
        f"rollout {profile.label} {asked}: the rules of release {rel.version} ({rel.date}), "
        "the newest modelled not newer"
    )
