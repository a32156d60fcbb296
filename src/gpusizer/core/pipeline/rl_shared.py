"""What one RL layout's memory shares among the GPUs of a catalog search (core/pipeline/rl_plan.py
``rl_memory``): the trained roles' scenarios and training peaks, and the rollout engine's
scenario per GPU.

RL is searched on each GPU alone (``WorkBuilder.memory_per_gpu``: the colocated engine holds its
share of each GPU), so a catalog compare weighs one layout once per GPU. The policy's
fine-tuning scenario differs between GPUs only in ``hardware.gpu``: of the ~105,000 policy
scenarios an RL compare of Qwen3 30B-A3B built, 13,000 were distinct once the GPU was left out
(cProfile on the 2-core development machine, 2026-12: they were two thirds of its CPU time, the
policy's validation and its training peak). Here the policy is validated once per layout and
moved to each further GPU by :func:`scenario.with_hardware` (the GPU's own checks run again),
and its training peak, which reads no GPU (core/memory/ imports nothing of the catalog; the
hardware it reads, the node and host memory, is compared), is reused. The rollout engine's
scenario reads the RL scenario's blocks but not its layout or workload: it is kept by those
blocks' identity (frozen), which the layouts of one GPU's search share. Answers are unchanged
(``gpusizer-cli compare --json`` of tests/cli/data/buyer/rl-*.gpusizer.json byte-identical).
"""

from __future__ import annotations

from collections.abc import Hashable
from operator import attrgetter
from typing import Any

from pydantic import BaseModel

from ..errors import ScenarioError
from ..memo import Memo
from ..model.architecture import resolve
from ..model.context_algorithm import rl_splits_heads
from ..model.params import count_parameters
from ..model.result import Memory
from ..model.specs import HardwareSpec, ModelSpec, Scenario
from .rl_check import rl_of
from .rl_packed_attention import packed_span, spanned
from .rl_roles import parse_role, rollout_scenario, trainer_data, trainer_fields, trainer_role
from .scenario import hardware_block, parse_role_dict, with_hardware
from .work import training_peak

# A layout's trained role, validated on the first GPU that asked, and its training peak, by
# the role's dict without its GPU. Each GPU's search goes through the layouts again, so the
# memo holds a compare's: Qwen3 30B-A3B's 13,017, about 7 kB each with the blocks they share
# with the trainer kept before (_interned): its compare peaked at 202 MB resident, 105 MB
# before (GNU time, 2026-12-05). The bound caps that at about 115 MB.
_TRAINERS: Memo[tuple[Scenario, Memory]] = Memo(16384)
_ROLLOUTS: Memo[Scenario] = Memo(4096)
_HARDWARE: Memo[HardwareSpec] = Memo(512)


def shared_trainer(
    s: Scenario, model: ModelSpec | None = None, kind: str | None = None
) -> tuple[Scenario, Memory]:
    """:func:`rl_roles.trainer_scenario` and its training peak (memory per GPU)."""
    fields, span = trainer_fields(s, kind), packed_span(rl_of(s))
    role = trainer_role(model)
    hit = _TRAINERS.peek(key := (_trainer_key(s, model, fields), span))
    if hit is None:
        data = trainer_data(s, model, fields)
        return _TRAINERS.get(key, lambda: _first(data, role, span), (*_COPIED(s), model))
    first, mem = hit
    policy = parse_role({}, role, lambda _: with_hardware(first, _hardware(s.hardware)))
    return policy, mem if _same_host(policy.hardware, first.hardware) else training_memory(policy)


def _hardware(hw: HardwareSpec) -> HardwareSpec:
    """The role dict's hardware block (the RL scenario's, dumped) validated, kept per block."""
    return _HARDWARE.get(id(hw), lambda: hardware_block(hw.model_dump(mode="json")), (hw,))


def _trainer_key(s: Scenario, model: ModelSpec | None, fields: dict[str, Any]) -> Hashable:
    """What the trainer's dict is made of but its GPU: the RL scenario's fields it copies
    (frozen: by identity), its layout and hardware by value, and the fields it sets."""
    hardware = tuple((k, v) for k, v in s.hardware.__dict__.items() if k != "gpu")
    layout = tuple(s.parallelism.__dict__.values())  # as the dict dumps it (fields only)
    # the rl block is not copied, but the context algorithm its framework sets is carried
    heads = rl_splits_heads(s)
    return (*map(id, _COPIED(s)), layout, hardware, id(model), heads, *fields.items())


