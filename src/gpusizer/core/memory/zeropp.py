"""DeepSpeed ZeRO++ (``parallelism.zero_hpz_partition_size``, ``zero_quantized_weights``,
``zero_quantized_gradients``): what each of its three parts changes in a ZeRO-3 step.

Sources: Wang et al. 2023, "ZeRO++: Extremely Efficient Collective Communication for Giant
Model Training", arXiv 2306.10209 (§3.1 qwZ, §3.2 hpZ, §3.3 qgZ); deepspeed.ai/tutorials/zeropp
(the three config keys, "each of the three components can be enabled independent of each
other"); ``deepspeed/runtime/zero/config.py`` (``zero_hpz_partition_size`` default 1: off;
``zero_quantized_weights``, ``zero_quantized_gradients`` default false);
``deepspeed/runtime/zero/partition_parameters.py`` (``ds_secondary_tensor``: each parameter's
secondary partition, in the parameter's 16-bit dtype, over the hpZ group of consecutive ranks;
``_create_zero_param_parallel_group`` asserts the world size divides into groups of that size).

- hpZ: every GPU keeps, besides its primary 1/N shard, a secondary shard of the 16-bit weights
  over its hpZ group (2 x parameters / hpz bytes a GPU; the paper's "memory overhead"), and the
  backward's all-gather runs over that group (within a node) instead of all N ranks.
- qwZ: the forward's all-gather moves block-quantised INT8 weights (1 byte a value; the block
  scales, one per 2,048 values in the paper's blocks, are not counted) instead of 16-bit.
- qgZ: the gradients' reduce-scatter becomes a hierarchical all-to-all of INT4 values
  (4x fewer bytes than 16-bit), priced as a reduce-scatter of 0.5 byte a value over the same
  ranks (its intra-node first hop and its quantisation kernels are not priced).
"""

from __future__ import annotations

from ..errors import ScenarioError
from ..model.specs import Scenario

QWZ_BYTES = 1.0  # INT8 weights in qwZ's all-gather
QGZ_BYTES = 0.5  # INT4 gradients in qgZ's all-to-all


def hpz_size(s: Scenario) -> int:
    """The hpZ group's GPUs under ZeRO-3 (1: no secondary partition)."""
    p = s.parallelism
    return (p.zero_hpz_partition_size or 1) if p.zero_stage >= 3 else 1


def secondary_bytes(s: Scenario, weights: float) -> float:
    """hpZ's secondary partition on one GPU of ``weights`` (the GPU's unsharded 16-bit weights)."""
    n = hpz_size(s)
    return weights / n if n > 1 else 0.0


def gather_bytes(s: Scenario, weight_bytes: float) -> float:
    """Bytes a value the forward's all-gather moves (qwZ: INT8)."""
    return min(weight_bytes, QWZ_BYTES) if s.parallelism.zero_quantized_weights else weight_bytes


def reduce_bytes(s: Scenario, grad_bytes: float) -> float:
    """Bytes a value the gradients' reduction moves (qgZ: INT4)."""
    return min(grad_bytes, QGZ_BYTES) if s.parallelism.zero_quantized_gradients else grad_bytes


def check_zeropp(s: Scenario) -> None:
    """ZeRO++ applies to DeepSpeed's ZeRO-3 (on the stacks that run it) and its hpZ group must
    divide the data-parallel ranks."""
    p = s.parallelism
    on = {
        "zero_hpz_partition_size": (p.zero_hpz_partition_size or 1) > 1,
        "zero_quantized_weights": bool(p.zero_quantized_weights),
        "zero_quantized_gradients": bool(p.zero_quantized_gradients),
    }
    stated = [k for k, v in on.items() if v]
    if not stated or not s.workload.trains:
        return
    field = "parallelism." + stated[0]
    if not s.profile.zero_plus_plus:
        msg = (
            f"DeepSpeed ZeRO++ applies to deepspeed, huggingface, ms-swift and axolotl, not {s.profile.label}"
        )
        raise ScenarioError(field, msg)
    if p.zero_stage != 3:
        raise ScenarioError(
            field, f"DeepSpeed ZeRO++ runs on ZeRO-3: state parallelism.zero_stage 3; got {p.zero_stage}"
        )
    ranks = p.data * p.context
    n = p.zero_hpz_partition_size or 1
    if ranks % n:
        msg = f"must divide the data-parallel ranks ({ranks}: data x context), as DeepSpeed's groups do"
        msg += f"; got {n}"
        raise ScenarioError("parallelism.zero_hpz_partition_size", msg)
