"""``serving.max_kv_size``: mlx-lm's ``--max-kv-size`` (RotatingKVCache) caps each sequence's
cache (core/memory/kv_cap.py), where mlx-lm builds that cache at all."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.cli import main
from gpusizer.core.errors import ScenarioError
from gpusizer.core.memory.inference import kv_bytes_per_token_layer
from gpusizer.core.model.architecture import resolve
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario


def _mlx(model: str, prompt: int, generated: int, cap: int | None, version: str = "0.28.4") -> dict[str, Any]:
    return {
        "model": {"preset": model},
        "framework": "mlx",
        "hardware": {"gpu": "apple-m4-max-128gb"},
        "workload": {"kind": "inference", "prompt_tokens": prompt, "generated_tokens": generated},
        "serving": {"engine_version": version, "max_kv_size": cap, "max_sequences": 1},
    }


def _per_token(scenario: dict[str, Any]) -> float:
    s = parse_scenario(scenario)
    arch = resolve(s.model)
    return kv_bytes_per_token_layer(arch, s.precision.kv_cache) * arch.attention_layers


@pytest.mark.parametrize(
    ("prompt", "generated", "held"),
    [
        # a long prompt: the last cap - 1 tokens and one 2,048-token prefill step (_update_concat)
        (32000, 1000, 4096 - 1 + 2048),
        # a short prompt, a long answer: decoding grows the buffer up to the cap, no further
        (1000, 5000, 4096),
    ],
)
def test_the_cache_holds_what_the_rotating_cache_keeps(prompt: int, generated: int, held: int) -> None:
    sc = _mlx("qwen3-8b", prompt, generated, 4096)
    assert estimate(sc).memory.kv_cache == int(held * _per_token(sc))
    assert any("capped at 4,096 tokens" in a for a in estimate(sc).assumptions)


def test_a_context_within_the_cap_is_unchanged() -> None:
    assert (
        estimate(_mlx("qwen3-8b", 1000, 256, 4096)).memory
        == estimate(_mlx("qwen3-8b", 1000, 256, None)).memory
    )


def test_not_taken_where_mlx_lm_builds_the_models_own_caches() -> None:
    """Llama's module has make_cache from mlx-lm 0.28.1 (PR #505), Gemma 3's (sliding window)
    always: make_prompt_cache never builds the rotating cache for them."""
    for model, version in (("llama-3.1-8b", "0.28.4"), ("gemma-3-4b", "0.28.4"), ("gemma-3-4b", "0.22.2")):
        capped, whole = (
            estimate(_mlx(model, 32000, 256, 4096, version)),
            estimate(_mlx(model, 32000, 256, None, version)),
        )
        assert capped.memory == whole.memory, (model, version)
        assert any("not taken" in a for a in capped.assumptions)
    old = estimate(_mlx("llama-3.1-8b", 32000, 256, 4096, "0.22.2"))
    assert old.memory.kv_cache < estimate(_mlx("llama-3.1-8b", 32000, 256, None, "0.22.2")).memory.kv_cache


def test_refused_for_an_engine_without_it() -> None:
    sc = {**_mlx("qwen3-8b", 1000, 256, 4096), "framework": "vllm", "hardware": {"gpu": "h100-sxm-80gb"}}
    sc["serving"] = {"max_kv_size": 4096}
    with pytest.raises(ScenarioError) as exc:
        parse_scenario(sc)
    assert exc.value.field == "serving.max_kv_size" and "mlx" in exc.value.message


def test_cli_flag(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--model", "qwen3-8b", "--kind", "inference", "--framework", "mlx", "--gpu", "apple-m4-max-128gb"]
    assert main(["estimate", *argv, "--prompt", "32000", "--max-kv-size", "4096"]) == 0
    assert "capped at 4,096 tokens" in capsys.readouterr().out


def test_the_users_the_pool_holds_count_the_capped_cache() -> None:
    """The serving block says what one user holds (kv_tokens_per_user), and the users and the
    concurrency at the full context count that, not the whole context."""
    capped, whole = estimate(_mlx("qwen3-8b", 32000, 256, 4096)), estimate(_mlx("qwen3-8b", 32000, 256, None))
    assert capped.serving is not None and whole.serving is not None
    assert capped.serving.kv_tokens_per_user == 4096 - 1 + 2048 and whole.serving.kv_tokens_per_user == 0
    assert capped.serving.max_concurrency > 5 * whole.serving.max_concurrency
