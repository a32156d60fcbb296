"""An option's layout in words (``TP 8 x PP 2 x DP 4 (ZeRO 1)``), as the advice, the need and
the stated layout say it (core/sizing/advise.py, advise_need.py, level_count.py, stated.py):
the parallel degrees, the experts' and attention's spans, recompute and what the layout keeps
in host RAM. Importable from core/sizing/option.py as before."""

from __future__ import annotations

from typing import Any


def layout_label(par: dict[str, Any], training: bool) -> str:
    """``TP 8 x PP 2 x DP 4 (ZeRO 1)``, with CP, EP, attention DP and recompute when they are
    used (``TP 72 x PP 1 x DP 1, EP 72, attention DP 72``: core/sizing/stated.py's wording) and
    the experts' TP where set (``TP 8 x PP 1 x DP 8 (ZeRO 1), EP 8, expert TP 1``)."""
    cp = f" x CP {par['context']}" if par["context"] > 1 else ""
    out = f"TP {par['tensor']} x PP {par['pipeline']}{cp} x DP {par['data']}"
    out += f" (ZeRO {par['zero_stage']})" if training else ""
    out += f", EP {par['expert']}" if par["expert"] > 1 else ""
    out += _engines(par) if par.get("expert_per_replica") else ""
    out += f", expert TP {par['expert_tensor']}" if par.get("expert_tensor") is not None else ""
    out += f", attention DP {par['attention_data']}" if par.get("attention_data", 1) > 1 else ""
    out += f", recompute {par['recompute']}" if training and par["recompute"] != "none" else ""
    return out + (_offloads(par) if training else "")


def _offloads(par: dict[str, Any]) -> str:
    """``, offloaded checkpoints, optimizer offload``: what the layout keeps in host RAM. A plan of
    a 7B pre-training on two RTX 5090 read "TP 1 x PP 1 x DP 2 (ZeRO 3), recompute full" where the
    option also offloads the checkpoints and the optimizer (its note said so): the host RAM and
    the PCIe time a buyer sizes the box for were not in the layout."""
    act = par.get("activation_offload") or "none"
    words = {"none": [], "checkpoints": ["offloaded checkpoints"]}.get(act, ["offloaded activations"])
    words += ["parameter offload"] if par.get("offload_parameters") else []
    words += ["optimizer offload"] if par.get("offload_optimizer") else []
    return "".join(f", {w}" for w in words)


def _engines(par: dict[str, Any]) -> str:
    """`` within each engine (19 engines of TP 8 with EP 8)``: the replicas are independent
    engines whose experts are split over their own TP ranks (``parallelism.expert_per_replica``;
    core/serving/expert_per_replica.py), not one engine's EP over the replicas."""
    n, tp, ep = par["data"], par["tensor"], par["expert"]
    return f" within each engine ({n} engine{'s' if n > 1 else ''} of TP {tp} with EP {ep})"
