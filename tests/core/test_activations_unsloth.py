"""Unsloth's kernels (core/activations_unsloth.py): the bytes per token of one Llama 3.1 8B layer
as read from the sources (docs/evidence/training.md section 14), and where the rule applies."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from gpusizer import estimate_report
from gpusizer.core.memory.activations import ActContext
from gpusizer.core.memory.activations_unsloth import applies, unsloth_layer, unsloth_rebuilt
from gpusizer.core.model.architecture import resolve
from gpusizer.core.pipeline.scenario import parse_scenario

ALL = frozenset({"q", "k", "v", "o", "gate", "up", "down"})
T = 4096


def _ctx(**kw: Any) -> ActContext:
    base = ActContext(b=1, s=T, p=2.0, r=2.0, targets=ALL, adapter_bytes=4.0, lora_rank=32)
    return replace(base, **kw)


def _arch(name: str = "llama-3.1-8b") -> Any:
    return resolve(parse_scenario({"model": {"preset": name}}).model)


def test_llama_8b_layer_bytes_per_token() -> None:
    # Per token (bf16): input norm rstd 4, LoRA_QKV input 8,192, xformers q/k/v expanded to 32
    # heads 3 x 8,192, output 8,192, lse 128; post norm residual 8,192 + rstd 4, LoRA_MLP input
    # 8,192, e and g 2 x 28,672; the layer input 8,192. Exact.
    arch = _arch()
    assert unsloth_layer(arch, _ctx()) == T * (8192 + 41_092 + 73_732)
    # Rebuilt in backward: + checkpointer output and dY (16,384) + DW and matmul_lora's LoRA
    # term (57,344), beside the checkpoint: 188,552 B/token. Exact.
    assert unsloth_rebuilt(arch, _ctx()) == T * 188_552
    assert unsloth_layer(arch, _ctx(recompute="full")) == T * 8192


def test_applies_only_where_unsloth_patches() -> None:
    # FastLlamaModel.patch_peft_model: every projection adapted, lora_dropout 0, no biases.
    arch = _arch()
    assert applies(arch, _ctx())
    assert not applies(arch, _ctx(targets=frozenset({"q", "v"})))
    assert not applies(arch, _ctx(dropout_mask=1.0))
    assert not applies(arch, _ctx(targets=None))  # full fine-tuning
    assert not applies(_arch("qwen2.5-7b"), _ctx())  # q/k/v biases
    assert not applies(_arch("qwen3-30b-a3b"), _ctx())  # MoE


def _peak(framework: str, **workload: Any) -> int:
    sc = {
        "model": {"preset": "llama-3.1-8b"},
        "framework": framework,
        "workload": {"kind": "qlora", "lora_rank": 32, "sequence_length": 16384, **workload},
        "parallelism": {"recompute": "full", "activation_offload": "checkpoints"},
    }
    return int(estimate_report(sc)["per_gpu"]["total"])


def test_profile_switches_the_layout() -> None:
    # Same techniques, only the kernels differ: the unsloth profile's rebuilt layer is smaller;
    # with LoRA dropout Unsloth falls back to PEFT's modules (overhead rules are the same).
    hf = _peak("huggingface", loss="fused")
    assert _peak("unsloth") < hf
    assert _peak("unsloth", lora_dropout=0.05) > _peak("unsloth")
