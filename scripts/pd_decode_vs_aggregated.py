"""The three P/D time-per-token miss clusters of issue 36 beside the same sources' aggregated
decodes, at matched load: is the decode's miss P/D-only or the engine step's?

For each cluster, ours and the published time per token of a P/D decode instance and of an
aggregated replica of the same engine, GPU, model and TP at the same sequences a replica,
with the per-step excess ``published - ours`` (ms) of each arm. A decode-side cost that only the
split pays (vLLM's NixlConnector ``start_load_kv`` / ``get_finished`` in the V1 model runner,
``vllm/v1/worker/kv_connector_model_runner_mixin.py``; every TP rank's output gathered each
step under a connector, vLLM PR #19555 / #21072) would show as a larger excess in the P/D arm.

- gpt-oss-120b, Ray Serve LLM, vLLM 0.11.0 on H100 (the fourth blind round,
  ``tests/core/test_disagg_blind4.py``; the aggregated 2 x TP 4 and 4 x TP 2 baselines of the
  same repository, ``tests/core/test_gptoss_hopper_decode.py``): a P/D decode replica at ``c / D``
  users beside an aggregated replica at the same number (the router spreads ``c`` over the
  replicas);
- Qwen3-32B, Tencent TKE on H20 (``tests/core/test_disagg_tke_grid.py``): the P/D TP 4 decode
  worker at 1 and 2 users beside the page's aggregated vLLM 0.9.0.1 V1 TP 4 engine's first
  workload at 1 and 2 users (served by the one replica ready first,
  ``test_aggregated_first_workload_not_four_replicas``);
- Qwen3-235B-A22B-FP8, Anyscale on MI325X: the 16 pairs of ``tests/core/test_anyscale_agg.py``
  (same GPUs, lengths and rate; the aggregated arm carries its own chunked prefills).

    PYTHONPATH=src:. python scripts/pd_decode_vs_aggregated.py
"""

from __future__ import annotations

import re
from collections.abc import Iterator

Row = tuple[str, str, float, float]  # (cluster, label, published ms, ours ms)


def _gptoss_pd() -> Iterator[tuple[tuple[int, int], str, float, float]]:
    """((TP, users a decode replica), id, published, ours) of the H100 P/D runs."""
    from tests.core.test_disagg_blind4 import RUNS, ours

    for run in RUNS:
        m = re.search(r"d(\d)xtp(\d)-c(\d+)$", run["id"])
        if run["gpu"] != "h100-sxm-80gb" or m is None:
            continue
        decodes, tp, users = (int(g) for g in m.groups())
        yield (tp, users // decodes), run["id"], run["published_tpot_ms"], ours(run)[1]


def gptoss_pairs() -> list[tuple[str, Row, Row]]:
    """Each H100 P/D run whose per-replica load an aggregated baseline matches."""
    from tests.core.test_gptoss_hopper_decode import RAY, _ray

    agg: dict[tuple[int, int], Row] = {}
    for run in RAY:
        for users, pub in run["mean_tpot_ms"].items():
            key = (run["tensor"], int(users) // run["replicas"])
            agg[key] = ("gpt-oss", f"{run['id']} c{users}", pub, _ray(run, int(users)))
    out = []
    for key, run_id, pub, ours in _gptoss_pd():
        if key in agg:
            out.append((f"TP {key[0]}, {key[1]} a replica", ("gpt-oss", run_id, pub, ours), agg[key]))
    return out


def tke_pairs() -> list[tuple[str, Row, Row]]:
    """The P/D worker (3 x TP 4 prefill, 3000:150) and the aggregated first workload, 1 and 2 users."""
    from tests.core.test_disagg_tke_grid import GRID, _by_users, _run
    from tests.core.test_pd_decode_vs_aggregated import _tke_aggregated_ms

    first = {int(r[1]): r for r in GRID["aggregated_first_workload"]["runs"] if r[0] == "v1-aggregated"}
    out = []
    for users in (1, 2):
        run = _by_users(users)[(3, 3000)]
        pd = ("tke", f"3xTP4 3000/150 c{users}", run[8], _run(run)[1])
        agg = ("tke", f"v1-aggregated c{users}", first[users][4], _tke_aggregated_ms(users))
        out.append((f"TP 4, {users} a replica", pd, agg))
    return out


def anyscale_pairs() -> list[tuple[str, Row, Row]]:
    """The 16 same-rate pairs of test_anyscale_agg.py."""
    from tests.core.disagg_anyscale import ours as pd_ours
    from tests.core.test_anyscale_agg import PAIRS, _agg, _pd

    out = []
    for record, folder, files in PAIRS:
        for f in files:
            pub, ours = _agg(record, f)["tpot_seconds"]
            config, run = _pd(folder, f)
            pd = ("anyscale", f"{folder} {f}", run["published_tpot_ms"], pd_ours(config, run)[1])
            out.append((f"{record} {f}", pd, ("anyscale", record, pub, ours)))
    return out


def _cells(row: Row) -> str:
    _, _, pub, ours = row
    return f"{pub:7.2f} {ours:7.2f} {ours / pub:5.2f} {pub - ours:6.2f}"


def main() -> None:
    head = "published    ours ratio excess"
    print(f"{'cluster':9} {'load':34} {'P/D: ' + head:36} | aggregated: {head}")
    diffs: dict[str, list[float]] = {}
    for pairs in (gptoss_pairs(), tke_pairs(), anyscale_pairs()):
        for load, pd, agg in pairs:
            print(f"{pd[0]:9} {load[:34]:34} {_cells(pd):36} | {_cells(agg)}")
            diffs.setdefault(pd[0], []).append((pd[2] - pd[3]) - (agg[2] - agg[3]))
    for cluster, d in diffs.items():
        print(f"{cluster}: P/D excess minus aggregated excess, ms: min {min(d):.2f} max {max(d):.2f}")


if __name__ == "__main__":
    main()
