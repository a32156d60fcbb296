"""The scenario's ``serving`` block (contract: docs/scenario-format.md "serving"): how the
serving engine is run; ``null`` = the engine's default for the GPU and release
(core/engine_settings.py, core/engines.py)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from ..limits import Batch, Efficiency, Rate, SomeLayers, Strict, Tokens

MAX_STEP_SECONDS = 3600.0  # an hour per engine step: far beyond any real engine


class ServingSpec(Strict):
    """How the serving engine is run (null: the engine's default for the scenario's GPU and
    version; core/engines.py). Names follow the contract, the engines' own names beside;
    bounds as every scenario value's (core/limits.py)."""

    # vLLM gpu_memory_utilization, SGLang mem_fraction_static, TRT free_gpu_memory_fraction;
    # at least 0.1 % (MIN_EFFICIENCY): the engine's budget is divided by it (1e-300 overflowed)
    memory_fraction: Efficiency | None = None
    max_context: Tokens | None = None  # vLLM max_model_len; llama.cpp n_ctx per sequence
    max_sequences: Batch | None = None  # vLLM max_num_seqs; llama.cpp n_parallel
    prefill_chunk_tokens: Tokens | None = None  # vLLM max_num_batched_tokens
    kv_block_tokens: Tokens | None = None  # vLLM block_size, SGLang page_size
    cuda_graphs: bool | None = None  # False: vLLM --enforce-eager
    gpu_layers: SomeLayers | None = None  # llama.cpp -ngl (null: as many as fit)
    concurrency: Batch | None = None  # users served at once (null: workload.batch_size)
    # Additive: the engine release whose defaults apply (null: the current one), the fixed
    # cost of a step (null: the engine's per GPU class), host RAM bandwidth (offloaded layers).
    engine_version: Annotated[str, Field(max_length=40)] | None = None  # as engines print it
    step_latency_seconds: Annotated[float, Field(ge=0.0, le=MAX_STEP_SECONDS)] | None = None
    host_bandwidth_gb_per_s: Rate | None = None
