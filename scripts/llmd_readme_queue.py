"""How long a prompt must take at one prefill pod for llm-d's P/D README runs to queue as they
published (docs/evidence/serving.md, the section on the README runs' harness).

The runs (llm-d/llm-d guides/pd-disaggregation/README.md at 2d742fc1, CKS, and at 027a0532,
GKE): gpt-oss-120b, 8 TP 1 prefill pods, inference-perf's 5,400 requests at 45 a second with
exponential gaps (its ``ConstantLoadTimer``), first token mean / p10 / p50 / p90 / p99: CKS
1.444 / 0.567 / 1.264 / 2.478 / 4.426 s, GKE 1.157 / 0.797 / 1.108 / 1.587 / 2.010 s.

A queue of the pods alone, nothing else: each prompt holds its pod for ``service`` seconds, one
at a time, first come first served; the router sends each arrival to a pod drawn at random
(``random``: the CKS run's prefill scorers read scraped queue and KV metrics, which a pod
updates per step), to a pod with the fewest prompts in flight (``fresh``: the GKE run's
token-load scorer counts the router's own in-flight tokens), or to the fewest as last scraped
every 0.1 s (``stale``). A first token here is the prompt's wait and its service; the KV
transfer and the decode's first step (~25 ms in ours) are left out. Not a model of the app: it
shows at which service time the published spread appears, not what sets that time.

    python scripts/llmd_readme_queue.py
"""

from __future__ import annotations

import random
import statistics

RATE = 45.0  # requests a second, both reports' stage
REQUESTS = 5400  # both reports' total
PODS = 8  # prefill pods, TP 1 each
SCRAPE = 0.1  # seconds between the ``stale`` router's snapshots
POLICIES = ("random", "fresh", "stale")


def _pick(policy: str, rnd: random.Random, load: list[int]) -> int:
    if policy == "random":
        return rnd.randrange(PODS)
    least = min(load)
    return rnd.choice([k for k in range(PODS) if load[k] == least])


def first_tokens(policy: str, service: float, seed: int = 1) -> list[float]:
    """Each request's wait plus its prompt's service (seconds), arrival order."""
    rnd = random.Random(seed)
    t, free = 0.0, [0.0] * PODS
    busy: list[list[float]] = [[] for _ in range(PODS)]  # each pod's prompts' finish times
    snap, next_snap, out = [0] * PODS, 0.0, []
    for _ in range(REQUESTS):
        t += rnd.expovariate(RATE)
        now = [sum(f > t for f in b) for b in busy]
        if policy != "stale" or t >= next_snap:
            snap, next_snap = now, (int(t / SCRAPE) + 1) * SCRAPE
        pod = _pick(policy, rnd, snap)
        free[pod] = max(t, free[pod]) + service
        busy[pod] = [f for f in busy[pod] if f > t] + [free[pod]]
        out.append(free[pod] - t)
    return out


def summary(times: list[float]) -> tuple[float, float, float, float, float]:
    """Mean, p10, p50, p90, p99 (seconds)."""
    s = sorted(times)
    q = [s[int(p * len(s))] for p in (0.1, 0.5, 0.9, 0.99)]
    return (statistics.fmean(s), q[0], q[1], q[2], q[3])


def main() -> None:
    print("service  policy  mean   p10    p50    p90    p99   (s)")
    for service in (0.14, 0.15, 0.16, 0.165, 0.17, 0.175):
        for policy in POLICIES:
            row = "  ".join(f"{v:.3f}" for v in summary(first_tokens(policy, service)))
            print(f"{service:.3f}    {policy:6s}  {row}")


if __name__ == "__main__":
    main()
