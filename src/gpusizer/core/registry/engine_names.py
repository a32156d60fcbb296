"""Serving engines' own names for settings the scenario states, round 4 (docs/evidence/
serving.md, "Real deployments and RL runs as published, round 4"): the speculative methods an
engine rewrites to one the estimate prices (accepted as that method), and the flag, format and
engine names a launch command carries, each with the one-line answer a refusal gives in place
of "unknown field" or a list of ids (the field that states it, or what is not modelled and what
to state instead). core/registry/engine_flags.py holds rounds 1-3's; it consults these.

Sources, by engine:

- vLLM ``vllm/config/speculative.py`` (``MTPModelTypes``; ``SpeculativeConfig.__post_init__``:
  "method `%s` is deprecated and replaced with mtp": every ``*_mtp`` method runs as ``mtp``;
  ``num_speculative_tokens``, ``model``, ``prompt_lookup_max`` / ``_min``; ``medusa``,
  ``mlp_speculator``, ``suffix`` (Arctic Inference), ``ngram_gpu``); ``vllm/engine/arg_utils.py``
  ``EngineArgs``: ``enable_lora``, ``max_loras``, ``max_lora_rank``, ``max_cpu_loras``,
  ``enable_prefix_caching`` (on by default in V1), ``enable_chunked_prefill`` (V1 always
  chunks), ``async_scheduling``, ``enable_dbo``, ``limit_mm_per_prompt``,
  ``mm_encoder_tp_mode``, ``cuda_graph_sizes``, ``dtype``; ``--attention-backend`` names
  (``FLASH_ATTN``, ``FLASHINFER``...).
- TensorRT-LLM ``tensorrt_llm/llmapi/llm_args.py``: ``speculative_config.decoding_type`` of
  ``MTPDecodingConfig`` ``MTP``, ``NGramDecodingConfig`` ``NGram``,
  ``DraftTargetDecodingConfig`` ``DraftTarget``, ``EagleDecodingConfig`` ``Eagle`` (EAGLE or
  EAGLE-3 heads), ``MedusaDecodingConfig`` ``Medusa``.
- SGLang ``python/sglang/srt/server_args.py``: ``--speculative-algorithm`` ``EAGLE``,
  ``EAGLE3``, ``NEXTN`` (rewritten to ``EAGLE``: "NEXTN shares the same implementation of
  EAGLE", the model's MTP layers as the draft), ``STANDALONE`` (a draft model), ``NGRAM``;
  ``--speculative-num-steps``, ``--speculative-eagle-topk``, ``--speculative-num-draft-tokens``,
  ``--ep-size``, ``--dp-size``, ``--cuda-graph-max-bs``, ``--attention-backend`` (``fa3``,
  ``flashinfer``, ``triton``...).
- llama.cpp ``common/arg.cpp``: ``-ngl``, ``-fa`` (on by default in the releases
  core/registry/engine_releases_cpp.py marks ``flash_attention``), ``--tensor-split``,
  ``--split-mode``, ``--mlock``, ``--ubatch-size``; Ollama ``OLLAMA_KV_CACHE_TYPE``,
  ``OLLAMA_FLASH_ATTENTION``, ``num_ctx``. Format names and GGUF file types:
  core/registry/format_names.py.
"""

from __future__ import annotations

from .attention_backends import SGLANG_ATTENTION_BACKENDS, VLLM_ATTENTION_BACKENDS, VLLM_TRITON

