"""What the estimator returns of a serving engine: how it runs the scenario, what it holds on
its heaviest GPU, and the line the memory chart draws over its bar (the dataclasses of
core/model/result.py by concern)."""

from __future__ import annotations

from dataclasses import dataclass

from .result_memory import Memory


@dataclass(frozen=True)
class Serving:
    """How the serving engine runs the scenario (core/serving/engine_memory.py): its KV pool, whether it
    starts, and the speed users see at ``concurrency``. Bytes per GPU; seconds; tokens/s."""

    engine: str
    engine_version: str | None
    kv_pool_bytes: int
    kv_capacity_tokens: int
    max_concurrency: float  # requests of max_context tokens the pool holds at once
    starts: bool
    reason: str | None  # why the engine refuses to start, in its words
    ttft_seconds: float
    tpot_seconds: float
    tokens_per_second_per_user: float
    tokens_per_second: float  # output tokens/s of every replica together, prefill included
    host_memory_bytes: int
    cost_per_million_tokens: float | None
    concurrency: int
    running: int  # requests decoding together (limited by max_sequences and the pool)
    max_context: int
    max_sequences: int | None
    prefill_chunk_tokens: int | None
    kv_block_tokens: int
    memory_fraction: float | None
    cuda_graphs: bool
    gpu_layers: int | None
    prefill_step_overhead_seconds: float
    decode_step_overhead_seconds: float
    kv_bytes_per_token: float
    required_bytes: int  # per GPU: what the engine needs to start and hold the concurrency
    # Additive: the load the speed figures are for and more of what users see
    load: str = "steady"
    ttft_p99_seconds: float = 0.0
    e2e_seconds: float = 0.0
    request_rate: float | None = None  # the "rate" load's requests/s (None otherwise)
    # Additive: what the simulation's work budget changed (core/serving/budget.py), else None
    simulation_note: str | None = None
    # Additive: deployment features (core/serving/prefix.py, core/serving/speculative.py)
    prefix_cached_tokens: int = 0  # prompt tokens the mean request finds cached (prefill skipped)
    prefix_shared_tokens: int = 0  # KV tokens of the shared prefix, held once per replica
    prefix_users_held: int | None = None  # requests of prompt + output the pool holds, prefix shared
    # serving.prefix.turns (core/serving/multi_turn.py): None/0 without it
    prefix_turns: int | None = None  # turns per conversation
    prefix_mean_prompt_tokens: int = 0  # the turns' mean prompt: history + new user tokens
    prefix_hit_rate: float | None = None  # share of the later turns' histories found (in part too)
    prefix_offload_tokens: int = 0  # of the cached tokens, the mean request's loaded from the tier
    speculative_method: str | None = None
    speculative_tokens: int = 0  # draft tokens proposed per step
    speculative_acceptance_rate: float | None = None  # per draft token (Leviathan's alpha)
    speculative_tokens_per_step: float = 1.0  # tokens a decode step emits per request
    draft_weight_bytes: int = 0  # per GPU: the proposer's weights (in memory.weights)
    lora_adapters: int = 0  # adapters served (core/serving/lora_serving.py; 0: none)
    lora_loaded: int = 0  # of them on the GPU at once (vLLM max_loras)
    lora_rank: int = 0  # every slot's rank (vLLM max_lora_rank)
    lora_active: int = 0  # of them the requests use (0: the base model's requests)
    lora_weight_bytes: int = 0  # per GPU: the slots (in memory.weights)
    kv_offload_load_seconds: float = 0.0  # a request's wait for its cached KV from the offload tier
    kv_offload_holds_prefix: bool | None = None  # the tier holds the shared prefix (None: no offload)
    kv_offload_capacity_tokens: int = 0  # tokens of KV the tier holds, whole blocks (0: no offload)
    # serving.disaggregated: the same users on a prefill and a decode pool (0: not set)
    disaggregated_prefill_gpus: int = 0
    disaggregated_decode_gpus: int = 0
    disaggregated_ttft_seconds: float = 0.0  # prefill pool + the KV transfer
    disaggregated_tpot_seconds: float = 0.0
    disaggregated_tokens_per_second: float = 0.0  # output tokens/s of the decode pool
    disaggregated_kv_transfer_bytes: int = 0  # one request's KV over all its GPUs
    disaggregated_kv_transfer_seconds: float = 0.0
    # Additive: a request's wait for a decode slot where the decode pool cannot hold every user
    # (its first token waits with it; 0: the pool holds them all)
    disaggregated_decode_wait_seconds: float = 0.0
    # Additive: what the connector's request path adds to the first token (serving.disaggregated.
    # connector, core/registry/pd_connectors.py; 0: none stated), inside disaggregated_ttft_seconds
    disaggregated_path_seconds: float = 0.0
    # Additive: tokens one user's KV cache holds at most under serving.max_kv_size (mlx-lm
    # --max-kv-size, core/memory/kv_cap.py); 0: its whole context
    kv_tokens_per_user: int = 0
    # Additive: per GPU, DeepEP's buffers under serving.moe_a2a_backend (inside per_gpu.overhead;
    # core/serving/a2a_memory.py); 0 without a DeepEP exchange
    moe_a2a_buffer_bytes: int = 0


