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
switch is ``serving.allow_long_context``. Engines with a switch name it in
``FrameworkProfile.long_context_switch`` (core/registry/frameworks_serving.py).
"""

from __future__ import annotations

from ..errors import ScenarioError
from ..model.specs import ModelSpec, Scenario

FIELD = "serving.max_context"


def derived_context(model: ModelSpec) -> int | None:
    """vLLM's derived max_model_len of ``model`` (tokens; module docstring); None where the
    model states no length."""
    if model.max_context is None:
        return None
    if model.rope_scaling_factor is None:
        return model.max_context
    base = model.rope_original_context or model.max_context
    return int(base * model.rope_scaling_factor)


def check_context_limit(s: Scenario) -> None:
    """ScenarioError on ``serving.max_context`` past the model's derived length, for an engine
    that refuses it without its switch (module docstring)."""
    switch, stated = s.profile.long_context_switch, s.serving.max_context
    if not switch or stated is None or not s.workload.serves or s.serving.allow_long_context:
        return
    limit = derived_context(s.model)
    if limit is None or stated <= limit:
        return
    factor = s.model.rope_scaling_factor
    length = f"{limit:,}" + (f" (rope_scaling_factor {factor:g})" if factor else "")
    raise ScenarioError(
        FIELD,
        f"{stated:,} is past the model's {length}-token length, which {s.profile.label} refuses "
        f"(vllm/config/model.py _get_and_verify_max_len); state the RoPE scaling the deployment "
        f"adds (model.rope_scaling_factor, model.rope_original_context) or {switch}=1 "
        "(serving.allow_long_context true)",
    )
