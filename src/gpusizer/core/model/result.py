"""What the estimator returns: frozen dataclasses, rendered by the report, the CLI and the GUI."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .node import host_gpus
from .specs import GPUSpec, Scenario
from .unified import pool_note

COMPONENTS = ("weights", "gradients", "optimizer", "activations", "kv_cache", "temporary", "overhead")
# The words users see for each component (in a sentence; ``component_title`` for a heading).
COMPONENT_LABELS = {
    "weights": "weights",
    "gradients": "gradients",
    "optimizer": "optimizer states",
    "activations": "activations",
    "kv_cache": "KV cache",
    "temporary": "temporary buffers",
    "overhead": "runtime overhead",
}


def component_title(component: str) -> str:
    """The component's label as a heading: ``Optimizer states``, ``KV cache``."""
    label = COMPONENT_LABELS[component]
    return label[:1].upper() + label[1:]


@dataclass(frozen=True)
class Memory:
    """Per-GPU bytes by component (the heaviest GPU). ``total`` is the real peak, which is not
    the sum of the parts when activations are freed before the optimizer step."""

    weights: int = 0
    gradients: int = 0
    optimizer: int = 0
    activations: int = 0
    kv_cache: int = 0
    temporary: int = 0
    overhead: int = 0
    total: int = 0
    peak_phase: str = "forward"
    # Which components are alive at the peak (the charts show it when total < sum).
    alive_at_peak: tuple[str, ...] = COMPONENTS
    # System RAM this GPU's process needs beside (not in ``total``): offloaded or paged
    # optimizer states, offloaded weights and activations (core/memory/techniques.py).
    host_memory: int = 0

    def as_dict(self) -> dict[str, int]:
        return {c: getattr(self, c) for c in (*COMPONENTS, "total")}

    @property
    def sum_of_parts(self) -> int:
        return sum(getattr(self, c) for c in COMPONENTS)


@dataclass(frozen=True)
class Compute:
    """FLOPs and time (see compute.py / roofline.py for the models and their sources)."""

    flops_per_token: float = 0.0
    total_flops: float = 0.0
    time_seconds: float = 0.0
    mfu: float = 0.4
    prefill_seconds: float = 0.0
    decode_seconds_per_token: float = 0.0
    tokens_per_second: float = 0.0
    gpu_hours: float = 0.0
    cost: float | None = None
    # Additive (compute.py): FLOPs without recompute, the resulting MFU, the peak used.
    model_flops: float = 0.0
    model_flops_utilization: float = 0.0
    attention_flops_per_token: float = 0.0
    compute_dtype: str = ""
    peak_flops_per_s: float = 0.0
    tokens_per_second_per_gpu: float = 0.0
    decode_tokens_per_second: float = 0.0
    # Training: one optimizer step of the layout (core/speed/train_step.py step_block)
    training_step: dict[str, float | bool] | None = None
    # Training: the share of wall time spent on useful steps (core/speed/goodput.py: restarts
    # and lost work), so that a view divides ``time_seconds`` by it without calling the core;
    # None when serving
    effective_time_share: float | None = None


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