@dataclass(frozen=True)
class EngineMemory:
    """What an engine holds on its heaviest GPU, what its KV cache can serve, and the
    smallest GPU that runs the scenario's load (the rule's inverse, ``required_bytes``)."""

    memory: Memory
    kv_pool_bytes: int  # per GPU
    kv_capacity_tokens: int
    max_concurrency: float  # requests of max_context tokens the pool holds at once
    starts: bool
    reason: str | None
    max_context: int
    max_sequences: int | None
    kv_bytes_per_token: float  # per GPU (its layers)
    host_memory_bytes: int = 0
    gpu_layers: int | None = None
    host_read_bytes: float = 0.0  # weights + KV a decode step reads from host RAM
    host_expert_bytes: float = 0.0  # routed experts of GPU layers kept in RAM (--n-cpu-moe)
    expert_pick: float = 0.0  # k / E: the share of a layer's routed experts one token reads
    expert_active: float = 0.0  # share of a token's weight reads those RAM experts are
    notes: tuple[str, ...] = ()
    fraction: float | None = None  # the memory fraction applied
    fraction_of: float = 0.0  # the bytes it multiplies (vLLM: the device total; SGLang: the free
    # memory at start, after the context and NCCL)
    reserved_bytes: float = 0.0  # inside the budget besides the pool (weights, peak, ...)
    outside_bytes: float = 0.0  # taken outside the budget (context, NCCL, graphs)
    host_parts: dict[str, float] | None = None  # system RAM by buffer (llama.cpp)
    request_bytes: float = 0.0  # pool bytes one request of max_context needs (start-up check)
    # -- the scenario's load (core/serving/rules: each rule fills these) --------------------
    load_bytes: float = 0.0  # KV bytes the load's requests hold (block-rounded, with state)
    holds_load: bool = True  # the KV cache holds the load as the rule allocates it
    required_bytes: int = 0  # per GPU: the smallest device that starts, holds the load and fits
    # the inverse's two terms (pool rules; 0: not split): the smallest device whose budget
    # holds the pool's need, and the one the engine needs whatever its pool (vLLM's start-up free
    # check); ``required_bytes`` is the larger (core/serving/inverse.py)
    pool_need_bytes: int = 0
    floor_bytes: int = 0
    # requests the engine runs at once whatever ``max_sequences`` is set to (SGLang's Mamba state
    # pool of a hybrid model, core/serving/sglang_mamba.py; 0: no such cap)
    state_cap: int = 0


@dataclass(frozen=True)
class PoolLine:
    """What the memory chart draws over an engine's bar (gui/charts/pool.py): whether the
    engine reserves its memory up front (then a budget line and the users' mark in the KV
    pool) or splits layers between the GPU and system RAM (then the title says how much)."""

    reserved: bool = False
    host_split: bool = False
    budget_bytes: int = 0  # the dashed budget line (0: none)
    budget_share: str = ""  # its words: "0.9 of the GPU", "weights + pool"
    used_kv_bytes: float = 0.0  # KV bytes the users fill (the rule's load, within the pool)
