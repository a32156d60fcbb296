"""Real configurations of 2025-26, round 6 (vLLM recipes on MI300X / MI355X / B200 / DGX Spark,
SGLang's Llama 4 EAGLE3 and multi-LoRA docs, the vLLM production stack's LMCache offload, verl's
Megatron LoRA GRPO with context parallelism and its PPO with a critic and a reward model,
OpenRLHF's PPO, Unsloth's QLoRA GRPO, Unsloth's low-bit DeepSeek-R1 GGUF files, llama.cpp and
Ollama on an RTX 4090, MLX on Macs), each replayed through the estimate as its source states it
(tests/core/data/real-configs-round6.json; docs/evidence/training.md, "Real runs the estimate
refused, round 6"). Each runs without refusal, or is answered as not starting where the engine's
own start check refuses it too, or is refused in one line naming the field where the rule is the
estimate's own (``ours``) and the variant the line asks for is in the file as accepted
(tests/core/test_real_configs.py checks each).

Two readings are new: ``rl.policy.kind: "qlora"`` is a LoRA policy on a bitsandbytes 4-bit base
(core/pipeline/rl_qlora_kind.py), and the ggml i-quants below 4 bits (``gguf_iq1_s`` ...
``gguf_iq3_s``) are weight formats of their block sizes (core/registry/dtypes.py). AMD's MXFP4
training recipe is named, not modelled (core/registry/training_formats.py)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.registry.dtypes import DTYPES

DATA = Path(__file__).parent / "data" / "real-configs-round6.json"
CONFIGS: dict[str, dict[str, Any]] = {c["name"]: c for c in json.loads(DATA.read_text())["configs"]}
GIB = 2**30


def _report(name: str) -> dict[str, Any]:
    return estimate_report(copy.deepcopy(CONFIGS[name]["scenario"]))


def test_a_qlora_policy_answers_as_lora_on_its_4bit_base() -> None:
    """Unsloth's GRPO notebook (load_in_4bit, LoRA r 32): ``"qlora"`` beside ``nf4`` weights is
    the ``"lora"`` policy's report, the echo states ``"lora"`` and loads back the same."""
    stated = CONFIGS["unsloth-llama31-8b-grpo-qlora-fast-inference"]["scenario"]
    lora = copy.deepcopy(stated)
    lora["rl"]["policy"]["kind"] = "lora"
    spelled = estimate_report(copy.deepcopy(stated))
    assert spelled == estimate_report(lora)
    assert spelled["scenario"]["rl"]["policy"]["kind"] == "lora"
    assert estimate_report(copy.deepcopy(spelled["scenario"])) == spelled
    # Llama 3.1 8B's 4-bit base, its adapter and vLLM's pool inside a T4's 15 GiB
    assert spelled["fits"] and spelled["per_gpu"]["total"] < 15 * GIB
    assert stated["rl"]["policy"]["kind"] == "qlora"  # the caller's dict is not changed


@pytest.mark.parametrize("weights", ["bf16", "gguf_q4_k", "gptq_int4", "mxfp4"])
def test_qlora_without_a_bitsandbytes_base_names_the_weights(weights: str) -> None:
    s = copy.deepcopy(CONFIGS["unsloth-llama31-8b-grpo-qlora-fast-inference"]["scenario"])
    s["precision"]["weights"] = weights
    with pytest.raises(ScenarioError, match=r"^rl\.policy\.kind: 'qlora' is a LoRA policy") as err:
        estimate_report(s)
    assert f"got precision.weights '{weights}'" in str(err.value)


@pytest.mark.parametrize("kind", ["QLoRA", "q_lora", "dora"])
def test_other_policy_kinds_keep_the_schema_message(kind: str) -> None:
    s = copy.deepcopy(CONFIGS["unsloth-llama31-8b-grpo-qlora-fast-inference"]["scenario"])
    s["rl"]["policy"]["kind"] = kind
    with pytest.raises(ScenarioError, match=r"^rl\.policy\.kind: Input should be 'full_finetune' or 'lora'"):
        estimate_report(s)


