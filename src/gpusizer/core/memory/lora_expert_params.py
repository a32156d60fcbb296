"""LoRA on a MoE whose routed experts are 3-D parameters in every transformers release:
gpt-oss and Llama 4 (``workload.lora_target_parameters``).

transformers keeps these experts as ``nn.Parameter`` tensors, never ``nn.Linear``:
``GptOssExperts.gate_up_proj`` (E, h, 2f) and ``down_proj`` (E, f, h)
(``src/transformers/models/gpt_oss/modeling_gpt_oss.py``, 4.55 to 5.x;
``@use_experts_implementation(is_transposed=True)`` on 5.x), and ``Llama4TextExperts`` the same
(``models/llama4/modeling_llama4.py`` since 4.51). PEFT's ``target_modules`` wraps modules only,
so the names ``gate_proj``/``up_proj``/``down_proj`` and ``"all-linear"`` reach no routed
expert: "all-linear" takes every ``nn.Linear`` but the output layer (PEFT ``tuners_utils.py``
``_maybe_include_all_linear_layers``), and gpt-oss's router ``GptOssTopKRouter`` holds a raw
``weight`` Parameter, no Linear. Measured: Unsloth's gpt-oss-(20B) notebook, r 8 on
q/k/v/o/gate/up/down, prints "Trainable parameters = 3,981,312 of 20,918,738,496", the
attention adapters alone (unslothai/unsloth#3405: "The notebook currently only fine-tunes
adapters for the attention modules"). Llama 4's shared expert and its dense layers' MLP are
``Llama4TextMLP`` Linears, so they keep their adapters.

The experts train only through PEFT 0.17's ``target_parameters``: ``ParamWrapper`` gives a 3-D
(E, d_in, d_out) parameter one ``lora_A`` (E·r, d_in) and one ``lora_B`` (d_out, E·r), i.e.
``E·r·(d_in + d_out)`` parameters, the count core/memory/lora_experts.py uses for the fused
layout. The names and the layers they reach: core/registry/lora_target_parameters.py.

The layout string carries the named parameters so that the cached counts key on them:
``"native_3d:7.gate_up_proj;7.down_proj"`` (``*`` for every layer).
"""

from __future__ import annotations

from ..model.architecture import Arch
from ..model.sharding import StageParams
from ..model.specs import Scenario
from ..registry.dtypes import DTYPES, nbytes
from ..registry.expert_kernels import EXPERT_KERNELS
from ..registry.lora_target_parameters import parse_target_parameter
from .unsloth_experts import from_release

NATIVE = "native_3d"
# model families whose experts are 3-D parameters in every transformers release
NATIVE_3D = frozenset({"gpt_oss", "llama4", "llama4_text"})


def native_layout(names: tuple[str, ...]) -> str:
    """The layout string of a 3-D-expert model with ``names`` as its ``target_parameters``."""
    parts = []
    for n in names:
        layer, param = parse_target_parameter(n)
        parts.append(f"{'*' if layer is None else layer}.{param}")
    return NATIVE + ":" + ";".join(sorted(set(parts)))


def is_native(layout: str) -> bool:
    return layout.split(":", 1)[0] == NATIVE


def _layers(layout: str, moe_layers: int) -> dict[str, int]:
    """MoE layers adapted per expert parameter (every layer where a name has no index)."""
    named: dict[str, set[str]] = {}
    for part in filter(None, layout.split(":", 1)[1].split(";")):
        layer, param = part.split(".", 1)
        named.setdefault(param, set()).add(layer)
    return {p: moe_layers if "*" in ls else len(ls) for p, ls in named.items()}


def expert_parameter_shapes(arch: Arch, layout: str) -> list[tuple[int, int, int]]:
    """(d_in, d_out, adapted layers) of each named 3-D expert parameter; one adapter pair a
    layer spans all E experts (``ParamWrapper``)."""
    moe = arch.moe
    if moe is None or not is_native(layout):
        return []
    h, f = arch.hidden, moe.expert_ffn_hidden_size
    dims = {"gate_up_proj": (h, 2 * f), "down_proj": (f, h)}
    return [(*dims[p], n) for p, n in _layers(layout, arch.moe_layers).items()]


def expert_parameter_adapters(arch: Arch, rank: int, layout: str, moe_layers: int) -> tuple[int, int]:
    """(parameters, tensors) of the expert-parameter adapters on ``moe_layers`` of the model's
    MoE layers: the named layers' share (a pipeline stage is taken to hold its even share)."""
    moe = arch.moe
    shapes = expert_parameter_shapes(arch, layout)
    if moe is None or not shapes or arch.moe_layers == 0:
        return 0, 0
    params = sum(moe.experts * rank * (i + o) * n for i, o, n in shapes)
    tensors = sum(2 * n for _, _, n in shapes)
    if moe_layers == arch.moe_layers:
        return params, tensors
    share = moe_layers / arch.moe_layers
    return round(params * share), round(tensors * share)


def layer_error(arch: Arch, names: tuple[str, ...]) -> str | None:
    """Why a name's layer index is out of the model (None: every index is in range)."""
    for n in names:
        layer, _ = parse_target_parameter(n)
        if layer is not None and layer >= arch.layers:
            return f"{n!r}: layer {layer}, the model has {arch.layers} layers (0 to {arch.layers - 1})"
    return None


def merged_weight_backward(s: Scenario, arch: Arch, sp: StageParams, layout: str) -> float:
    """Bytes on one GPU during an adapted layer's backward beyond the adapters: the gradient of
    the merged 3-D weight, one MoE layer's largest named parameter (``layout``: the scenario's,
    :func:`native_layout`).

    PEFT 0.17 ``ParamWrapper.forward`` runs the base module inside ``_activate_lora``, which
    registers ``_LoraParameterProxy(delta_weight)`` as a parametrization: the expert weight
    becomes ``W + delta_weight`` (``get_delta_weight``: ``einsum("o r e, e r i -> e i o")``, a
    whole (E, d_in, d_out) tensor in the weight's dtype). Autograd then needs the gradient of
    that whole tensor to reach ``lora_A``/``lora_B``: one (E, d_in, d_out) gradient, and under
    transformers 4.55's per-expert loop (``workload.expert_kernel`` ``hf_eager_loop``) one more,
    the zero-filled whole-tensor gradient each expert's ``IndexBackward0`` adds into it
    (core/memory/expert_loop.py). The larger named parameter (``gate_up_proj``: 2f of a gated
    expert's 3f columns) sets the peak. Unsloth's own expert targets build no merged weight
    (core/memory/unsloth_experts.py)."""
    if from_release(s):
        return 0.0
    if arch.moe is None or not is_native(layout) or not sp.moe_layers or not s.workload.is_adapter:
        return 0.0
    named = _layers(layout, arch.moe_layers)
    if not named:
        return 0.0
    prec = s.precision
    dtype = prec.param_dtype or prec.weights
    if DTYPES[dtype].quantized:  # a quantised base is dequantised before its matmul
        dtype = prec.activations
    layer = sp.experts / sp.moe_layers * nbytes(dtype)  # one MoE layer's local experts
    gated = arch.spec.mlp == "gated"
    share = (2.0 / 3.0 if gated else 0.5) if "gate_up_proj" in named else (1.0 / 3.0 if gated else 0.5)
    copies = 2.0 if EXPERT_KERNELS[s.workload.expert_kernel].whole_tensor_gradient else 1.0
    return layer * share * copies
