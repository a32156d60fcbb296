"""The stated default service level of interactive serving: what an option must reach when the
scenario sets no speed target of its own, so that no answer "meets the targets" at 0.4
tokens/s per user and a 476 s first token.

:data:`DEFAULT` is the conversational (server) scenario of MLPerf Inference for Llama 2 70B:
time to first token at most 2,000 ms and time per output token at most 200 ms, i.e. 5 tokens/s
per user, at the 99th percentile (MLPerf Inference rules, "Latency constraints" table,
https://github.com/mlcommons/inference_policies/blob/master/inference_rules.adoc; the same
2,000 / 200 ms pair for Mixtral-8x7B; the stricter "interactive" tier is 450 / 40 ms). A target
the user sets (``targets.max_ttft_seconds``, ``targets.min_tokens_per_second_per_user``) replaces
the default's half; ``targets.default_service_level`` false clears it. The default ranks and
labels options (those that miss it rank after those that meet it, saying by how much); it
does not grow the count, which only the user's own targets do (core/sizing/compare_scale.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model.specs import Scenario, TargetsSpec


@dataclass(frozen=True)
class ServiceLevel:
    """Serving speed targets: first-token time (s) and output tokens/s per user (None: none)."""

    max_ttft_seconds: float | None = None
    min_tokens_per_second_per_user: float | None = None

    @classmethod
    def of(cls, t: TargetsSpec) -> ServiceLevel:
        """The user's own speed targets."""
        return cls(t.max_ttft_seconds, t.min_tokens_per_second_per_user)

    @property
    def empty(self) -> bool:
        return self.max_ttft_seconds is None and self.min_tokens_per_second_per_user is None

    def words(self) -> str:
        """``first token within 2 s, at least 5 tokens/s per user``."""
        parts = []
        if self.max_ttft_seconds is not None:
            parts.append(f"first token within {self.max_ttft_seconds:g} s")
        if self.min_tokens_per_second_per_user is not None:
            parts.append(f"at least {self.min_tokens_per_second_per_user:g} tokens/s per user")
        return ", ".join(parts)


# MLPerf Inference, Llama 2 70B conversational (server): TTFT <= 2,000 ms, TPOT <= 200 ms (p99)
DEFAULT = ServiceLevel(max_ttft_seconds=2.0, min_tokens_per_second_per_user=5.0)
SOURCE = "MLPerf Inference rules, Llama 2 70B server scenario: TTFT 2,000 ms, TPOT 200 ms (p99)"


def default_target(s: Scenario) -> ServiceLevel | None:
    """The default's halves that apply to ``s``: serving only, those the user did not set
    themselves, none once ``targets.default_service_level`` is false."""
    t = s.targets
    if s.workload.trains or not t.default_service_level:
        return None
    level = ServiceLevel(
        DEFAULT.max_ttft_seconds if t.max_ttft_seconds is None else None,
        DEFAULT.min_tokens_per_second_per_user if t.min_tokens_per_second_per_user is None else None,
    )
    return None if level.empty else level


def default_target_dict(s: Scenario) -> dict[str, float | None] | None:
    """The default target as reports print it (null when none applies)."""
    level = default_target(s)
    if level is None:
        return None
    return {
        "max_ttft_seconds": level.max_ttft_seconds,
        "min_tokens_per_second_per_user": level.min_tokens_per_second_per_user,
    }


def default_target_line(s: Scenario) -> str | None:
    """What the CLI, the report and the window print: ``default target: first token within 2 s,
    at least 5 tokens/s per user (MLPerf ...)``, or None when none applies."""
    level = default_target(s)
    if level is None:
        return None
    return f"default target: {level.words()} ({SOURCE}); set your own targets, or clear it"


def any_target(s: Scenario) -> bool:
    """Whether a target applies to ``s``: the user's own, or the default one (the comparison
    tables then show their targets columns); a purchase budget (``targets.max_purchase_usd``,
    core/sizing/budget.py) is one for every kind of work."""
    own = s.targets.applies(s.workload.trains) or s.targets.max_purchase_usd is not None
    return own or default_target(s) is not None
