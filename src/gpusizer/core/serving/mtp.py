"""Speculative method ``mtp`` drafts with the multi-token-prediction layers the target's own
checkpoint ships (``model.mtp_layers``); a model without them cannot run it, in any engine:

- vLLM (``vllm/config/speculative.py``): with method ``mtp`` the draft is the target's own
  checkpoint, its config rewritten by ``hf_config_override`` into an MTP model type only for
  the families with an MTP module (deepseek_v3 -> ``deepseek_mtp``, ``Glm4MoeForCausalLM``,
  ``MiMoForCausalLM``, ``qwen3_next``...); any other draft model type ends in
  ``NotImplementedError("Unsupported speculative method: 'mtp'")``, and a DeepSeek-type config
  stating ``num_nextn_predict_layers`` 0 builds no layer (``deepseek_mtp.py``: ``spec_step_idx %
  self.num_mtp_layers`` divides by zero);
- SGLang (``server_args.py``): ``NEXTN`` runs as ``EAGLE`` and the draft path defaults to the
  target's own only for ``DeepseekV3ForCausalLM``, ``Glm4MoeForCausalLM`` and their kin;
  ``configs/model_config.py`` ``_config_draft_model`` maps only those (and MiMo, Qwen3-Next) to
  their NextN draft classes;
- TensorRT-LLM: ``MTPDecodingConfig`` runs the checkpoint's ``num_nextn_predict_layers`` MTP
  layers, read from the model's config (PR 12341: "how many MTP layers actually exist in the
  checkpoint").

So ``mtp`` on a model whose ``mtp_layers`` is 0 is refused naming the method's field and what
runs instead; ``None`` (a custom block: unknown) is accepted, the layers assumed present.
"""

from __future__ import annotations

from ..errors import ScenarioError
from ..model.specs import ModelSpec, Scenario
from ..registry.serving_support import FeatureTable

# what drafts without an MTP module, in the order a message offers them
INSTEAD = ("eagle", "eagle3", "draft_model", "ngram")


def instead(table: FeatureTable | None, offered: tuple[str, ...] = INSTEAD) -> str:
    """The methods of ``offered`` the engine's table runs (all of them where it has none)."""
    runs = [m for m in offered if table is None or table.speculative.runs(m)]
    if not runs:
        return "null (off)"
    listed = ", ".join(runs[:-1]) + f" or {runs[-1]}" if len(runs) > 1 else runs[0]
    return f"{listed}, or null (off)"


def check_mtp(
    model: ModelSpec,
    method: str | None,
    field: str,
    table: FeatureTable | None,
    offered: tuple[str, ...] = INSTEAD,
) -> None:
    """Refuse ``method`` ``mtp`` at ``field`` where ``model`` ships no MTP layers (docstring);
    the message offers the methods of ``offered`` the engine (``table``) runs."""
    if method != "mtp" or model.mtp_layers != 0:
        return
    raise ScenarioError(
        field,
        f'"mtp" drafts with the checkpoint\'s own multi-token-prediction layers and {model.name} '
        f"ships none (model.mtp_layers 0), so no engine runs it; use {instead(table, offered)}",
    )


def mtp_note(s: Scenario, method: str | None) -> str | None:
    """The assumption a model of unknown MTP layers (``model.mtp_layers`` null) runs ``mtp`` on."""
    if method != "mtp" or s.model.mtp_layers is not None:
        return None
    return (
        "speculative decoding (mtp): the model's multi-token-prediction layers are assumed present "
        "(model.mtp_layers null: unknown); engines refuse mtp on a checkpoint without them"
    )
