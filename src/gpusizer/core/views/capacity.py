"""Users against context: how many requests of C tokens the serving engine holds at once.

For each context C the engine is configured for requests of C tokens (``serving.max_context``)
and its own memory rule is run (core/serving/engine_memory.py): a vLLM V0 profile pass grows with
``max_model_len``, a pool engine refuses a context one request does not fit, llama.cpp moves
layers to system RAM when the KV cache of more users would not fit. Users = requests of C
tokens the KV cache holds (vLLM's "maximum concurrency", floored), within ``max_sequences``;
0 where the engine does not start. A training scenario is shown as served (the first serving
framework when its own does not serve).

Under attention data parallelism (``parallelism.attention_data`` A > 1) the curve is one
rank's, as the estimate's serving block is (core/serving/attention_dp.py ``rank_view``): each
rank holds its own requests in its own KV cache (SGLang ``--enable-dp-attention``, TensorRT-LLM
``enable_attention_dp``: "each with its own KV cache"; vLLM's "Maximum concurrency" is printed
per DP engine core), so the memory rule runs on the rank's layout and the users set are the
rank's share of the engine's (rounded up). The scenario is still checked as set, as the
estimate checks it.

With multi-turn chats (``serving.prefix.turns``) the scenario's request is the mean turn's: its
history plus the new user tokens, and the reply (core/serving/multi_turn.py ``turns_view``, the
request the estimate sizes); a history the cache holds is skipped in the prefill, not in the KV
a running request holds, so the users at a context are those of any request of that length.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ScenarioError
from ..model.architecture import resolve
from ..model.params import count_parameters
from ..model.presets import scenario_gpu
from ..model.specs import Scenario
from ..pipeline.scenario import parse_scenario
from ..pipeline.validate import check_scenario
from ..pipeline.work_roles import serving_role
from ..registry.frameworks import frameworks_for
from ..serving.attention_dp import rank_view
from ..serving.engine_memory import engine_memory
from ..serving.multi_turn import turns_view
from ..serving.rules import memory_rule
from ..serving.turn_context import FIELD as TURNS_FIELD
from .settings import serving_kind


@dataclass(frozen=True)
class CapacityCurve:
    """``users[i]`` requests of ``contexts[i]`` tokens fit at once (0: the engine refuses)."""

    engine: str  # the profile's label
    contexts: tuple[int, ...]
    users: tuple[int, ...]
    context: int  # the scenario's tokens per request (prompt + output)
    concurrency: int  # the scenario's users
    max_sequences: int | None

    def users_at(self, context: int) -> int:
        """Users at a context (the nearest computed context at or above it)."""
        for c, u in zip(self.contexts, self.users, strict=True):
            if c >= context:
                return u
        return 0


def served(s: Scenario) -> Scenario:
    """The scenario as an inference workload on a serving framework (a kind made of roles:
    its serving role's scenario)."""
    role = serving_role(s)
    if role is not None:
        return role
    kind = serving_kind()
    if s.workload.serves or kind is None:
        return s
    framework = s.framework if s.profile.fits(kind) else frameworks_for(kind)[0].id
    par = s.parallelism.model_copy(update={"data": 1, "context": 1, "zero_stage": 0, "expert": 1})
    return s.model_copy(
        update={
            "workload": s.workload.model_copy(update={"kind": kind.id}),
            "framework": framework,
            "parallelism": par,
        }
    )


def context_grid(s: Scenario, points: int = 40) -> list[int]:
    """Contexts from 256 tokens to the model's context (at least 4x the request), geometric,
    multiples of 16 (vLLM's block), the request's own length included."""
    w = s.workload
    request = w.prompt_tokens + w.generated_tokens
    hi = max(s.model.max_context or 131072, 4 * request, 512)
    lo = min(256, request)
    ratio = (hi / lo) ** (1 / max(1, points - 1))
    grid = {max(16, int(lo * ratio**i) // 16 * 16) for i in range(points)}
    return sorted(grid | {request})


def _users(s: Scenario, context: int) -> int:
    sv = s.serving.model_copy(update={"max_context": context})
    v = s.model_copy(update={"serving": sv})
    try:
        check_scenario(v)
    except ScenarioError as e:
        # a chat whose last turn passes C is the chat's limit, not the engine's memory: the
        # curve is of requests of C tokens (core/serving/turn_context.py)
        if e.field != TURNS_FIELD:
            return 0
    r = rank_view(v)  # the engine's own layout, as the estimate reads it (module docstring)
    gpu = scenario_gpu(r)
    em, st = engine_memory(r, resolve(r.model), count_parameters(r.model), gpu)
    if not em.starts:
        return 0
    users = memory_rule(s.profile).users_at(em, gpu)
    return min(users, st.max_sequences) if st.max_sequences else users


def capacity_curve(scenario: Scenario | dict, contexts: list[int] | None = None) -> CapacityCurve:
    """The engine's capacity curve for a scenario (see the module docstring)."""
    s = served(parse_scenario(scenario))
    # multi-turn chats: a request is the mean turn's, history included (core/serving/multi_turn.py)
    w, a = turns_view(s).workload, s.parallelism.attention_data
    grid = contexts or context_grid(turns_view(s))
    users = tuple(_users(s, c) for c in grid)
    sv = rank_view(s).serving  # the users set, one rank's share under attention DP
    return CapacityCurve(
        s.profile.label if a == 1 else f"{s.profile.label} (one of {a} attention-DP ranks)",
        tuple(grid),
        users,
        w.prompt_tokens + w.generated_tokens,
        sv.concurrency or w.batch_size,
        sv.max_sequences,
    )
