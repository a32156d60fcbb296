"""One copy of the weights for the rollout engine and the LoRA trainer (``rl.rollout.shared_weights``):
Unsloth's ``fast_inference``, bytes per GPU and seconds per step.

Unsloth ``FastLanguageModel.from_pretrained(..., fast_inference=True)`` (unslothai/unsloth
``unsloth/models/llama.py`` at 015bdef, 2026-08) loads vLLM first in the trainer's own process
(unslothai/unsloth-zoo ``unsloth_zoo/vllm_utils.py`` ``load_vllm`` at ce232d6, with
``use_bitsandbytes = load_in_4bit``: vLLM's bitsandbytes loader, the 4-bit base as QLoRA stores
it), then builds the Hugging Face model over vLLM's own tensors (``get_vllm_state_dict``,
``convert_vllm_to_huggingface``; ``llm.shared_weights = True``). The base is held once, at the
policy's storage dtype; the engine adds its KV pool, activations and CUDA graphs inside
``gpu_memory_utilization`` of the device (``from_pretrained`` default 0.5, the colocated default
already: core/pipeline/rl_roles.COLOCATED_MEMORY_FRACTION).

- The KV pool stays allocated through the training phases: without standby Unsloth never puts
  vLLM to sleep (TRL's ``vllm_enable_sleep_mode`` is set only under standby, unsloth
  ``unsloth/models/rl.py``).
- ``rl.rollout.standby`` (``UNSLOTH_VLLM_STANDBY=1``): vLLM's sleep mode with Unsloth's patched
  ``CuMemAllocator.sleep`` (``patch_vllm_enable_sleep_mode``: allocations tagged ``weights``
  are neither offloaded nor freed, "unsloth-managed"), so outside rollout the KV pool is
  discarded and the weights stay; ``load_vllm`` then raises ``gpu_memory_utilization`` to a
  target by the device's memory (:func:`standby_fraction`).
- No weight sync: each rollout passes the adapter to vLLM as a ``LoRARequest`` built from the
  model's own ``lora_A`` / ``lora_B`` tensors (``load_lora(..., load_tensors=True)``), on the
  GPU: vLLM copies them into its LoRA slot (:func:`shared_sync_seconds`).
- Nothing goes to host between phases: the base is the engine's and Unsloth keeps the adapter
  and its optimizer states on the GPU, so ``rl.offload_states`` does not apply.
"""

from __future__ import annotations

from dataclasses import replace

from ..errors import ScenarioError
from ..memory.lora import lora_trainable
from ..memory.lora_experts import expert_layout
from ..model.result import Memory
from ..model.specs import GPUSpec, Scenario
from .rl_adapter_sync import ENGINE_BYTES
from .rl_check import rl_of
from .rl_memory import RLParts, training_side

FIELD = "rl.rollout.shared_weights"

# load_vllm's standby target of gpu_memory_utilization by a tenth of the device's memory (GiB),
# vLLM >= 0.11 tiers, then x 0.95 ("vLLM >= 0.11.0 uses more VRAM"): unsloth_zoo/vllm_utils.py
_STANDBY_TIERS = ((4.0, 0.925), (2.5, 0.9), (2.0, 0.825), (1.4, 0.8), (1.0, 0.775))
_STANDBY_LOW, _STANDBY_SCALE = 0.75, 0.95


def standby_fraction(memory_gib: float) -> float:
    """``gpu_memory_utilization`` under Unsloth standby on a device of ``memory_gib`` GiB (module
    docstring; a stated ``rl.rollout.memory_fraction`` is taken as
    ``UNSLOTH_VLLM_STANDBY_UTIL_OVERRIDE`` would keep it)."""
    tenth = memory_gib * 0.1
    target = next((f for floor, f in _STANDBY_TIERS if tenth >= floor), _STANDBY_LOW)
    return target * _STANDBY_SCALE


