"""Unsloth releases where they change what a LoRA trains on gpt-oss (``workload.unsloth_version``).

Unsloth versions by date, as ``unsloth.__version__`` prints it ("2026.7.2": year, month, the
month's n-th release; ``unsloth/models/_utils.py`` ``__version__``). gpt-oss's routed experts
are no ``nn.Linear`` (core/memory/lora_expert_params.py), so the names ``gate_proj``/``up_proj``/
``down_proj`` reach none of them; Unsloth adds expert targets of its own:

- 16-bit base (its experts stay transformers' 3-D ``gate_up_proj``/``down_proj`` Parameters):
  from 2026.2.1, ``get_peft_model`` hands PEFT ``target_parameters`` ``mlp.experts.gate_up_proj``
  (when gate or up is named) and ``mlp.experts.down_proj`` (when down is) for any model whose
  config counts experts (unslothai/unsloth PR #3812, fad6957555, 2026-02-05,
  ``unsloth/models/_utils.py`` ``get_moe_target_parameters``; the commit's ``__version__`` is
  "2026.2.1", set by 2883ce4091 the same morning).
- 4-bit base (bitsandbytes): unsloth-zoo's ``GptOssExpertsBnb4bit`` stores each expert as a
  ``Linear4bit`` in ``gate_up_projs``/``down_projs`` ModuleLists
  (``unsloth_zoo/temporary_patches/gpt_oss.py``), which the Parameter path cannot reach: LoRA
  "attached to attention only and left every expert frozen (0 of 1536 on gpt-oss-20b)". From
  2026.7.2 ``get_moe_target_modules`` adds ``gate_up_projs.<i>``/``down_projs.<i>`` to
  ``target_modules``, scoped the same way (unslothai/unsloth PR #6936, 62a6eb2a3d, 2026-07-08;
  the first version bump after it, 38ea267124, sets "2026.7.2").

A scenario that names no release keeps the attention-only answer given before the field.
"""

from __future__ import annotations

import re

# the first release that gives a 16-bit gpt-oss's 3-D expert Parameters target_parameters
EXPERT_PARAMETERS_SINCE = (2026, 2, 1)
# the first release that adapts a 4-bit gpt-oss's per-expert Linear4bit modules
PER_EXPERT_LINEARS_SINCE = (2026, 7, 2)
_VERSION = re.compile(r"v?(\d{4})\.(\d{1,2})(?:\.(\d+))?([a-z0-9.+_-]*)", re.ASCII)


def _key(v: str) -> tuple[int, int, int] | None:
    m = _VERSION.fullmatch(v.strip().lower())
    return None if m is None else (int(m[1]), int(m[2]), int(m[3] or 0))


def check_unsloth_version(v: str | None) -> str | None:
    """Validation: an Unsloth release as ``unsloth.__version__`` prints it ("2026.7.2"; None:
    the attention-only answer on gpt-oss, as before the field)."""
    if v is not None and _key(v) is None:
        raise ValueError(
            f"must be an Unsloth release such as 2026.2.1 or 2026.7.2 (year.month.n); got {v[:20]!r}"
        )
    return v


def adapts_gpt_oss_experts(v: str | None, quantised_base: bool) -> bool:
    """Whether Unsloth ``v`` puts adapters on gpt-oss's routed experts: a 4-bit base's per-expert
    Linears from 2026.7.2, a 16-bit base's 3-D Parameters from 2026.2.1 (None: no)."""
    key = None if v is None else _key(v)
    since = PER_EXPERT_LINEARS_SINCE if quantised_base else EXPERT_PARAMETERS_SINCE
    return key is not None and key >= since
