"""The regime of a scenario: which group of replayed published figures speaks for it.

Memory regimes are a framework family x workload group (engine pools, HF/PEFT eager,
FSDP/DeepSpeed, Megatron, llama.cpp/Ollama, unified memory; serving, full training, adapters);
speed regimes are an engine x GPU vendor x batch regime (batch one, large batch, burst, MoE),
and training (dense or MoE). RL post-training has its own: ``memory/rl`` (verl's
``max_memory_allocated`` peaks), ``speed/rl/colocated/<dense|moe>`` (by the policy's kind) and
``speed/rl/split`` (whole published steps: a step of five phases, whose error is not a serving
step's nor a training step's). The same
functions group the figures when the bands are generated (scripts/evidence_bands.py) and place
a scenario when it is estimated, so a scenario always meets the band of the figures that were
grouped like it.
"""

from __future__ import annotations

from ..model.architecture import resolve
from ..model.rl_spec import RLSpec
from ..model.specs import GPUSpec, Scenario
from ..registry.frameworks import FRAMEWORKS

# Framework id -> memory family. Serving engines that size a pool from a memory fraction share
# one family (vLLM, SGLang, TensorRT-LLM: the pool takes what the weights and profile leave);
# trainers that run the eager transformers modules another; sharding trainers a third.
FAMILIES: dict[str, str] = {
    "vllm": "engine-pools",
    "sglang": "engine-pools",
    "tensorrt-llm": "engine-pools",
    "llama.cpp": "llama.cpp-ollama",
    "huggingface": "hf-peft-eager",
    "torchtune": "hf-peft-eager",
    "unsloth": "hf-peft-eager",
    "litgpt": "hf-peft-eager",
    "ms-swift": "hf-peft-eager",
    "axolotl": "hf-peft-eager",
    "fsdp": "fsdp-deepspeed",
    "torchtitan": "fsdp-deepspeed",
    "deepspeed": "fsdp-deepspeed",
    "megatron": "megatron",
    "megatron-bridge": "megatron",
    "megatron-legacy": "megatron",
    "composer": "fsdp-deepspeed",
    "mlx": "mlx",  # training on a Mac (serving on unified memory is "unified-memory" first)
}
FAMILY_LABELS = {
    "engine-pools": "engine pools (vLLM, SGLang, TensorRT-LLM)",
    "llama.cpp-ollama": "llama.cpp / Ollama",
    "hf-peft-eager": "HF / PEFT eager",
    "fsdp-deepspeed": "FSDP / DeepSpeed",
    "megatron": "Megatron",
    "unified-memory": "unified memory",
    "mlx": "Apple MLX",
    "unknown": "a framework with no replayed run",
}
VENDOR_LABELS = {"nvidia": "NVIDIA", "amd": "AMD", "apple": "Apple", "intel": "Intel"}
RL = "rl"  # workload.kind of RL post-training, and its regimes' second key
# the published disaggregated (P/D) figures' regimes' second key: ``speed/disagg/<metric>``
# (scripts/evidence_bands.py ``_disagg``); no scenario is placed in one (``speed_regime``), the
# P/D pools' ranges read them (core/evidence/derived.py)
DISAGG = "disagg"
DISAGG_LABELS = {
    "ttft": "first token",
    "tpot": "time per output token",
    "throughput": "tokens/s",
    "e2e": "request time",
}
PLACEMENT_LABELS = {"colocated": "colocated", "split": "split pools"}
# RL placements whose step regimes are split by the policy's kind (``rl_speed_regime``)
KIND_SPLIT_PLACEMENTS = ("colocated",)
KIND_LABELS = {"dense": "dense policy", "moe": "MoE policy"}
BATCH_LABELS = {"batch-one": "batch one", "large-batch": "large batch", "burst": "burst", "moe": "MoE"}


def memory_family(s: Scenario, gpu: GPUSpec) -> str:
    """The scenario's memory family: unified memory first (the pool is a share of the RAM,
    its own rule), then the framework's, ``unknown`` for a framework no family lists."""
    if gpu.unified_memory and not s.workload.trains:
        return "unified-memory"
    family = FAMILIES.get(s.framework, "unknown")
    if family == "hf-peft-eager" and s.workload.trains and s.parallelism.zero_stage > 0:
        return "fsdp-deepspeed"  # ZeRO shards what the eager trainer would hold whole
    return family


