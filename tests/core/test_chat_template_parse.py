"""vLLM's chat route per release: the template parse some releases do on every request
(core/registry/chat_template_parse.py; docs/evidence/serving.md, the section on the chat template
parse). Read in the PyPI wheels' ``vllm/entrypoints/chat_utils.py``: 0.11.0 parses in
``resolve_chat_template_kwargs`` on every request (0.11.1 ``lru_cache``s it), 0.8.3 - 0.9.1 in
``_detect_content_format`` (0.9.2 caches it, vLLM PR 20065). Costs measured here with Qwen3-8B's
template (``scripts/measure_chat_template.py``): 6.9 and 2.7 ms."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.registry.chat_template_parse import (
    CONTENT_FORMAT_PARSE,
    KWARGS_PARSE,
    parse_seconds,
    with_template_parse,
)
from gpusizer.core.registry.engine_releases import VLLM
from gpusizer.core.registry.engine_releases_vllm_v1 import VLLM_FRONT_END, VLLM_FRONT_END_COMPLETIONS
from gpusizer.core.registry.engines import TOKENISE_PER_TOKEN, release

ms = 1e-3


@pytest.mark.parametrize(
    ("version", "seconds"),
    [
        ("0.6.4", 0.0),  # no content-format detection
        ("0.6.5", 0.0),  # resolve_chat_template_content_format @lru_cache (0.6.5 - 0.8.0)
        ("0.8.0", 0.0),
        ("0.8.3", CONTENT_FORMAT_PARSE),
        ("0.9.1", CONTENT_FORMAT_PARSE),
        ("0.9.2", 0.0),  # _detect_content_format @lru_cache(maxsize=32), PR 20065
        ("0.10.2", 0.0),
        ("0.11.0", KWARGS_PARSE),
        ("0.11.1", 0.0),  # _cached_resolve_chat_template_kwargs
        ("0.11.2.dev358", 0.0),  # Mooncake's P/D run
        ("0.33.0", 0.0),
        ("not-a-version", 0.0),
    ],
)
def test_which_releases_parse_on_every_request(version: str, seconds: float) -> None:
    assert parse_seconds(version) == seconds


def _chat(version: str) -> float:
    return release(VLLM, version).steps[0][1].front_end


def test_each_release_carries_its_own_parse() -> None:
    """0.11.0 keeps the measured 50.3 ms (GPUStack's run was 0.11.0); a release that parses
    once takes 50.3 - 6.9 = 43.4 ms; 0.8.3 - 0.9.1 add their own 2.7 ms back (46.9 ms, 40.0 and
    42.7 while the ``vllm-0.11`` era priced that run's prefill at a 0.367 GEMM share:
    docs/evidence/speed.md section 104)."""
    assert _chat("0.11.0") == VLLM_FRONT_END
    assert _chat("0.11.2") == pytest.approx(43.4 * ms)
    assert _chat("0.10.1") == _chat("0.6.4") == _chat("0.33.0") == pytest.approx(43.4 * ms)
    assert _chat("0.8.4") == pytest.approx(46.1 * ms)


def test_the_completions_route_renders_no_template() -> None:
    """Only the chat cost moves: /v1/completions takes the prompt as sent (10.2 ms everywhere)."""
    for r in VLLM:
        assert r.steps[0][1].front_end_completions == VLLM_FRONT_END_COMPLETIONS, r.version


def test_the_split_row_is_its_older_neighbour_but_for_the_chat_cost() -> None:
    """0.9.2 - 0.10.0 took 0.9.1's row; the split keeps every other default of it."""
    old, new = release(VLLM, "0.9.1"), release(VLLM, "0.10.0")
    assert new.version == "0.9.2" and new.sources[: len(old.sources)] == old.sources
    assert replace(new, version=old.version, date=old.date, steps=old.steps, sources=old.sources) == old


def test_applying_twice_adds_no_row() -> None:
    """A table that already has the split row keeps it once (the 0.9.2 row is not re-inserted)."""
    assert [r.version for r in with_template_parse(VLLM)] == [r.version for r in VLLM]


H800 = {"interconnect_gb_per_s": 200, "id": "h800-sxm-80gb", "name": "H800 80GB"}


def _mooncake(version: str) -> dict[str, Any]:
    """Mooncake's vLLM 1P1D on H800 (tests/core/data/serving-features.json), 128 tokens."""
    from tests.core.test_disagg_evidence import SINGLE, _single

    src = {**next(s for s in SINGLE if s["framework"] == "vllm"), "engine_version": version}
    return _single(src, 128)


def test_both_api_servers_of_the_p_d_path_drop_the_parse() -> None:
    """Through toy_proxy_server.py the request passes the prefill and the decode server, each
    rendering the chat template: on 0.11.2 (as run) the first token is 2 x 6.9 ms below 0.11.0's;
    the decode server's charge is one server's chat cost and its tokenising."""
    run, measured_release = _mooncake("0.11.2"), _mooncake("0.11.0")
    drop = measured_release["disaggregated_ttft_seconds"] - run["disaggregated_ttft_seconds"]
    assert drop == pytest.approx(2 * KWARGS_PARSE, rel=0.01)
    assert run["disaggregated_path_seconds"] >= 43.4 * ms + 128 * TOKENISE_PER_TOKEN


def test_an_aggregated_scenario_on_the_measured_release_is_unchanged() -> None:
    """GPUStack's c=1 replay (vLLM 0.11.0) keeps 50.3 ms of API server (test_chat_route_hosts)."""
    d: dict[str, Any] = {
        "model": {"preset": "qwen3-8b"},
        "framework": "vllm",
        "hardware": {"gpu": "h100-sxm-80gb"},
        "workload": {"kind": "inference", "prompt_tokens": 233, "generated_tokens": 221},
        "serving": {"load": "steady", "concurrency": 1, "engine_version": "0.11.0"},
    }
    off = {**d, "serving": {**d["serving"], "api_server": False}}
    host = estimate_report(d)["serving"]["ttft_seconds"] - estimate_report(off)["serving"]["ttft_seconds"]
    assert host == pytest.approx(VLLM_FRONT_END + 233 * TOKENISE_PER_TOKEN, rel=1e-9)
