"""The serving panel's tooltips, one per field path, in the engines' own words
(gui/panels/serving_panel.py)."""

from __future__ import annotations

LONG = "serving.allow_long_context"

TIPS = {
    "serving.engine_version": "The engine release whose defaults apply (memory fraction, batch "
    "sizes, what the KV pool pays for).",
    "serving.memory_fraction": "vLLM gpu_memory_utilization (of the whole GPU), SGLang "
    "mem_fraction_static, TensorRT-LLM free_gpu_memory_fraction.",
    "serving.max_context": "Longest request the engine accepts: vLLM max_model_len, llama.cpp "
    "n_ctx per sequence. vLLM refuses to start when one such request "
    "does not fit its KV pool.",
    LONG: "vLLM VLLM_ALLOW_LONG_MAX_MODEL_LEN=1, SGLang SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1, "
    "TensorRT-LLM TLLM_ALLOW_LONG_MAX_MODEL_LEN=1: a max context past the model's length "
    "(its max_context, or as its RoPE scaling stretches it), which the engine otherwise refuses "
    "(TensorRT-LLM 1.x lowers it).",
    "serving.max_sequences": "Requests run at once: vLLM max_num_seqs, llama.cpp n_parallel.",
    "serving.max_kv_size": "Each sequence's KV cache keeps at most this many tokens, the oldest "
    "dropped (mlx-lm --max-kv-size, RotatingKVCache); whole context when blank.",
    "serving.prefill_chunk_tokens": "Prompt tokens per engine step: vLLM "
    "max_num_batched_tokens, llama.cpp n_ubatch.",
    "serving.kv_block_tokens": "Tokens per KV page: vLLM block_size, SGLang page_size.",
    "serving.concurrency": "Requests one engine replica holds at once, for its KV cache and "
    "first-token time (serving.concurrency; default: the batch; under a burst, the requests "
    "that arrive together). The users to serve over all replicas are the Targets panel's "
    "\u201cUsers to serve\u201d, which the Hardware tab sizes for.",
    "serving.load": "The load the speed figures are for: steady users each sending the next "
    "request when the last ends (vllm bench serve --max-concurrency), a burst arriving at "
    "once and drained, or Poisson arrivals at a request rate. The engine's scheduler is "
    "simulated step by step.",
    "serving.request_rate": "Requests per second arriving at random (Poisson), for the rate load.",
    "serving.gpu_layers": "llama.cpp -ngl: layers on the GPU, the output layer counted; the "
    "rest stay in system RAM.",
    "serving.cpu_moe_layers": "llama.cpp --n-cpu-moe N: the first N layers' routed experts stay "
    "in system RAM (\u201call\u201d: --cpu-moe); a decode step reads the experts its tokens "
    "chose from RAM, a prompt batch copies them to the GPU.",
    "serving.cuda_graphs": "Off: eager steps, each kernel launched from the host (vLLM "
    "--enforce-eager: no graph memory); on: steps replayed from CUDA graphs (llama.cpp's "
    "one-sequence decode, transformers with a compiled static cache).",
    "serving.step_latency_seconds": "Fixed cost of every engine step; default: its kernels' "
    "floors (the least a kernel takes on this GPU) and the engine's host cost (scheduling, "
    "sampling).",
    "serving.prefix.shared_tokens": "Prefix caching (vLLM --enable-prefix-caching, SGLang "
    "RadixAttention): the first tokens every prompt shares (a system prompt, the conversation so "
    "far). Cached blocks skip prefill and are held once for all requests. With turns: the system "
    "prompt every conversation starts with, before its history.",
    "serving.prefix.hit_rate": "Share of requests that find the shared prefix cached (default 1).",
    "serving.prefix.turns": "Multi-turn chats: turns per conversation, each sending the "
    "conversation so far plus the prompt's new tokens; each conversation's own history is its "
    "prefix, found while the users' histories fit the KV cache (or the KV offload tier).",
    "serving.speculative.method": "Speculative decoding: a proposer drafts tokens the model "
    "verifies in one pass (EAGLE heads, DeepSeek's MTP module, n-gram prompt lookup; a draft "
    "model is set in the scenario file). Fewer decode steps at small batches; the gain shrinks "
    "as the batch grows.",
    "serving.speculative.num_tokens": "Draft tokens per step (vLLM num_speculative_tokens).",
    "serving.speculative.acceptance_rate": "Chance each draft token is accepted (default: the "
    "method's published figure, stated in the assumptions).",
    "serving.speculative.topk": "SGLang's draft tree (--speculative-eagle-topk): branches each "
    "draft pass expands per request; empty or 1: a chain. Set the tokens verified with it.",
    "serving.speculative.num_draft_tokens": "Tokens of the tree each request verifies in one "
    "target pass (--speculative-num-draft-tokens); a chain verifies draft tokens + 1.",
    "serving.lora.adapters": "LoRA adapters served on this base model (vLLM --enable-lora, "
    "max_cpu_loras); off by default.",
    "serving.lora.max_loaded": "Adapters on the GPU at once (vLLM max_loras, default 1): each "
    "slot is reserved at the rank below, out of the KV pool.",
    "serving.lora.rank": "Largest adapter rank (vLLM max_lora_rank, default 16).",
    "serving.lora.active": "Adapters the requests use (default: every adapter served; 0: the "
    "base model's requests on the LoRA-enabled server, the slots still reserved).",
    "serving.kv_offload.capacity_gb": "KV offload (vLLM --kv-offloading-size, LMCache): host "
    "memory that keeps the prefix cache; a hit loads it back over PCIe. Needs a shared prefix.",
    "serving.kv_offload.bandwidth_gb_per_s": "Per-GPU link to the offload tier (default: PCIe "
    "5.0 x16 as measured, 54 GB/s; NVLink-C2C on a Grace CPU, 380 GB/s).",
}
