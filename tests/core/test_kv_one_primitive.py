"""One KV primitive: the ``kv_cache`` component and the report's ``cache`` block come from the
same stage cache (core/memory/inference.py ``stage_cache``), so ``kv_cache`` = ``kv_bytes`` +
``recurrent_state_bytes`` (docs/scenario-format.md, "cache") at every PP degree and window
pattern. The stage's own sliding-window layers count as windowed, not all of its layers: a
Gemma 3 27B stage at PP 2 holds 5 global layers beside its 26 window layers."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpusizer import ScenarioError, estimate_report
from gpusizer.core.model.presets import model_presets

GiB = 2**30

# every preset model; transformers allocates its cache as requests need it, so its kv_cache
# is the batch's cache (engines with a pool report the pool there instead)
MODELS = sorted(model_presets())


def _report(model: dict, pp: int, batch: int, prompt: int, out: int) -> dict:
    return estimate_report(
        {
            "model": model,
            "workload": {
                "kind": "inference",
                "batch_size": batch,
                "prompt_tokens": prompt,
                "generated_tokens": out,
            },
            "parallelism": {"pipeline": pp},
            "framework": "huggingface",
            "hardware": {"gpu": "h100-sxm-80gb"},
        }
    )


def _equal(r: dict) -> None:
    cache = r["cache"]
    assert r["per_gpu"]["kv_cache"] == cache["kv_bytes"] + cache["recurrent_state_bytes"]


def test_gemma3_27b_pp2_cache_block_matches_the_component() -> None:
    # Before: cache_block counted all 31 attention layers of a stage as windowed (0.97 GiB of
    # 2.14 here, batch 4 x 8,704 tokens); the stage holds 26 window layers and 5 global ones.
    r = _report({"preset": "gemma-3-27b"}, 2, 4, 8192, 512)
    _equal(r)
    assert r["per_gpu"]["kv_cache"] / GiB == pytest.approx(2.1398, abs=1e-3)


windows: st.SearchStrategy[dict[str, int]] = st.one_of(
    st.just({}),
    st.fixed_dictionaries(
        {"sliding_window": st.sampled_from([128, 1024, 4096]), "sliding_window_layers": st.integers(0, 64)}
    ),
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(MODELS),
    window=windows,
    pp=st.integers(1, 16),
    batch=st.integers(1, 16),
    prompt=st.integers(1, 32768),
    out=st.integers(0, 2048),
)
def test_kv_cache_is_kv_bytes_plus_state(
    preset: str, window: dict, pp: int, batch: int, prompt: int, out: int
) -> None:
    try:
        r = _report({"preset": preset, **window}, pp, batch, prompt, out)
    except ScenarioError:
        return  # a PP degree or window the model cannot take
    _equal(r)


@pytest.mark.parametrize("preset", MODELS)
def test_every_preset_at_every_pp_degree(preset: str) -> None:
    """Each preset as published (its own window pattern) at PP 1 to 8."""
    for pp in range(1, 9):
        try:
            r = _report({"preset": preset}, pp, 3, 6000, 200)
        except ScenarioError:
            continue  # more stages than the model has layers
        _equal(r)
