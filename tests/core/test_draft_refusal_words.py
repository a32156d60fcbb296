"""Where vLLM's start-up check already refuses before any feature, the refusal quotes the pool
the engine has once the speculative draft's weights are loaded, the report's KV pool
(core/serving/features.py ``_start_check``; core/serving/rules/pool.py ``request_refusal``).

The check: vLLM 0.20 ``vllm/v1/core/kv_cache_utils.py`` ``check_enough_kv_cache_memory``
raises unless the KV cache memory left after the model (target and proposer) is loaded holds
one request of ``max_model_len``, the proposer's layers in the KV cache spec. Before, the
sentence kept the pool before the draft (2.19 GiB) while the report's pool was 0.88 GiB.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import gpusizer

BUYER = Path(__file__).resolve().parents[1] / "cli" / "data" / "buyer"


def chat(**changes: Any) -> dict[str, Any]:
    """Llama 3.3 70B FP8, EAGLE-3, max_context 8,192, one H100 at vLLM's 0.92 (the buyer case)."""
    data: dict[str, Any] = json.loads((BUYER / "serve-70b-chat.gpusizer.json").read_text())
    return data | changes


def test_the_refusal_quotes_the_pool_after_the_draft() -> None:
    """One 8,192-token request: 2.50 GiB of the target's KV plus the drafter's layer (327,680 ->
    331,776 B/token) = 2.53 GiB; the pool 2.19 GiB less the drafter's 1.31 GiB = 0.88 GiB,
    the number the report's ``kv_pool_bytes`` states (to the cent of a GiB)."""
    rep = gpusizer.estimate_report(chat())
    serving = rep["serving"]
    assert not serving["starts"]
    pool = serving["kv_pool_bytes"] / 2**30
    assert f"{pool:.2f}" == "0.88"
    assert serving["reason"] == (
        "one request of max_context 8,192 tokens needs 2.53 GiB of KV cache, more than the "
        "pool's 0.88 GiB once the speculative proposer's weights are loaded"
    )
    assert "2.19 GiB" not in rep["fit_reason"] and "pool's 0.88 GiB" in rep["fit_reason"]


def test_without_the_draft_the_rule_words_stand() -> None:
    """No draft: the rule's own sentence, its pool (2.19 GiB) and the largest context that fits
    (vLLM ``estimate_max_model_len``) unchanged."""
    data = chat()
    data["serving"] = {k: v for k, v in data["serving"].items() if k != "speculative"}
    serving = gpusizer.estimate_report(data)["serving"]
    assert serving["reason"] == (
        "one request of max_context 8,192 tokens needs 2.50 GiB of KV cache, more than the "
        "pool's 2.19 GiB; the largest context that fits is 7,152"
    )


def test_another_check_refusal_stands() -> None:
    """vLLM ``init_device``'s free-memory refusal (10 RTX 5080, pipeline 10) is not re-said."""
    rep = gpusizer.estimate_report(chat(hardware={"gpu": "rtx-5080-16gb"}, parallelism={"pipeline": 10}))
    assert rep["serving"]["reason"].startswith("free memory on the device")
