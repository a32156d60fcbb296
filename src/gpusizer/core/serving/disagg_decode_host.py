"""The P/D decode pool's step with the host work its server does not overlap
(core/registry/pd_decode_host.py: SGLang's decode server from its first P/D release to before
0.4.6, sgl-project/sglang PR 5608): every step of the decode run takes that many seconds more,
serial with its kernels. Nowhere else: the aggregated step and the prefill pool's are the
engine's own."""

from __future__ import annotations

from ..model.specs import Scenario
from ..registry.pd_decode_host import decode_host_seconds
from ..speed.step import StepModel
from ..speed.step_wrap import StepWork, StepWrapper


class SerialHostStep(StepWrapper):
    """``base``'s step plus ``host`` seconds the GPU waits for each step (the scheduler's work
    done between forwards, not beside them)."""

    def __init__(self, base: StepModel, host: float) -> None:
        super().__init__(base)
        self.host = host

    def step(self, work: StepWork) -> float:
        return self._base.seconds(*work) + self.host


def decode_pool_step(s: Scenario, step: StepModel) -> StepModel:
    """The decode pool's step model: ``step`` itself where the engine's decode server overlaps
    its scheduler (every scenario but a stated SGLang release from 0.4.4 to before 0.4.6), else
    :class:`SerialHostStep` over it."""
    host = decode_host_seconds(s.framework, s.serving.engine_version)
    return SerialHostStep(step, host) if host > 0 else step
