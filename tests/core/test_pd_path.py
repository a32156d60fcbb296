"""The P/D split's arrival process (``serving.disaggregated.arrival_burstiness``) and request
path per connector (``serving.disaggregated.connector``, core/registry/pd_connectors.py):
null fields answer as before, each rule as its source reads, bad input names the field
(docs/evidence/serving.md, the section on the arrival process and the request path)."""

from __future__ import annotations

import copy
import itertools
import math
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.registry.pd_connectors import PD_CONNECTORS, PathInputs, PdConnector, register
from gpusizer.core.registry.table import DuplicateId


def _scenario(users: int = 9, **split: Any) -> dict[str, Any]:
    """vLLM PR 18242's 1P1D of Llama 3.1 8B FP16 on H100s (tests/core/data/disagg-published-runs.json)."""
    return {
        "model": {"preset": "llama-3.1-8b"},
        "framework": "vllm",
        "hardware": {"gpu": "h100-sxm-80gb"},
        "precision": {"weights": "fp16"},
        "workload": {
            "kind": "inference",
            "prompt_tokens": 8000,
            "generated_tokens": 200,
            "batch_size": users,
        },
        "serving": {
            "concurrency": users,
            "load": "steady",
            "engine_version": "0.9.1",
            "max_context": 10000,
            "prefill_chunk_tokens": 10000,
            "memory_fraction": 0.7,
            "api_endpoint": "completions",
            "disaggregated": {"prefill_gpus": 1, "decode_gpus": 1, "link_gb_per_s": 450, **split},
        },
    }


def _sv(d: dict[str, Any]) -> dict[str, Any]:
    return dict(estimate_report(d)["serving"])


def test_null_fields_answer_as_before() -> None:
    """Null connector and arrivals, or burstiness 1 (Poisson: the same exponential draw), give
    the same report; the split's path reads 0."""
    base = _sv(_scenario())
    assert _sv(_scenario(connector=None, arrival_burstiness=None)) == base
    assert _sv(_scenario(arrival_burstiness=1)) == base
    assert base["disaggregated_path_seconds"] == 0.0


def test_no_split_no_path() -> None:
    d = _scenario()
    del d["serving"]["disaggregated"]
    sv = _sv(d)
    assert sv["disaggregated_path_seconds"] == 0.0 and sv["disaggregated_prefill_gpus"] == 0


def test_regular_arrivals_queue_less_and_within_kingman() -> None:
    """Gamma gaps of shape b (squared CV 1/b) at the prefill pool: the wait falls with b, and
    stays below Kingman's G/G/1 approximation Wq(G/G/1) ~ (ca^2 + cs^2) / 2 x rho / (1 - rho) x S
    (Kingman 1961, "The single server queue in heavy traffic") scaled from the simulated Poisson
    wait, (ca^2 + cs^2) / (1 + cs^2) with cs^2 = 0 for fixed prompts: 1/b. Kingman's form is a
    heavy-traffic limit and overstates the wait of regular arrivals at this pool's ~0.8 load."""
    alone = _sv(_scenario(users=1))["disaggregated_ttft_seconds"]
    poisson = _sv(_scenario())["disaggregated_ttft_seconds"] - alone
    waits = [
        _sv(_scenario(arrival_burstiness=b))["disaggregated_ttft_seconds"] - alone for b in (2, 4, 10, 100)
    ]
    assert poisson > 0.3  # the Poisson queue at ~0.8 load: 0.51 s
    assert all(a > b for a, b in itertools.pairwise(waits))
    for b, w in zip((2, 4, 10, 100), waits, strict=True):
        assert -1e-3 <= w <= poisson / b, (b, w)


def test_p2p_nccl_path() -> None:
    """One user, idle decode: the decode's API server (vLLM's completions route, 10.2 ms plus
    1.03 us a prompt token) and the one decode step that takes the pushed KV and samples."""
    sv = _sv(_scenario(users=1, connector="vllm-p2p-nccl"))
    front_end = 10.2e-3 + 8000 * 1.03e-6
    assert sv["disaggregated_path_seconds"] == pytest.approx(
        front_end + sv["disaggregated_tpot_seconds"], rel=0.01
    )


def test_nixl_rule_rounds_the_read_to_steps_when_busy() -> None:
    """NixlConnector: idle, the last step only; busy, half a step before the read starts, the
    read found done at a step's end, then the step that samples."""
    rule = PD_CONNECTORS["vllm-nixl"].seconds
    assert rule(PathInputs(0.01, 0.02, 0.005, 0.0)) == pytest.approx(0.03)
    busy = rule(PathInputs(0.01, 0.02, 0.05, 1.0))
    assert busy == pytest.approx(0.01 + 0.01 + (math.ceil(0.05 / 0.02) * 0.02 - 0.05) + 0.02)
    assert PD_CONNECTORS["sglang"].seconds(PathInputs(0.01, 0.02, 0.05, 1.0)) == 0.0


def test_connector_path_is_in_the_first_token() -> None:
    bare = _sv(_scenario())
    sv = _sv(_scenario(connector="vllm-nixl"))
    path = sv["disaggregated_path_seconds"]
    assert path > 0
    assert sv["disaggregated_ttft_seconds"] >= bare["disaggregated_ttft_seconds"] + 0.9 * path


@pytest.mark.parametrize(
    ("field", "value"),
    [("connector", "nixl"), ("connector", 3), ("arrival_burstiness", 0), ("arrival_burstiness", -1)],
)
def test_bad_input_names_the_field(field: str, value: Any) -> None:
    with pytest.raises(ScenarioError) as err:
        estimate_report(_scenario(**{field: value}))
    assert f"serving.disaggregated.{field}" in str(err.value)
    if field == "connector":
        assert "vllm-nixl" in str(err.value)


def test_connector_of_another_engine_refused() -> None:
    d = _scenario(connector="sglang")
    with pytest.raises(ScenarioError) as err:
        estimate_report(d)
    assert "serving.disaggregated.connector" in str(err.value) and "vllm-nixl" in str(err.value)


def test_registry_refuses_a_duplicate() -> None:
    spec = copy.copy(PD_CONNECTORS["sglang"])
    with pytest.raises(DuplicateId):
        register(PdConnector(spec.id, spec.engine, spec.seconds, spec.source))


def test_split_line_names_the_path() -> None:
    """The CLI's split line states the path where a connector is set, and not otherwise."""
    from gpusizer.io.serving_text import _split_line

    assert "P/D path" in _split_line(_sv(_scenario(connector="vllm-p2p-nccl")))
    assert "P/D path" not in _split_line(_sv(_scenario()))
