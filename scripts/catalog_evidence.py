"""docs/evidence/catalog.md (issue 22): the comparison of the four buyer cases, top 10 on both
cost bases (renting on-demand, owning), each option on the system it is bought in.

    .venv/bin/python -m scripts.catalog_evidence > docs/evidence/catalog.md

The cases live in tests/core/buyer_cases.py (tests/core/test_buyer_cases.py checks them)."""

from __future__ import annotations

import sys
from typing import Any

from tests.core.buyer_cases import CASES, gpu_coverage, options_on_both, system_coverage

from gpusizer.core.model.presets import gpu_spec, system_presets
from gpusizer.core.pipeline.scenario import parse_scenario

TOP = 10
# The top 5 per case and basis before issue 22 (main at dc46c74, whole_nodes=True): GPU, GPUs,
# $ per million tokens. Measured with this script's cases on the earlier catalog.
BEFORE: dict[str, list[tuple[str, int, float]]] = {
    "70B serving, 50 users at 8k | cloud": [
        ("mi325x-256gb", 8, 2.91),
        ("mi300x-192gb", 8, 4.23),
        ("gh200-96gb", 4, 6.25),
        ("rtx-3090-24gb", 16, 6.79),
        ("a100-sxm-40gb", 8, 8.43),
    ],
    "70B serving, 50 users at 8k | owned": [
        ("rtx-pro-6000-blackwell-96gb", 4, 1.6),
        ("gaudi-3-128gb", 8, 1.69),
        ("gaudi-2-96gb", 8, 1.76),
        ("arc-pro-b60-24gb", 16, 1.97),
        ("apple-m3-ultra-512gb", 1, 2.55),
    ],
    "DeepSeek-V3 serving | cloud": [
        ("rtx-3090-24gb", 48, 10.22),
        ("b300-288gb", 8, 30.65),
        ("gh200-96gb", 9, 34.14),
        ("rtx-4090-24gb", 48, 38.45),
        ("b200-192gb", 8, 44.93),
    ],
    "DeepSeek-V3 serving | owned": [
        ("arc-pro-b60-24gb", 48, 4.13),
        ("rtx-4090-24gb", 48, 4.94),
        ("rtx-3090-24gb", 48, 5.09),
        ("gaudi-3-128gb", 8, 6.71),
        ("apple-m3-ultra-512gb", 2, 6.96),
    ],
    "8B LoRA | cloud": [
        ("mi325x-256gb", 8, 0.03),
        ("mi300x-192gb", 8, 0.03),
        ("rtx-3090-24gb", 16, 0.05),
        ("rtx-4080-16gb", 224, 0.05),
        ("gh200-96gb", 2, 0.05),
    ],
    "8B LoRA | owned": [
        ("gaudi-3-128gb", 8, 0.01),
        ("radeon-ai-pro-r9700-32gb", 8, 0.01),
        ("gb200-186gb", 72, 0.01),
        ("arc-pro-b60-24gb", 16, 0.01),
        ("rx-9070-xt-16gb", 224, 0.01),
    ],
    "70B on 1T tokens | cloud": [
        ("mi325x-256gb", 8, 0.45),
        ("mi300x-192gb", 16, 0.61),
        ("rtx-4080-16gb", 720, 0.62),
        ("rtx-pro-6000-blackwell-96gb", 28, 0.87),
        ("a40-48gb", 144, 0.88),
    ],
    "70B on 1T tokens | owned": [
        ("gaudi-3-128gb", 16, 0.08),
        ("rx-9070-xt-16gb", 720, 0.11),
        ("gb200-186gb", 72, 0.11),
        ("radeon-ai-pro-r9700-32gb", 64, 0.14),
        ("arc-pro-b60-24gb", 96, 0.15),
    ],
}


def _money(v: float | None) -> str:
    if v is None:
        return "-"
    return f"${v:,.2f}" if v < 100 else f"${v:,.0f}"


def table(options: list[dict[str, Any]], training: bool) -> list[str]:
    speed = "trained tok/s" if training else "tok/s/user"
    out = [
        f"| # | GPU | bought as | units | GPUs | layout | {speed} | $/M tok | $/h | purchase | kW | dated |",
        "|---:|---|---|---:|---:|---|---:|---:|---:|---:|---:|---|",
    ]
    for o in options[:TOP]:
        fast = o["tokens_per_second"] if training else o["tokens_per_second_per_user"]
        rack_share = o["rents_a_share"] and o["cost_basis"] != "owned" and o["gpus_per_system"] > 8
        share = " (a share, by the GPU)" if rack_share else ""
        dates = f"buy {o['list_price_date'] or '-'}, rent {o['price_per_hour_date'] or '-'}"
        kw = "-" if o["power_watts"] is None else f"{o['power_watts'] / 1000:,.1f}"
        out.append(
            f"| {o['rank']} | {o['gpu_name']} | {o['system_name']}{share} | {o['systems']} | {o['gpus']:,} | "
            f"{o['layout']} | {'-' if fast is None else f'{fast:,.1f}'} | "
            f"{_money(o['cost_per_million_tokens'])} | {_money(o['cost_per_hour'])} | "
            f"{_money(o['purchase_cost'])} | {kw} | {dates} |"
        )
    return out


