"""The 40 configurations of round 4 (docs/evidence/serving.md, "Real deployments and RL runs as
published, round 4"), each as its published command or config states it: ``STATED`` in the
scenario's own fields (what the estimate answers), and ``PASTED`` the same run's engine or stack
names written into the scenario as a user copies them, with what the estimate now does with each:
``None`` accepted (an engine's spelling of a method it runs), else (the field the one-line
refusal names, words it holds). Sources beside each configuration."""

from __future__ import annotations

from typing import Any

H100 = {"gpu": "h100-sxm-80gb"}
H200 = {"gpu": "h200-141gb"}
B200 = {"gpu": "b200-192gb"}
RTX4090 = {"gpu": "rtx-4090-24gb"}
RTX3090 = {"gpu": "rtx-3090-24gb"}


def serve(model: Any, framework: str, **blocks: Any) -> dict[str, Any]:
    s = {
        "model": {"preset": model} if isinstance(model, str) else model,
        "framework": framework,
        "workload": {"kind": "inference", "prompt_tokens": 2048, "generated_tokens": 512},
        **blocks,
    }
    s.setdefault("hardware", H100)
    return s


def rl(preset: str, framework: str, par: dict[str, Any], block: dict[str, Any]) -> dict[str, Any]:
    return {
        "model": {"preset": preset},
        "framework": framework,
        "workload": {"kind": "rl", "micro_batch_size": 1},
        "parallelism": par,
        "rl": block,
        "hardware": H100,
    }


def tune(preset: str, framework: str, kind: str, par: dict[str, Any], **work: Any) -> dict[str, Any]:
    return {
        "model": {"preset": preset},
        "framework": framework,
        "workload": {"kind": kind, "sequence_length": 4096, "micro_batch_size": 1, **work},
        "parallelism": par,
        "hardware": H100,
    }


Paste = tuple[tuple[str, ...], Any, "tuple[str, str] | None"]

STATED: dict[str, dict[str, Any]] = {}
PASTED: dict[str, list[Paste]] = {}

