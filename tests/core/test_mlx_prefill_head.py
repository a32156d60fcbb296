"""mlx-lm before v0.27.0 ran the LM head over the whole last prompt chunk
(core/memory/prefill_head.py): ml-explore/mlx-lm v0.26.4 ``mlx_lm/generate.py`` ``generate_step``
sends the tokens left after the whole chunks through ``_step``, whose model call returns every
position's logits before ``logits[:, -1, :]``; PR #406 (24fefe3d, first in v0.27.0) runs the head
on the last token only."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.registry.frameworks import FRAMEWORKS

LLAMA_32_3B_VOCAB = 128_256  # meta-llama/Llama-3.2-3B config.json vocab_size


def _mlx(prompt: int, version: str | None) -> dict[str, Any]:
    serving: dict[str, Any] = {"max_sequences": 1}
    if version:
        serving["engine_version"] = version
    return {
        "model": {"preset": "llama-3.2-3b"},
        "framework": "mlx",
        "hardware": {"gpu": "apple-m4-max-128gb"},
        "workload": {"kind": "inference", "prompt_tokens": prompt, "generated_tokens": 128},
        "serving": serving,
        "precision": {"weights": "mlx_int4", "kv_cache": "fp16"},
    }


def _total(prompt: int, version: str | None) -> int:
    return estimate(_mlx(prompt, version)).memory.total


@pytest.mark.parametrize(
    ("prompt", "version", "last_chunk"),
    [
        # mlx_lm.benchmark -p 2048 (mlx-lm PR #396, before PR #406): one chunk of 2,048
        (2048, "0.26.4", 2048),
        # 33,898 tokens at the 2,048 step (mlx-lm PR #40's prompt): 16 whole chunks, then 1,130
        (33898, "0.22.2", 33898 - 16 * 2048),
        # 0.19.0's step of 512 (mlx-examples 9f34fdbd llms/mlx_lm/utils.py): 1,000 = 512 + 488
        (1000, "0.19.0", 488),
    ],
)
def test_the_last_chunks_16_bit_logits_are_held(prompt: int, version: str, last_chunk: int) -> None:
    extra = (last_chunk - 1) * LLAMA_32_3B_VOCAB * 2  # bf16 logits beyond the last position's
    assert _total(prompt, version) - _total(prompt, "0.27.0") == pytest.approx(extra, abs=2)


def test_a_last_chunk_of_one_token_adds_nothing() -> None:
    # 2,049 tokens at the 2,048 step: the last forward is the one token the head samples
    assert _total(2049, "0.26.4") == _total(2049, "0.27.0")


def test_from_v0_27_0_and_by_default_the_head_runs_on_the_last_token() -> None:
    assert _total(2048, "0.28.2") == _total(2048, "0.27.0") == _total(2048, None)
    assert "0.27.0" in " ".join(estimate(_mlx(2048, "0.28.2")).assumptions)


def test_only_mlx_lm_releases_before_0_27_0_hold_the_chunk() -> None:
    chunked = {
        (name, r.version)
        for name, prof in FRAMEWORKS.items()
        for r in prof.releases
        if r.prefill_head == "last_chunk"
    }
    assert chunked == {("mlx", "0.19.0"), ("mlx", "0.22.2")}