def workload_group(s: Scenario) -> str:
    """``serving``, ``full`` (pre-training, full fine-tuning) or ``adapter`` (LoRA, QLoRA)."""
    if not s.workload.trains:
        return "serving"
    return "adapter" if s.workload.is_adapter else "full"


def memory_regime(s: Scenario, gpu: GPUSpec) -> str:
    """``memory/<family>/<workload group>``; ``memory/rl`` for RL post-training."""
    if s.workload.kind == RL:
        return "memory/rl"
    return f"memory/{memory_family(s, gpu)}/{workload_group(s)}"


def batch_regime(s: Scenario) -> str:
    """A serving scenario's batch regime: MoE models apart (their step is the experts' reads),
    one user, a burst of requests, or many users. One user comes before the burst: a "burst" of
    one request (a batch-1 latency table, a benchmark sent at an infinite rate with one prompt)
    has no queue to drain and runs every step at batch one."""
    if resolve(s.model).moe is not None:
        return "moe"
    users = s.serving.concurrency or s.workload.batch_size
    if users == 1:
        return "batch-one"
    return "burst" if s.serving.load == "burst" else "large-batch"


def vendor(gpu: GPUSpec) -> str:
    """The GPU's vendor as a regime key (``nvidia``, ``amd``, ``apple``...)."""
    return (gpu.vendor or "custom").strip().lower() or "custom"


def model_kind(s: Scenario) -> str:
    """``moe`` for a model with routed experts, ``dense`` otherwise: set by the architecture
    before any figure is replayed, and so a regime key, never a grouping chosen by ratios."""
    return "moe" if resolve(s.model).moe is not None else "dense"


def rl_speed_regime(s: Scenario) -> str:
    """``speed/rl/colocated/<dense|moe>`` or ``speed/rl/split``. A colocated step runs its
    phases in series on one set of GPUs, so what a MoE policy adds to each (the Megatron MoE
    forward and backward, the engine's fused-MoE kernels, the refit of tens of thousands of
    expert tensors through the host: docs/evidence/rl.md sections 2j and 10-16) adds to the
    step, and the policy's kind sets the regime. A split step is the slower of its two pools
    plus the broadcast (``rl_time.step_seconds``): its MoE and dense steps sit at one level
    (medians 1.11 and 1.05), and its 7 dense steps are too few for a band of their own, so it
    stays one regime (docs/evidence/rl.md, "The colocated step bands by the policy's kind")."""
    place = (s.rl or RLSpec()).placement
    return f"speed/rl/{place}/{model_kind(s)}" if place in KIND_SPLIT_PLACEMENTS else f"speed/rl/{place}"


def speed_regime(s: Scenario, gpu: GPUSpec) -> str:
    """``speed/training/<dense|moe>``, ``speed/rl/...`` (``rl_speed_regime``) or
    ``speed/<engine>/<vendor>/<batch regime>``."""
    if s.workload.kind == RL:
        return rl_speed_regime(s)
    if s.workload.trains:
        return f"speed/training/{model_kind(s)}"
    return f"speed/{s.framework}/{vendor(gpu)}/{batch_regime(s)}"


def engine_label(framework: str) -> str:
    """The framework's label (``vLLM``), its id when no profile is registered."""
    profile = FRAMEWORKS.get(framework)
    return profile.label if profile else framework


def vendor_label(key: str) -> str:
    return VENDOR_LABELS.get(key, key)


