"""Why an RL run fits no layout on a GPU, where the cause is the rollout engine's width.

A colocated RL run puts a whole vLLM or SGLang engine of ``rl.rollout.tensor`` GPUs beside the
training states, at its memory fraction of each GPU (0.5 by default, verl's
``gpu_memory_utilization``). The advice tries the engine's widths up to the node
(core/sizing/engine_width.py); where none starts, the widest's refusal is the reason. At the default
width of 1 a 70B policy's 16-bit weights (141 GB) need more than
half of any GPU below 288 GB, so no count of H100s holds it, while NeMo RL's 70B GRPO recipe
runs it on H100s at vLLM TP 4 (``grpo_math_70B_megatron.yaml`` at v0.3.0: 64 H100, TP 4 PP 4,
vLLM TP 4; docs/evidence/rl.md section 2d). "Nothing fits with up to 4,096 GPUs" names the wrong
cause; the engine's own refusal (the estimate's assumption, core/pipeline/work_rl.py) names the
field that would change it.

The engine's refusal is given in the RL fields' words only: the serving engine's lever ("Let it
use more of the GPU (memory_fraction), add GPUs ...", core/serving/rules/pool.py ``POOL_LEVER``)
names no RL field and, beside the RL lever, read as the same advice twice. Cards sold alone come
one to a desktop in the catalog (``gpus_per_node`` 1: an RX 7900 XTX, an RTX 5080), so the widest
engine tried is TP 1; where a box of 2 or 4 such cards starts a wider engine (one estimate each,
the engine's memory is its width's: core/sizing/engine_width.py), the lever names the box
(``cards_per_box``, core/sizing/systems.py ``node_size``: TP spans the cards of one box). GRPO
of Qwen3 8B at 8K responses fits no 7900 XTX one to a box and meets a week on 24 of them four to
a box (docs/evidence/rl.md, the round-49 buyer section).
"""

from __future__ import annotations

from dataclasses import replace

from ..errors import ScenarioError
from ..model.specs import Scenario
from ..pipeline.estimate import estimate
from ..pipeline.rl_check import rl_of
from ..serving.rules.pool import POOL_LEVER
from .engine_scenario import with_width
from .layout_search import GpuTarget
from .systems import sold_as_cards

BOXES = (2, 4)  # cards a box the comparison's cards_per_box offers above one

REFUSAL = "the rollout engine would not start"


def rl_engine_reason(s: Scenario, g: GpuTarget) -> str | None:
    """The reason an RL scenario fits no layout on ``g`` when its rollout engine would not start
    there at the width set (None: another kind, or the engine starts)."""
    if not s.workload.info.engine_width:  # no engine of the kind's own beside its training
        return None
    try:
        est = estimate(s.model_copy(update={"hardware": g.hardware}))
    except ScenarioError:
        return None  # the scenario as set does not run on this GPU's node: no engine verdict
    refusal = next((a for a in est.assumptions if a.startswith(REFUSAL)), None)
    if refusal is None:
        return None
    ro = rl_of(s).rollout
    refusal = refusal.replace(f".{POOL_LEVER}", "")
    return f"at rl.rollout.tensor {ro.tensor}, {refusal[0].lower()}{refusal[1:]}; {_lever(s, g)}"


def _refuses(s: Scenario, g: GpuTarget) -> bool:
    """Whether the rollout engine as ``s`` sets it would not start on ``g`` (one estimate)."""
    try:
        est = estimate(s.model_copy(update={"hardware": g.hardware}))
    except ScenarioError:
        return True
    return any(a.startswith(REFUSAL) for a in est.assumptions)


def _box(s: Scenario, g: GpuTarget) -> int | None:
    """The fewest cards a box (of :data:`BOXES`, above ``g``'s node) on which an engine as wide
    as the box starts, for a GPU sold as cards (None: not sold so, or no box starts it)."""
    node = g.hardware.gpus_per_node
    if not sold_as_cards(g.spec):
        return None
    for box in (b for b in BOXES if b > node):
        wide = with_width(s, box)
        boxed = replace(g, hardware=g.hardware.model_copy(update={"gpus_per_node": box}))
        if wide is not None and not _refuses(wide, boxed):
            return box
    return None


def _lever(s: Scenario, g: GpuTarget) -> str:
    """The fields that would let the engine start on ``g``. One copy of the weights
    (``rl.rollout.shared_weights``, Unsloth's ``fast_inference``) takes rollout TP 1 only
    (core/pipeline/rl_one_copy.py), so a wider engine is no lever there; Unsloth's standby
    (``UNSLOTH_VLLM_STANDBY=1``, unsloth_zoo ``vllm_utils.py`` ``load_vllm``) sizes the engine's
    fraction from the GPU's memory instead of ``gpu_memory_utilization``'s 0.5."""
    ro = rl_of(s).rollout
    node = g.hardware.gpus_per_node
    if ro.shared_weights:
        standby = "" if ro.standby else " or set rl.rollout.standby (its fraction follows the GPU's memory)"
        return f"raise rl.rollout.memory_fraction (Unsloth's gpu_memory_utilization){standby}"
    if ro.tensor < node:
        return f"raise rl.rollout.tensor (up to the {node} GPUs of a node) or rl.rollout.memory_fraction"
    box = None if ro.tensor > node else _box(s, g)
    if box is not None:
        return (
            f"raise rl.rollout.memory_fraction, choose a smaller format, or buy the cards {box} to a "
            f"box (--cards-per-box {box}: the engine starts at rl.rollout.tensor {box} within it)"
        )
    return "raise rl.rollout.memory_fraction or choose a smaller format"