# vLLM's MTPModelTypes (vllm/config/speculative.py, main 2026): each rewritten to "mtp"
_VLLM_MTP = (
    "deepseek_mtp",
    "mimo_mtp",
    "mimo_v2_mtp",
    "glm4_moe_mtp",
    "glm4_moe_lite_mtp",
    "ernie_mtp",
    "nemotron_h_mtp",
    "qwen3_next_mtp",
    "qwen3_5_mtp",
    "longcat_flash_mtp",
    "pangu_ultra_moe_mtp",
    "exaone_moe_mtp",
    "step3p5_mtp",
)
# The engine's spelling -> the method it runs (accepted as that method)
SPEC_METHODS: dict[str, str] = {
    **dict.fromkeys(_VLLM_MTP, "mtp"),
    "NEXTN": "mtp",  # SGLang: the model's MTP layers through EAGLE's worker
    "EAGLE3": "eagle3",
    "STANDALONE": "draft_model",
    "NGRAM": "ngram",
    # TensorRT-LLM speculative_config decoding_type (tensorrt_llm/llmapi/llm_args.py)
    "MTP": "mtp",
    "NGram": "ngram",
    "DraftTarget": "draft_model",
}
_NOT_PRICED = "state eagle, eagle3, mtp, ngram or draft_model, or null (off)"
# The engine's spelling -> the refusal's line (no one method it runs)
SPEC_HINTS: dict[str, str] = {
    "EAGLE": (
        "SGLang's EAGLE runs an EAGLE head, or on a model with MTP layers those layers (NEXTN "
        "is rewritten to EAGLE): state eagle, or mtp for the model's MTP layers"
    ),
    "Eagle": "TensorRT-LLM's Eagle runs EAGLE or EAGLE-3 heads: state eagle or eagle3",
    "medusa": "Medusa heads are not priced; " + _NOT_PRICED,
    "Medusa": "Medusa heads are not priced; " + _NOT_PRICED,
    "mlp_speculator": "MLP speculators are not priced; " + _NOT_PRICED,
    "suffix": "suffix decoding (Arctic Inference) is not priced; ngram is the nearest, " + _NOT_PRICED,
    "ngram_gpu": "state ngram (the n-gram proposer, on the GPU or not)",
    "custom_class": "a custom proposer is not priced; " + _NOT_PRICED,
}


def spec_method(value: object) -> object:
    """``serving.speculative.method`` (and the rollout's) as the estimate reads it: an engine's
    own spelling of a method it runs becomes that method (SPEC_METHODS); a spelling without one
    raises ValueError with its line; anything else is returned for the schema to judge."""
    if not isinstance(value, str):
        return value
    if value in SPEC_HINTS:
        raise ValueError(SPEC_HINTS[value])
    return SPEC_METHODS.get(value, value)


