"""``serving.api_endpoint``: the API server's cost per request as published for the route the
requests take (docs/evidence/speed.md §13.1): vLLM's chat route 50.3 ms on 0.11.0 (GPUStack, `vllm
bench serve --backend openai-chat`; 43.4 ms on a release that does not parse the chat template
on every request, core/registry/chat_template_parse.py), its completions route 10.2 ms
(Tenstorrent's A100 runs, tt-inference-server issue 340); SGLang and TensorRT-LLM publish no
completions figure apart."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.scenario import parse_scenario


def _scenario(framework: str, endpoint: str | None = None) -> dict[str, Any]:
    d: dict[str, Any] = {
        "model": {"preset": "qwen3-8b"},
        "framework": framework,
        "hardware": {"gpu": "h100-sxm-80gb"},
        "workload": {"kind": "inference", "prompt_tokens": 233, "generated_tokens": 221},
        "serving": {"load": "steady", "concurrency": 1, "requests": 8},
    }
    if endpoint is not None:
        d["serving"]["api_endpoint"] = endpoint
    return d


def _ttft_ms(d: dict[str, Any]) -> float:
    return float(estimate_report(d)["serving"]["ttft_seconds"]) * 1e3


def test_chat_is_the_default_and_answers_as_before() -> None:
    for fw in ("vllm", "sglang"):
        assert estimate_report(_scenario(fw, "chat"))["serving"] == estimate_report(_scenario(fw))["serving"]


def test_vllm_completions_route_costs_its_published_share() -> None:
    """43.4 - 10.2 = 33.2 ms less per request on /v1/completions for the current release (its
    chat cost GPUStack's 50.3 ms less the template parse that 0.11.0 does on every request,
    core/registry/chat_template_parse.py: 40.1 ms on 0.11.0 itself); SGLang the same on both."""
    assert _ttft_ms(_scenario("vllm")) - _ttft_ms(_scenario("vllm", "completions")) == pytest.approx(
        33.2, abs=0.1
    )
    on_0110 = {**_scenario("vllm"), "serving": {**_scenario("vllm")["serving"], "engine_version": "0.11.0"}}
    completions = {**on_0110, "serving": {**on_0110["serving"], "api_endpoint": "completions"}}
    assert _ttft_ms(on_0110) - _ttft_ms(completions) == pytest.approx(40.1, abs=0.1)
    assert _ttft_ms(_scenario("sglang", "completions")) == _ttft_ms(_scenario("sglang"))


def test_no_api_server_ignores_the_route() -> None:
    d = _scenario("vllm", "completions")
    d["serving"]["api_server"] = False
    off = _scenario("vllm")
    off["serving"]["api_server"] = False
    assert _ttft_ms(d) == _ttft_ms(off)


def test_unknown_route_names_the_field() -> None:
    with pytest.raises(ScenarioError) as err:
        parse_scenario(_scenario("vllm", "responses"))
    assert err.value.field == "serving.api_endpoint", str(err.value)