# --- vLLM / SGLang / TensorRT-LLM (24) ---
# vllm-project/recipes OpenAI/GPT-OSS.md: `vllm serve openai/gpt-oss-120b` on one H100
STATED["vllm-gpt-oss-120b-h100"] = serve("gpt-oss-120b", "vllm")
# the same recipe with NVIDIA's EAGLE-3 head: --speculative-config
# '{"model": "nvidia/gpt-oss-120b-Eagle3", "num_speculative_tokens": 3, "method": "eagle3"}'
STATED["vllm-gpt-oss-120b-eagle3"] = serve(
    "gpt-oss-120b", "vllm", hardware=H200, serving={"speculative": {"method": "eagle3", "num_tokens": 3}}
)
PASTED["vllm-gpt-oss-120b-eagle3"] = [
    (
        ("serving", "speculative", "model"),
        "nvidia/gpt-oss-120b-Eagle3",
        ("serving.speculative.model", "leave it out"),
    ),
    (
        ("serving", "speculative", "num_speculative_tokens"),
        3,
        ("serving.speculative.num_speculative_tokens", "num_tokens"),
    ),
]
# mlcommons/inference language/gpt-oss/run_server.sh: SGLang --tp-size=1
# --speculative-algorithm EAGLE3 --mem-fraction-static 0.85 --chunked-prefill-size 16384
STATED["sglang-gpt-oss-120b-eagle3"] = serve(
    "gpt-oss-120b",
    "sglang",
    hardware=H200,
    serving={"memory_fraction": 0.85, "prefill_chunk_tokens": 16384, "speculative": {"method": "eagle3"}},
)
PASTED["sglang-gpt-oss-120b-eagle3"] = [(("serving", "speculative", "method"), "EAGLE3", None)]
# vllm-project/recipes DeepSeek/DeepSeek-V3.md: `vllm serve deepseek-ai/DeepSeek-R1 -tp 8` on H200
STATED["vllm-deepseek-r1-tp8"] = serve("deepseek-r1", "vllm", parallelism={"tensor": 8}, hardware=H200)
# the same with MTP: --speculative-config '{"method": "deepseek_mtp", "num_speculative_tokens": 1}'
STATED["vllm-deepseek-r1-mtp"] = serve(
    "deepseek-r1",
    "vllm",
    parallelism={"tensor": 8},
    hardware=H200,
    serving={"speculative": {"method": "mtp", "num_tokens": 1}},
)
PASTED["vllm-deepseek-r1-mtp"] = [(("serving", "speculative", "method"), "deepseek_mtp", None)]
# SGLang docs basic_usage/deepseek.md (MTP): --tp 8 --speculative-algorithm EAGLE
# --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4
STATED["sglang-deepseek-v3-mtp"] = serve(
    "deepseek-v3",
    "sglang",
    parallelism={"tensor": 8},
    hardware=H200,
    serving={"speculative": {"method": "mtp", "num_tokens": 3}},
)
PASTED["sglang-deepseek-v3-mtp"] = [
    (("serving", "speculative", "method"), "EAGLE", ("serving.speculative.method", "mtp for the model's")),
    (("serving", "speculative", "eagle_topk"), 1, ("serving.speculative.eagle_topk", "num_tokens")),
]
# SGLang docs (DeepSeek, DP attention): --tp 8 --dp 8 --enable-dp-attention on 8 x H200
STATED["sglang-deepseek-r1-dp-attention"] = serve(
    "deepseek-r1", "sglang", parallelism={"tensor": 8, "attention_data": 8}, hardware=H200
)
PASTED["sglang-deepseek-r1-dp-attention"] = [
    (("serving", "dp_size"), 8, ("serving.dp_size", "attention_data"))
]
# Qwen/Qwen3-235B-A22B-FP8 model card: vllm serve ... --tensor-parallel-size 4 --enable-expert-parallel
STATED["vllm-qwen3-235b-fp8-ep"] = serve(
    "qwen3-235b-a22b", "vllm", precision={"weights": "fp8"}, parallelism={"tensor": 4, "expert": 4}
)
PASTED["vllm-qwen3-235b-fp8-ep"] = [
    (
        ("parallelism", "enable_expert_parallel"),
        True,
        ("parallelism.enable_expert_parallel", "parallelism.expert"),
    )
]
# Qwen/Qwen3-235B-A22B-Instruct-2507 model card: --tensor-parallel-size 8 --max-model-len 262144
# (its config: max_position_embeddings 262,144; the preset is the April release's 40,960)
STATED["vllm-qwen3-235b-2507-262k"] = serve(
    {"preset": "qwen3-235b-a22b", "max_context": 262144},
    "vllm",
    precision={"weights": "fp8"},
    parallelism={"tensor": 8},
    serving={"max_context": 262144},
)
# Qwen/Qwen3-Next-80B-A3B-Instruct model card: --tensor-parallel-size 4 --max-model-len 262144
# --speculative-config '{"method": "qwen3_next_mtp", "num_speculative_tokens": 2}'
STATED["vllm-qwen3-next-mtp"] = serve(
    "qwen3-next-80b-a3b",
    "vllm",
    parallelism={"tensor": 4},
    serving={"max_context": 262144, "speculative": {"method": "mtp", "num_tokens": 2}},
)
PASTED["vllm-qwen3-next-mtp"] = [(("serving", "speculative", "method"), "qwen3_next_mtp", None)]
# sgl-project/sglang docs/basic_usage/qwen3.md: --tp 4 --speculative-num-steps 3
# --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 --speculative-algo NEXTN
STATED["sglang-qwen3-next-nextn"] = serve(
    "qwen3-next-80b-a3b",
    "sglang",
    parallelism={"tensor": 4},
    serving={"speculative": {"method": "mtp", "num_tokens": 3}},
)
PASTED["sglang-qwen3-next-nextn"] = [
    (("serving", "speculative", "method"), "NEXTN", None),
    (("serving", "speculative_num_steps"), 3, ("serving.speculative_num_steps", "num_tokens")),
]
# sgl-project/sglang docs/basic_usage/glm45.md: GLM-4.6-FP8 --tp-size 8 --speculative-algorithm
# EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4
# --mem-fraction-static 0.9 (GLM-4.5's architecture: the glm-4.5 preset)
STATED["sglang-glm-4.6-fp8-mtp"] = serve(
    "glm-4.5",
    "sglang",
    precision={"weights": "fp8"},
    parallelism={"tensor": 8},
    hardware=H200,
    serving={"memory_fraction": 0.9, "speculative": {"method": "mtp", "num_tokens": 3}},
)
PASTED["sglang-glm-4.6-fp8-mtp"] = [
    (("serving", "speculative_algorithm"), "EAGLE", ("serving.speculative_algorithm", "serving.speculative")),
]
# vLLM docs features/lora.md: --enable-lora --max-loras 4 --max-lora-rank 64 --max-cpu-loras 8
STATED["vllm-llama-3.1-8b-lora"] = serve(
    "llama-3.1-8b", "vllm", serving={"lora": {"adapters": 8, "max_loaded": 4, "rank": 64}}
)
PASTED["vllm-llama-3.1-8b-lora"] = [
    (("serving", "enable_lora"), True, ("serving.enable_lora", "max_lora_rank")),
    (("serving", "lora", "max_loras"), 4, ("serving.lora.max_loras", "max_loaded")),
    (("serving", "lora", "max_cpu_loras"), 8, ("serving.lora.max_cpu_loras", "adapters")),
]
# vLLM docs (quantized KV cache, automatic prefix caching): --kv-cache-dtype fp8
# --enable-prefix-caching, a 1,024-token system prompt
STATED["vllm-qwen3-32b-kv-fp8-prefix"] = serve(
    "qwen3-32b", "vllm", precision={"kv_cache": "fp8"}, serving={"prefix": {"shared_tokens": 1024}}
)
PASTED["vllm-qwen3-32b-kv-fp8-prefix"] = [
    (("serving", "enable_prefix_caching"), True, ("serving.enable_prefix_caching", "shared_tokens")),
]
# vLLM blog "Llama 4 in vLLM" (2025-04-05): Scout on 8 x H100 --max-model-len 1000000
STATED["vllm-llama-4-scout-1m"] = serve(
    "llama-4-scout", "vllm", parallelism={"tensor": 8}, serving={"max_context": 1000000}
)
# the same post: Maverick FP8 on 8 x H100 --max-model-len 430000
STATED["vllm-llama-4-maverick-fp8-430k"] = serve(
    "llama-4-maverick",
    "vllm",
    precision={"weights": "fp8"},
    parallelism={"tensor": 8},
    serving={"max_context": 430000},
)
# moonshotai/Kimi-K2 docs/deploy_guidance.md: vLLM DP + EP over 16 H200,
# --data-parallel-size 16 --enable-expert-parallel
STATED["vllm-kimi-k2-dp16-ep"] = serve(
    "kimi-k2",
    "vllm",
    parallelism={"tensor": 16, "attention_data": 16, "expert": 16},
    hardware={"gpu": "h200-141gb", "allow_cross_node_tensor_parallel": True},
)
PASTED["vllm-kimi-k2-dp16-ep"] = [
    (("parallelism", "data_parallel_size"), 16, ("parallelism.data_parallel_size", "attention_data")),
]
# google/gemma-3-27b-it on vLLM: --max-model-len 131072 --limit-mm-per-prompt '{"image": 2}'
STATED["vllm-gemma-3-27b-128k"] = serve("gemma-3-27b", "vllm", serving={"max_context": 131072})
PASTED["vllm-gemma-3-27b-128k"] = [
    (("serving", "limit_mm_per_prompt"), {"image": 2}, ("serving.limit_mm_per_prompt", "not modelled")),
]
# mistralai/Mistral-Small-3.1-24B-Instruct-2503 model card: --tokenizer_mode mistral
# --config_format mistral --load_format mistral --tool-call-parser mistral
# --enable-auto-tool-choice --limit_mm_per_prompt 'image=10' --tensor-parallel-size 2
STATED["vllm-mistral-small-3.1-tp2"] = serve("mistral-small-3.1-24b", "vllm", parallelism={"tensor": 2})
PASTED["vllm-mistral-small-3.1-tp2"] = [
    (("serving", "tokenizer_mode"), "mistral", ("serving.tokenizer_mode", "leave it out")),
    (("serving", "tool_call_parser"), "mistral", ("serving.tool_call_parser", "leave it out")),
]
# vLLM docs features/spec_decode.md (n-gram): '{"method": "ngram", "num_speculative_tokens": 5,
# "prompt_lookup_max": 4}'
STATED["vllm-llama-3.1-8b-ngram"] = serve(
    "llama-3.1-8b", "vllm", serving={"speculative": {"method": "ngram", "num_tokens": 5}}
)
PASTED["vllm-llama-3.1-8b-ngram"] = [
    (
        ("serving", "speculative", "prompt_lookup_max"),
        4,
        ("serving.speculative.prompt_lookup_max", "leave it out"),
    ),
]
# ROCm blogs (DeepSeek-R1 on MI300X with vLLM): -tp 8 on 8 x MI300X
STATED["vllm-deepseek-r1-mi300x"] = serve(
    "deepseek-r1", "vllm", parallelism={"tensor": 8}, hardware={"gpu": "mi300x-192gb"}
)
# nvidia/Llama-3.3-70B-Instruct-FP4 model card: vLLM --quantization modelopt_fp4 on one B200
STATED["vllm-llama-3.3-70b-nvfp4-b200"] = serve(
    "llama-3.3-70b", "vllm", precision={"weights": "nvfp4"}, hardware=B200
)
PASTED["vllm-llama-3.3-70b-nvfp4-b200"] = [
    (("precision", "weights"), "modelopt_fp4", ("precision.weights", "nvfp4"))
]
# TensorRT-LLM blog "Pushing latency boundaries" / DeepSeek-R1 FP4 on 8 x B200: attention DP,
# MTP 3 (speculative_config decoding_type MTP, num_nextn_predict_layers 3)
STATED["trtllm-deepseek-r1-fp4-adp-mtp3"] = serve(
    "deepseek-r1",
    "tensorrt-llm",
    precision={"weights": "nvfp4"},
    parallelism={"tensor": 8, "attention_data": 8, "expert": 8},
    hardware=B200,
    serving={"speculative": {"method": "mtp", "num_tokens": 3}},
)
PASTED["trtllm-deepseek-r1-fp4-adp-mtp3"] = [
    (("framework",), "trtllm", ("framework", "tensorrt-llm")),
    # speculative_config: {decoding_type: MTP, num_nextn_predict_layers: 3}
    (("serving", "speculative", "method"), "MTP", None),
]
# sgl-project/sglang docs/basic_usage/llama4.md: Scout --tp 8 --context-length 1000000
STATED["sglang-llama-4-scout-1m"] = serve(
    "llama-4-scout", "sglang", parallelism={"tensor": 8}, serving={"max_context": 1000000}
)
# Qwen3-30B-A3B AWQ on one RTX 4090, vllm serve --max-model-len 32768 (Qwen docs, AWQ)
STATED["vllm-qwen3-30b-awq-4090"] = serve(
    "qwen3-30b-a3b",
    "vllm",
    precision={"weights": "awq_int4"},
    hardware=RTX4090,
    serving={"max_context": 32768},
)

