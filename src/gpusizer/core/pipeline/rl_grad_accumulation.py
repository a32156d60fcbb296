"""Megatron-Core's gradient accumulation without ``gradient_accumulation_fusion``: the bytes its
DDP hook moves for every micro-batch of the policy's training
(``rl.policy.gradient_accumulation_fusion: false``).

Mechanism: with the fusion off, TransformerEngine's modules are built with
``fuse_wgrad_accumulation`` false, so each backward's weight-gradient GEMM writes a new 16-bit
``param.grad``; Megatron-Core's ``DistributedDataParallel._make_backward_post_hook`` then runs
``param.main_grad.add_(param.grad.data)`` and drops ``param.grad`` (Megatron-LM
``megatron/core/distributed/distributed_data_parallel.py`` at core_v0.12.2 64cb6bd, line 415,
and core_v0.13.0 c550cf6, line 506). That add is its own elementwise kernel over every
parameter a GPU holds, once per micro-batch: it reads the 16-bit gradient (2 bytes) and reads
and writes the FP32 ``main_grad`` (8 bytes; verl v0.5.0 wraps its actor with
``grad_reduce_in_fp32: True``, ``verl/utils/megatron_utils.py``), :data:`BYTES_PER_PARAM`. With
the fusion on, the GEMM accumulates into ``main_grad`` itself and the hook skips the add
(``grad_added_to_main_grad``).

Who leaves it off: Megatron-Core's default is false (``ModelParallelConfig.gradient_accumulation_fusion
= False``, ``megatron/core/model_parallel_config.py`` at both tags). verl v0.5.0, v0.6.0 and
v0.7.0 never set it for dense models (``verl/models/mcore/config_converter.py``
``_get_base_transformer_config``; the DeepSeek converter's ``gradient_accumulation_fusion=True``
is commented out; the default ``override_transformer_config`` holds only recompute keys), nor
does mbridge's ``LLMBridge._build_base_config`` (ISEEKYAN/mbridge 0656235), which v0.7.0 uses
under ``use_mbridge``. NeMo RL leaves it off at every tag v0.3.1-v0.7.0 (its release defaults,
core/registry/rl_framework_releases.py) over a 16-bit ``main_grad`` (``grad_reduce_in_fp32``
false: :func:`bytes_per_param`). A micro-batch's GPU time is the layers' compute; this add runs beside it
at the GPU's achieved HBM rate (core/speed/train_rates.py ``memory_rate``), per micro-batch and
so unchanged by its size: micro-batches of 2 responses pay it 6-7x as often as 10,000-token
dynamic ones. Each GPU holds the non-expert parameters over tensor x pipeline and the routed
experts over expert x tensor x pipeline parallelism. Nothing here is set from an RL figure.
"""

from __future__ import annotations

from ..model.params import count_parameters
from ..model.specs import GPUSpec, Scenario
from ..speed.train_host import INVENTORIES
from ..speed.train_rates import memory_rate
from ..speed.train_step import step_for
from .rl_check import rl_of

BYTES_PER_PARAM = 2.0 + 8.0  # read the 16-bit grad; read and write the FP32 main_grad
# ``grad_reduce_in_fp32`` false (NeMo RL's megatron_cfg.distributed_data_parallel_config:
# grpo_math_1B_megatron.yaml at v0.3.x, grpo_math_1B.yaml v0.4.0-v0.7.0): Megatron-Core's
# buffer takes the parameters' dtype (``grad_dtype = torch.float if
# ddp_config.grad_reduce_in_fp32 else param.dtype``,
# megatron/core/distributed/distributed_data_parallel.py), so main_grad is 16-bit as well
BYTES_PER_PARAM_16BIT_MAIN_GRAD = 2.0 + 4.0  # read the grad; read and write the 16-bit main_grad


def bytes_per_param(policy: Scenario) -> float:
    """Bytes the hook's add moves per parameter: FP32 ``main_grad`` unless the policy's
    ``precision.grad_reduce_in_fp32`` is false (null: Megatron's bf16 rule, FP32)."""
    if policy.precision.grad_reduce_in_fp32 is False:
        return BYTES_PER_PARAM_16BIT_MAIN_GRAD
    return BYTES_PER_PARAM


def params_per_gpu(policy: Scenario) -> float:
    """Parameters one GPU of the policy's layout holds (its gradient shard's elements)."""
    counts, p = count_parameters(policy.model), policy.parallelism
    routed = counts.moe_layers * counts.moe_layer.experts if counts.moe_layer is not None else 0
    shared = (counts.total - routed) / (p.tensor * p.pipeline)
    return shared + routed / (max(1, p.expert) * p.tensor * p.pipeline)


def unfused_accumulation_seconds(s: Scenario, policy: Scenario, gpu: GPUSpec, train: float) -> float:
    """Seconds the hook's adds take over ``train`` seconds of the policy's training (all its
    epochs): one add of every local parameter per micro-batch on each optimizer step; nothing
    where the fusion is on or the policy is not trained by Megatron."""
    if rl_of(s).policy.gradient_accumulation_fusion or policy.framework not in INVENTORIES:
        return 0.0
    step = step_for(policy, gpu)
    if not step.seconds:
        return 0.0
    microbatches = train / step.seconds * step.microbatches
    return microbatches * bytes_per_param(policy) * params_per_gpu(policy) / memory_rate(gpu)
