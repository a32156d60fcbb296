"""DeepSpeed ZeRO-3's step, one sub-group at a time (``parallelism.zero_sub_group_size``).

deepspeed/runtime/zero/stage3.py (deepspeedai/DeepSpeed v0.18.3) ``step`` walks the partition's
sub-groups in turn; for each, ``_prepare_fp32_grad_for_sub_group`` flattens the sub-group's
averaged gradients into one new tensor (``self.flatten``: torch ``_flatten_dense_tensors``, in
the gradients' dtype) and converts it ``.to`` the master partition's dtype, a second new tensor
unless the two dtypes match (``Tensor.to`` returns its input then); the converted tensor is the
master's ``.grad`` until ``_release_sub_group`` frees it, before the next sub-group. A sub-group
takes parameters until it holds ``sub_group_size`` elements (``_create_fp16_sub_groups``;
deepspeed/runtime/zero/config.py ``DeepSpeedZeroConfig.sub_group_size``, default 1e9). With
``offload_optimizer`` the conversion runs on the host and is not priced here.

Checked against DeepSpeedExamples' ``training/bf16_master_weight`` README (deepspeedai/
DeepSpeedExamples@6a3d817a, ZeRO-3 on 4 x H100): 31.38 GiB peak over 25.74 GiB allocated after
the step, the 1e9-element sub-group's bf16 flat copy and its fp32 conversion (5.59 GiB).
"""

from __future__ import annotations

from ..errors import ScenarioError
from ..model.specs import Scenario

FIELD = "parallelism.zero_sub_group_size"


def sub_group_step_bytes(s: Scenario, stepped: float, grad_b: float, master_b: float) -> float:
    """Bytes the ZeRO-3 step holds beside the model states while it converts one sub-group's
    gradients: ``stepped`` elements this GPU steps, at most the sub-group's; ``grad_b`` bytes per
    gradient, ``master_b`` per separate master weight (0: the master is the 16-bit partition)."""
    par = s.parallelism
    size = par.zero_sub_group_size
    if size is None or par.zero_stage < 3 or par.offload_optimizer:
        return 0.0
    converted = master_b if master_b and master_b != grad_b else 0.0
    return min(float(size), stepped) * (grad_b + converted)


def check_sub_group(s: Scenario) -> None:
    """``parallelism.zero_sub_group_size`` names DeepSpeed's ZeRO-3 sub-groups: refused (one line
    naming the field) outside training, below ``zero_stage`` 3 and for a stack whose ZeRO step is
    not DeepSpeed's (the profile's ``fp32_step_gradients``: DeepSpeed's optimizer converts its
    gradient partitions to the master's dtype at the step)."""
    par = s.parallelism
    if par.zero_sub_group_size is None:
        return
    if not s.workload.trains:
        raise ScenarioError(FIELD, "applies to training (DeepSpeed ZeRO-3's step); null to serve")
    if par.zero_stage != 3:
        raise ScenarioError(FIELD, f"needs zero_stage 3 (DeepSpeed ZeRO-3); got zero_stage {par.zero_stage}")
    if not s.profile.fp32_step_gradients:
        got = f"got {s.framework}"
        raise ScenarioError(FIELD, f"is DeepSpeed's ZeRO-3 setting: use framework deepspeed; {got}")
