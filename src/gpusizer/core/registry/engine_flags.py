"""Serving engines' own flag and format names, as a scenario written from a launch command
spells them, with the one-line answer a refusal gives in place of "unknown field" or the
list of dtype ids: the scenario field that states the same setting, or what is not modelled
and what to state instead (docs/evidence/serving.md, "Real serving deployments the estimate
refused").

Each entry is a setting the engine accepts; sources, by engine (flag names as of the releases
core/registry/engine_releases*.py name):

- vLLM ``vllm/engine/arg_utils.py`` ``EngineArgs`` (v0.11): ``max_model_len`` (past the
  model's length only with ``rope_scaling`` in the config, ``--rope-scaling`` or
  ``--hf-overrides``, or ``VLLM_ALLOW_LONG_MAX_MODEL_LEN=1``: core/serving/context_limit.py;
  SGLang's ``--json-model-override-args`` and ``SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN``,
  TensorRT-LLM's ``max_seq_len`` and ``TLLM_ALLOW_LONG_MAX_MODEL_LEN``: core/registry/long_context.py),
  ``gpu_memory_utilization``, ``max_num_seqs``, ``max_num_batched_tokens``, ``block_size``,
  ``kv_cache_dtype`` (``auto``, ``fp8``, ``fp8_e4m3``, ``fp8_e5m2``), ``quantization``,
  ``enforce_eager``, ``swap_space``, ``cpu_offload_gb``; ``cpu_offload_gb`` keeps that many
  GiB of weights in pinned host memory that every forward reads over PCIe
  (``vllm/model_executor/models/utils.py`` ``maybe_offload_to_cpu``: "V1 CPU offloading
  requires uva (pin memory) support"; stated as ``serving.cpu_offload_gib``,
  core/serving/weight_offload.py); the V1 scheduler preempts by recomputing
  (``vllm/v1/core/sched/scheduler.py``), so ``swap_space`` moves no KV cache;
  ``speculative_config.draft_tensor_parallel_size`` (1 or the target's TP,
  ``vllm/config/speculative.py``).
- SGLang ``python/sglang/srt/server_args.py`` ``ServerArgs``: ``mem_fraction_static``,
  ``chunked_prefill_size``, ``page_size``, ``cpu_offload_gb`` (``python/sglang/srt/utils/
  offloader.py`` ``OffloaderV1``, the same host-resident weights); ``QUANTIZATION_CHOICES``
  ``w4afp8`` is accepted as a weight format (core/registry/weight_mixtures.py).
- llama.cpp ``common/arg.cpp``: ``--n-gpu-layers``, ``--parallel``, ``--cache-type-k`` /
  ``--cache-type-v`` (f16, q8_0, q4_0...), ``--n-cpu-moe`` / ``--cpu-moe`` and
  ``--override-tensor`` (``-ot exps=CPU``): the expert tensors of some layers in host memory,
  run by the CPU, the rest of each layer on the GPU. Ollama: ``OLLAMA_NUM_PARALLEL``.
- TensorRT-LLM ``free_gpu_memory_fraction`` (``KvCacheConfig``).
"""

from __future__ import annotations

from .engine_names import serving_field_hint
from .format_names import gguf_format_hint
from .stack_names import stack_field_hint
from .training_flags import training_field_hint

_CONTEXT = (
    "state serving.max_context (tokens; past the model's max_context vLLM, SGLang and "
    "TensorRT-LLM need model.rope_scaling_factor or serving.allow_long_context)"
)
_ROPE = (
    "state the factor as model.rope_scaling_factor and its original_max_position_embeddings as "
    "model.rope_original_context (vLLM then takes their product as max_model_len)"
)
_FRACTION = "state serving.memory_fraction (0.001-1)"
_SEQS = "state serving.max_sequences (1 or more)"
_CHUNK = "state serving.prefill_chunk_tokens (tokens)"
_BLOCK = "state serving.kv_block_tokens (tokens)"
_KV = (
    "state precision.kv_cache: fp8 (fp8, fp8_e4m3, fp8_e5m2), bf16 or fp16 (auto), "
    "gguf_q8_0 / gguf_q4_0 (llama.cpp q8_0 / q4_0; K and V take the one type)"
)
_WEIGHTS = "state precision.weights (a format id: awq_int4, gptq_int4, gptq_int8, nf4, fp8, gguf_q4_k_m...)"
_EXPERTS_CPU = (
    "llama.cpp's expert tensors in host memory (--n-cpu-moe N, --cpu-moe, -ot exps=CPU): "
    'state serving.cpu_moe_layers N (the first N layers\' experts) or "all"'
)
_OFFLOAD = (
    "vLLM / SGLang --cpu-offload-gb (weights a GPU keeps in host memory, read over its host "
    "link every step): state serving.cpu_offload_gib (GiB a GPU)"
)
_TP = "state parallelism.tensor (the engine's TP size)"

