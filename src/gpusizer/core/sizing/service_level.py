"""The stated default service level of interactive serving, as the advice uses it: defined in
core/serving/service_level.py (where the estimate's report can state it too), re-exported here
for the sizing modules and their callers."""

from __future__ import annotations

from ..serving.service_level import (
    DEFAULT,
    SOURCE,
    ServiceLevel,
    any_target,
    default_target,
    default_target_dict,
    default_target_line,
)

__all__ = [
    "DEFAULT",
    "SOURCE",
    "ServiceLevel",
    "any_target",
    "default_target",
    "default_target_dict",
    "default_target_line",
]
