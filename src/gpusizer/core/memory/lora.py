"""Trainable parameters of LoRA adapters (Hu et al. 2021, arXiv 2106.09685 §4.1).

A targeted ``d_in x d_out`` Linear gains ``A: r x d_in`` and ``B: d_out x r``, so
``r·(d_in + d_out)`` trainable parameters; the base weight is frozen. Routed experts each get
their own adapters (PEFT on per-expert Linear modules). Hybrid models: the recurrent layers
have no q/k/v/o (their projections are not targeted by these names) and MLP-free layers no
gate/up/down.

A fused projection is one Linear module, so PEFT gives it one adapter: Phi-3's ``qkv_proj``
gets one ``lora_A`` (r x h) and one ``lora_B`` ((q + k + v) x r), not three adapters' worth
(measured: tests/core/data/peft-extra-measured.json, phi3 records; PEFT
``tuners/lora/model.py`` wraps each targeted ``nn.Linear``). Naming any of q/k/v (gate/up)
targets the fused module.

gpt-oss and Llama 4 keep their routed experts as 3-D parameters, which the target names do not
reach; ``workload.lora_target_parameters`` adapts them (core/memory/lora_expert_params.py).
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from ..model.architecture import Arch, resolve
from ..model.params import StageLayers
from ..model.specs import ModelSpec, Scenario
from .lora_expert_params import expert_parameter_adapters, expert_parameter_shapes, is_native
from .lora_experts import MODULES, expert_layout, fused_targets, keeps_mlp_modules

# A fused module's name and the target names that select it.
FUSED = {"qkv": ("q", "k", "v"), "gate_up": ("gate", "up")}


def module_targets(spec: ModelSpec, targets: tuple[str, ...] | frozenset[str]) -> frozenset[str]:
    """The targets as module names: a fused module is targeted when any of its parts is."""
    out = set(targets)
    for fused, parts in FUSED.items():
        if _fused(spec, fused) and out & set(parts):
            out.add(fused)
    return frozenset(out)


def _fused(spec: ModelSpec, name: str) -> bool:
    return (
        spec.fused_qkv and spec.mla is None if name == "qkv" else spec.fused_gate_up and spec.mlp == "gated"
    )


def _attention_shapes(arch: Arch) -> dict[str, list[tuple[int, int]]]:
    h, mla = arch.hidden, arch.mla
    if mla is None:
        q_out = arch.q_dim * (2 if arch.spec.attention_output_gate else 1)
        if _fused(arch.spec, "qkv"):
            return {"qkv": [(h, q_out + 2 * arch.kv_dim)], "o": [(arch.attn_out_dim, h)]}
        return {
            "q": [(h, q_out)],
            "k": [(h, arch.kv_dim)],
            "v": [(h, arch.kv_dim)],
            "o": [(arch.attn_out_dim, h)],
        }
    q_lora = mla.q_lora_rank
    q = [(h, q_lora), (q_lora, arch.q_dim)] if q_lora else [(h, arch.q_dim)]
    return {
        "q": q,
        "k": [(h, mla.kv_lora_rank + mla.qk_rope_head_dim)],
        "v": [(mla.kv_lora_rank, arch.heads * (mla.qk_nope_head_dim + mla.v_head_dim))],
        "o": [(arch.attn_out_dim, h)],
    }


def _mlp_shapes(arch: Arch, ffn: int) -> dict[str, list[tuple[int, int]]]:
    h = arch.hidden
    if _fused(arch.spec, "gate_up"):
        return {"gate_up": [(h, 2 * ffn)], "down": [(ffn, h)]}
    if arch.spec.mlp == "gated":
        return {"gate": [(h, ffn)], "up": [(h, ffn)], "down": [(ffn, h)]}
    return {"up": [(h, ffn)], "down": [(ffn, h)]}  # plain MLP: fc1 is "up", fc2 is "down"


def _adapter(shapes: dict[str, list[tuple[int, int]]], targets: frozenset[str], rank: int) -> tuple[int, int]:
    params = tensors = 0
    for t in shapes:
        for d_in, d_out in shapes[t] if t in targets else ():
            params += rank * (d_in + d_out)
            tensors += 2
    return params, tensors


def _mlp_names(names: frozenset[str], layout: str) -> frozenset[str]:
    """The targets a dense MLP or shared expert keeps (none of gate/up/down after PEFT's
    transformers-5 conversion, core/memory/lora_experts.py)."""
    return names if keeps_mlp_modules(layout) else names - {"gate", "up", "down", "gate_up"}


def _fused_shapes(arch: Arch, ffn: int, names: frozenset[str], layout: str) -> list[tuple[int, int, int]]:
    """(d_in, d_out, rank multiplier) of each adapted fused 3-D expert parameter: ``gate_up_proj``
    (E, 2f, h) and ``down_proj`` (E, h, f) (core/memory/lora_experts.py)."""
    dims = {"gate_up": (arch.hidden, 2 * ffn), "down": (ffn, arch.hidden)}
    return [(*dims[t], mult) for t, mult in fused_targets(names, layout).items()]


def _routed(
    arch: Arch, ffn: int, names: frozenset[str], rank: int, layout: str, experts: int
) -> tuple[int, int]:
    """(parameters, tensors) of one MoE layer's routed-expert adapters: per-expert Linears, or
    one ``lora_A`` (E·r', d_in) and ``lora_B`` (d_out, E·r') per fused parameter (PEFT
    ``ParamWrapper``); none where the experts are 3-D parameters the names do not reach
    (their ``target_parameters`` adapters: :func:`lora_stage`)."""
    if is_native(layout):
        return 0, 0
    if layout == MODULES:
        one, one_t = _adapter(_mlp_shapes(arch, ffn), names, rank)
        return one * experts, one_t * experts
    shapes = _fused_shapes(arch, ffn, names, layout)
    return sum(experts * rank * m * (i + o) for i, o, m in shapes), 2 * len(shapes)


@lru_cache(maxsize=256)
def _parts(
    spec: ModelSpec, rank: int, targets: tuple[str, ...], layout: str = MODULES
) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int], tuple[int, int], tuple[int, int]]:
    """(parameters, tensors) of the adapters of one dense layer, one MoE layer and the LM head,
    and those of one attention block and one dense MLP: what a hybrid model's recurrent and
    MLP-free layers lack. ``layout``: the routed experts' (core/memory/lora_experts.py)."""
    arch, names = resolve(spec), module_targets(spec, targets)
    attn, attn_t = _adapter(_attention_shapes(arch), names, rank)
    dense, dense_t = _adapter(_mlp_shapes(arch, arch.ffn), _mlp_names(names, layout), rank)
    per, per_t = 0, 0
    moe = arch.moe
    if moe is not None:
        exp, exp_t = _routed(arch, moe.expert_ffn_hidden_size, names, rank, layout, moe.experts)
        per, per_t = attn + exp, attn_t + exp_t
        if moe.shared_experts:
            sh, sh_t = _adapter(_mlp_shapes(arch, moe.shared_ffn), _mlp_names(names, layout), rank)
            per, per_t = per + sh, per_t + sh_t
    head = (rank * (arch.hidden + arch.vocab), 2) if "lm_head" in names else (0, 0)
    return (attn + dense, attn_t + dense_t), (per, per_t), head, (attn, attn_t), (dense, dense_t)