# --- llama.cpp and Ollama (7) ---
# ggml-org/llama.cpp discussion 15396 ("guide: running gpt-oss with llama.cpp"): llama-server
# -hf ggml-org/gpt-oss-120b-GGUF -c 0 -fa --jinja --n-cpu-moe 24 on an RTX 4090 (-c 0: the
# model's 131,072)
STATED["llamacpp-gpt-oss-120b-n-cpu-moe"] = serve(
    "gpt-oss-120b", "llama.cpp", hardware=RTX4090, serving={"cpu_moe_layers": 24, "max_context": 131072}
)
PASTED["llamacpp-gpt-oss-120b-n-cpu-moe"] = [
    (("serving", "max_context"), 0, ("serving.max_context", "model's own length")),
    (("serving", "fa"), True, ("serving.fa", "engine_version")),
]
# Unsloth docs (Qwen3: how to run): llama-server -ngl 99 -ot ".ffn_.*_exps.=CPU", Qwen3-30B-A3B
# Q4_K_M on a 12 GB card
STATED["llamacpp-qwen3-30b-ot-exps-cpu"] = serve(
    "qwen3-30b-a3b",
    "llama.cpp",
    precision={"weights": "gguf_q4_k_m"},
    hardware={"gpu": "rtx-3060-12gb"},
    serving={"cpu_moe_layers": "all"},
)
PASTED["llamacpp-qwen3-30b-ot-exps-cpu"] = [
    (("precision", "weights"), "Q4_K_M", ("precision.weights", "state gguf_q4_k_m")),
    (("serving", "ngl"), 99, ("serving.ngl", "serving.gpu_layers")),
]
# Unsloth docs (Qwen3-Coder: how to run): UD-Q2_K_XL, -ot ".ffn_.*_exps.=CPU" on a 24 GB GPU
STATED["llamacpp-qwen3-coder-480b-ud-q2"] = serve(
    "qwen3-coder-480b-a35b",
    "llama.cpp",
    precision={"weights": "gguf_q2_k"},
    hardware=RTX4090,
    serving={"cpu_moe_layers": "all"},
)
PASTED["llamacpp-qwen3-coder-480b-ud-q2"] = [
    (("precision", "weights"), "UD-Q2_K_XL", ("precision.weights", "gpusizer-cli import")),
]
# ggml-org/gpt-oss-20b-GGUF: llama-server -c 0 -fa --jinja on an RTX 3090 (MXFP4 as shipped)
STATED["llamacpp-gpt-oss-20b-3090"] = serve("gpt-oss-20b", "llama.cpp", hardware=RTX3090)
PASTED["llamacpp-gpt-oss-20b-3090"] = [
    (("precision", "weights"), "MXFP4_MOE", ("precision.weights", "gguf-mxfp4_moe")),
]
# Ollama docs/faq.md: OLLAMA_FLASH_ATTENTION=1 OLLAMA_KV_CACHE_TYPE=q8_0, qwen3:30b on a 4090
STATED["ollama-qwen3-30b-kv-q8"] = serve(
    "qwen3-30b-a3b",
    "llama.cpp",
    precision={"weights": "gguf_q4_k_m", "kv_cache": "gguf_q8_0"},
    hardware=RTX4090,
    serving={"engine_version": "ollama-0.13"},
)
PASTED["ollama-qwen3-30b-kv-q8"] = [
    (("framework",), "ollama", ("framework", "ollama-0.13")),
    (("serving", "kv_cache_type"), "q8_0", ("serving.kv_cache_type", "precision.kv_cache")),
    (("serving", "flash_attention"), True, ("serving.flash_attention", "engine_version")),
]
# llama-server --split-mode layer --tensor-split 1,1 -ctk q8_0 -ctv q8_0, Llama 3.3 70B Q4_K_M
# on 2 x RTX 3090 (the two-3090 build guides of 2025)
STATED["llamacpp-llama-3.3-70b-2x3090"] = serve(
    "llama-3.3-70b",
    "llama.cpp",
    precision={"weights": "gguf_q4_k_m", "kv_cache": "gguf_q8_0"},
    parallelism={"pipeline": 2},
    hardware=RTX3090,
)
PASTED["llamacpp-llama-3.3-70b-2x3090"] = [
    (("serving", "tensor_split"), [1, 1], ("serving.tensor_split", "parallelism.pipeline")),
    (("precision", "kv_cache"), "Q8_0", ("precision.kv_cache", "gguf_q8_0")),
]
# google/gemma-3-27b-it-qat-q4_0-gguf model card: llama-server -hf ... on a 24 GB card
STATED["llamacpp-gemma-3-27b-qat-q4_0"] = serve(
    "gemma-3-27b", "llama.cpp", precision={"weights": "gguf_q4_0"}, hardware=RTX3090
)
PASTED["llamacpp-gemma-3-27b-qat-q4_0"] = [(("framework",), "llama-server", ("framework", "llama.cpp"))]

