"""How a rollout engine loads the weights a split sync broadcasts tensor by tensor
(``rl.broadcast_per_tensor``, core/pipeline/rl_split_sync.py): a registry keyed by
``rl.rollout.engine``.

- vLLM: the frameworks' loops hand each received tensor to ``model.load_weights([(name, tensor)])``
  on its own (verl ``base_detach_sync.py``
  ``_sync_vllm_weights`` at b178a3cd; OpenRLHF ``ppo_actor.py`` ``_broadcast_to_vllm``, one
  ``update_weight`` call a parameter, v0.7.0). Each call rebuilds ``dict(self.named_parameters())``
  over the whole engine model and, for a MoE model, the expert mapping it scans (vLLM
  ``model_executor/models/qwen2.py`` / ``qwen3_moe.py`` ``load_weights``): a Python walk whose
  cost grows with the engine model's parameter tensors.
- SGLang: ``update_weights_from_distributed`` takes a bucket's names, dtypes and shapes in one
  call and loads the bucket once (Miles ``update_weight_from_distributed/broadcast.py`` at
  31f1ca96: one Ray call to each engine a bucket, the bucket's tensors broadcast in turn): no
  walk per tensor.

``LOAD_CALL_SECONDS_PER_TENSOR``: measured by ``scripts/measure_engine_load_call.py``, a replica
of that per-call walk over vLLM's module trees of Qwen2.5-7B, Qwen3-30B-A3B and Qwen3-235B-A22B,
one thread on the build machine's AMD EPYC (torch 2.13.0+cpu): 1.13-1.18 us a parameter tensor
(231, 512 and 962 us a call over 198, 434 and 848 tensors). The tensor's GPU copy and vLLM's
``AutoWeightsLoader`` recursion are not in it, so it is a lower bound of the call; the H20 hosts'
CPU is not the build machine's (docs/evidence/rl.md section 34e).
"""

from __future__ import annotations

from dataclasses import dataclass

from .table import add

LOAD_CALL_SECONDS_PER_TENSOR = 1.15e-6  # scripts/measure_engine_load_call.py (module docstring)


@dataclass(frozen=True)
class EngineLoad:
    """One engine's load of a tensor-by-tensor sync: ``per_tensor`` when each broadcast tensor
    is its own ``load_weights`` call (a walk over the engine model's parameter tensors)."""

    engine: str
    per_tensor: bool
    source: str


ENGINE_LOADS: dict[str, EngineLoad] = {}


def register_engine_load(entry: EngineLoad) -> EngineLoad:
    """Add an engine's load rule under its ``rl.rollout.engine`` id."""
    return add(ENGINE_LOADS, entry.engine, entry, "engine load")


register_engine_load(
    EngineLoad(
        "vllm",
        True,
        "verl base_detach_sync.py _sync_vllm_weights (b178a3cd): "
        "inference_model.load_weights([(key, tensor)]) per tensor; vLLM load_weights rebuilds "
        "dict(self.named_parameters()) each call",
    )
)
register_engine_load(
    EngineLoad(
        "sglang",
        False,
        "Miles update_weight_from_distributed/broadcast.py (31f1ca96): one update_weights_from_distributed "
        "call a bucket",
    )
)