_LORA = (
    "state serving.lora: adapters (max_cpu_loras, else max_loras), max_loaded (max_loras) and "
    "rank (max_lora_rank)"
)
_SPEC = "state serving.speculative {method, num_tokens, acceptance_rate, draft_model}"
_STEPS = "state serving.speculative.num_tokens (vLLM num_speculative_tokens, SGLang --speculative-num-steps)"
_EP = "state parallelism.expert (the ranks the experts span)"
_DP = "state parallelism.data (replicas), or attention DP as parallelism.attention_data with tensor = DP x TP"
_KV = "state precision.kv_cache (gguf_q8_0, gguf_q4_0, fp8, bf16...)"
_CONTEXT = "state serving.max_context (tokens)"
_GRAPHS = "state serving.cuda_graph_batch_sizes (the batch sizes captured)"
_NO_FIGURE = "no GPU figure depends on it; leave it out"
_FA = (
    "flash attention follows serving.engine_version (on from llama.cpp b7000 and ollama-0.17 as "
    "modelled, off before): leave it out"
)
_SPLIT = (
    "llama.cpp splits layers evenly here: state parallelism.pipeline N (--split-mode layer) or "
    "parallelism.tensor N (--split-mode row); an uneven --tensor-split is not modelled"
)
SERVING_FIELDS: dict[str, str] = {
    "serving.enable_lora": _LORA,
    "serving.max_loras": _LORA,
    "serving.max_lora_rank": _LORA,
    "serving.max_cpu_loras": _LORA,
    "serving.lora.max_loras": "state serving.lora.max_loaded (vLLM max_loras)",
    "serving.lora.max_lora_rank": "state serving.lora.rank (vLLM max_lora_rank)",
    "serving.lora.max_cpu_loras": "state serving.lora.adapters (vLLM max_cpu_loras)",
    "serving.enable_prefix_caching": (
        "state serving.prefix.shared_tokens (the tokens every prompt shares; vLLM V1 caches "
        "prefixes by default, so a figure moves only with a shared prefix)"
    ),
    "serving.speculative_config": "vLLM's --speculative-config: " + _SPEC,
    "serving.speculative_algorithm": "SGLang's --speculative-algorithm: " + _SPEC,
    "serving.speculative_num_steps": _STEPS,
    "serving.speculative_num_draft_tokens": _STEPS + " (draft tokens = steps + 1 at topk 1)",
    "serving.speculative_eagle_topk": "a draft tree (topk above 1) is not priced; " + _STEPS,
    "serving.speculative_draft_model_path": (
        "state serving.speculative.draft_model (a preset or a model block)"
    ),
    "serving.speculative.num_speculative_tokens": _STEPS,
    "serving.speculative.decoding_type": "TensorRT-LLM's decoding_type: state serving.speculative.method",
    "serving.speculative.max_draft_len": _STEPS + " (TensorRT-LLM max_draft_len)",
    "serving.speculative.num_nextn_predict_layers": _STEPS + " (TensorRT-LLM MTP's)",
    "serving.speculative_config.decoding_type": (
        "TensorRT-LLM's decoding_type: state serving.speculative.method"
    ),
    "serving.speculative.num_steps": _STEPS,
    "serving.speculative.num_draft_tokens": _STEPS + " (draft tokens = steps + 1 at topk 1)",
    "serving.speculative.eagle_topk": "a draft tree (topk above 1) is not priced; " + _STEPS,
    "serving.speculative.model": (
        "an EAGLE / EAGLE-3 head or MTP layers are priced from the target's shape: leave it out; "
        "a draft model: state serving.speculative.draft_model (a preset or a model block)"
    ),
    "serving.speculative.prompt_lookup_max": "the n-gram window changes no GPU figure; leave it out",
    "serving.speculative.prompt_lookup_min": "the n-gram window changes no GPU figure; leave it out",
    "parallelism.enable_expert_parallel": _EP,
    "parallelism.data_parallel_size": _DP,
    "parallelism.tensor_parallel_size": "state parallelism.tensor",
    "parallelism.pipeline_parallel_size": "state parallelism.pipeline",
    "serving.ep_size": _EP,
    "serving.expert_parallel_size": _EP,
    "serving.dp_size": _DP,
    "serving.enable_dbo": (
        "vLLM's dual batch overlap is not modelled; SGLang's two-batch overlap is "
        "serving.two_batch_overlap (with a DeepEP backend)"
    ),
    # docs/evidence/speed.md (async scheduling per release): run beside the GPU from 0.14.0, as
    # vLLM defaults it, the host step read the replayed vLLM figures faster still
    "serving.async_scheduling": (
        "not modelled: every release's host step is priced serial (hidden from 0.14.0 on, as "
        "vLLM defaults it, it read the replayed vLLM figures faster still); leave it out"
    ),
    "serving.enable_chunked_prefill": "vLLM V1 always chunks: state serving.prefill_chunk_tokens (tokens)",
    "serving.max_num_partial_prefills": "not modelled; leave it out",
    "serving.limit_mm_per_prompt": (
        "the encoder's profile run for images is not modelled (a vision tower's weights are); leave it out"
    ),
    "serving.mm_encoder_tp_mode": (
        "a vision tower replicated on each TP rank (data) is not modelled (it is split by TP "
        "here); leave it out"
    ),
    "serving.cuda_graph_max_bs": _GRAPHS,
    "serving.cuda_graph_sizes": _GRAPHS,
    "serving.cudagraph_capture_sizes": _GRAPHS,
    "serving.moe_runner_backend": (
        'SGLang\'s MoE runner is not a field; its aiter (SGLANG_USE_AITER=1) is serving.moe_backend "aiter"'
    ),
    "serving.dtype": "state precision.weights and precision.activations (bf16, fp16)",
    "serving.kv_cache_type": "Ollama's OLLAMA_KV_CACHE_TYPE: " + _KV,
    "serving.flash_attention": _FA,
    "serving.flash_attn": _FA,
    "serving.fa": _FA,
    "serving.num_ctx": "Ollama's num_ctx: " + _CONTEXT,
    "serving.n_ctx": _CONTEXT,
    "serving.ngl": "llama.cpp's -ngl: state serving.gpu_layers (0 or more)",
    "serving.tensor_split": _SPLIT,
    "serving.split_mode": _SPLIT,
    **dict.fromkeys(
        (
            "serving.tokenizer_mode",
            "serving.config_format",
            "serving.load_format",
            "serving.tool_call_parser",
            "serving.enable_auto_tool_choice",
            "serving.reasoning_parser",
            "serving.served_model_name",
            "serving.trust_remote_code",
            "serving.chat_template",
            "serving.jinja",
            "serving.host",
            "serving.port",
            "serving.seed",
        ),
        _NO_FIGURE,
    ),
    "serving.mlock": _NO_FIGURE,
    "serving.no_mmap": _NO_FIGURE,
    "serving.ubatch_size": "llama.cpp's --ubatch-size: state serving.prefill_chunk_tokens (tokens)",
    "serving.batch_size": "llama.cpp's --batch-size: state serving.prefill_chunk_tokens (the ubatch, tokens)",
}