@pytest.mark.parametrize(
    ("dtype", "name"),
    [
        ("gguf_iq1_s", "IQ1_S"),
        ("gguf_iq1_m", "IQ1_M"),
        ("gguf_iq2_xxs", "IQ2_XXS"),
        ("gguf_iq2_xs", "IQ2_XS"),
        ("gguf_iq2_s", "IQ2_S"),
        ("gguf_iq3_xxs", "IQ3_XXS"),
        ("gguf_iq3_s", "IQ3_S"),
    ],
)
def test_iquant_bits_are_ggmls_blocks(dtype: str, name: str) -> None:
    # gguf-py GGML_QUANT_SIZES: (values, bytes) per block, ggml-common.h's block_iq* structs
    from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType

    block, size = GGML_QUANT_SIZES[GGMLQuantizationType[name]]
    assert DTYPES[dtype].bits == pytest.approx(8 * size / block)
    assert DTYPES[dtype].quantized


@pytest.mark.parametrize(
    ("name", "published_gb"),
    [
        ("llamacpp-dsr1-ud-iq1s-2xh100", 131),
        ("llamacpp-dsr1-ud-iq1m-2xh100", 158),
        ("llamacpp-dsr1-ud-iq2xxs-2xh100", 183),
    ],
)
def test_unsloth_dynamic_files_weigh_near_their_published_size(name: str, published_gb: int) -> None:
    """unsloth.ai/blog/deepseekr1-dynamic (2025-01-27): 131, 158 and 183 GB files. Stated as
    experts at the file's MoE type and the rest at Q4_K / Q6_K (the blog's 4/6-bit), the two
    GPUs' weights are first replayed at 1.07, 0.98 and 0.90 of the figure read as GB: within
    15 %. The files keep down_proj at a higher type than the other experts (the blog's
    Down_proj column: 2.06 / 1.56-bit in IQ1_S, 2.06-bit in IQ1_M), which a group's one dtype
    does not state, so the heavier files read under."""
    report = _report(name)
    weights = 2 * report["per_gpu"]["weights"]
    assert weights == pytest.approx(published_gb * 1e9, rel=0.15)


def test_an_iquant_file_type_names_the_nearest_id() -> None:
    """``IQ1_S`` written as a format now reads "state gguf_iq1_s"; Unsloth's mixed ``UD-IQ1_S``
    still asks for the import and names the nearest id."""
    s = copy.deepcopy(CONFIGS["llamacpp-dsr1-ud-iq1s-file-type"]["scenario"])
    s["precision"]["weights"] = "IQ1_S"
    with pytest.raises(ScenarioError, match=r"^precision\.weights: state gguf_iq1_s"):
        estimate_report(s)


def test_an_iquant_run_says_its_speed_reads_high() -> None:
    """A scenario storing any tensor in an i-quant that llama.cpp PR #8215's table did not measure
    says which measured kernel prices it in one assumption line (on NVIDIA; elsewhere that speed
    reads high); the same run at ``gguf_q2_k`` experts adds none, a measured type none on NVIDIA
    (core/speed/ggml_types.py, tests/core/test_gguf_type_speed.py)."""
    name = "llamacpp-dsr1-ud-iq1s-2xh100"
    lines = [a for a in _report(name)["assumptions"] if "ggml i-quants" in a]
    assert len(lines) == 1 and lines[0].startswith("gguf_iq1_s (ggml i-quants)"), lines
    s = copy.deepcopy(CONFIGS[name]["scenario"])
    s["precision"]["weights"] = "gguf_q2_k"
    assert not [a for a in estimate_report(s)["assumptions"] if "i-quants" in a]
    s["precision"]["modules"]["attention"] = "gguf_iq3_xxs"  # measured: priced, no line on an H100
    assert not [a for a in estimate_report(s)["assumptions"] if "i-quants" in a]
    s["precision"]["modules"]["attention"] = "gguf_iq3_s"  # read as IQ3_XXS's kernel
    assert [a for a in estimate_report(s)["assumptions"] if a.startswith("gguf_iq3_s (ggml i-quants)")]


@pytest.mark.parametrize("field", ["matmuls", "activations", "gradients"])
def test_mxfp4_training_is_named_not_modelled(field: str) -> None:
    s = copy.deepcopy(CONFIGS["amd-mlperf6-llama31-8b-fp8-upper-bound-mi355x"]["scenario"])
    s["precision"] = {field: "mxfp4"}
    with pytest.raises(ScenarioError, match=rf"^precision\.{field}: MXFP4 training \(AMD's MI355X recipe"):
        estimate_report(s)
