"""SGLang's Triton fused MoE at narrow expert slices: the tiles its config gives the second
GEMM's grid, whose short CTAs bound the call (core/speed/triton_moe.py, measured on vLLM's copy).

What SGLang runs: a tensor-parallel MoE layer's 16-bit experts on Hopper go to the Triton
runner's ``fused_experts`` (python/sglang/srt/layers/moe/fused_moe_triton/fused_moe.py, a port of
vLLM's kernel: ``moe_align_block_size`` pads each expert's rows to ``BLOCK_SIZE_M``, then the w1
and w2 ``fused_moe_kernel`` calls over a ``cdiv(EM, BLOCK_SIZE_M) x cdiv(N, BLOCK_SIZE_N)`` grid,
for w2 ``N = hidden``). Its tiles come from ``try_get_optimal_moe_config``
(fused_moe_triton/fused_moe_triton_config.py, sgl-project/sglang at 083d6013, the Triton 3.4
era of 0.5.x): the tuned file ``E={E},N={width},device_name={GPU}.json`` under
``configs/triton_<version>/`` where one ships (the row whose token count is nearest the call's,
``min(configs.keys(), key=lambda x: abs(x - M))``), else ``get_default_config``, which for 16-bit
experts gives ``BLOCK_SIZE_M`` 16, ``BLOCK_SIZE_N`` 32, ``BLOCK_SIZE_K`` 64 when the call's
tokens are at most the experts (``M <= E``), else 64 / 64 / 32 (the server logs "Using default
MoE kernel config. Performance might be sub-optimal!"). At Qwen3-Next's 512 experts of 512
columns split over TP 2-8 (256-64 rows a slice) a w2 CTA is one or a few ``BLOCK_SIZE_K``
iterations, so the grid's CTA count times vLLM's measured cost per CTA
(``triton_moe.W2_CTA_SECONDS``) bounds the call, as it does vLLM's at DeepSeek V3's TP 32 slice:
the default tiles' 32 columns give 64 w2 CTAs an expert block at hidden 2,048, the tuned files'
128-256 a quarter to an eighth of that.

Read where the tiles are known: a run that states it ran the default config
(``serving.moe_default_config``: the "Before" columns of SGLang's tuning PRs), or a shape, GPU
and width whose tuned file :data:`TUNED` holds (read at sgl-project/sglang
``configs/triton_3_4_0/``: ``E=512,N=128,device_name=NVIDIA_H200.json`` of PR #10404 and
``E=512,N=256,device_name=NVIDIA_H200.json`` (TP 2),
``E=512,N=128,device_name=NVIDIA_H20.json`` and ``E=512,N=64,device_name=NVIDIA_H20.json`` of the
H20 files PR #10467 tuned). Elsewhere the step keeps what it priced before (the measured module,
core/speed/moe_measured_lanes.py, or the grouped rates), so no other answer moves. EP 1 only
(the files' ``E`` is a rank's experts). The per-CTA cost is the H200's (vLLM 0.19.0, aiconfigurator
0.12.0), taken for the Hopper family, the H20 included (its 78 SMs against 132: an extrapolation
the H20 rows of this docstring's PRs test, docs/evidence/speed.md).
"""

from __future__ import annotations

from ..model.specs import Scenario
from ..registry.frameworks import FRAMEWORKS

Rows = tuple[tuple[int, int, int], ...]  # (tokens of the config's row, BLOCK_SIZE_M, BLOCK_SIZE_N)

SIXTEEN_BIT = ("bf16", "fp16")


def _rows(spec: str) -> Rows:
    """``"M:bm/bn M:bm/bn ..."`` as rows (the tuned files' keys and their two block sizes)."""
    out = []
    for cell in spec.split():
        m, tile = cell.split(":")
        bm, bn = tile.split("/")
        out.append((int(m), int(bm), int(bn)))
    return tuple(out)


# (experts, a rank's expert width, catalog GPU) -> the tuned file's rows (module docstring)
TUNED: dict[tuple[int, int, str], Rows] = {
    (512, 128, "h200-141gb"): _rows(
        "1:16/64 2:16/128 4:16/128 8:16/128 16:16/128 24:16/128 32:16/64 48:16/128 64:16/128 "
        "96:16/64 128:16/64 256:16/128 512:16/128 1024:32/128 1536:64/128 2048:64/128 "
        "3072:64/128 4096:128/128"
    ),
    (512, 256, "h200-141gb"): _rows(
        "1:16/64 2:16/128 4:16/128 8:16/128 16:16/64 24:16/128 32:16/256 48:16/128 64:16/128 "
        "96:16/64 128:16/64 256:16/128 512:16/128 1024:32/128 1536:64/128 2048:64/128 "
        "3072:64/128 4096:128/128"
    ),
    (512, 128, "h20-96gb"): _rows(
        "1:16/64 2:16/128 4:16/128 8:16/128 16:16/128 24:16/128 32:16/256 48:16/64 64:16/128 "
        "96:16/128 128:16/64 256:16/128 512:16/128 1024:32/128 1536:64/64 2048:64/64 "
        "3072:64/128 4096:64/128"
    ),
    (512, 64, "h20-96gb"): _rows(
        "1:16/64 2:16/64 4:16/128 8:16/128 16:16/128 24:16/128 32:16/128 48:16/128 64:16/128 "
        "96:16/128 128:16/128 256:16/128 512:16/128 1024:32/128 1536:64/64 2048:64/64 "
        "3072:64/64 4096:64/64"
    ),
}


def default_rows(experts: int) -> Rows:
    """``get_default_config``'s 16-bit tiles as rows: the nearest-row rule picks the first for
    ``tokens <= experts`` and the second above, as its ``M <= E`` test does."""
    return ((experts, 16, 32), (experts + 1, 64, 64))


def tiles(rows: Rows, tokens: float) -> tuple[int, int]:
    """(BLOCK_SIZE_M, BLOCK_SIZE_N) of the row nearest ``tokens`` (the earlier row on a tie, as
    ``min`` over the file's ascending keys keeps)."""
    _, bm, bn = min(rows, key=lambda r: abs(r[0] - tokens))
    return bm, bn


def sglang_rows(
    framework: str, family: str, experts_dtype: str, shape: tuple[int, int, str], ep: int, default: bool
) -> Rows:
    """The config rows SGLang's Triton MoE runs a step's experts with where they are known
    (module docstring; ``shape`` = (experts, a rank's expert width, catalog GPU), ``default``
    the scenario's ``serving.moe_default_config``); () elsewhere (nothing priced beyond before)."""
    own_tiles = FRAMEWORKS[framework].triton_moe_config_tiles
    if not own_tiles or family != "hopper" or experts_dtype not in SIXTEEN_BIT or ep != 1:
        return ()
    if default:
        return default_rows(shape[0])
    return TUNED.get(shape, ())


def scenario_rows(s: Scenario, family: str, experts_dtype: str, gpu: str) -> Rows:
    """:func:`sglang_rows` for a scenario's MoE layers on catalog GPU ``gpu`` (() without experts)."""
    moe = s.model.moe
    if moe is None or not moe.experts or not moe.expert_ffn_hidden_size:
        return ()
    if s.parallelism.expert_in_tensor > 1:  # whole experts over the TP ranks: another layout
        return ()
    shape = (moe.experts, moe.expert_ffn_hidden_size // s.parallelism.tensor, gpu)
    default = bool(s.serving.moe_default_config)
    return sglang_rows(s.framework, family, experts_dtype, shape, s.parallelism.expert, default)
