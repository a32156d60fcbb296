"""PEFT ``target_parameters`` names of a MoE's 3-D expert parameters
(``workload.lora_target_parameters``; core/memory/lora_expert_params.py prices them).

PEFT 0.17 added ``LoraConfig(target_parameters=[...])`` for ``nn.Parameter`` weights that are no
``nn.Linear`` (huggingface/peft ``src/peft/tuners/lora/config.py``; ``ParamWrapper`` in
``tuners/lora/layer.py``). A name matches a parameter whose full name equals it or ends with
``"." + name`` (PEFT ``tuners_utils.py`` suffix matching), so ``"7.mlp.experts.gate_up_proj"``
names layer 7 only and ``"mlp.experts.gate_up_proj"`` every layer. The OpenAI cookbook
"Fine-tuning with gpt-oss and Hugging Face Transformers" names ``"7.mlp.experts.gate_up_proj"``,
``"7.mlp.experts.down_proj"``, ``"15..."``, ``"23..."``; Llama 4's experts sit under
``feed_forward.experts``. A wrapper's module name between the layer and ``mlp`` is accepted:
axolotl's gpt-oss LoRA example (ba3dba3e4) names ``"22._checkpoint_wrapped_module.mlp.experts.
gate_up_proj"``, the name under torch's activation-checkpoint wrapper.
"""

from __future__ import annotations

import re

# gate_up_proj: (E, h, 2f) in gpt-oss and Llama 4; down_proj: (E, f, h)
EXPERT_PARAMETERS = ("gate_up_proj", "down_proj")
_NAME = re.compile(
    r"(?:(?:model\.)?(?:language_model\.)?(?:model\.)?layers\.)?(?:(\d{1,4})\.)?"
    r"(?:_(?:checkpoint|fsdp)_wrapped_module\.)*(?:(?:mlp|feed_forward)\.)?(?:experts\.)?"
    r"(gate_up_proj|down_proj)",
    re.ASCII,
)


def parse_target_parameter(name: str) -> tuple[int | None, str]:
    """(layer index or None for every layer, parameter) of one PEFT ``target_parameters`` name;
    ValueError naming the accepted spellings."""
    m = _NAME.fullmatch(name.strip())
    if m is None:
        raise ValueError(
            f"unknown expert parameter {name[:40]!r}; write PEFT's target_parameters name: "
            "'mlp.experts.gate_up_proj' (every layer), '7.mlp.experts.down_proj' (layer 7)"
        )
    return (None if m[1] is None else int(m[1])), m[2]


def check_target_parameters(names: tuple[str, ...]) -> tuple[str, ...]:
    """Validation: every entry parses (:func:`parse_target_parameter`); duplicates dropped."""
    for n in names:
        parse_target_parameter(n)
    return tuple(dict.fromkeys(n.strip() for n in names))
