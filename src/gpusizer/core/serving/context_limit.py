"""The longest ``serving.max_context`` an engine takes for a model: vLLM refuses one past the
length the model's config gives unless RoPE scaling stretches it or its switch is set.

Source: vllm-project/vllm ``vllm/config/model.py`` ``_get_and_verify_max_len`` (v0.11 on; the
same rule in ``vllm/config.py`` before the split). The derived length is the config's
``max_position_embeddings`` (the smallest of its length keys); where the config has a
``rope_scaling`` whose ``rope_type`` is not ``su``, ``longrope`` or ``llama3`` (nor a Gemma 3
model, whose length is scaled already), it is multiplied by the scaling's ``factor``, and for
``yarn`` the length multiplied is its ``original_max_position_embeddings``. A user's
``max_model_len`` above the derived length raises "User-specified max_model_len (...) is
greater than the derived max_model_len ... To allow overriding this maximum, set the env var
VLLM_ALLOW_LONG_MAX_MODEL_LEN=1" unless that variable is set (then a warning: positions past
the derived length give NaN under RoPE). Qwen's long-context recipe adds ``{"rope_type":
"yarn", "factor": 4.0, "original_max_position_embeddings": 32768}`` to config.json (or vLLM's
``--hf-overrides``) and serves 131,072 tokens.

Here ``model.max_context`` is the derived length of the checkpoint's own config (its
``max_position_embeddings``: gpt-oss's 131,072 is already YaRN's 4,096 x 32, Llama 3.1's
"llama3" scaling is not multiplied); ``model.rope_scaling_factor`` states a scaling beyond it,
``model.rope_original_context`` the length it stretches (null: ``max_context``); the engine's
switch is ``serving.allow_long_context``. Each engine's rule is its
``FrameworkProfile.long_context`` (core/registry/long_context.py): SGLang and TensorRT-LLM
derive the length as vLLM does but keep ``max_position_embeddings`` under a YaRN scaling that
states ``original_max_position_embeddings``; SGLang refuses a longer one as vLLM does,
TensorRT-LLM lowers ``max_seq_len`` to it with a warning, so a longer stated context is not
what it runs and is refused here naming the length it would run.
"""

from __future__ import annotations

from ..errors import ScenarioError
from ..model.specs import ModelSpec, Scenario
from ..registry.engines import release, version_key
from ..registry.long_context import LongContextRule

FIELD = "serving.max_context"


def derived_context(model: ModelSpec, rule: LongContextRule | None = None) -> int | None:
    """The engine's derived length of ``model`` (tokens; vLLM's where ``rule`` is None or
    vLLM's; module docstring); None where the model states no length."""
    if model.max_context is None:
        return None
    if model.rope_scaling_factor is None:
        return model.max_context
    if model.rope_original_context is not None and rule is not None and not rule.yarn_scales_original:
        return model.max_context  # SGLang, TensorRT-LLM: YaRN keeps max_position_embeddings
    base = model.rope_original_context or model.max_context
    return int(base * model.rope_scaling_factor)


def _checks(s: Scenario, rule: LongContextRule) -> bool:
    """Whether the scenario's release of the engine checks the length (``rule.since``); an
    unknown version is left to the release check (core/pipeline/validate_serving.py)."""
    if not rule.since:
        return True
    try:
        version = release(s.profile.releases, s.serving.engine_version).version
    except KeyError:
        return False
    key, first = version_key(version), version_key(rule.since)
    return key is not None and first is not None and key >= first


def check_context_limit(s: Scenario) -> None:
    """ScenarioError on ``serving.max_context`` past the model's derived length, for an engine
    that refuses (or lowers) it without its switch (module docstring)."""
    rule, stated = s.profile.long_context, s.serving.max_context
    if rule is None or stated is None or not s.workload.serves or s.serving.allow_long_context:
        return
    limit = derived_context(s.model, rule)
    if limit is None or stated <= limit or not _checks(s, rule):
        return
    factor = s.model.rope_scaling_factor
    length = f"{limit:,}" + (f" (rope_scaling_factor {factor:g})" if factor else "")
    raise ScenarioError(
        FIELD,
        f"{stated:,} is past the model's {length}-token length, which {s.profile.label} "
        f"{rule.action} ({rule.source}); state the RoPE scaling the deployment adds "
        f"(model.rope_scaling_factor, model.rope_original_context) or {rule.switch}=1 "
        "(serving.allow_long_context true)",
    )
