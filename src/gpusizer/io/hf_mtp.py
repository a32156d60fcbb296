"""The multi-token-prediction layers a checkpoint ships (``model.mtp_layers``), read from its
config.json the way the serving engines read them.

- A key states it: ``num_nextn_predict_layers`` (DeepSeek-V3 / R1 / V3.1, GLM-4.5, MiMo, Kimi K2's
  0; vLLM ``vllm/config/speculative.py`` ``hf_config_override`` sets the draft's ``n_predict``
  from it) or ``mtp_num_hidden_layers`` (Qwen3.5; the same function reads it for ``qwen3_5``).
- Qwen3-Next's released config.json has neither key, yet its checkpoint holds one ``mtp.*``
  layer: vLLM ``qwen3_next_mtp.py`` takes ``getattr(config, "num_nextn_predict_layers", 1)`` and
  SGLang ``configs/model_config.py`` ``_config_draft_model`` sets ``num_nextn_predict_layers = 1``
  for ``Qwen3NextForCausalLM``.
- MiniMax-M2's config.json declares ``use_mtp``, ``num_mtp_modules`` 3, yet its checkpoint holds
  no ``mtp.*`` tensor (the weight map lists layers 0-61 only: MiniMax-AI/MiniMax-M2 issue 47,
  "weights of these mtp modules are not published"; sgl-project/sglang PR 13981, whose NextN
  path cannot run on the released weights): 0, the layers an engine can draft with.
- The families below have no MTP module in transformers or in any engine's draft table (vLLM's
  ``MTPModelTypes``, SGLang's ``_config_draft_model``): their config without a key is 0.
- Any other family without a key: None (unknown), which the estimate accepts and says so.

A GGUF states it in ``{arch}.nextn_predict_layers`` (llama.cpp ``llama-model.cpp``
``load_hparams``: optional, 0 when absent); io/gguf_import.py passes it on as the config key.
"""

from __future__ import annotations

from .hf_reader import Reader

KEYS = ("num_nextn_predict_layers", "mtp_num_hidden_layers")
# model_type -> the MTP layers its checkpoints hold when config.json states none (docstring)
WITHOUT_KEY: dict[str, int] = {
    "qwen3_next": 1,
    "minimax_m2": 0,
    **dict.fromkeys(
        (
            "llama",
            "llama4",
            "llama4_text",
            "mistral",
            "mixtral",
            "qwen2",
            "qwen2_moe",
            "qwen2_5_vl",
            "qwen2_5_vl_text",
            "qwen3",
            "qwen3_moe",
            "gemma",
            "gemma2",
            "gemma3_text",
            "phi3",
            "gpt2",
            "falcon",
            "RefinedWeb",
            "RefinedWebModel",
            "olmo2",
            "olmoe",
            "gpt_oss",
            "nemotron_h",
            "deepseek_v2",
        ),
        0,
    ),
}


def mtp_layers(r: Reader) -> int | None:
    """The checkpoint's MTP layers as its config states them, else its family's (docstring)."""
    stated = r.count(*KEYS)
    return stated if stated is not None else WITHOUT_KEY.get(r.model_type)
