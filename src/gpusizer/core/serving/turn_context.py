"""A multi-turn chat's last turn within the engine's context (``serving.prefix.turns``).

Turn k of a conversation sends its history, ``(k - 1) x (new + reply)`` tokens, plus its new
tokens, and asks for its reply (core/serving/multi_turn.py), so the last turn's request is
``turns x (workload.prompt_tokens + workload.generated_tokens)`` tokens (plus a system prompt,
checked in ``multi_turn.check_turns``). The engines refuse a request whose prompt and asked
reply pass their context; they do not truncate it unless told to:

- vLLM: ``vllm/entrypoints/openai/serving_engine.py`` ``_validate_input`` answers 400 "This
  model's maximum context length is N tokens. However, you requested M tokens (P in the
  messages, R in the completion)" when P + R > ``max_model_len``.
- SGLang: ``python/sglang/srt/managers/tokenizer_manager.py`` ``_validate_one_request`` raises
  "Requested token count exceeds the model's maximum context length of N tokens" when input +
  ``max_new_tokens`` >= ``context_len`` (truncation only with ``--allow-auto-truncate``).

So the later turns of such a chat would fail, while the mean turn the estimate runs
(``multi_turn.turns_view``) fits: refused here, naming the fields. The context is
``serving.max_context``, else the model's derived length (core/serving/context_limit.py), the
engines' default. Tokens throughout.
"""

from __future__ import annotations

from ..errors import ScenarioError
from ..model.specs import Scenario
from .context_limit import derived_context
from .multi_turn import system_tokens, turns_of

FIELD = "serving.prefix.turns"


def engine_context(s: Scenario) -> tuple[int | None, str]:
    """The engine's context in tokens and the field it comes from (None: not stated)."""
    if s.serving.max_context is not None:
        return s.serving.max_context, "serving.max_context"
    return derived_context(s.model, s.profile.long_context), "model.max_context, the engine's default"


def check_last_turn(s: Scenario) -> None:
    """ScenarioError where a conversation's last turn passes the engine's context (module
    docstring); the system prompt's own check (``multi_turn.check_turns``) names that field."""
    t = turns_of(s)
    if t is None or system_tokens(s):
        return
    limit, source = engine_context(s)
    w = s.workload
    turn = w.prompt_tokens + w.generated_tokens
    if limit is None or t * turn <= limit:
        return
    most = limit // turn
    fix = f"at most {most} turns at these tokens" if most >= 1 else "fewer tokens a turn"
    raise ScenarioError(
        FIELD,
        f"turn {t} sends {(t - 1) * turn + w.prompt_tokens:,} prompt tokens and asks "
        f"{w.generated_tokens:,} back, {t * turn:,} in all, above the engine's {limit:,}-token "
        f"context ({source}): vLLM and SGLang refuse such a request, they do not truncate it. "
        f"State {fix} (workload.prompt_tokens + workload.generated_tokens = {turn:,} a turn), "
        "or a longer serving.max_context",
    )
