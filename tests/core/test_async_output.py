"""``serving.async_output`` false: vLLM V0's ``--disable-async-output-proc``, each step waiting
for the previous step's output processing (core/registry/engine_releases.py V0_SERIAL_OUTPUT:
0.2 ms at one sequence, 3.4 ms at 32, vllm RFC #6913, Llama3-70B FP8 on 4 x H100)."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.registry.engine_releases import V0_SERIAL_OUTPUT


def _scenario(users: int, **serving: Any) -> dict[str, Any]:
    return {
        "model": {"preset": "llama-3.1-70b"},
        "framework": serving.pop("framework", "vllm"),
        "hardware": {"gpu": "h100-sxm-80gb"},
        "parallelism": {"tensor": 4},
        "precision": {"weights": "fp8", "kv_cache": "fp8"},
        "workload": {"kind": "inference", "prompt_tokens": 128, "generated_tokens": 64, "batch_size": users},
        "serving": {"concurrency": users, "load": "steady", **serving},
    }


def test_rfc_figures_reproduced() -> None:
    """The rule's two points are the RFC's measured ones (0.2 and 3.4 ms), to 1e-9 s."""
    fixed, per_seq = V0_SERIAL_OUTPUT
    assert fixed + per_seq == pytest.approx(0.2e-3, abs=1e-9)
    assert fixed + 32 * per_seq == pytest.approx(3.4e-3, abs=1e-9)


def test_default_unchanged() -> None:
    """Null and true give the answers of a scenario without the field (async output on, as
    vLLM runs by default from 0.6.0)."""
    base = estimate_report(_scenario(8, engine_version="0.6.4"))["serving"]
    for value in (None, True):
        sv = estimate_report(_scenario(8, engine_version="0.6.4", async_output=value))["serving"]
        assert sv["tpot_seconds"] == base["tpot_seconds"]
        assert sv["ttft_seconds"] == base["ttft_seconds"]


def test_stated_in_the_assumptions() -> None:
    """The report says the output processing runs between steps, and at what cost."""
    text = " ".join(estimate_report(_scenario(4, engine_version="0.6.4", async_output=False))["assumptions"])
    assert "async output processing off" in text and "0.103 ms a sequence" in text
    base = " ".join(estimate_report(_scenario(4, engine_version="0.6.4"))["assumptions"])
    assert "async output processing off" not in base


@pytest.mark.parametrize("users", [1, 32])
def test_each_decode_step_waits_for_its_outputs(users: int) -> None:
    """With async output off a decode step grows by the RFC's figure at its batch: 0.2 ms at one
    sequence, 3.4 ms at 32 (within 2 %: the batch's mean step also moves with the context)."""
    on = estimate_report(_scenario(users, engine_version="0.6.4"))["serving"]
    off = estimate_report(_scenario(users, engine_version="0.7.0", async_output=False))["serving"]
    grew = off["tpot_seconds"] - on["tpot_seconds"]
    assert grew == pytest.approx({1: 0.2e-3, 32: 3.4e-3}[users], rel=0.02)


@pytest.mark.parametrize(
    "serving",
    [
        {"async_output": False},  # the current vLLM release runs V1
        {"async_output": False, "engine_version": "0.8.0"},
        {"async_output": False, "framework": "sglang"},
    ],
)
def test_only_vllm_v0(serving: dict[str, Any]) -> None:
    """False elsewhere is an error naming the field and the releases it applies to."""
    with pytest.raises(ScenarioError) as err:
        estimate_report(_scenario(4, **serving))
    assert err.value.field == "serving.async_output"
    assert "0.6.4" in str(err.value)