# --- RL (5) ---
# volcengine/verl examples/grpo_trainer/run_qwen2_5-7b_math.sh (FSDP): data.train_batch_size
# 1024, rollout.n 5, rollout.tensor_model_parallel_size 2, gpu_memory_utilization 0.6, 8 GPUs
STATED["verl-grpo-qwen2.5-7b"] = rl(
    "qwen2.5-7b",
    "fsdp",
    {"data": 8, "zero_stage": 3},
    {
        "framework": "verl",
        "rollout": {"tensor": 2, "samples_per_prompt": 5, "prompts_per_step": 1024, "memory_fraction": 0.6},
    },
)
PASTED["verl-grpo-qwen2.5-7b"] = [
    (("rl", "train_batch_size"), 1024, ("rl.train_batch_size", "prompts_per_step")),
    (("rl", "rollout", "name"), "vllm", ("rl.rollout.name", "rl.rollout.engine")),
]
# volcengine/verl examples/gspo_trainer (actor.policy_loss.loss_mode gspo), Qwen3-30B-A3B on
# Megatron, EP 8 over 8 GPUs
# (actor.megatron.use_distributed_optimizer, verl's default: the optimizer sharded over DP;
# param / optimizer offload as its 30B examples set them)
STATED["verl-gspo-qwen3-30b-a3b"] = rl(
    "qwen3-30b-a3b",
    "megatron",
    {"expert": 8, "data": 8, "zero_stage": 1},
    {"framework": "verl", "offload_states": True, "rollout": {"tensor": 4}},
)
PASTED["verl-gspo-qwen3-30b-a3b"] = [(("rl", "algorithm"), "gspo", ("rl.algorithm", "state grpo"))]
# OpenRLHF README (hybrid engine): --colocate_all_models --vllm_enable_sleep
# --deepspeed_enable_sleep --vllm_num_engines 8 --vllm_tensor_parallel_size 1
# --vllm_gpu_memory_utilization 0.6 --advantage_estimator reinforce, ZeRO-3, 8 GPUs
STATED["openrlhf-reinforce-pp-colocated"] = rl(
    "qwen2.5-7b",
    "deepspeed",
    {"data": 8, "zero_stage": 3},
    {
        "framework": "openrlhf",
        "algorithm": "reinforce_pp",
        "offload_states": True,  # --deepspeed_enable_sleep
        "rollout": {"tensor": 1, "memory_fraction": 0.6},  # --vllm_gpu_memory_utilization 0.6
    },
)
PASTED["openrlhf-reinforce-pp-colocated"] = [
    (("rl", "colocate_all_models"), True, ("rl.colocate_all_models", "colocated")),
    (("rl", "vllm_num_engines"), 8, ("rl.vllm_num_engines", "rl.rollout.gpus")),
    (("rl", "algorithm"), "reinforce", ("rl.algorithm", "reinforce_pp")),
]
# TRL docs (GRPOTrainer, vLLM colocate): use_vllm=True, vllm_mode="colocate",
# vllm_gpu_memory_utilization=0.3, ZeRO-3 on 8 GPUs
STATED["trl-grpo-colocate-qwen3-8b"] = rl(
    "qwen3-8b",
    "deepspeed",
    {"data": 8, "zero_stage": 3},
    {"framework": "trl", "rollout": {"memory_fraction": 0.3}},
)
PASTED["trl-grpo-colocate-qwen3-8b"] = [
    (("rl", "vllm_gpu_memory_utilization"), 0.3, ("rl.vllm_gpu_memory_utilization", "memory_fraction")),
]
# NVIDIA-NeMo/RL examples/configs/recipes/llm/grpo-llama3.1-8b-instruct-1n8g-fsdp2tp1 (one node)
STATED["nemo-rl-grpo-llama-3.1-8b"] = rl(
    "llama-3.1-8b", "fsdp", {"data": 8, "zero_stage": 3}, {"framework": "nemo_rl"}
)
PASTED["nemo-rl-grpo-llama-3.1-8b"] = [
    (("rl", "framework"), "nemo-rl", ("rl.framework", "state nemo_rl")),
    (("rl", "num_prompts_per_step"), 64, ("rl.num_prompts_per_step", "prompts_per_step")),
]