def routed_expert_lora(spec: ModelSpec, rank: int, targets: tuple[str, ...]) -> int:
    """Parameters of one routed expert's adapters over all the MoE layers (0 for a dense model
    or targets off the expert MLP): ``experts`` times this is the routed part of
    :func:`lora_trainable`, the part of which a token runs only its top-k experts'."""
    arch = resolve(spec)
    moe = arch.moe
    if moe is None:
        return 0
    names = module_targets(spec, targets)
    one, _ = _adapter(_mlp_shapes(arch, moe.expert_ffn_hidden_size), names, rank)
    return one * arch.moe_layers


@lru_cache(maxsize=256)
def adapter_tensors(
    spec: ModelSpec, rank: int, targets: tuple[str, ...], layout: str = MODULES
) -> list[tuple[int, int]]:
    """(elements, how many) of every adapter tensor in the model: ``lora_A`` r x d_in and
    ``lora_B`` d_out x r per targeted module (optimizer rules depend on tensor sizes); a fused
    expert parameter's pair spans all E experts (``layout``, core/memory/lora_experts.py)."""
    arch, names = resolve(spec), module_targets(spec, targets)
    mlp_names = _mlp_names(names, layout)
    found: dict[int, int] = {}
    groups = [
        (_attention_shapes(arch), arch.attention_layers, names),
        (_mlp_shapes(arch, arch.ffn), arch.dense_layers - arch.mlp_free_layers, mlp_names),
    ]
    moe = arch.moe
    if (
        moe is not None and layout == MODULES
    ):  # the routed experts and, as _parts counts them, the shared ones
        groups.append((_mlp_shapes(arch, moe.expert_ffn_hidden_size), arch.moe_layers * moe.experts, names))
    elif moe is not None and is_native(layout):
        for d_in, d_out, n in expert_parameter_shapes(arch, layout):
            for size in (moe.experts * rank * d_in, moe.experts * rank * d_out):
                found[size] = found.get(size, 0) + n
    elif moe is not None:
        for d_in, d_out, m in _fused_shapes(arch, moe.expert_ffn_hidden_size, names, layout):
            for n in (moe.experts * rank * m * d_in, moe.experts * rank * m * d_out):
                found[n] = found.get(n, 0) + arch.moe_layers
    if moe is not None and moe.shared_experts:
        groups.append((_mlp_shapes(arch, moe.shared_ffn), arch.moe_layers, mlp_names))
    for shapes, count, chosen in groups:
        for name, dims in shapes.items():
            for d_in, d_out in dims if name in chosen else ():
                for n in (rank * d_in, rank * d_out):
                    found[n] = found.get(n, 0) + count
    if "lm_head" in names:
        for n in (rank * arch.hidden, rank * arch.vocab):
            found[n] = found.get(n, 0) + 1
    return sorted(found.items())


