"""Weight formats that are a mixture of dtypes by tensor group, accepted as
``precision.weights`` under the engine's own name and read as the stated split they stand for:
a base dtype and rule for every matrix, and per-group overrides (``precision.modules``,
core/registry/quant_rules.py). Registered once here; core/model/precision_spec.py expands the
name before the fields are checked, core/pipeline/quant_capability.py refuses it on the
engines and GPUs that do not load it.

``w4afp8`` (SGLang ``--quantization w4afp8``; checkpoints novita/Deepseek-R1-W4AFP8,
novita/Deepseek-R1-0528-W4AFP8, Barrrrry/DeepSeek-R1-W4AFP8). Sources:

- sgl-project/sglang python/sglang/srt/layers/quantization/w4afp8.py (read at
  007baab6e1d2f1580804785517bf0d0797f2c171): ``W4AFp8Config.get_quant_method`` gives every
  ``LinearBase`` (attention and MLA projections, dense MLPs, shared experts) to
  ``Fp8LinearMethod`` with ``weight_block_size = [128, 128]`` (block FP8, 1 byte a weight) and
  every ``FusedMoE`` (the routed experts) to ``W4AFp8MoEMethod``; embeddings, the LM head, norms
  and the router are neither and stay 16-bit (the fp8-block rule's groups).
  ``W4AFp8MoEMethod.create_weights``: ``w13_weight`` / ``w2_weight`` int8 of ``hidden // 2``
  (two int4 a byte) and one fp32 scale per ``group_size`` 128 input values, which
  ``process_weights_after_loading`` casts to bf16: 4 + 16/128 bits a weight in GPU memory
  (the dtype ``w4a8``, core/registry/dtypes.py). ``apply`` runs ``cutlass_w4a8_moe``
  with FP8 activations (static per-expert input scales): the GEMMs read INT4 bytes and
  compute in FP8. ``get_min_capability`` 90, and sgl-kernel's ``cutlass_w4a8_moe_mm``
  (csrc/moe/cutlass_moe/w4a8 entry) calls ``cutlass_w4a8_moe_mm_sm90`` only: an SM90 CUTLASS
  kernel, so Hopper only (compute capability 9.x; no path on Blackwell, AMD or Apple GPUs).
- novita/Deepseek-R1-W4AFP8 model card (huggingface.co): "Dense Weight quantization: FP8, MOE
  Weight quantization: INT4, Activation quantization: FP8", served "with only H200x4"
  (``--tp-size 4``); its hf_quant_config.json states ``quant_algo`` ``MIXED_PRECISION``.
- NVIDIA/TensorRT-LLM: DeepSeek-V3's ``Deepseekv3MoE._get_experts_quant_config`` resolves the
  experts of such a ``MIXED_PRECISION`` checkpoint to ``W4A8_AWQ`` (group 128), loaded as
  ``MoEWeightLoadingMode.W4A8_CUSTOM`` (its unit test of the per-module resolution names
  "DeepSeek-R1-W4AFP8"). The same mixture, so TensorRT-LLM runs it too.
- vLLM: no ``w4afp8`` in its ``--quantization`` names in the releases the catalog knows;
  not accepted there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class WeightMixture:
    """A named mixture: ``weights`` and ``rule`` for every matrix, ``modules`` per group;
    ``engines``: framework id -> the engine's own name for it; ``min_capability`` and
    ``below_capability``: the CUDA compute capabilities its kernels run at (from, below)."""

    id: str
    weights: str
    rule: str
    modules: dict[str, str] = field(default_factory=dict)
    engines: dict[str, str] = field(default_factory=dict)
    min_capability: str = "0.0"
    below_capability: str = "99.0"
    source: str = ""


# The dtype that marks a stated mixture's routed experts (core/registry/dtypes.py).
W4A8_EXPERTS = "w4a8"

MIXTURES: dict[str, WeightMixture] = {
    m.id: m
    for m in (
        WeightMixture(
            "w4afp8",
            weights="fp8",
            rule="fp8-block",
            modules={"experts": W4A8_EXPERTS},
            engines={
                "sglang": "--quantization w4afp8",
                "tensorrt-llm": "MIXED_PRECISION with W4A8_AWQ experts",
            },
            min_capability="9.0",
            below_capability="10.0",
            source="sglang python/sglang/srt/layers/quantization/w4afp8.py W4AFp8Config",
        ),
    )
}

# The expert dtype each mixture marks -> the mixture, for the checks after parsing.
BY_EXPERTS: dict[str, WeightMixture] = {m.modules["experts"]: m for m in MIXTURES.values()}


def expand_mixture(data: Any) -> Any:
    """The ``precision`` block with a mixture's name in ``weights`` replaced by the split it
    stands for; groups the scenario states in ``modules``, and a stated ``quantization_rule``,
    win. Anything else is returned as given (the field validators judge it)."""
    if not isinstance(data, dict):
        return data
    mix = MIXTURES.get(str(data.get("weights")))
    if mix is None:
        return data
    stated = data.get("modules")
    modules = {**mix.modules, **stated} if isinstance(stated, dict) else dict(mix.modules)
    out = {**data, "weights": mix.weights, "modules": modules}
    if out.get("quantization_rule") is None:
        out["quantization_rule"] = mix.rule
    return out


def check_whole_model(value: str) -> str:
    """``value`` for a whole-model field (``precision.weights`` / ``kv_cache``); a mixture's
    part-only dtype (the W4A8 experts') is refused naming the mixture that stores it."""
    mix = BY_EXPERTS.get(value)
    if mix is not None:
        raise ValueError(
            f"{value} is the routed experts' dtype of {mix.id}: state precision.weights "
            f'"{mix.id}" (or a base dtype with precision.modules {{"experts": "{value}"}})'
        )
    return value


def stated_mixture(modules: dict[str, str] | None) -> WeightMixture | None:
    """The mixture whose expert dtype ``modules`` stores (None: none)."""
    return BY_EXPERTS.get((modules or {}).get("experts", ""))


def engines_line(mix: WeightMixture) -> str:
    """ "SGLang (--quantization w4afp8), ..." for a refusal."""
    return ", ".join(f"{fw} ({name})" for fw, name in mix.engines.items())
