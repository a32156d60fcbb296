"""Qwen 1's DeepSpeed Q-LoRA and full-parameter rows, term by term (docs/evidence/training.md,
the section on these rows after the twelfth blind round).

The rows are tests/core/data/training-peaks-blind12.json (QwenLM/Qwen@2df8e8ac README.md,
"Profiling of Memory and Speed"; the scripts of e8e1596; transformers 4.32.0). Each term that
the run's stack keeps on the GPU was read at its release and is bounded here against the
rows. No term is modelled: together they win one Q-LoRA row and lose one other DeepSpeed row
of the round, and the rows' growth with the input has no single law (the asserts below). Byte counts are exact
arithmetic on the sourced shapes and configs; ratios are estimate / published (bytes / bytes).
"""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.model.specs import Scenario
from gpusizer.core.pipeline.estimate import model_of
from gpusizer.core.pipeline.work_base import training_peak
from tests.core.blind_replay import by_id, load
from tests.core.blind_replay import peak_ratio as _ratio

RECORDS: list[dict[str, Any]] = load("training-peaks-blind12.json")["records"]
PREFIX = "qwen-readme-profile|"
GIB = 2**30
VOCAB = 151_936  # Qwen 1's vocab_size (hub config.json)
# hidden_size, num_hidden_layers, one of w1 / w2 (intermediate_size / 2): the hub configs
SHAPES = {
    "1.8b": (2048, 24, 5504),
    "7b": (4096, 32, 11008),
    "14b": (5120, 40, 13696),
    "72b": (8192, 80, 24576),
}
# finetune/ds_config_zero2.json at e8e1596: reduce_bucket_size 2e8, overlap_comm and
# contiguous_gradients true; DeepSpeed stage_1_and_2.py backward() allocates ipg_buffer as
# one (two with overlap_comm) torch.empty(reduce_bucket_size) in the engine's 16-bit dtype
IPG_BYTES = 2 * 2e8 * 2
GPTQ_DEQUANT_PEAK_B = 5  # auto-gptq v0.4.2 qlinear_cuda_old: int32 shift output + its int8 cast
TOLERANCE = 0.15


def _rec(model: str, method: str, tokens: int) -> dict[str, Any]:
    gpus = "2xa100" if method == "full" and model == "7b" else "1xa100"
    return by_id(RECORDS, f"{PREFIX}qwen-{model}|{method}|{gpus}|1x{tokens}")


def _residual_gib(rec: dict[str, Any]) -> float:
    """Published minus estimated bytes per GPU, GiB."""
    return (1 - _ratio(rec)) * rec["figure_bytes"] / GIB


@pytest.mark.parametrize("model", SHAPES)
def test_zero2_gradient_buckets_are_below_each_short_input_gap(model: str) -> None:
    # 0.745 GiB a backward, the same for every model: the gap at 256 tokens is 1.7-6.5 GiB and
    # grows with the model, so the buckets are at most part of it (and lift the 8,192 rows)
    buckets_gib = IPG_BYTES / GIB
    assert buckets_gib == pytest.approx(0.745, abs=0.001)
    assert _residual_gib(_rec(model, "qlora", 256)) > buckets_gib


def test_the_gap_grows_with_the_model_not_as_one_constant() -> None:
    # GiB above the estimate at 256 tokens: 1.74, 2.07, 4.07, 6.49 (tolerance 0.05 GiB)
    gaps = [_residual_gib(_rec(m, "qlora", 256)) for m in SHAPES]
    assert gaps == pytest.approx([1.74, 2.07, 4.07, 6.49], abs=0.05)


def test_peft_fp32_cast_would_overshoot_the_7b_gap() -> None:
    # transformers 4.32.0 sets model.quantization_method = GPTQ (modeling_utils.py 2948-2951)
    # and peft >= 0.5.0 skips "cast all non INT8 parameters to fp32" for it (other.py 92-98).
    # Were the cast made and undone by DeepSpeed's module.half(), the freed fp32 embedding and
    # head (4 B a parameter) would stay reserved: 4.64 GiB on the 7B, over its 2.07 GiB gap
    hidden = SHAPES["7b"][0]
    fp32_copies = 4 * 2 * VOCAB * hidden / GIB
    assert fp32_copies == pytest.approx(4.64, abs=0.01)
    assert fp32_copies > _residual_gib(_rec("7b", "qlora", 256)) + 2


# README.md "Inference Performance" at e8e1596: "GPU memory usage of generating 2048 [tokens]"
# with the Int4 (GPTQ) chat models on one A100-SXM4-80G, PyTorch 2.0.1, CUDA 11.8 (decimal GB)
INT4_GENERATION_GB = {"1.8b": 2.91, "7b": 8.21, "14b": 13.01, "72b": 48.86}


@pytest.mark.parametrize("model", SHAPES)
def test_the_int4_weights_are_not_where_the_gap_is(model: str) -> None:
    # the estimate's Int4 weights (adapters included) plus a 2,048-token fp16 KV cache (Qwen 1
    # has no GQA: layers x 2 x hidden x 2 B a token) leave 0.52-1.22 GB of the published
    # generation memory for the context and the decode's buffers: the Int4 checkpoint is
    # priced to within that, while the Q-LoRA gap at 256 tokens is 1.9-7.0 GB
    hidden, layers, _ = SHAPES[model]
    rec = _rec(model, "qlora", 256)
    weights = estimate_report(rec["recipe_scenario"])["per_gpu"]["weights"]
    rest = INT4_GENERATION_GB[model] * 1e9 - weights - layers * 2 * hidden * 2 * 2048
    assert 0.4e9 < rest < 1.3e9
    assert _residual_gib(rec) * GIB > rest


