"""What-if, not the model: vLLM's async scheduling as its releases default it, the host's fixed
step work run beside the GPU's step (the step the larger of the two, not their sum).

vLLM V1 charges a fixed 0.4 ms of host work to every step (``StepCost.step``,
core/registry/engine_releases_vllm_v1.py), added after the GPU's kernels. Async scheduling (vllm PR
#19970: the scheduler "one step ahead of the current execution"; PRs #23569 / #24219: the worker's
input preparation too) runs that work while the GPU runs the previous step; v0.14.0 turned it on
by default (its release notes; vllm PR #27614) except under pipeline parallelism, speculative
methods other than EAGLE / MTP and the Ray executor (Ray Serve LLM's multi-GPU engines). This
script prices the vLLM runs whose stated release (null: the catalog's current) is 0.14 or later
that way and prints the replayed figures of the regimes asked for, or runs another figure script
under the same pricing. docs/evidence/speed.md, the section on async scheduling per release,
holds the tables and why the model does not take it.

    PYTHONPATH=src:. python scripts/vllm_async_whatif.py speed/vllm
    PYTHONPATH=src:. python scripts/vllm_async_whatif.py --run scripts/rl_figures.py --misses
"""

from __future__ import annotations

import argparse
import runpy
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).parent)]

ASYNC_DEFAULT = (0, 14)  # vLLM v0.14.0 release notes: "Async scheduling is now enabled by default"
ASYNC_SPEC_METHODS = ("eagle", "eagle3", "mtp")  # vllm/config/vllm.py keeps it with these only


def _version(s: Any, rel: Any) -> tuple[int, ...]:
    text = (s.serving.engine_version or rel.version).lstrip("v")
    return tuple(int(x) for x in text.split(".")[:2] if x.isdigit())


def overlapped(s: Any, rel: Any) -> bool:
    """Whether vLLM runs this scenario's steps with async scheduling by default."""
    if rel is None or s.framework != "vllm" or _version(s, rel) < ASYNC_DEFAULT:
        return False
    p, spec = s.parallelism, s.serving.speculative
    if p.pipeline > 1 or (s.serving.frontend == "ray_serve_llm" and p.tensor > 1):
        return False
    return spec is None or spec.method is None or spec.method in ASYNC_SPEC_METHODS


def wrap(inner: Any) -> Any:
    """``inner`` (core/serving/load.py ``engine_costs``) with an overlapped run's host cost
    marked by its sign (read back by the patched step below; nothing else reads ``host``)."""

    def costs(s: Any, gpu: Any, st: Any) -> Any:
        out = inner(s, gpu, st)
        return replace(out, host=-out.host) if out.host > 0 and overlapped(s, st.release) else out

    return costs


def patch() -> None:
    """Wrap ``engine_costs`` where the serving load and the RL rollout import it, and make a
    step with a marked host cost take max(GPU, host) (core/speed/step.py ``_host``, ``fixed``)."""
    from gpusizer.core.pipeline import rl_plan
    from gpusizer.core.serving import load
    from gpusizer.core.speed.step import StepModel

    costs = wrap(load.engine_costs)
    load.engine_costs = costs
    rl_plan.engine_costs = costs
    host, fixed = StepModel._host, StepModel.__dict__["fixed"].fget
    assert fixed is not None

    def _host(self: Any, gpu: float, replay: bool, seqs: float, rows: Any, kernels: Any = None) -> float:
        out = host(self, gpu, replay, seqs, rows, kernels)
        h = -self.costs.host
        return out if h <= 0 else max(out + h, h)

    def _fixed(self: Any) -> float:
        out, c = fixed(self), self.costs
        return out if c.fixed is not None or c.host >= 0 else max(out - c.host, -c.host)

    StepModel._host = _host  # type: ignore[method-assign]
    StepModel.fixed = property(_fixed)  # type: ignore[method-assign,assignment]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", help="a figure script to run under the what-if (its arguments follow)")
    ap.add_argument("rest", nargs="*", help="regime substrings, as figs (speed/vllm), or --run's arguments")
    a, extra = ap.parse_known_args(argv)
    patch()
    if a.run:
        sys.argv = [a.run, *a.rest, *extra]
        runpy.run_path(a.run, run_name="__main__")
        return 0
    import evidence_bands as eb

    for f in eb.figures():
        if not f.bound and any(w in f.regime for w in a.rest):
            print(f"{f.ratio:7.3f}  {f.regime:40s} {f.key}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
