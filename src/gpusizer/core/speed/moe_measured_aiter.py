"""Which runs read AITER's measured fused MoE (core/speed/moe_measured.py ``AITER_FP8_BLOCK``):
vLLM or SGLang on an AMD GPU with AITER's MoE stated (``serving.moe_backend`` "aiter",
core/registry/moe_backends.py ``AITER``: vLLM's ``--moe-backend aiter``, SGLang's
``SGLANG_USE_AITER=1``) and block-FP8 experts.

vLLM on ROCm runs AITER's fused MoE only where ``VLLM_ROCM_USE_AITER=1`` and
``VLLM_ROCM_USE_AITER_MOE`` (vllm/envs.py; off by default), or where an out-of-tree plugin's model
code calls AITER itself (ROCm/ATOM's vLLM plugin, recipes/atom_vllm); vllm/_aiter_ops.py
``_rocm_aiter_fused_moe_impl`` then calls ``aiter.fused_moe``, which picks its kernel from the
tuned fmoe table for the GPU's compute-unit count and the call's (tokens, model_dim, inter_dim,
experts, top-k, dtypes, quant type). SGLang with ``SGLANG_USE_AITER=1`` calls the same
``aiter.fused_moe`` (moe_runner/aiter.py). ROCm/aiter's tuned tables carry that kernel's measured
time ``us`` (scripts/aiter_fmoe_table.py): the step reads it in place of the grouped-GEMM rates at
the model's own expert shape, tensor-parallel split, and tokens, linearly between measured counts
(core/speed/moe_measured.py ``module_seconds``), and keeps the rates wherever the table lacks the
GPU, the split or the format.

Two readings beyond the exact shape (:func:`aiter_points`):

- the shared expert fused: a model with one shared expert as wide as a routed one runs, under
  AITER, ``experts + 1`` experts at ``top_k + 1`` (the tables' FSE=1 rows, e.g. GLM-5.1's and
  DeepSeek-V3's 257 experts, top 9); such a row holds the shared expert's time too.
- another hidden size: a row of the same GPU, experts, top-k, TP and expert width but hidden size
  ``h0`` is read for hidden ``h`` at ``h / h0`` its time. Both GEMMs of a call scale with the
  hidden size: the first walks K = hidden a 128-element block at a time (core/speed/
  block_walk.py: time linear in K at decode tiles), the second writes hidden-wide outputs, and
  every expert's bytes are hidden x width. Checked where AITER timed both shapes on one GPU:
  ``cu_num`` 256 (MI355X), DeepSeek-V3's TP-8 slice (7,168 x 256, 257 top 9, in
  a8w8_blockscale_tuned_fmoe_ds_v3.csv) against GLM-5's (6,144 x 256, 257 top 9,
  a8w8_blockscale_tuned_fmoe_glm5.csv), both at 9cc2b8ae (2026-04-10): 1.21, 1.13, 1.13, 1.13,
  1.02, 1.00 at 16, 32, 64, 128, 256, 512 tokens, where 7,168 / 6,144 = 1.17
  (tests/core/test_aiter_cdna3_moe.py). So it prices DeepSeek-V3/R1's TP-8 MoE layer on gfx942
  (``cu_num`` 304: MI300X, MI325X) from GLM-5.1's measured one, the one CDNA3 block-FP8 table at
  a fine-grained TP-8 slice (docs/evidence/speed.md, the section on block-FP8 MoE on CDNA).

The rows were timed under random router scores (uniform routing in expectation), where the
model's router is skewed (core/speed/expert_load.py): a skewed router touches fewer distinct
experts at a given batch, so the table may read a call somewhat dear at the batches where not
every expert is yet read (about 50-250 tokens for 512 experts at top 10).
"""

from __future__ import annotations

from ..registry.moe_backends import AITER, MOE_BACKENDS
from .moe_measured import AITER_FP8_BLOCK, FORMATS, Points, measured_module, module_rows

VENDOR = "amd"  # GPUSpec.vendor, lower case


def aiter_module(engine: str, vendor: str, experts: str, rule: str, backend: str | None) -> str:
    """AITER's measured module where ``engine`` (a framework id) runs ``experts`` (the experts'
    dtype, ``rule`` the checkpoint's quantisation rule) through AITER's fused MoE on a GPU of
    ``vendor``, ``backend`` the stated MoE backend; "" elsewhere (module docstring)."""
    if engine not in MOE_BACKENDS[AITER].engines or vendor.lower() != VENDOR or backend != AITER:
        return ""
    return AITER_FP8_BLOCK if (experts, rule) == FORMATS[AITER_FP8_BLOCK] else ""


def aiter_points(gpu: str, shape: tuple[int, int, int, int], shared_ffn: int, tp: int) -> Points:
    """AITER's measured calls on catalog GPU ``gpu`` for an expert ``shape`` (experts, hidden,
    expert width, top-k) with ``shared_ffn`` columns of shared experts, split over ``tp`` ranks:
    the exact shape, else the shared expert fused, else either at another hidden size scaled by
    the hidden sizes' ratio (module docstring); empty where none was measured."""
    experts, hidden, width, top_k = shape
    shapes = [(experts, top_k)]
    if shared_ffn == width:  # one shared expert of a routed one's width: AITER's FSE=1 rows
        shapes.insert(0, (experts + 1, top_k + 1))
    for e, k in shapes:
        got = measured_module(AITER_FP8_BLOCK, gpu, (e, hidden, width, k), tp, 1.0)
        if got:
            return got
    for e, k in shapes:
        rows = module_rows(AITER_FP8_BLOCK, gpu, (e, width, k), tp)
        if rows:  # the nearest hidden size measured
            h0, pts = min(rows, key=lambda row: abs(row[0] - hidden))
            return tuple((t, sec * hidden / h0) for t, sec in pts)
    return ()
