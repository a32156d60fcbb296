"""The model block of an RL role scenario's dict (core/pipeline/rl_roles.py ``_base``): the
validated model itself, looked up once per model.

A role dict carried its model dumped to JSON (~1.3 kB of a 4.6 kB dict), and each validation
of it (core/pipeline/scenario.py ``_validate``) looked the dump up again by its canonical JSON
(``_model_spec``) to find the validated model every scenario naming that block shares: ~22,000
dumps and look-ups in an RL catalog compare of Qwen3 30B-A3B, all of one or two models. Here the
dump is looked up once per model (by the frozen model's identity) and the dict carries what the
look-up returns; validation keeps a validated model as it is (pydantic keeps an instance of the
field's model: ``revalidate_instances`` "never"), so the role's model is the very object it was.
"""

from __future__ import annotations

from typing import Any

from ..errors import ScenarioError
from ..memo import Memo
from ..model.specs import ModelSpec
from .scenario import model_spec

_SPECS: Memo[ModelSpec] = Memo(64)


def role_model_block(spec: ModelSpec) -> ModelSpec | dict[str, Any]:
    """What a role dict's ``model`` holds for ``spec``: the model its dump validates to, or the
    dump itself where that fails (the role's validation then names the field, as before)."""
    try:
        return _SPECS.get(id(spec), lambda: model_spec(spec.model_dump(mode="json")), (spec,))
    except ScenarioError:
        return spec.model_dump(mode="json")
