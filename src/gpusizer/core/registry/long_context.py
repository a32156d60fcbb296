"""Each serving engine's rule for a ``serving.max_context`` past the model's own length: the
length it derives from the config, what it does past it, and the switch that lets it through.

- vLLM: vllm-project/vllm ``vllm/config/model.py`` ``_get_and_verify_max_len`` (v0.11 on):
  ``max_position_embeddings`` times a ``rope_scaling.factor`` whose ``rope_type`` is not
  ``su``, ``longrope`` or ``llama3``; for ``yarn`` the length multiplied is the scaling's
  ``original_max_position_embeddings``. Past it: ValueError unless
  ``VLLM_ALLOW_LONG_MAX_MODEL_LEN=1``.
- SGLang: sgl-project/sglang ``python/sglang/srt/utils/hf_transformers_utils.py``
  ``get_context_length`` (v0.5.4): the factor multiplies ``max_position_embeddings`` only when
  the scaling has no ``original_max_position_embeddings`` and is not ``llama3`` (YaRN keeps the
  config's length). Past it ``python/sglang/srt/configs/model_config.py``
  ``_derive_context_length`` raises ValueError ("To allow overriding this maximum, set the env
  var SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1").
- TensorRT-LLM: NVIDIA/TensorRT-LLM ``tensorrt_llm/_torch/pyexecutor/model_engine.py``
  ``_infer_max_seq_len_from_config`` (1.x): the factor multiplies unless ``rope_type`` is
  ``su``, ``longrope``, ``llama3`` or ``yarn``. Past it ``_init_max_seq_len`` does not refuse:
  it warns "Specified max_seq_len ... is larger than what the model can support" and lowers
  ``max_seq_len`` to that length, unless ``TLLM_ALLOW_LONG_MAX_MODEL_LEN=1`` (the 2026 main
  branch) keeps the user's value. That is the PyTorch backend, the default of the LLM API and
  ``trtllm-serve`` from 1.0; the TensorRT engine build of the 0.x releases
  (``tensorrt_llm/builder.py`` ``_init_max_seq_len``, v0.9 - v0.21) only warns "max_seq_len
  ... is larger than max_position_embeddings ... the model accuracy might be affected" and
  builds at the stated length, so the check applies from 1.0 (``since``).

A stated ``model.rope_original_context`` is YaRN's ``original_max_position_embeddings``
(core/model/model_spec.py), so ``yarn_scales_original`` False reads SGLang's and
TensorRT-LLM's "YaRN keeps ``max_position_embeddings``".
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LongContextRule:
    """One engine's context-length rule (module docstring)."""

    switch: str  # the environment variable that lets a longer length through
    source: str  # repository file and function of the check, cited in the refusal line
    # True: YaRN's factor stretches original_max_position_embeddings (vLLM); False: a scaling
    # that states that key keeps max_position_embeddings (SGLang, TensorRT-LLM)
    yarn_scales_original: bool
    # what the engine does past the length, in the refusal line
    action: str = "refuses"
    # the first release that checks (``serving.engine_version``; "": every release)
    since: str = ""


VLLM_CONTEXT = LongContextRule(
    "VLLM_ALLOW_LONG_MAX_MODEL_LEN", "vllm/config/model.py _get_and_verify_max_len", True
)
SGLANG_CONTEXT = LongContextRule(
    "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN",
    "python/sglang/srt/configs/model_config.py _derive_context_length",
    False,
)
TRTLLM_CONTEXT = LongContextRule(
    "TLLM_ALLOW_LONG_MAX_MODEL_LEN",
    "tensorrt_llm/_torch/pyexecutor/model_engine.py _init_max_seq_len",
    False,
    "lowers max_seq_len to",
    since="1.0.0",
)
