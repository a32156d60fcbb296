"""A block-quantised checkpoint's TP partitions must hold whole blocks (serving).

A checkpoint whose rule scales each matrix per block (``QuantRule.weight_block``: the
``fp8-block`` rule, ``weight_block_size`` [128, 128] of DeepSeek-V3, Qwen3-*-FP8, MiniMax-M2)
is refused by vLLM and SGLang at load when a rank's share of a quantised matrix is not a whole
number of blocks (core/registry/block_quant_engines.py, the engines' lines). The shares:

- routed experts: ``expert_ffn_hidden_size`` over the experts' TP size, which is ``tensor``
  without expert parallelism, ``tensor / shards`` with the experts sharded inside TP
  (core/serving/expert_in_tensor.py; SGLang ``moe_tp_size = tp_size // ep_size``), and 1 where
  the experts are held whole (vLLM ``--enable-expert-parallel``, EP over the replicas);
- shared experts, dense MLPs (gate/up output, down input) and attention projections (the
  query heads' and KV heads' output, the output projection's input) over the attention TP.

Users' reports: vllm-project/vllm#17569 (Qwen3-235B-A22B-FP8 at TP 8: 1536 / 8 = 192),
vllm-project/vllm#25292 (Qwen3-30B-A3B-FP8 at TP 4: 768 / 4 = 192), QwenLM/Qwen3#1485 (SGLang,
the same two models). The fix they use: ``--enable-expert-parallel`` or a smaller TP.
Not checked: MLA's low-rank projections and hybrid models' recurrent mixers.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import ScenarioError
from ..model.architecture import resolve
from ..model.module_bytes import rule_id
from ..model.specs import Scenario
from ..registry.block_quant_engines import BLOCK_CHECKS
from ..registry.frameworks import FRAMEWORKS
from ..registry.quant_rules import quant_rule
from ..serving.attention_dp import attention_tp
from ..serving.expert_in_tensor import shards

_TRIED_TP = (1, 2, 4, 8, 16, 32, 64)  # tensor sizes offered in the message
SERVING_FIELD, ROLLOUT_FIELD = "parallelism.tensor", "rl.rollout.tensor"


def _blocked(s: Scenario, group: str) -> bool:
    """Whether ``group`` is stored in the checkpoint's quantised format (not left 16-bit)."""
    spec = (s.precision.modules or {}).get(group) or quant_rule(rule_id(s, s.precision.weights)).spec(group)
    return spec in ("weights", s.precision.weights)


def expert_tp(s: Scenario) -> int:
    """The ranks one routed expert's width is split over when serving (module docstring)."""
    p = s.parallelism
    if p.attention_data > 1:
        # the estimate prices attention DP with the routed experts sharded whole over the group
        # (core/serving/attention_dp.py ``rank_view``: SGLang's --enable-dp-attention with
        # --ep-size, vLLM's --data-parallel-size with --enable-expert-parallel), so no expert's
        # width is split
        return 1
    if p.expert <= 1:
        return p.tensor
    f = shards(s)
    return p.tensor // f if f > 1 else 1


_Blocked = Callable[[str], bool]


def _shares(s: Scenario, blocked: _Blocked, tp: int, etp: int) -> list[tuple[str, int, int]]:
    """(what, width, ranks) of each block-quantised matrix dimension split over TP."""
    moe, arch, out = s.model.moe, resolve(s.model), []
    if moe is not None and blocked("experts"):
        out.append(("routed experts' width", moe.expert_ffn_hidden_size, etp))
    if moe is not None and moe.shared_experts and blocked("shared_experts"):
        out.append(("shared experts' width", moe.shared_ffn, tp))
    if (moe is None or moe.dense_layers) and blocked("mlp"):
        out.append(("dense MLP width", arch.ffn, tp))
    if s.model.mla is None and blocked("attention"):
        out.append(("query heads' width", arch.heads * arch.head_dim, tp))
        if arch.kv_heads >= tp:  # fewer KV heads than ranks are replicated whole
            out.append(("KV heads' width", arch.kv_heads * arch.head_dim, tp))
    return out


def _first_miss(shares: list[tuple[str, int, int]], block: int) -> tuple[str, int, int] | None:
    return next((x for x in shares if x[1] % (x[2] * block)), None)


def _refusal(
    s: Scenario, blocked: _Blocked, block: int, tp: int, etp: int, engine: str, field: str
) -> str | None:
    """The message for the first share that is not whole blocks, with the layouts that load
    (EP where ``etp`` can be 1, i.e. the engine's experts may be held whole; tensor sizes)."""
    miss = _first_miss(_shares(s, blocked, tp, etp), block)
    if miss is None:
        return None
    what, width, ranks = miss
    fits = [
        str(t) for t in _TRIED_TP if t <= max(8, tp) and not _first_miss(_shares(s, blocked, t, t), block)
    ]
    fix = f"set {field} to one of {', '.join(fits) or 'none'}"
    ep_fixes = s.model.moe is not None and not s.workload.trains
    if ep_fixes and _first_miss(_shares(s, blocked, tp, 1), block) is None:
        flag = FRAMEWORKS[engine].expert_in_tensor_flag
        fix = f"set parallelism.expert {tp} to hold the experts whole ({flag}), or {field} {', '.join(fits)}"
    return (
        f"{FRAMEWORKS[engine].label} refuses block-quantised weights (weight_block_size "
        f"[{block}, {block}]) whose TP share is not whole blocks: {what} {width} / {ranks} = "
        f"{width / ranks:g}; {fix}"
    )


def block_refusal(s: Scenario) -> str | None:
    """The one-line reason an engine refuses this serving layout of a block-quantised
    checkpoint (None: it loads, or the rule has no blocks, or the engine has no such check)."""
    rule = quant_rule(rule_id(s, s.precision.weights))
    if s.framework not in BLOCK_CHECKS or rule.weight_block is None or s.workload.trains:
        return None
    block = max(rule.weight_block)  # [128, 128]: the output and the input block alike
    tp = attention_tp(s.parallelism)
    return _refusal(s, lambda g: _blocked(s, g), block, tp, expert_tp(s), s.framework, SERVING_FIELD)


# NeMo RL's FP8 generation (``rl.rollout.weights`` fp8): vLLM quantises every synced Linear and
# FusedMoE weight in 128 x 128 blocks (NVIDIA-NeMo/RL@00fa1285
# nemo_rl/models/generation/vllm/quantization/fp8.py ``FP8_BLOCK_QUANT_KWARGS``
# "weight_block_size": [128, 128], passed as hf_overrides quantization_config)
ROLLOUT_BLOCK = 128


def rollout_block_refusal(s: Scenario) -> str | None:
    """The rollout engine's refusal of its FP8 blocks at ``rl.rollout.tensor`` (every routed
    expert split over it: the rollout states no expert parallelism)."""
    rl = s.rl
    if rl is None or not s.workload.info.engines or rl.rollout.weights != "fp8":
        return None
    ro = rl.rollout
    if ro.engine not in BLOCK_CHECKS:
        return None
    return _refusal(s, lambda g: True, ROLLOUT_BLOCK, ro.tensor, ro.tensor, ro.engine, ROLLOUT_FIELD)


def check_block_quant(s: Scenario) -> None:
    """ScenarioError naming ``parallelism.tensor`` where :func:`block_refusal` refuses, or
    ``rl.rollout.tensor`` where :func:`rollout_block_refusal` does."""
    why = block_refusal(s)
    if why is not None:
        raise ScenarioError(SERVING_FIELD, why)
    why = rollout_block_refusal(s)
    if why is not None:
        raise ScenarioError(ROLLOUT_FIELD, why)