def lora_stage(
    spec: ModelSpec, rank: int, targets: tuple[str, ...], stage: StageLayers, layout: str = MODULES
) -> tuple[int, int]:
    """(trainable parameters, parameter tensors) of the adapters on one pipeline stage: its
    layers' adapters and, on the last stage, the LM head's (where the head is). A hybrid
    model's recurrent layers have no attention adapters and its MLP-free layers no MLP ones:
    the stage's own (:meth:`StageLayers.hybrid_layers`, core/model/sharding.py). ``layout``:
    the routed experts' (core/memory/lora_experts.py)."""
    parts = _parts(spec, rank, targets, layout)
    (dense, dense_t), (moe, moe_t), (head, head_t), (attn, attn_t), (mlp, mlp_t) = parts
    arch = resolve(spec)
    mixers, free = stage.hybrid_layers(arch)
    dense_layers, moe_layers, last = stage.dense, stage.moe, stage.last
    named, named_t = expert_parameter_adapters(arch, rank, layout, moe_layers)
    return (
        dense * dense_layers + moe * moe_layers + (head if last else 0) - attn * mixers - mlp * free + named,
        dense_t * dense_layers
        + moe_t * moe_layers
        + (head_t if last else 0)
        - attn_t * mixers
        - mlp_t * free
        + named_t,
    )


class LoraCounts(NamedTuple):
    """A model's LoRA adapters: trainable parameters in the whole model, per dense layer, and
    parameter tensors."""

    total: int
    per_dense_layer: int
    tensors: int


def lora_trainable(spec: ModelSpec, rank: int, targets: tuple[str, ...], layout: str = MODULES) -> LoraCounts:
    """The adapters of ``rank`` on ``targets`` over the whole model (``layout``: the routed
    experts', core/memory/lora_experts.py)."""
    arch = resolve(spec)
    total, tensors = lora_stage(spec, rank, targets, StageLayers.whole(arch), layout)
    return LoraCounts(total, _parts(spec, rank, targets, layout)[0][0], tensors)


def adapted_share(s: Scenario, layers: int) -> float:
    """The share of a stage's ``layers`` that carry adapters: 1, or the last
    ``workload.lora_layers`` of them (one pipeline stage: validation refuses more). A layer below
    the first adapter has no input or weight that needs a gradient, so autograd (PyTorch's and
    MLX's alike) records nothing of it: it keeps no activations and has no adapters."""
    n = s.workload.lora_layers
    if n is None or not s.workload.is_adapter or layers <= 0:
        return 1.0
    return min(n, layers) / layers


def recorded_share(s: Scenario, layers: int) -> float:
    """The share of a stage's ``layers`` autograd records (keeps activations of, runs the
    backward through): :func:`adapted_share`, except where the framework makes the embedding's
    output require a gradient, so that every layer is recorded: PEFT's ``PeftModel.__init__``
    under gradient checkpointing (``_prepare_model_for_gradient_checkpointing`` calls
    ``enable_input_require_grads``; ``FrameworkProfile.input_grads_with_recompute``)."""
    if s.parallelism.recompute == "full" and s.profile.input_grads_with_recompute:
        return 1.0
    return adapted_share(s, layers)


def scenario_lora(s: Scenario) -> LoraCounts:
    """:func:`lora_trainable` of the scenario's adapters; zeros when it trains no adapters."""
    w = s.workload
    if not w.is_adapter:
        return LoraCounts(0, 0, 0)
    whole = lora_trainable(s.model, w.lora_rank, w.lora_targets, expert_layout(s))
    share = adapted_share(s, resolve(s.model).layers)
    return (
        whole
        if share == 1.0
        else LoraCounts(round(whole.total * share), whole.per_dense_layer, round(whole.tensors * share))
    )