def coverage_lines() -> list[str]:
    """Issue 22's coverage, counted as tests/core/test_systems.py counts it."""
    covered, gaps = gpu_coverage()
    sys_covered, sys_gaps = system_coverage()
    n, m = len(covered) + len(gaps), len(sys_covered) + len(sys_gaps)
    out = [
        "## Coverage",
        "",
        f"- GPUs: **{len(covered)} of {n}** ({len(covered) / n:.0%}) have a 2025-26 purchase price (or are "
        "sold only as a rack, whose system is priced) and a dated rental price on a stated basis "
        "(on-demand or marketplace), or are not rented by the hour (Mac Studios, DGX Spark, Ryzen AI "
        "Max, the China-only H20, the discontinued MI250X). The issue's bar of 95% is **not** met: "
        "the stored sources have no 2025-26 price for the gaps below.",
        f"- Systems: **{len(sys_covered)} of {m}** ({len(sys_covered) / m:.0%}) have a dated purchase price "
        "and a rental price (or are not rented by the hour).",
        "",
        "| gap | missing | why (the entry's null reason or basis) |",
        "|---|---|---|",
    ]
    for gid, what in sorted(gaps.items()):
        g = gpu_spec(gid)
        why = g.list_price_null_reason if "purchase" in what else ""
        if "purchase" in what and g.list_price_usd is not None:
            why = f"only an old or undated price: {g.list_price_basis} ({g.list_price_date or 'undated'})"
        if "rental" in what:
            why = f"{why} {g.price_per_hour_null_reason or ''}".strip()
        out.append(f"| {gid} | {what} | {(why or '').replace('|', '/')[:300]} |")
    for sid, what in sorted(sys_gaps.items()):
        s = system_presets()[sid]
        why = s.list_price_null_reason or (
            f"{s.list_price_basis} ({s.list_price_date or 'undated'})" if "purchase" in what else ""
        )
        if "rental" in what:
            why = f"{why} {s.price_per_hour_null_reason or ''}".strip()
        out.append(f"| {sid} | {what} | {(why or '').replace('|', '/')[:300]} |")
    return [*out, ""]


def moved_lines() -> list[str]:
    """What the prices and systems changed: the top 5 before and after."""
    out = [
        "## What moved (answers change by design)",
        "",
        "Top 5 per case and basis (GPU, GPUs, $ per million tokens), before issue 22 (per-GPU "
        "costs, mixed price bases, TDP power) and now (per system, one basis per column, system "
        "power):",
        "",
        "| case | before | now |",
        "|---|---|---|",
    ]
    for title, scenario in CASES.items():
        both = options_on_both(scenario)
        for basis in ("cloud", "owned"):
            now = [o for o in both[basis] if o["fits"] and o["cost_per_million_tokens"] is not None][:5]
            was = "; ".join(f"{g} x{n} ${c:,.2f}" for g, n, c in BEFORE.get(f"{title} | {basis}", []))
            new = "; ".join(f"{o['gpu']} x{o['gpus']} ${o['cost_per_million_tokens']:,.2f}" for o in now)
            out.append(f"| {title}, {basis} | {was} | {new} |")
    return [*out, ""]


def main() -> int:
    lines = [
        "# The catalog as buyers price it: four buyer cases (issue 22)",
        "",
        "Generated by `python -m scripts.catalog_evidence` (do not edit by hand). Every option is",
        "costed on the unit it is bought in (a catalog system: HGX/DGX server, NVL72 rack,",
        "Instinct platform, workstation, Mac Studio, DGX Spark, mini-PC; or a box of cards sold alone, priced as its",
        "cards), counts rounded up to whole units (`whole_nodes=True`: the spare GPUs of a unit serve",
        "as replicas or data parallelism). **Renting**: the on-demand list price of provider-operated",
        "clouds (RunPod Secure Cloud where listed, else the named provider), by the GPU; a GB200 rack",
        "rented by the GPU says it is a share. **Owning**: the 2025-26 street price of the whole units",
        "over 5 years of round-the-clock use plus electricity at $0.13/kWh at the systems' power.",
        "Options without a price on a basis sort after the priced ones and are left out of the top 10.",
        "Speeds are the estimator's, from the catalog's datasheet dense peaks and its efficiency",
        "factors; achieved rates (the speed issue's table) are not catalog figures. A box of cards",
        "sold alone is priced as its cards (`(cards only)`): its host is not in the owning cost.",
        "",
    ]
    for title, scenario in CASES.items():
        both = options_on_both(scenario)
        training = parse_scenario(scenario).workload.is_training
        for basis, words in (("cloud", "renting (on-demand cloud)"), ("owned", "owning")):
            priced = [o for o in both[basis] if o["fits"] and o["cost_per_million_tokens"] is not None]
            lines += [f"## {title}: {words}", "", f"Scenario: {scenario['name']}.", ""]
            lines += [*table(priced, training), ""]
    lines += coverage_lines() + moved_lines()
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