def pool_chain(regime: str) -> list[str]:
    """The regimes a small regime pools with, nearest first (hierarchical pooling): a memory
    family x workload group -> the family -> all memory; an engine x vendor x batch regime ->
    the vendor x batch regime across engines (``speed/*/<vendor>/<batch>``) -> all speed;
    training speed -> all training speed -> all speed. RL's regimes sit in no other regime's
    pool (``in_pool``), so the other kinds' bands do not move; each small one pools with the
    figures of what it is made of:

    - ``memory/rl``: all memory figures. verl's counter is the engine's pool (weights and KV
      cache, counted while asleep: ``rl_memory.allocator_counted``) on top of an FSDP trainer's
      peak, two families' sums (engine pools, FSDP / DeepSpeed).
    - ``speed/rl/split``: all speed figures, serving and training. A split step runs the rollout
      on its own GPUs beside the log-probs and update (one step off-policy), so its time is the
      slower of a serving engine's generation and a trainer's step, then the weight broadcast
      (``rl_time.step_seconds``); it runs none of what colocation adds (the engine's sleep and
      wake, the training states' trips to host memory, the refit through them), where the
      colocated steps' 1.19-2.74x gap sits (docs/evidence/rl.md sections 2b, 2h, 8). Its error is
      then its phases' own, which the serving and training regimes measure, not the colocated
      steps'. Chosen on that composition, not on the counts: each fifth held out in turn, the
      8 split steps fall 5 inside under ``speed/rl``, 6 under all speed, 7 under all training
      speed, 5 under all serving speed (docs/evidence/rl.md section 8). With 25 split steps
      (docs/evidence/rl.md sections 2l, 2m) it holds a band of its own; the pool serves below 12.
    - ``speed/rl/colocated/<dense|moe>`` (the policy's kind, ``rl_speed_regime``; 32 and 21
      figures, each a band of its own): the colocated steps of both kinds (the same phases in
      series, the policy's kind aside), then ``speed/rl``, RL's steps, then all speed. Were a
      split step ever keyed by kind, its chain would be ``speed/rl/split`` then all speed: a
      split step never pools with the colocated steps (the reason above)."""
    parts = regime.split("/")
    if parts[1] == DISAGG:  # the P/D figures pool only with each other (``in_pool``)
        return ["speed/disagg"]
    if parts[1] == RL:
        if parts[0] == "memory":
            return ["memory"]
        tail = ["speed"] if parts[2] == "split" else ["speed/rl", "speed"]
        return ([f"speed/rl/{parts[2]}"] if len(parts) > 3 else []) + tail
    if parts[0] == "memory":
        return [f"memory/{parts[1]}", "memory"]
    if parts[1] == "training":
        return ["speed/training", "speed"]
    return [f"speed/*/{parts[2]}/{parts[3]}", "speed"]


def in_pool(regime: str, pool: str) -> bool:
    """Whether a regime's figures belong to a pool (``*`` stands for any engine); an RL regime
    only to a pool that names RL (``pool_chain``), a P/D regime (``DISAGG``) to none but its
    own, so that adding the P/D figures moves no other regime's band."""
    p, r = pool.split("/"), regime.split("/")
    if r[1] in (RL, DISAGG) and (len(p) < 2 or p[1] != r[1]):
        return False
    return len(p) <= len(r) and all(a in ("*", b) for a, b in zip(p, r, strict=False))


def _pool_label(parts: list[str]) -> str:
    if parts[0] == "memory":
        family = f" of {FAMILY_LABELS.get(parts[1], parts[1])}" if len(parts) > 1 else ""
        return f"all memory figures{family}"
    if len(parts) == 1:
        return "all speed figures"
    if parts[1] == "training":
        return "all training speed figures"
    return f"all engines' speed on {vendor_label(parts[2])}, {BATCH_LABELS.get(parts[3], parts[3])}"


def regime_label(regime: str) -> str:
    """Words for a regime key: ``vLLM speed on NVIDIA, batch one``-like; a pool of regimes
    (``pool_chain``): ``all engines' speed on NVIDIA, batch one``-like."""
    parts = regime.split("/")
    if len(parts) > 2 and parts[1] == DISAGG:
        return f"published P/D (disaggregated) {DISAGG_LABELS.get(parts[2], parts[2])}"
    if len(parts) > 1 and parts[1] == RL:
        if parts[0] == "memory":
            return "RL post-training memory"
        place = PLACEMENT_LABELS.get(parts[2], parts[2]) if len(parts) > 2 else "colocated and split"
        kind = f", {KIND_LABELS.get(parts[3], parts[3])}" if len(parts) > 3 else ""
        return f"RL steps, {place}{kind}"
    if len(parts) < 3 or parts[1] == "*":
        return _pool_label(parts)
    if parts[0] == "memory":
        group = {"full": "full training", "adapter": "LoRA / QLoRA"}.get(parts[2], parts[2])
        family = FAMILY_LABELS.get(parts[1], parts[1])
        # "unified memory memory, serving" doubled the word in the window's "How sure"
        return f"{family}{'' if family.endswith('memory') else ' memory'}, {group}"
    if parts[1] == "training":
        return f"training speed, {parts[2]} models"
    return (
        f"{engine_label(parts[1])} speed on {vendor_label(parts[2])}, {BATCH_LABELS.get(parts[3], parts[3])}"
    )
