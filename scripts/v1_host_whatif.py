"""What-if, not the model: vLLM V1's per-request host work charged serially with each step.

vLLM V1's ``EngineCore.step`` (vllm/v1/engine/core.py) runs ``Scheduler.schedule``, the worker's
``execute_model`` (``GPUModelRunner._update_states`` / ``_prepare_inputs`` before the forward, the
sampled ids' copy to the host after it) and ``Scheduler.update_from_output`` one after another,
so their work for every running request adds to the step unless async scheduling
(``step_with_batch_queue``, vllm PR #19970; on by default from v0.14.0, PR #27614, for the ``mp``,
``uni`` and ``external_launcher`` executors at pipeline 1) overlaps it with the GPU. The step
model charges V1 a flat 0.4 ms a step (core/registry/engine_releases_vllm_v1.py). This script
adds ``US`` microseconds a sequence of each step, serial, to the V1 releases that run it serial
(0.8.0 - 0.13.x; 0.14.0 on only under pipeline parallelism, or everywhere with ``--serial-all``,
as NeMo RL's Ray-executor rollouts run it) through the hook the V0 output processing already
uses (``EngineCosts.serial_output``), and prints the replayed figures of the regimes asked for:
within 25 %, range, and the ratios that moved. docs/evidence/speed.md, the section on V1's host
work per request, holds the tables and why no value is taken.

    PYTHONPATH=src:. python scripts/v1_host_whatif.py --us 12.7 vllm speed/rl
    PYTHONPATH=src:. python scripts/v1_host_whatif.py --us 12.7 --serial-all speed/rl
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).parent)]

ASYNC_DEFAULT = (0, 14)  # vLLM v0.14.0 release notes: "Async scheduling is now enabled by default"


def _version(s: Any, rel: Any) -> tuple[int, ...]:
    text = (s.serving.engine_version or rel.version).lstrip("v")
    return tuple(int(x) for x in text.split(".")[:2] if x.isdigit())


def wrap(inner: Any, us: float, serial_all: bool) -> Any:
    """``inner`` (core/serving/load.py ``engine_costs``) with ``us`` microseconds a sequence of
    each step added serially where the release runs the loop serial (module docstring)."""

    def costs(s: Any, gpu: Any, st: Any) -> Any:
        out = inner(s, gpu, st)
        rel = st.release
        if not us or rel is None or s.framework != "vllm" or _version(s, rel) < (0, 8):
            return out
        hidden = _version(s, rel) >= ASYNC_DEFAULT and s.parallelism.pipeline == 1 and not serial_all
        return out if hidden else replace(out, serial_output=(out.serial_output[0], us * 1e-6))

    return costs


def patch(us: float, serial_all: bool) -> None:
    """Wrap ``engine_costs`` where the serving load and the RL rollout import it."""
    from gpusizer.core.pipeline import rl_plan
    from gpusizer.core.serving import load

    costs = wrap(load.engine_costs, us, serial_all)
    load.engine_costs = costs
    rl_plan.engine_costs = costs


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--us", type=float, default=0.0, help="host microseconds a running request, serial")
    ap.add_argument("--serial-all", action="store_true", help="serial on every V1 release")
    ap.add_argument("regimes", nargs="+", help="regime substrings, as figs: vllm, speed/rl")
    a = ap.parse_args(argv)
    patch(a.us, a.serial_all)
    import evidence_bands as eb

    for f in eb.figures():
        if any(w in f.regime for w in a.regimes):
            print(f"{f.regime:45s} {f.ratio:6.3f} {f.key[:120]} {f.release}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
