"""The readable table ``gpusizer-cli estimate`` prints without ``--json``."""

from __future__ import annotations

from typing import Any

from ..core.model.result import COMPONENTS
from .band_text import fit_band_line
from .evidence_text import how_sure, peak_band
from .preference_text import preference_line
from .rl_role_text import peak_roles_line, policy_words
from .rl_text import rl_lines
from .serving_text import serving_lines, training_line, user_tokens
from .units import to_unit
from .wording import fit_of_report, verdict_phrase


def _row(label: str, n: float) -> str:
    return f"  {label:<13}{to_unit(n, 'GiB'):>12,.2f} GiB{to_unit(n, 'GB'):>12,.2f} GB"


def text_report(rep: dict[str, Any]) -> str:
    """Components in GiB and GB, the peak and its phase, fits or not, headroom."""
    s, p, g = rep["scenario"], rep["parameters"], rep["gpu"]
    pref = s["workload"].get("preference")  # a preference fine-tune names its method
    kind = s["workload"]["kind"] + (f" {pref['method']}" if pref else "")
    lines = [
        f"{s['model']['name']} · {kind} · {s['framework']} · {rep['cluster']['gpus']} x {g['name']}",
        f"  parameters   {p['total'] / 1e9:,.3f} B total, {p['active'] / 1e9:,.3f} B active, "
        f"{p['trainable'] / 1e9:,.3f} B trainable",
        "",
        f"  {'per GPU':<13}{'GiB':>16}{'GB':>15}",
    ]
    lines += [_row(c, rep["per_gpu"][c]) for c in COMPONENTS]
    lines.append(_row("peak", rep["per_gpu"]["total"]) + f"   ({rep['peak_phase']})")
    band = peak_band(rep)
    if band:
        lines.append(f"  {'band':<13}{band:>16}   (runs like this, 80 % of published figures)")
    lines.append(_row("capacity", g["memory_bytes"]))
    lines.append(f"  {verdict_phrase(fit_of_report(rep), 'GiB', also='GB')}")  # io/wording.py
    flip = fit_band_line(rep)  # the verdict flips inside the peak's band (io/band_text.py)
    if flip:
        lines.append(f"  {'band':<13}{flip}")
    if rep.get("host_memory_bytes"):  # offloaded / paged tensors in system RAM, not the peak
        lines.append(_row("host RAM", rep["host_memory_bytes"]) + "   (per GPU, system memory)")
    sv = rep.get("serving")
    if sv is not None:
        w = s["workload"]
        split = (s.get("serving") or {}).get("disaggregated")
        lines += ["", *serving_lines(sv, user_tokens(sv, w["prompt_tokens"], w["generated_tokens"]), split)]
    train = None if sv is not None else training_line(rep["compute"], rep["cluster"]["gpus"])
    if train:
        lines += ["", train]
    pref = preference_line(rep.get("preference"))  # io/preference_text.py
    if pref:
        lines.append(pref)
    if rep.get("rl") is not None:
        lines += ["", *rl_lines(rep["rl"])]
        roles = peak_roles_line(rep["rl"], "GiB", policy_words(s))  # which role holds the peak
        if roles:
            lines.append("  " + roles)
    lines += ["", "  " + how_sure(rep)]
    if rep.get("assumptions"):
        lines += ["", "  assumes: " + "; ".join(rep["assumptions"])]
    return "\n".join(lines)