_ENGINES = "framework vllm, sglang, tensorrt-llm, llama.cpp or mlx"
# A serving engine's name written as the framework -> the refusal's line
FRAMEWORK_NAMES: dict[str, str] = {
    "ollama": 'Ollama: state framework llama.cpp with serving.engine_version "ollama-0.13" (its release)',
    "llamacpp": "state framework llama.cpp",
    "llama_cpp": "state framework llama.cpp",
    "llama-cpp": "state framework llama.cpp",
    "llama-server": "state framework llama.cpp",
    "trtllm": "state framework tensorrt-llm",
    "tensorrt_llm": "state framework tensorrt-llm",
    "trt-llm": "state framework tensorrt-llm",
    "trtllm-serve": "state framework tensorrt-llm",
    "mlx-lm": "state framework mlx",
    "mlx_lm": "state framework mlx",
    "lmdeploy": "LMDeploy is not a modelled engine; " + "state " + _ENGINES,
    "tgi": "TGI is not a modelled engine; state " + _ENGINES,
    "vllm-ascend": "Ascend NPUs are not modelled; state " + _ENGINES + " on a catalog GPU",
    "ktransformers": "KTransformers is not a modelled engine; state " + _ENGINES,
    "exllamav2": "ExLlamaV2 is not a modelled engine; state " + _ENGINES,
}


def framework_hint(value: object) -> str | None:
    """The refusal's line for an engine's name given as ``framework`` (its own spelling or its
    case: ``SGLang``, ``vLLM``); None: not one."""
    if not isinstance(value, str):
        return None
    low = value.lower()
    if low != value and low in ("vllm", "sglang", "tensorrt-llm", "llama.cpp", "mlx"):
        return f"state framework {low}"
    return FRAMEWORK_NAMES.get(low)


# llama.cpp's -c 0 (common/arg.cpp: "0 = loaded from model"), Ollama's num_ctx 0
ZERO_CONTEXT = (
    "llama.cpp's -c 0 is the model's own length: state that number (model.max_context), or null "
    "(llama.cpp: fitted to memory, at least 4,096)"
)


def attention_backend_hint(value: object) -> str | None:
    """The refusal's line for a ``serving.attention_backend`` that is neither one of vLLM's GPU
    backend names (:data:`VLLM_ATTENTION_BACKENDS`) nor SGLang's
    (:data:`SGLANG_ATTENTION_BACKENDS`); None for one of them or null. Which engine a name
    belongs to is judged with the framework (pipeline/validate_serving.py)."""
    if value is None or value in VLLM_ATTENTION_BACKENDS or value in SGLANG_ATTENTION_BACKENDS:
        return None
    if isinstance(value, str) and value.lower() in ("triton", "triton_attn"):
        return VLLM_TRITON
    return (
        "not a vLLM --attention-backend name for a GPU (vllm/attention/backends/registry.py: "
        "'FLASH_ATTN', 'FLASHINFER', 'TRITON_ATTN', 'FLASHMLA'...), in its capitals; or null, "
        "the engine's default for the GPU"
    )


def serving_field_hint(path: str) -> str | None:
    """The refusal's line for a serving engine's own option name at ``path``; None: not one."""
    return SERVING_FIELDS.get(path)