# Field path the scenario was written with -> the refusal's one line.
ENGINE_FIELDS: dict[str, str] = {
    "serving.max_model_len": _CONTEXT,
    "serving.context_length": _CONTEXT,
    "serving.ctx_size": _CONTEXT,
    "serving.rope_scaling": _ROPE,
    "serving.hf_overrides": "vLLM's --hf-overrides: for its rope_scaling, " + _ROPE,
    "serving.vllm_allow_long_max_model_len": (
        "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1: state serving.allow_long_context true"
    ),
    "serving.sglang_allow_overwrite_longer_context_len": (
        "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1: state serving.allow_long_context true"
    ),
    "serving.tllm_allow_long_max_model_len": (
        "TLLM_ALLOW_LONG_MAX_MODEL_LEN=1: state serving.allow_long_context true"
    ),
    "serving.json_model_override_args": "SGLang's --json-model-override-args: for its rope_scaling, " + _ROPE,
    "serving.max_seq_len": "TensorRT-LLM's max_seq_len: " + _CONTEXT,
    "serving.gpu_memory_utilization": _FRACTION,
    "serving.mem_fraction_static": _FRACTION,
    "serving.free_gpu_memory_fraction": _FRACTION,
    "serving.max_num_seqs": _SEQS,
    "serving.max_running_requests": _SEQS,
    "serving.num_parallel": "Ollama's OLLAMA_NUM_PARALLEL: " + _SEQS,
    "serving.n_parallel": "llama.cpp's --parallel: " + _SEQS,
    "serving.parallel": "llama.cpp's --parallel: " + _SEQS,
    "serving.max_num_batched_tokens": _CHUNK,
    "serving.chunked_prefill_size": _CHUNK,
    "serving.block_size": _BLOCK,
    "serving.page_size": _BLOCK,
    "serving.kv_cache_dtype": _KV,
    "serving.cache_type_k": _KV,
    "serving.cache_type_v": _KV,
    "serving.quantization": _WEIGHTS,
    "serving.enforce_eager": "vLLM's --enforce-eager: state serving.cuda_graphs false",
    "serving.disable_cuda_graph": "SGLang's --disable-cuda-graph: state serving.cuda_graphs false",
    "serving.n_gpu_layers": "llama.cpp's --n-gpu-layers: state serving.gpu_layers (0 or more)",
    "serving.tensor_parallel_size": _TP,
    "serving.tp_size": _TP,
    "serving.pipeline_parallel_size": "state parallelism.pipeline (the engine's PP size)",
    "serving.data_parallel_size": (
        "state parallelism.data (replicas), or with expert parallelism parallelism.expert and, for "
        "attention DP, parallelism.tensor = DP x TP with parallelism.attention_data = DP"
    ),
    "serving.enable_expert_parallel": "state parallelism.expert (the ranks the experts span)",
    "serving.enable_dp_attention": "state parallelism.attention_data (the --dp size; a MoE model)",
    "serving.cpu_offload_gb": _OFFLOAD,
    "serving.swap_space": (
        "vLLM V1 preempts by recomputing and swaps no KV cache to host memory: no GPU figure "
        "depends on it; leave it out"
    ),
    "serving.n_cpu_moe": _EXPERTS_CPU,
    "serving.cpu_moe": _EXPERTS_CPU,
    "serving.override_tensor": _EXPERTS_CPU,
    "serving.speculative.draft_tensor_parallel_size": (
        "the draft is split at parallelism.tensor here (vLLM's default: the target's TP); a draft "
        "at TP 1 beside a wider target is not modelled: leave it out"
    ),
}
ENGINE_FIELDS["serving.speculative.draft_tensor_parallel"] = ENGINE_FIELDS[
    "serving.speculative.draft_tensor_parallel_size"
]

# Engine format names a precision field was given -> the refusal's one line.
ENGINE_FORMATS: dict[str, str] = {
    "fp8_e4m3": "state fp8 (one byte a value, E4M3 or E5M2 alike)",
    "fp8_e5m2": "state fp8 (one byte a value, E4M3 or E5M2 alike)",
    "auto": "state the checkpoint's dtype: bf16 or fp16",
    "awq": "state awq_int4 (AWQ, group 128; awq_marlin runs the same bytes)",
    "awq_marlin": "state awq_int4 (the Marlin kernel reads AWQ's bytes)",
    "gptq": "state gptq_int4 or gptq_int8 (group 128)",
    "gptq_marlin": "state gptq_int4 or gptq_int8 (the Marlin kernel reads GPTQ's bytes)",
    "bitsandbytes": "state nf4 (bitsandbytes 4-bit, double quantised) or int8",
    "gguf": "state the file's type: gguf_q4_k_m, gguf_q8_0, gguf_q5_k_m...",
    "q8_0": "state gguf_q8_0",
    "q4_0": "state gguf_q4_0",
    "q4_1": "state gguf_q4_1",
    "q5_0": "state gguf_q5_0",
    "q5_1": "state gguf_q5_1",
    "f16": "state fp16",
}


def field_hint(path: str) -> str | None:
    """The refusal's line for an engine's own field name at ``path`` (or a training stack's,
    core/registry/training_flags.py); None: not one."""
    return (
        ENGINE_FIELDS.get(path)
        or serving_field_hint(path)
        or training_field_hint(path)
        or stack_field_hint(path)
    )


def format_hint(value: object, ids: tuple[str, ...] = ()) -> str | None:
    """The refusal's line for an engine's own format name, or a GGUF file type's
    (core/registry/engine_names.py; ``ids``: the format ids); None: not one."""
    if not isinstance(value, str):
        return None
    return ENGINE_FORMATS.get(value) or gguf_format_hint(value, ids)