# --- fine-tuning (3) ---
# axolotl examples/llama-3/qlora.yml: adapter qlora, load_in_4bit, lora_r 32, sequence_len 4096,
# sample_packing, micro_batch_size 2, gradient_checkpointing, optimizer paged_adamw_32bit
STATED["axolotl-llama-3.1-8b-qlora"] = tune(
    "llama-3.1-8b", "axolotl", "qlora", {"recompute": "full"}, micro_batch_size=2, lora_rank=32
)
PASTED["axolotl-llama-3.1-8b-qlora"] = [
    (("workload", "adapter"), "qlora", ("workload.adapter", "workload.kind")),
    (("workload", "lora_r"), 32, ("workload.lora_r", "workload.lora_rank")),
    (("workload", "sample_packing"), True, ("workload.sample_packing", "sequence_length")),
    (("precision", "optimizer"), "paged_adamw_32bit", ("precision.optimizer", "paged_adamw")),
]
# hiyouga/LLaMA-Factory examples/train_lora/qwen3_lora_sft.yaml: finetuning_type lora,
# lora_rank 8, lora_target all, cutoff_len 2048, DeepSpeed ZeRO-3 on 8 GPUs
STATED["llamafactory-qwen3-8b-lora"] = tune(
    "qwen3-8b", "deepspeed", "lora", {"data": 8, "zero_stage": 3}, sequence_length=2048, lora_rank=8
)
PASTED["llamafactory-qwen3-8b-lora"] = [
    (("workload", "finetuning_type"), "lora", ("workload.finetuning_type", "workload.kind")),
    (("workload", "cutoff_len"), 2048, ("workload.cutoff_len", "sequence_length")),
]
# pytorch/torchtune recipes/configs/llama3_1/8B_full.yaml: 8 GPUs, FSDP,
# enable_activation_checkpointing True, max_seq_len
STATED["torchtune-llama-3.1-8b-full"] = tune(
    "llama-3.1-8b", "torchtune", "full_finetune", {"data": 8, "zero_stage": 3, "recompute": "full"}
)
PASTED["torchtune-llama-3.1-8b-full"] = [
    (
        ("parallelism", "enable_activation_checkpointing"),
        True,
        ("parallelism.enable_activation_checkpointing", "parallelism.recompute"),
    ),
    (("workload", "max_seq_len"), 4096, ("workload.max_seq_len", "sequence_length")),
]
