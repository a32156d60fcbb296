"""Per-module precision: which tensors a quantisation format compresses, as one registry.

A quantised checkpoint is not "every parameter at b bits": each format leaves some tensors
alone. A :class:`QuantRule` says, per tensor group (:data:`GROUPS`), which dtype the group is
stored in: ``"weights"`` (the scenario's ``precision.weights``), ``"unquantised"`` (the 16-bit
activation dtype) or a dtype id of core/registry/dtypes.py. The scenario picks a rule
(``precision.quantization_rule``, null = the format's default, :data:`FORMAT_DEFAULTS`) and may
override groups (``precision.modules: {group: dtype}``). Sources per entry below:

- llm-compressor 0.14.0.1 ``modifiers/quantization/quantization/mixin.py``: ``targets`` default
  ``["Linear"]``, ``ignore`` default ``[]``; every published recipe passes
  ``ignore=["lm_head"]`` (plus ``re:.*mlp.gate$`` routers for MoE). The embedding is not a
  ``Linear``: it stays 16-bit. (docs/evidence/serving.md §5)
- NVIDIA ModelOpt 0.47.0 ``modelopt_recipes/configs/ptq/units/default_disabled_quantizers.yaml``:
  ``*lm_head*``, ``*router*``, ``*mlp.gate.*`` and every ``nn.Embedding`` stay unquantised.
- Meta Llama-3.1-405B-Instruct-FP8 (``fbgemm_fp8``): Llama 3 paper §6.2 "skip the attention
  layers ... skip the first and last Transformer block": only the middle layers' MLPs are FP8.
- bitsandbytes (transformers 5.24.0 ``quantizers/base.py`` ``get_keys_to_not_convert``): every
  ``nn.Linear`` (routers included) but the output embedding (LM head).
- bitsandbytes through Lightning (``bitsandbytes-all-linear``; lightning 2.4
  ``fabric/plugins/precision/bitsandbytes.py``): ``BitsandbytesPrecision`` replaces every
  ``torch.nn.Linear`` not under ``ignore_modules``, which LitGPT leaves empty, so its LM head is
  4-bit as well; the embedding stays 16-bit.
- GPTQ / AutoAWQ: the decoder blocks' linear layers; embedding, LM head, norms and MoE routers
  (not in AutoGPTQ's ``inside_layer_modules``) stay 16-bit.
- gpt-oss (``quantization_config.modules_to_not_convert``): MXFP4 routed experts only.
- GGUF (llama.cpp ``src/llama-quant.cpp`` ``llama_tensor_get_type_impl``): the token embedding
  is quantised to the file type, the output (and a tied embedding) is Q6_K (Q8_0 when a row is
  not a multiple of 256 values or the type is Q8_0), ``attn_v`` and ``ffn_down`` of Q4_K_M /
  Q5_K_M use Q6_K on the layers where ``use_more_bits(i, n)`` holds, 1-D tensors stay F32 and
  the router (``ffn_gate_inp``) unquantised.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import check_id
from .dtypes import DTYPES, nbytes
from .table import add

# Tensor groups (per GPU, see core/model/sharding.py StageParams): the input embedding (with learned
# positions), the LM head, attention projections (and hybrid models' recurrent mixers), dense
# MLPs, shared experts, routed experts, MoE routers, norms (and the final norm), a vision tower.
GROUPS = (
    "embedding",
    "lm_head",
    "attention",
    "mlp",
    "shared_experts",
    "experts",
    "router",
    "norms",
    "vision",
)
# Groups a rule leaves alone unless it names them: every quantiser above targets the language
# model's layers; a vision tower stays in the 16-bit activation dtype (llm-compressor and
# ModelOpt recipes ignore ``re:vision_tower.*``; GGUF keeps it in a separate mmproj file).
_UNNAMED = {"vision": "unquantised"}
MATRIX_GROUPS = ("attention", "mlp", "shared_experts", "experts", "router")


@dataclass(frozen=True)
class QuantRule:
    """Which dtype each tensor group is stored in (``groups``; a group not named is stored as
    ``"weights"``). ``boundary``: the dtype of every matrix of the first and last decoder
    blocks (Meta's FP8 recipe). ``more_bits``: GGUF's dtype for ``attn_v`` / ``ffn_down`` on
    the layers where ``use_more_bits`` holds. ``tied_as_head``: a tied embedding is stored as
    the LM head (GGUF). ``row_fallback``: dtype used instead of a k-quant for tensors whose rows
    are not a multiple of 256 values (GGUF)."""

    id: str
    label: str
    groups: dict[str, str] = field(default_factory=dict)
    boundary: str | None = None
    more_bits: str | None = None
    tied_as_head: bool = False
    row_fallback: dict[str, str] = field(default_factory=dict)
    source: str = ""
    # (block_n, block_k): each quantised matrix is scaled per block of n output x k input
    # values, so an engine's TP partition of it must hold whole blocks (core/pipeline/
    # validate_block_quant.py); None: per-tensor, per-channel or per-group scales
    weight_block: tuple[int, int] | None = None

    def spec(self, group: str) -> str:
        return self.groups.get(group, _UNNAMED.get(group, "weights"))


QUANT_RULES: dict[str, QuantRule] = {}


def register(rule: QuantRule) -> QuantRule:
    """Add a rule (a DuplicateId if its id is taken); the registry's order is the order users see."""
    return add(QUANT_RULES, rule.id, rule, "quantisation rule")


def quant_rule(rule_id: str) -> QuantRule:
    """The rule with this id; KeyError naming the allowed ids."""
    try:
        return QUANT_RULES[rule_id]
    except KeyError:
        raise KeyError(f"unknown quantisation rule {rule_id!r}; allowed: {', '.join(QUANT_RULES)}") from None


_U = "unquantised"
_LINEAR_ONLY = {"embedding": _U, "lm_head": _U, "norms": _U, "router": _U}
_K_FALLBACK = {"gguf_q4_k": "gguf_q5_0", "gguf_q5_k": "gguf_q5_1", "gguf_q6_k": "gguf_q8_0"}


def _gguf(
    ftype: str, base: str, more: str | None = None, head: str = "gguf_q6_k", experts: str | None = None
) -> QuantRule:
    """A GGUF file type: every 2-D tensor in ``base`` (embedding included), the output in
    ``head``, norms F32, the router unquantised (F16 as converted)."""
    return QuantRule(
        f"gguf-{ftype}",
        f"GGUF {ftype.upper()} (llama.cpp per-tensor types)",
        {
            "attention": base,
            "mlp": base,
            "shared_experts": base,
            "experts": experts or base,
            "embedding": base,
            "lm_head": head,
            "norms": "fp32",
            "router": "fp16",
        },
        more_bits=more,
        tied_as_head=True,
        row_fallback=_K_FALLBACK,
        source="llama.cpp src/llama-quant.cpp llama_tensor_get_type_impl (2026 tree)",
    )


for _r in (
    QuantRule(
        "uniform",
        "Every tensor in the chosen dtype",
        source="the checkpoint arithmetic N x bytes (16-bit checkpoints; plain int4 is "
        "exactly 4 bits per weight by the scenario contract)",
    ),
    QuantRule(
        "llm-compressor",
        "llm-compressor: Linear layers; embedding, LM head, norms, routers 16-bit",
        dict(_LINEAR_ONLY),
        source="llmcompressor 0.14.0.1 quantization/mixin.py (targets ['Linear']); "
        "recipes ignore lm_head and MoE gates",
    ),
    QuantRule(
        "modelopt",
        "NVIDIA ModelOpt: LM head, routers, embeddings unquantised",
        dict(_LINEAR_ONLY),
        source="nvidia-modelopt 0.47.0 ptq/units/default_disabled_quantizers.yaml",
    ),
    QuantRule(
        "fp8-block",
        "FP8 128x128 blocks: Linear layers; embedding, LM head, norms, routers 16-bit",
        dict(_LINEAR_ONLY),
        source="DeepSeek-V3 config.json quantization_config (quant_method fp8, "
        "weight_block_size [128, 128]) and inference/model.py (head, gate and "
        "embedding in the default dtype); transformers FineGrainedFP8Config",
        weight_block=(128, 128),
    ),
    QuantRule(
        "meta-fp8",
        "Meta FP8 (405B): middle layers' MLPs only",
        {**_LINEAR_ONLY, "attention": _U},
        boundary=_U,
        source="Llama 3 paper §6.2 (arXiv 2407.21783); vLLM issue #6746 (57.75 GiB per rank at TP 8)",
    ),
    QuantRule(
        "bitsandbytes",
        "bitsandbytes: every Linear but the LM head",
        {"embedding": _U, "lm_head": _U, "norms": _U},
        source="transformers 5.24.0 quantizers/base.py get_keys_to_not_convert",
    ),
    QuantRule(
        "bitsandbytes-all-linear",
        "bitsandbytes through Lightning: every Linear, the LM head too",
        {"embedding": _U, "norms": _U},
        source="lightning 2.4 fabric/plugins/precision/bitsandbytes.py BitsandbytesPrecision "
        "(ignore_modules empty: every torch.nn.Linear replaced; LitGPT's LM head is one)",
    ),
    QuantRule(
        "gptq-awq",
        "GPTQ/AWQ: decoder-block linears",
        dict(_LINEAR_ONLY),
        source="AutoGPTQ inside_layer_modules / AutoAWQ: embedding, LM head, norms and routers unquantised",
    ),
    QuantRule(
        "mxfp4-experts",
        "MXFP4 routed experts only, the rest 16-bit (gpt-oss)",
        {**_LINEAR_ONLY, "attention": _U, "mlp": _U, "shared_experts": _U},
        source="gpt-oss config.json quantization_config.modules_to_not_convert",
    ),
    QuantRule(
        "mlx",
        "MLX: every Linear and the embedding (the LM head too), norms 16-bit",
        {"norms": _U},
        source="ml-explore/mlx-lm mlx_lm/utils.py quantize_model: nn.quantize with the default "
        "class_predicate (a module with to_quantized, i.e. Linear and Embedding, whose input "
        "dimension is a multiple of group_size); a tied head reads the quantised embedding",
    ),
    _gguf("q4_k_m", "gguf_q4_k", "gguf_q6_k"),
    _gguf("q5_k_m", "gguf_q5_k", "gguf_q6_k"),
    _gguf("q4_0", "gguf_q4_0"),
    _gguf("q4_1", "gguf_q4_1"),
    _gguf("q8_0", "gguf_q8_0", head="gguf_q8_0"),
    _gguf("f16", "fp16", head="fp16"),
    # MXFP4_MOE: 3-D expert tensors MXFP4, everything else Q8_0 (llama-quant.cpp).
    _gguf("mxfp4_moe", "gguf_q8_0", head="gguf_q8_0", experts="mxfp4"),
):
    register(_r)

# The default rule of each weight format: (dense model, MoE model). A format not listed is
# stored uniformly.
FORMAT_DEFAULTS: dict[str, tuple[str, str]] = {
    "fp8": ("llm-compressor", "llm-compressor"),
    "int8": ("llm-compressor", "llm-compressor"),
    "nf4": ("bitsandbytes", "bitsandbytes"),
    "nf4_single": ("bitsandbytes", "bitsandbytes"),
    "fp4": ("bitsandbytes", "bitsandbytes"),
    "gptq_int4": ("gptq-awq", "gptq-awq"),
    "awq_int4": ("gptq-awq", "gptq-awq"),
    "gptq_int8": ("gptq-awq", "gptq-awq"),
    "nvfp4": ("modelopt", "modelopt"),
    "mxfp4": ("llm-compressor", "mxfp4-experts"),
    "gguf_q4_k_m": ("gguf-q4_k_m", "gguf-q4_k_m"),
    "gguf_q5_k_m": ("gguf-q5_k_m", "gguf-q5_k_m"),
    "gguf_q4_0": ("gguf-q4_0", "gguf-q4_0"),
    "gguf_q4_1": ("gguf-q4_1", "gguf-q4_1"),
    "gguf_q8_0": ("gguf-q8_0", "gguf-q8_0"),
    "mlx_int4": ("mlx", "mlx"),
    "mlx_int6": ("mlx", "mlx"),
    "mlx_int8": ("mlx", "mlx"),
}


def default_rule(weights: str, moe: bool) -> str:
    """The rule id a format uses when the scenario names none."""
    pair = FORMAT_DEFAULTS.get(weights)
    return pair[1 if moe else 0] if pair else "uniform"


def unquantised_dtype(activations: str) -> str:
    """What "left alone" means: the 16-bit activation dtype (bf16 under FP8 activations)."""
    return activations if nbytes(activations) >= 2 else "bf16"


def use_more_bits(i: int, n: int) -> bool:
    """llama.cpp's ``use_more_bits(i_layer, n_layers)`` (llama-quant.cpp):
    ``i < n/8 || i >= 7n/8 || (i - n/8) % 3 == 2`` in C's integer arithmetic."""
    n8 = n // 8
    return i < n8 or i >= 7 * n // 8 or (i - n8) % 3 == 2


def use_more_bits_share(layers: int) -> float:
    """Share of layers where :func:`use_more_bits` holds."""
    if layers <= 0:
        return 0.0
    return sum(1 for i in range(layers) if use_more_bits(i, layers)) / layers


def resolve_dtype(spec: str, weights: str, activations: str) -> str:
    """A group's dtype spec ("weights", "unquantised" or a dtype id) as a dtype id."""
    if spec == "weights":
        return weights
    if spec == "unquantised":
        return unquantised_dtype(activations)
    return spec


def check_modules(modules: dict[str, str]) -> None:
    """ValueError naming the bad group or dtype of a ``precision.modules`` block."""
    for group, dtype in modules.items():
        if group not in GROUPS:
            raise ValueError(f"unknown tensor group {group!r}; allowed: {', '.join(GROUPS)}")
        if dtype not in DTYPES and dtype not in ("weights", "unquantised"):
            raise ValueError(
                f"unknown dtype {dtype!r} for {group}; allowed: weights, unquantised, {', '.join(DTYPES)}"
            )


def check_rule(value: str | None) -> str | None:
    """A ``quantization_rule`` field (``precision`` and a model's ``checkpoint_precision``): None
    (the format's default) or a registered rule id, else the ValueError naming the rules."""
    return value if value is None else check_id(value, QUANT_RULES, "quantisation rule")


def check_modules_field(value: dict[str, str] | None) -> dict[str, str] | None:
    """A ``modules`` field (``precision`` and a model's ``checkpoint_precision``): None or a
    block :func:`check_modules` accepts, returned as given."""
    if value is not None:
        check_modules(value)
    return value