def _bytes_per_logit(model: str) -> float:
    """Published growth per token from 2,048 to 8,192 tokens beyond the layers' checkpoints
    (Qwen's reentrant checkpoint keeps each block's 16-bit input), per logit of the row."""
    hidden, layers, _ = SHAPES[model]
    grow = (_rec(model, "qlora", 8192)["figure_bytes"] - _rec(model, "qlora", 2048)["figure_bytes"]) / 6144
    return (grow - 2 * layers * hidden) / VOCAB


def test_the_long_input_growth_has_no_single_per_logit_law() -> None:
    # 7.9, 8.6, 5.9, 3.7 B a logit (tolerance 0.1): a 2.3x spread; fp32 logits with an fp32
    # log-softmax (the estimate's 12 B) is above all four, Qwen's 16-bit loss (6 B) between them
    per_logit = [_bytes_per_logit(m) for m in SHAPES]
    assert per_logit == pytest.approx([7.92, 8.56, 5.87, 3.69], abs=0.1)
    assert max(per_logit) / min(per_logit) > 2.0


def _what_if(rec: dict[str, Any]) -> float:
    """The row's ratio with every sourced term its stack has, at once: Qwen's loss on 16-bit
    logits under DeepSpeed (saved log-softmax, logits and shifted copy: 6 B a logit where
    ``full`` holds 12 in backward and 10 in forward), ZeRO-2's buckets, and on a GPTQ base the
    recompute's saved 16-bit weights of one layer plus the dequant peak of its largest matrix."""
    s = Scenario.model_validate(rec["recipe_scenario"])
    arch, counts = model_of(s.model)
    t = training_peak(s, arch, counts)
    hidden, _, ffn = SHAPES[rec["id"].split("|")[1].removeprefix("qwen-")]
    tv = s.workload.sequence_length * VOCAB
    gptq = s.precision.weights == "gptq_int4"
    largest = max(3 * hidden * hidden, hidden * ffn) * GPTQ_DEQUANT_PEAK_B if gptq else 0.0
    layer = 2 * (4 * hidden * hidden + 3 * hidden * ffn) if gptq else 0.0
    ipg = IPG_BYTES if s.parallelism.zero_stage == 2 else 0.0
    ph = t.phases.totals
    totals = [
        ph["forward"] - 4 * tv + ipg + largest,
        ph["backward"] - 6 * tv + ipg,
        ph.get("recompute", 0.0) + ipg + layer + largest,
        ph["optimizer_step"],
    ]
    return (max(totals) + t.overhead) / rec["figure_bytes"]


def _within(ratios: list[float]) -> int:
    return sum(abs(v - 1) <= TOLERANCE for v in ratios)


def test_the_sourced_terms_together_win_q_lora_rows_and_lose_others() -> None:
    # Q-LoRA: 7 -> 8 of 12 within 15 % (0.786-0.994, the 1.8B rows all out low: a constant is
    # still missing); every DeepSpeed row of the round: 18 -> 18 of 23, the 7B multinode LoRA
    # at 8,192 0.933 -> 0.761. A term set that wins these rows and loses others is not kept.
    ds = [r for r in RECORDS if r["framework"] == "deepspeed"]
    qlora = [r for r in ds if "|qlora|" in r["id"]]
    assert (len(qlora), len(ds)) == (12, 23)
    assert _within([_ratio(r) for r in qlora]) == 7
    assert _within([_what_if(r) for r in qlora]) == 8
    assert _within([_ratio(r) for r in ds]) == 18
    assert _within([_what_if(r) for r in ds]) == 18
    ratios = {r["id"].removeprefix(PREFIX): _what_if(r) for r in ds}
    # each within 0.02 of the value first computed
    assert ratios["qwen-1.8b|qlora|1xa100|1x8192"] == pytest.approx(0.848, abs=0.02)
    assert ratios["qwen-72b|qlora|1xa100|1x8192"] == pytest.approx(0.994, abs=0.02)
    assert min(ratios[k] for k in ratios if "|qlora|" in k) == pytest.approx(0.786, abs=0.02)
    assert ratios["qwen-7b|lora-multinode|4xa100|1x8192"] == pytest.approx(0.761, abs=0.02)
    assert ratios["qwen-72b|lora-zero3|4xa100|1x8192"] == pytest.approx(0.900, abs=0.02)


def test_the_7b_full_parameter_growth_exceeds_every_activation_and_logit() -> None:
    # 139.2G -> 162.0G over 2 GPUs from 256 to 1,024 tokens: 11.4 GB a GPU; 768 more tokens
    # of checkpoints (32 x 4096 x 2 B) and fp32 logits with their log-softmax and gradient
    # (12 B a logit) are 1.6 GB: the rest is not allocated tensors (an allocator's reserve)
    grow = _rec("7b", "full", 1024)["figure_bytes"] - _rec("7b", "full", 256)["figure_bytes"]
    hidden, layers, _ = SHAPES["7b"]
    bound = 768 * (2 * layers * hidden + 12 * VOCAB)
    assert grow == pytest.approx(11.4e9, rel=1e-9)
    assert bound == pytest.approx(1.60e9, rel=0.01)
    assert grow > 7 * bound
