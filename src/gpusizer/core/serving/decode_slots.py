"""The requests a disaggregated decode replica runs at once (its running slots), as its engine
caps them, not as many as the aggregated replica's users.

Each engine's decode server runs at most its running-request cap and holds the rest in a queue
until a running request finishes:

- vLLM: ``max_num_seqs`` (the scheduler admits a waiting request, a remote-KV one included,
  only while ``len(self.running) < self.max_num_running_reqs``; vllm/v1/core/sched/scheduler.py
  ``schedule()``); its default is the release's, per GPU tier (core/registry/engine_releases.py).
- SGLang: ``--max-running-requests`` (python/sglang/srt/disaggregation/decode.py
  ``DecodeReqToTokenPool``: "#running <= max_running_requests", the requests pre-allocated or
  in transfer held apart); unset, the engine sizes it from its pool (core/serving/kv_pool.py
  ``sequences``: half the pool's tokens, within 2,048-4,096 slots; managers/tp_worker.py), and
  for a hybrid model no more than its recurrent-state pool holds (core/serving/sglang_mamba.py,
  ``EngineMemory.state_cap``): ``_resolve_max_num_reqs`` (model_executor/
  model_runner_kv_cache_mixin.py) takes ``min(max_num_reqs, max_mamba_cache_size // ratio)``
  before ``_init_pools`` sizes the decode server's ``HybridMambaDecodeReqToTokenPool`` with
  ``size=max_num_reqs``, as the aggregated server's pool (core/serving/load.py ``_engine``).
- TensorRT-LLM: ``max_batch_size`` (its release's default, core/registry/engine_releases_trtllm.py).

The setting (``serving.max_sequences``) wins; an engine whose pipeline stages each run a
micro-batch of that many (``Scheduling.per_micro_batch``) runs that many per stage, as the
aggregated engine is modelled (core/serving/load.py ``_engine``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .kv_pool import sequences

if TYPE_CHECKING:
    from ..model.specs import Scenario
    from .engine_settings import EngineSettings
    from .scheduler_types import Engine


def decode_slots(s: Scenario, st: EngineSettings, eng: Engine, state_cap: int = 0) -> int:
    """Requests one decode replica (or attention-DP rank: ``s`` is its view) runs at once
    (module docstring); ``eng`` is the aggregated engine, whose ``max_running`` is the setting
    or release default where there is one (the state cap already in it), else the scenario's
    users a replica; ``state_cap``: a hybrid model's state slots on SGLang (0: none)."""
    rel = st.release
    if st.max_sequences is not None or rel is None:  # the setting, or the release's default
        return eng.max_running
    own = sequences(st, int(eng.kv_tokens)) or 1  # SGLang's: sized from its pool
    stages = s.parallelism.pipeline
    own = own * stages if rel.scheduling.per_micro_batch and stages > 1 else own
    return min(own, state_cap) if state_cap else own
