"""The Sweeps chart's words: the headline (the largest value that fits, or the fewest GPUs),
why a value does not fit, the band's upper edge, the knob's name and the boundary to mark
(sweep.py draws the chart; the sweep itself is core/views/sweep.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.model.specs import Scenario
from ...core.views.sweep import SweepResult
from ...io.wording import count

if TYPE_CHECKING:
    from .base import ChartBase as _Base
else:
    _Base = object

# What a swept value counts: "out of memory from 135" named no unit beside the axis's tokens.
AXIS_NOUNS = {"sequence_length": "token", "batch_size": "sequence", "gpus": "GPU"}


class SweepWords(_Base):
    """Mixin of SweepChart (a ChartBase): the texts read off its sweep result."""

    result: SweepResult | None
    scenario: Scenario | None
    max_context: int | None

    @property
    def axis(self) -> str:
        raise NotImplementedError

    def counted(self, value: float) -> str:
        """A swept value with its unit: ``135 tokens``, ``5 sequences``, ``8 GPUs``."""
        return count(int(value), AXIS_NOUNS.get(self.axis, "step"))

    def fit_text(self) -> str:
        """The headline: the largest value that fits (the fewest GPUs, on the GPU axis)."""
        r = self.result
        if r is None:
            return ""
        ok = [v for v, fit in zip(r.values, r.fits_under(), strict=True) if fit]
        name = self.knob_name()
        if not ok and r.starts and not any(r.starts):  # the estimate's own start check
            return f"the engine does not start from {r.values[0]:,} to {self.counted(r.values[-1])}"
        if not ok:
            return f"nothing fits from {r.values[0]:,} to {self.counted(r.values[-1])}"
        if self.axis == "gpus":
            return f"fits from {min(ok):,} data-parallel GPUs"
        if r.oom_at is None:
            return (
                f"every {name} up to {self.counted(r.values[-1])} fits"
                + self._band_text(max(ok))
                + self._context_text(max(ok))
            )
        fits = self.counted(r.largest_fitting or 0)
        return (
            f"largest {name} that fits: {fits} ({self._stop_word(r.oom_at)} from {self.counted(r.oom_at)})"
            + self._band_text(r.largest_fitting)
            + self._context_text(r.largest_fitting or 0)
        )

    def _context_text(self, fits: int) -> str:
        """Serving, where a prompt that fits the memory is longer than the engine takes: a
        reserved pool is the same at every prompt, so a 200-LoRA vLLM at max context 4,096
        read "every prompt length up to 131,072 tokens fits" (core/model/result.py
        ``fit_reason``: a request longer than the context is refused, whatever the memory)."""
        limit = self.max_context
        if self.axis != "sequence_length" or not limit or self.scenario is None:
            return ""
        longest = limit - self.scenario.workload.generated_tokens
        if fits <= longest:
            return ""
        most = self.counted(max(longest, 0))
        return f"; the engine refuses prompts over {most} (max context {limit:,})"

    def _stop_word(self, value: int) -> str:
        """Why ``value`` does not fit: the engine does not start there (the estimate's start
        check, core/views/sweep.py), or out of memory."""
        r = self.result
        if r is not None and r.starts and not r.starts[r.values.index(value)]:
            return "the engine does not start"
        return "out of memory"

    def _band_text(self, fits: int | None) -> str:
        """The largest value whose band upper edge (total / p10: where runs like this have
        peaked, core/evidence) still fits, where it is smaller than the estimate's."""
        r, p10 = self.result, getattr(self, "p10", None)
        if r is None or not p10:
            return ""
        ok = [v for v, fit in zip(r.values, r.fits_under(p10), strict=True) if fit]
        if ok and max(ok) == fits:
            return " (band's upper edge too)"
        if not ok:
            return "; the band's upper edge fits none"
        return f"; with the band's upper edge: {self.counted(max(ok))}"

    def knob_name(self) -> str:
        """What the axis changes in this scenario: training and inference read other fields."""
        training = self.scenario is not None and self.scenario.workload.trains
        if self.axis == "sequence_length":
            return "sequence length" if training else "prompt length"
        if self.axis == "batch_size":
            return "micro-batch size" if training else "batch size"
        return "data-parallel GPU count"

    def boundary_value(self) -> int | None:
        """Where the curve crosses capacity: first OOM value, or first fitting GPU count."""
        r = self.result
        if r is None:
            return None
        if self.axis != "gpus":
            return r.oom_at
        ok = [v for v, fit in zip(r.values, r.fits_under(), strict=True) if fit]
        return min(ok) if ok and ok[0] != r.values[0] else None
