"""Which runs read AITER's measured fused MoE (core/speed/moe_measured.py ``AITER_FP8_BLOCK``):
vLLM on an AMD GPU with ``--moe-backend aiter`` stated (``serving.moe_backend``,
core/registry/moe_backends.py ``AITER``) and block-FP8 experts.

vLLM on ROCm runs AITER's fused MoE only where ``VLLM_ROCM_USE_AITER=1`` and
``VLLM_ROCM_USE_AITER_MOE`` (vllm/envs.py; off by default), or where an out-of-tree plugin's model
code calls AITER itself (ROCm/ATOM's vLLM plugin, recipes/atom_vllm); vllm/_aiter_ops.py
``_rocm_aiter_fused_moe_impl`` then calls ``aiter.fused_moe``, which picks its kernel from the
tuned fmoe table for the GPU's compute-unit count and the call's (tokens, model_dim, inter_dim,
experts, top-k, dtypes, quant type). ROCm/aiter's tuned tables carry that kernel's measured time
``us`` (scripts/aiter_fmoe_table.py): the step reads it in place of the grouped-GEMM rates at the
model's own expert shape, tensor-parallel split, and tokens, linearly between measured counts
(core/speed/moe_measured.py ``module_seconds``), and keeps the rates wherever the table lacks the
GPU, the shape, the split or the format (every CDNA3 part: no block-FP8 row at a replayed shape
has ``cu_num`` 304; docs/evidence/speed.md, the section on AITER's tuned fmoe tables).

The rows were timed under random router scores (uniform routing in expectation), where the
model's router is skewed (core/speed/expert_load.py): a skewed router touches fewer distinct
experts at a given batch, so the table may read a call somewhat dear at the batches where not
every expert is yet read (about 50-250 tokens for 512 experts at top 10).
"""

from __future__ import annotations

from ..registry.moe_backends import AITER
from .moe_measured import AITER_FP8_BLOCK, FORMATS

ENGINE = "vllm"  # the serving framework (core/registry/frameworks.py id) the flag is stated for
VENDOR = "amd"  # GPUSpec.vendor, lower case


def aiter_module(engine: str, vendor: str, experts: str, rule: str, backend: str | None) -> str:
    """AITER's measured module where ``engine`` (a framework id) runs ``experts`` (the experts'
    dtype, ``rule`` the checkpoint's quantisation rule) through AITER's fused MoE on a GPU of
    ``vendor``, ``backend`` the stated MoE backend; "" elsewhere (module docstring)."""
    if engine != ENGINE or vendor.lower() != VENDOR or backend != AITER:
        return ""
    return AITER_FP8_BLOCK if (experts, rule) == FORMATS[AITER_FP8_BLOCK] else ""
