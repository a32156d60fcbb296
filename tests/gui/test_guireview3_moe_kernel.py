"""The Serving panel's "MoE kernel" list offers what the engine as set takes on the GPU as set
(gui/panels/moe_kernel_items.py): under SGLang "release default" and AITER only on an AMD GPU
(core/registry/moe_backends.py ``MoeBackend.engines``: SGLANG_USE_AITER=1 is the one value
SGLang states); under vLLM on an NVIDIA GPU every backend but AITER (ROCm's fused MoE), as
core/pipeline/validate_serving.py ``_check_moe_backend`` refuses those. Before, SGLang's list
held vLLM's Triton and FlashInfer backends, each refused when picked."""

from __future__ import annotations

from typing import Any

from gpusizer.core.registry.moe_backends import MOE_BACKENDS

from .helpers import error_text, find, mismatches, row_visible, set_scenario

NAME = "combo_serving_moe_backend"


def _scenario(framework: str, gpu: str, backend: Any = None) -> dict[str, Any]:
    return {
        "model": {"preset": "qwen3-30b-a3b"},
        "framework": framework,
        "workload": {"kind": "inference", "prompt_tokens": 512, "generated_tokens": 128},
        "serving": {"moe_backend": backend},
        "hardware": {"gpu": gpu, "gpus_per_node": 1},
    }


def _data(combo: Any) -> list[Any]:
    return [combo.itemData(i) for i in range(combo.count())]


def test_sglang_on_amd_lists_default_and_aiter(window) -> None:
    set_scenario(window, _scenario("sglang", "mi325x-256gb", "aiter"))
    combo = find(window, NAME)
    assert row_visible(combo)
    assert _data(combo) == [None, "aiter"]
    assert combo.currentData() == "aiter"
    assert mismatches(window.binder) == []


def test_sglang_on_nvidia_lists_default_only(window) -> None:
    set_scenario(window, _scenario("sglang", "h100-sxm-80gb"))
    assert _data(find(window, NAME)) == [None]


def test_vllm_on_nvidia_leaves_out_aiter(window) -> None:
    set_scenario(window, _scenario("vllm", "h100-sxm-80gb"))
    assert _data(find(window, NAME)) == [None, *(b for b in MOE_BACKENDS if b != "aiter")]
    set_scenario(window, _scenario("vllm", "mi300x-192gb"))
    assert _data(find(window, NAME)) == [None, *MOE_BACKENDS]


def test_switching_the_gpu_follows(window) -> None:
    set_scenario(window, _scenario("sglang", "mi300x-192gb"))
    combo = find(window, NAME)
    assert "aiter" in _data(combo)
    window.state.edit("hardware.gpu", "h200-141gb")
    window.state.flush()
    assert _data(combo) == [None]
    assert window.state.scenario.serving.moe_backend is None  # rebuilding sent no edit


def test_held_refused_value_is_named_and_its_error_shown(window) -> None:
    """A held Triton under SGLang stays selected, named why, with the core's error beside."""
    set_scenario(window, _scenario("sglang", "h100-sxm-80gb"))
    window.state.edit("serving.moe_backend", "triton")
    window.state.flush()
    combo = find(window, NAME)
    assert combo.currentData() == "triton"
    assert combo.currentText() == "Triton: not run by SGLang"
    assert "--moe-backend" in error_text(window, NAME)
    combo.setCurrentIndex(combo.findData(None))  # undone there
    window.state.flush()
    assert window.state.error is None


def _rl(engine: str, gpu: str) -> dict[str, Any]:
    """A GRPO of Qwen3 30B-A3B (MoE) under verl, its rollout on ``engine``."""
    return {
        "model": {"preset": "qwen3-30b-a3b"},
        "framework": "fsdp",
        "workload": {"kind": "rl", "micro_batch_size": 1},
        "rl": {
            "framework": "verl",
            "algorithm": "grpo",
            "rollout": {
                "engine": engine,
                "prompts_per_step": 32,
                "samples_per_prompt": 8,
                "response_tokens": 1024,
            },
        },
        "hardware": {"gpu": gpu, "gpus_per_node": 8},
    }


def test_rl_rollout_list_follows_its_engine(window) -> None:
    """``rl.rollout.moe_backend`` is checked as the rollout's ``serving.moe_backend``
    (core/pipeline/rl_roles.py): the RL panel's "MoE kernel" follows the rollout engine."""
    set_scenario(window, _rl("sglang", "h100-sxm-80gb"))
    combo = find(window, "combo_rl_rollout_moe_backend")
    assert _data(combo) == [None]
    set_scenario(window, _rl("vllm", "h100-sxm-80gb"))
    assert _data(combo) == [None, *(b for b in MOE_BACKENDS if b != "aiter")]
    set_scenario(window, _rl("sglang", "mi300x-192gb"))
    assert _data(combo) == [None, "aiter"]
    assert mismatches(window.binder) == []


def test_tooltips_say_the_list_follows_the_engine(window) -> None:
    set_scenario(window, _scenario("sglang", "mi325x-256gb", "aiter"))
    tip = find(window, NAME).toolTip()
    assert tip.startswith("The MoE experts' kernel") and "SGLANG_USE_AITER=1" in tip
    set_scenario(window, _rl("sglang", "mi300x-192gb"))
    assert "SGLang rollout takes AITER alone" in find(window, "combo_rl_rollout_moe_backend").toolTip()