def _fields_but(*left: str) -> attrgetter[tuple[object, ...]]:
    """The scenario's fields but ``left`` (every field, as the role dicts dump them)."""
    return attrgetter(*(k for k in Scenario.model_fields if k not in left))


_COPIED = _fields_but("rl", "hardware", "parallelism")  # the trainer dict's copies of ``s``
_READ = _fields_but("parallelism", "serving")  # what the rollout dict reads of ``s``


def _first(data: dict[str, Any], role: str, span: float | None) -> tuple[Scenario, Memory]:
    # packed rows' attention per response (core/pipeline/rl_packed_attention.py)
    policy = _interned(spanned(parse_role(data, role, parse_role_dict), span), role)
    return policy, training_memory(policy)


_LAST: dict[str, Scenario] = {}  # per role, the trainer kept last


def _interned(s: Scenario, role: str) -> Scenario:
    """``s`` with each block equal to the last kept trainer's (its fields and the fields it
    was given) taken from it: the layouts of a search differ in their layout and workload, and
    a kept trainer's own copy of the other blocks held most of its ~18 kB."""
    last = _LAST.get(role)
    same = {}
    if last is not None:
        for k, v in s.__dict__.items():
            was = last.__dict__[k]
            if (
                isinstance(v, BaseModel)
                and v is not was
                and (v, v.model_fields_set) == (was, was.model_fields_set)
            ):
                same[k] = was
    _LAST[role] = s = s.model_copy(update=same) if same else s
    return s


def _same_host(a: HardwareSpec, b: HardwareSpec) -> bool:
    """Whether two hardware blocks differ at most in their GPU (a node defaulted from it may)."""
    return {k: v for k, v in a.__dict__.items() if k != "gpu"} == {
        k: v for k, v in b.__dict__.items() if k != "gpu"
    }


def training_memory(s: Scenario) -> Memory:
    """The heavier pipeline stage's peak of a trainer scenario (core/pipeline/work.py)."""
    arch, counts = resolve(s.model), count_parameters(s.model)
    return training_peak(s, arch, counts).memory()


def shared_rollout(s: Scenario, batch: int) -> Scenario:
    """:func:`rl_roles.rollout_scenario`, kept by the identity of the blocks its dict reads
    (all but ``parallelism`` and ``serving``, which it replaces; of ``workload`` it reads the
    LoRA fields, kept whole here) and ``batch``."""
    key = (*map(id, _READ(s)), batch)
    return _ROLLOUTS.get(key, lambda: _rollout_by_value(s, batch), (s,))


# The rollout engine's scenario, or the error that refused it, by the values of the blocks its
# dict reads: an RL catalog compare of Qwen3 30B-A3B built 8,743 rollout scenarios, 1,548
# distinct (2026-12): equal blocks came as other objects (the engine widths' and the ladder's
# variants), and a refused one (an engine too wide for its GPU) was built again at each layout.
_ROLLOUT_VALUES: Memo[Scenario | ScenarioError] = Memo(4096)


def _rollout_by_value(s: Scenario, batch: int) -> Scenario:
    """:func:`rl_roles.rollout_scenario` kept by the JSON of the blocks it reads (what its
    dict is made of, as :func:`shared_rollout` says) and ``batch``; its error raised anew."""
    key = (*map(_json, _READ(s)), batch)
    got = _ROLLOUT_VALUES.get(key, lambda: _built(s, batch))
    if isinstance(got, ScenarioError):
        raise _fresh(got) from None
    return got


# Each block's JSON, kept by its identity (frozen): the model and rl blocks, the longest, are
# one object through a compare, and the scenario's whole JSON at each of the rollout memo's
# misses (the ladder's and the fill's variants) was a third of the engine's refusal check
# (py-spy of the rl-qwen3-30b-a3b-colocated compare, 2026-12).
_JSON: Memo[str] = Memo(4096)


def _json(v: object) -> str:
    """A block's JSON (a field that is not a block: its repr)."""
    if isinstance(v, BaseModel):
        return _JSON.get(id(v), v.model_dump_json, (v,))
    return repr(v)


def _built(s: Scenario, batch: int) -> Scenario | ScenarioError:
    try:
        return rollout_scenario(s, batch)
    except ScenarioError as err:
        return _fresh(err)  # kept without its traceback (the frames and dicts it holds)


def _fresh(err: ScenarioError) -> ScenarioError:
    """A ScenarioError equal to ``err`` (its field, message and text), without its traceback."""
    out = ScenarioError.__new__(ScenarioError, *err.args)
    out.field, out.message = err.field, err.message
    return out