def check_shared_weights(s: Scenario) -> None:
    """One copy needs a LoRA policy, colocated, on a vLLM engine that holds the base whole (one
    process per GPU: no tensor, pipeline or ZeRO-3 sharding), at the policy's storage dtype."""
    if s.workload.info.work_key != "rl":
        return
    rl = rl_of(s)
    ro, p = rl.rollout, s.parallelism
    if ro.standby and not ro.shared_weights:
        raise ScenarioError("rl.rollout.standby", "applies with rl.rollout.shared_weights true")
    if not ro.shared_weights:
        return
    rules = (
        (rl.policy.is_adapter, FIELD, f"needs a LoRA policy (rl.policy.kind lora); got {rl.policy.kind}"),
        (rl.placement == "colocated", FIELD, "needs rl.placement colocated (one process holds both)"),
        (ro.engine == "vllm", FIELD, f"is vLLM in the trainer's process; rl.rollout.engine is {ro.engine!r}"),
        (
            ro.serves_adapter is not False,
            "rl.rollout.serves_adapter",
            "must not be false with shared weights",
        ),
        (ro.tensor == 1, "rl.rollout.tensor", f"must be 1 with shared weights; got {ro.tensor}"),
        (
            p.tensor == p.pipeline == 1 and p.zero_stage < 3,
            FIELD,
            "needs the base whole on each GPU (parallelism.tensor and pipeline 1, zero_stage below 3)",
        ),
        (
            ro.weights in (None, s.precision.weights),
            "rl.rollout.weights",
            f"must be null or precision.weights ({s.precision.weights}) with shared weights",
        ),
    )
    for ok, field, message in rules:
        if not ok:
            raise ScenarioError(field, message)


def shared_phases(p: RLParts, standby: bool) -> dict[str, Memory]:
    """The four phases of one GPU holding one copy (``p.engine``: the engine's memory, whose
    weights are the policy's base and are not counted again). One process: one CUDA context,
    so each phase's overhead is the larger of the engine's and the trainer's."""
    e, pol = p.engine, p.policy
    kv = 0 if standby else e.kv_cache  # the pool discarded outside rollout under standby
    over = max(e.overhead, pol.overhead)
    frozen = p.reference + p.reward
    parts = {
        "weights": pol.weights + frozen,
        "optimizer": pol.optimizer,
        "activations": e.activations,
        "kv_cache": e.kv_cache,
        "temporary": e.temporary,
        "overhead": over,
    }
    out = {"rollout": _memory("rollout", parts)}
    for name, m in training_side(p).items():
        extra = kv + over - m.overhead
        out[name] = replace(m, kv_cache=m.kv_cache + kv, overhead=over, total=m.total + extra)
    sync = {"weights": pol.weights + frozen, "optimizer": pol.optimizer, "kv_cache": kv, "overhead": over}
    out["weight_sync"] = _memory("weight_sync", sync)
    return out


def one_copy_parts(p: RLParts) -> RLParts:
    """``p`` with the engine holding no weights of its own (they are the policy's base): its
    sleep and wake move none (core/pipeline/rl_transitions.py)."""
    e = p.engine
    return replace(p, engine=replace(e, weights=0, total=e.total - e.weights))


def _memory(phase: str, parts: dict[str, int]) -> Memory:
    alive = tuple(k for k, v in parts.items() if v)
    return Memory(**parts, total=sum(parts.values()), peak_phase=phase, alive_at_peak=alive)


def shared_counted(phases: dict[str, Memory], kv: int, standby: bool) -> int:
    """``torch.cuda.max_memory_allocated()`` over the step (core/pipeline/rl_memory.py
    ``allocator_counted``): the phases' tensors; under standby the discarded KV pool stays
    counted (vLLM's CuMemAllocator unmaps it but keeps the tensors)."""
    asleep = kv if standby else 0
    return max(m.total - m.overhead + (0 if n == "rollout" else asleep) for n, m in phases.items())


def shared_sync_seconds(s: Scenario, gpu: GPUSpec) -> float:
    """The adapter handed to vLLM each step: its tensors read and written once on the GPU into
    the LoRA slot in 16 bits (vLLM ``LoRAModel.from_lora_tensors`` then the slot's
    ``set_lora``); no export, gather or host copy."""
    w = s.workload
    params = lora_trainable(s.model, w.lora_rank, w.lora_targets, expert_layout(s)).total
    hbm = gpu.hbm_bandwidth_gb_per_s * 1e9 * s.compute.bandwidth_efficiency
    return 2 * params * ENGINE_BYTES / hbm if hbm else 0.0


def engine_fraction(s: Scenario, gpu: GPUSpec) -> float | None:
    """The engine's ``gpu_memory_utilization`` where one copy sets it: the standby target when
    left null under standby (``load_vllm`` reads the device's total memory); None: the colocated
    default stands."""
    ro = rl_of(s).rollout
    if ro.shared_weights and ro.standby and ro.memory_fraction is None:
        return standby_fraction(gpu.capacity_bytes / 2**30)
    return None
