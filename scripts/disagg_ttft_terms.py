"""Mooncake's single-request P/D first tokens (tests/core/data/serving-features.json
``disaggregated_single_request``), ours split term by term beside the published figure.

Each run is replayed by the test module's own builder (``tests/core/test_disagg_evidence.py``
``_single``: 1P1D, one request at a time), once as run and once with ``serving.api_server``
false, so every term is a difference of two report fields and the terms sum to ours exactly:

- ``prefill_api``: the prefill server's API server on the request (the engine's per-request
  cost, ``StepCost.front_end_for``: the chat route's fixed cost plus the prompt's tokenising);
- ``prefill_forward``: the prefill replica's forward of the prompt and its first token, alone
  (core/serving/disagg_queue.py; no queue with one user a replica);
- ``transfer``: the KV over the link (core/serving/disaggregated.py);
- ``decode_wait``: a slot on a full decode replica (0 when it holds its users);
- ``decode_api``: the decode server's API server, which the proxy reaches only after the
  prefill's response (core/registry/pd_connectors.py; 0 without a connector);
- ``decode_engine``: the decode engine's steps around the KV read, to the first token
  (pd_connectors.py: for vLLM's asynchronous pull, one step at one request a replica).

``host_left`` is what the published first token leaves for each API server once ours less its
two API servers is taken off: (published - the rest) / 2, against ``prefill_api`` charged.

    PYTHONPATH=src:. python scripts/disagg_ttft_terms.py [SOURCE_ID] [--prompt N ...]
"""

from __future__ import annotations

import argparse
from typing import Any

TERMS = ("prefill_api", "prefill_forward", "transfer", "decode_wait", "decode_api", "decode_engine")


def terms(src: dict[str, Any], prompt: int) -> dict[str, float]:
    """Our first token of ``src`` at ``prompt`` tokens split into ``TERMS`` (seconds; module
    docstring), with ``total`` ours as run."""
    from tests.core.test_disagg_evidence import _single

    run, bare = _single(src, prompt), _single(src, prompt, api_server=False)

    def prefill(sv: dict[str, Any]) -> float:  # the prefill pool's first token
        rest = ("kv_transfer", "path", "decode_wait")
        return float(sv["disaggregated_ttft_seconds"] - sum(sv[f"disaggregated_{k}_seconds"] for k in rest))

    path, bare_path = run["disaggregated_path_seconds"], bare["disaggregated_path_seconds"]
    return {
        "prefill_api": prefill(run) - prefill(bare),
        "prefill_forward": prefill(bare),
        "transfer": float(run["disaggregated_kv_transfer_seconds"]),
        "decode_wait": float(run["disaggregated_decode_wait_seconds"]),
        "decode_api": float(path - bare_path),
        "decode_engine": float(bare_path),
        "total": float(run["disaggregated_ttft_seconds"]),
    }


def host_left(t: dict[str, float], published: float) -> float:
    """Seconds the published first token leaves each of the two API servers (module docstring)."""
    rest = t["total"] - t["prefill_api"] - t["decode_api"]
    return (published - rest) / 2


def main() -> None:
    from tests.core.test_disagg_evidence import SINGLE

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source", nargs="?", default="mooncake-vllm-h800-qwen3-8b", help="a run's id")
    ap.add_argument("--prompt", type=int, nargs="*", help="prompt lengths (default: the run's)")
    args = ap.parse_args()
    ids = [s["id"] for s in SINGLE]
    if args.source not in ids:
        ap.error(f"source: one of {', '.join(ids)}; got {args.source!r}")
    src = next(s for s in SINGLE if s["id"] == args.source)
    published = {r["prompt"]: r["ttft_ms"] for r in src["rows"]}
    print(f"{'prompt':>7} " + " ".join(f"{k:>15}" for k in (*TERMS, "total")) + "  published  host_left")
    for prompt in args.prompt or list(published):
        t = {k: v * 1e3 for k, v in terms(src, prompt).items()}
        row = f"{prompt:>7} " + " ".join(f"{t[k]:>15.2f}" for k in (*TERMS, "total"))
        if prompt in published:
            row += f"  {published[prompt]:>9.2f}  {host_left(t, published[prompt]):>9.2f}"
        print(row)


if __name__ == "__main__":
    main()
