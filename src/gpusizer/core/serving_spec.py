"""The scenario's ``serving`` block (contract: docs/scenario-format.md "serving"): how the
serving engine is run; ``null`` = the engine's default for the GPU and release
(core/engine_settings.py, core/engines.py)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

_PosInt = Annotated[int, Field(ge=1)]
_NonNegInt = Annotated[int, Field(ge=0)]


class ServingSpec(BaseModel):
    """How the serving engine is run (null: the engine's default for the scenario's GPU and
    version; core/engines.py). Names follow the contract, the engines' own names beside."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=False)

    # vLLM gpu_memory_utilization, SGLang mem_fraction_static, TRT free_gpu_memory_fraction
    memory_fraction: Annotated[float, Field(gt=0.0, le=1.0)] | None = None
    max_context: _PosInt | None = None  # vLLM max_model_len; llama.cpp n_ctx per sequence
    max_sequences: _PosInt | None = None  # vLLM max_num_seqs; llama.cpp n_parallel
    prefill_chunk_tokens: _PosInt | None = None  # vLLM max_num_batched_tokens
    kv_block_tokens: _PosInt | None = None  # vLLM block_size, SGLang page_size
    cuda_graphs: bool | None = None  # False: vLLM --enforce-eager
    gpu_layers: _NonNegInt | None = None  # llama.cpp -ngl (null: as many as fit)
    concurrency: _PosInt | None = None  # users served at once (null: workload.batch_size)
    # Additive: the engine release whose defaults apply (null: the current one), the fixed
    # cost of a step (null: the engine's per GPU class), host RAM bandwidth (offloaded layers).
    engine_version: Annotated[str, Field(max_length=40)] | None = None  # as engines print it
    step_latency_seconds: Annotated[float, Field(ge=0.0)] | None = None
    host_bandwidth_gb_per_s: Annotated[float, Field(gt=0.0)] | None = None