@dataclass(frozen=True)
class Estimate:
    """The answer for one scenario."""

    scenario: Scenario
    gpu: GPUSpec
    parameters_total: int
    parameters_active: int
    parameters_embedding: int
    parameters_trainable: int
    memory: Memory
    gpus: int
    compute: Compute = field(default_factory=Compute)
    assumptions: tuple[str, ...] = ()
    parameters_vision: int = 0  # vision tower + projector (stored with the weights)
    notes: tuple[str, ...] = ()
    serving: Serving | None = None  # inference only
    # The serving engine sizes its memory to the GPU (a reserved pool, llama.cpp's fitted
    # context; its rule's ``allocates_on_demand`` is False): ``required_bytes`` is its inverse.
    sized_by_engine: bool = False
    # What the views draw from the engine without asking the core again (inference only):
    # its memory rule's answer and the line the memory chart draws over its bar.
    engine: EngineMemory | None = None
    pool: PoolLine | None = None
    # The scenario the engine served (the scenario itself, or a kind's serving role's): what
    # the report's ``cache`` block describes.
    served_scenario: Scenario | None = None
    rl: dict[str, Any] | None = None  # RL post-training's phases, time per step and run (work_rl.py)
    # A kind whose GPUs hold different things (RL split placement: the rollout pool's engine at
    # its own memory fraction, the training pool laid out by ``parallelism``): what the GPUs of
    # the layout need, which ``required_bytes`` gives (None: the peak, ``memory``)
    layout_bytes: int | None = None

    @property
    def capacity_bytes(self) -> int:
        return self.gpu.capacity_bytes

    @property
    def headroom_bytes(self) -> int:
        """Capacity minus the peak; negative when it does not fit."""
        return self.capacity_bytes - self.memory.total

    @property
    def required_bytes(self) -> int:
        """What the scenario needs of one GPU: the peak, or for a serving engine that sizes its
        memory to the GPU (a reserved pool, llama.cpp's fitted context) what it needs to start
        and hold its users (``serving.required_bytes``)."""
        if self.layout_bytes is not None:
            return self.layout_bytes
        return self.serving.required_bytes if self.sized_by_engine and self.serving else self.memory.total

    @property
    def runs(self) -> bool:
        """Whether the engine starts (always true outside serving engines)."""
        return self.serving is None or self.serving.starts

    @property
    def requests_held(self) -> int | None:
        """Serving: requests of the scenario's length (prompt + output tokens) the engine runs
        at once: none when one is longer than its context (``serving.max_context``), else as
        many as its KV cache holds, within ``max_sequences``. None when training."""
        sv, w = self.serving, self.scenario.workload
        if sv is None:
            return None
        need = w.prompt_tokens + w.generated_tokens
        if not sv.starts or need > sv.max_context:
            return 0
        held = sv.kv_capacity_tokens // need
        return min(held, sv.max_sequences) if sv.max_sequences else held

    @property
    def pool_shortfall(self) -> str | None:
        """Why what the work keeps beside the GPU (host buffers, CPU layers, offloaded
        states) does not fit the machine's RAM: on unified memory with the GPU's part, less
        what the OS keeps; else against ``hardware.host_memory_bytes`` when given (None when
        it fits)."""
        s = self.scenario
        host = self.serving.host_memory_bytes if self.serving else self.memory.host_memory
        per_node = min(s.parallelism.gpus, host_gpus(s.hardware.gpus_per_node))  # one host's RAM
        return pool_note(self.gpu, max(0, self.memory.total), host, s.hardware.host_memory_bytes, per_node)

    @property
    def fits(self) -> bool:
        """The work runs: the peak fits the GPU, on unified memory the whole fits the
        machine's RAM, and a serving engine starts and holds at least one request of the
        scenario's length (``requests_held``; ``workload.batch_size`` of them is what the
        advice sizes for, and the headline says how many it holds)."""
        if self.headroom_bytes < 0 or self.pool_shortfall is not None:
            return False
        return self.serving is None or (self.serving.starts and bool(self.requests_held))

    @property
    def unmet(self) -> str | None:
        """Why the work does not run as set, as a cause: ``context_limit`` (a request longer
        than the engine's context, ``serving.max_context``: no memory changes it) or
        ``memory``; None when it runs."""
        if self.fits:
            return None
        sv, w = self.serving, self.scenario.workload
        if sv is not None and sv.starts and w.prompt_tokens + w.generated_tokens > sv.max_context:
            return "context_limit"
        return "memory"

    @property
    def fit_reason(self) -> str | None:
        """Why the work does not run as set, or, serving, how many of ``batch_size`` requests
        it holds when fewer; None when it runs as set."""
        if self.headroom_bytes < 0:
            return f"the peak is {-self.headroom_bytes / 2**30:,.2f} GiB more than the GPU's memory"
        short = self.pool_shortfall
        if short is not None:
            return short
        sv, w = self.serving, self.scenario.workload
        if sv is None:
            return None
        if not sv.starts:
            return f"the engine does not start: {sv.reason}"
        need, held = w.prompt_tokens + w.generated_tokens, self.requests_held or 0
        if need > sv.max_context:
            return (
                f"a request of {need:,} tokens is longer than the engine's {sv.max_context:,}-token "
                "context (serving.max_context)"
            )
        if held == 0:
            return f"the KV cache ({sv.kv_capacity_tokens:,} tokens) holds no request of {need:,} tokens"
        if held < w.batch_size:
            return f"holds {held:,} of the {w.batch_size:,} requests of {need:,} tokens at once"
        return None

    @property
    def dominant(self) -> str:
        parts = {c: getattr(self.memory, c) for c in COMPONENTS}
        return max(parts, key=lambda c: parts[c])
