"""``plan`` and ``compare`` offer llama.cpp (and Ollama, its profile) any GPU count, as the engine
runs it (core/sizing/layer_split.py, core/sizing/units.py ``layer_box``).

Source: llama.cpp ``src/llama-model.cpp`` ``load_tensors``: under ``--split-mode layer`` (the
default) each device takes a contiguous run of whole layers, the boundaries the cumulative
``--tensor-split`` fractions over the layers (``std::upper_bound`` over ``splits``), for any
device count; ``--split-mode row`` splits each matrix's rows by the same fractions
(ggml/src/ggml-cuda/ggml-cuda.cu ``get_row_split``). No head count divides anything. vLLM
(``ModelConfig.verify_with_parallel_config``) keeps its head divisors and the boxes of 1, 2, 4
or 8 cards (core/sizing/systems.py ``BOX_SIZES``)."""

from __future__ import annotations

import copy
from types import SimpleNamespace
from typing import Any

import pytest

from gpusizer import compare_gpus, plan
from gpusizer.core.model.presets import gpu_spec
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.sizing.layer_split import tensor_widths
from gpusizer.core.sizing.reason import _pipeline_in_node
from gpusizer.core.sizing.units import Unit

# Qwen2.5-72B (64 heads, 8 KV heads, 80 layers) Q8_0 at a 32k context: 2 A40s do not hold it
QWEN_72B_Q8: dict[str, Any] = {
    "model": {"preset": "qwen2.5-72b"},
    "framework": "llama.cpp",
    "precision": {"weights": "gguf_q8_0"},
    "workload": {"kind": "inference", "prompt_tokens": 1024, "generated_tokens": 256, "batch_size": 1},
    "serving": {"max_context": 32768},
    "hardware": {"gpu": "a40-48gb"},
}


def test_72b_q8_on_a40_plans_three_cards() -> None:
    # llama.cpp load_tensors splits the 80 layers over any device count: 3 A40s, bought as 3
    # cards. Before, the head-dividing widths (1, 2, 4, 8 of 64 heads) and the box of 4 the
    # count rounded to took a 4th card the run does not need (min_gpus was already 3).
    got = plan(QWEN_72B_Q8, gpus=["a40-48gb"])[0]
    assert (got["min_gpus"], got["gpus"], got["gpus_in_layout"]) == (3, 3, 3)
    assert got["layout"] == "TP 3 x PP 1 x DP 1"
    assert (got["gpus_per_system"], got["systems"]) == (3, 1)
    assert got["system_name"] == "3 x A40 48GB (cards only)"


def test_the_three_cards_cost_three_cards() -> None:
    # compare prices the box it counts: 3 cards, three quarters of the box of 4 asked for
    three = compare_gpus(QWEN_72B_Q8, gpus=["a40-48gb"])[0]
    four = compare_gpus(QWEN_72B_Q8, gpus=["a40-48gb"], cards_per_box=4)[0]
    assert three["gpus"] == 3 and four["gpus"] == 4
    assert three["system_list_price_usd"] == pytest.approx(0.75 * four["system_list_price_usd"])


def test_the_buyers_own_box_stands() -> None:
    # cards_per_box stated: the buyer's box, not the engine's count (core/sizing/units.py)
    got = plan(QWEN_72B_Q8, gpus=["a40-48gb"], cards_per_box=4)[0]
    assert (got["gpus"], got["gpus_per_system"]) == (4, 4)


def test_a_head_splitting_engine_keeps_its_boxes() -> None:
    # vLLM splits heads: TP 3 is refused for 64 heads, so 3 cards still round to the box of 4
    spec = gpu_spec("a40-48gb")
    vllm, llama = Unit("a40-48gb", spec), Unit("a40-48gb", spec, by_layers=True)
    assert [vllm.count(n) for n in (1, 2, 3, 5, 7, 9)] == [1, 2, 4, 8, 8, 16]
    # llama.cpp: any count up to the node (8 A40s), then whole nodes
    assert [llama.count(n) for n in (1, 2, 3, 5, 7, 9)] == [1, 2, 3, 5, 7, 16]


def test_catalog_systems_are_bought_as_sold() -> None:
    # an 8-GPU HGX server stays whole under llama.cpp: only cards sold alone take any count
    spec = gpu_spec("h100-sxm-80gb")
    assert Unit("h100-sxm-80gb", spec, by_layers=True).count(3) == 8


@pytest.mark.parametrize(
    ("framework", "widths"),
    [
        # llama.cpp load_tensors: any device count up to the node
        ("llama.cpp", [1, 2, 3, 4, 5, 6, 7, 8]),
        # vLLM verify_with_parallel_config: TP divides the 64 heads
        ("vllm", [1, 2, 4, 8]),
    ],
)
def test_tensor_widths_weighed(framework: str, widths: list[int]) -> None:
    s = copy.deepcopy(QWEN_72B_Q8)
    s["framework"] = framework
    if framework != "llama.cpp":
        s["precision"] = {}
    assert tensor_widths(parse_scenario(s), 64, 8) == widths


def test_pipeline_reason_under_llamacpp() -> None:
    # llama.cpp load_tensors takes 6 GPUs of a 128-head model: a PP 3 replica of 6 was chosen
    # over TP 6 for speed, not because TP cannot take that width (core/sizing/reason.py)
    llama = SimpleNamespace(profile=SimpleNamespace(tp_splits_heads=False))
    adv = SimpleNamespace(s=llama, filler=SimpleNamespace(arch=SimpleNamespace(heads=128)))
    assert (
        _pipeline_in_node(adv, 2, 3, "NVLink")
        == "PP 3 within a node (NVLink), faster on this count than TP 6"
    )
