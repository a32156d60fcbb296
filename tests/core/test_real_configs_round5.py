"""Real configurations of 2025-26, round 5 (vLLM recipes, SGLang docs, vLLM's expert-parallel
docs and PRs, axolotl and ms-swift examples, slime's launch script), each replayed through the
estimate as its source states it (tests/core/data/real-configs-round5.json; docs/evidence/
training.md, "Real runs the estimate refused, round 5"). Each runs without refusal, or is
answered as not starting where the engine's own start check refuses it too, or is refused in
one line naming the field, where the rule is the estimate's own (``ours``) and the variant the
line asks for is in the file as accepted (tests/core/test_real_configs.py checks each).

The engines' own spellings of the MoE token exchange read as the registered kernels
(core/registry/moe_a2a.py ``ENGINE_SPELLINGS``): SGLang's ``--moe-a2a-backend deepep`` with
``--deepep-mode`` left at its default ``auto`` (python/sglang/srt/server_args.py, v0.5.x), vLLM's
``--all2all-backend deepep_high_throughput`` (DeepEP's normal kernels, vllm/config/parallel.py
``All2AllBackend``)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError

DATA = Path(__file__).parent / "data" / "real-configs-round5.json"
CONFIGS: dict[str, dict[str, Any]] = {c["name"]: c for c in json.loads(DATA.read_text())["configs"]}


def _report(name: str) -> dict[str, Any]:
    return estimate_report(copy.deepcopy(CONFIGS[name]["scenario"]))


def test_engine_spellings_answer_as_the_registered_kernels() -> None:
    """SGLang's ``deepep`` (deepep_mode ``auto``) is ``deepep_auto``; vLLM's
    ``deepep_high_throughput`` is ``deepep_normal``: the same report but for nothing, and the echo
    states the id, so it loads back the same."""
    for name, same in (
        ("sglang-dsv3-dpattn-deepep-h200", "deepep_auto"),
        ("vllm-dsv3-dp16-ep-deepep-ht-2xh200", "deepep_normal"),
    ):
        stated = copy.deepcopy(CONFIGS[name]["scenario"])
        stated["serving"]["moe_a2a_backend"] = same
        spelled, by_id = _report(name), estimate_report(stated)
        assert spelled == by_id
        assert spelled["scenario"]["serving"]["moe_a2a_backend"] == same
        assert estimate_report(copy.deepcopy(spelled["scenario"])) == spelled


def test_deepep_under_vllm_names_the_engine_rule() -> None:
    # "deepep" is SGLang's value; under vLLM it reads as SGLang's auto mode, which vLLM lacks
    s = copy.deepcopy(CONFIGS["vllm-dsv3-dp16-ep-deepep-ht-2xh200"]["scenario"])
    s["serving"]["moe_a2a_backend"] = "deepep"
    with pytest.raises(ScenarioError, match=r"^serving\.moe_a2a_backend: .*sglang"):
        estimate_report(s)


@pytest.mark.parametrize("value", ["deep_ep", "pplx", "mooncake", "DeepEP"])
def test_other_backends_keep_the_id_message(value: str) -> None:
    s = copy.deepcopy(CONFIGS["sglang-dsv3-dpattn-deepep-h200"]["scenario"])
    s["serving"]["moe_a2a_backend"] = value
    with pytest.raises(ScenarioError, match=r"serving\.moe_a2a_backend: unknown MoE all-to-all backend"):
        estimate_report(s)


def test_a_stated_attention_backend_answers_as_the_default() -> None:
    """vLLM's Qwen3.5 GB200 recipe states ``--attention-backend FLASH_ATTN``: a backend name of
    vLLM's registry other than TRITON_ATTN is priced as null (the attention's bytes and FLOPs),
    the assumptions say so, and the echo keeps the name."""
    named, plain = _report("vllm-qwen35-397b-gb200-2x4-flash-attn"), _report("vllm-qwen35-397b-gb200-2x4")
    extra = [a for a in named["assumptions"] if a not in plain["assumptions"]]
    assert len(extra) == 1 and extra[0].startswith("attention backend FLASH_ATTN"), extra
    assert named["scenario"]["serving"]["attention_backend"] == "FLASH_ATTN"
    assert {k: v for k, v in named.items() if k not in ("scenario", "assumptions")} == {
        k: v for k, v in plain.items() if k not in ("scenario", "assumptions")
    }


@pytest.mark.parametrize("value", ["flash_attn", "FLASH", "PALLAS", "NO_ATTENTION", 1])
def test_other_attention_backends_name_the_field(value: object) -> None:
    s = copy.deepcopy(CONFIGS["vllm-qwen35-397b-gb200-2x4"]["scenario"])
    s["serving"]["attention_backend"] = value
    with pytest.raises(ScenarioError, match=r"^serving\.attention_backend: not a vLLM --attention-backend"):
        estimate_report(s)


def test_an_offload_tier_without_a_prefix_prices_no_load() -> None:
    """llm-d's tiered prefix cache runs vLLM's OffloadingConnector (100 GiB of host memory a
    server) whatever the prompts share: without ``serving.prefix`` the report is the one
    without the tier but for the tokens it holds (vLLM's ``cpu_bytes_to_use // block bytes``
    whole blocks, core/serving/kv_offload.py) and one assumption line; nothing loads from it."""
    tier = copy.deepcopy(CONFIGS["llmd-gptoss-120b-cpu-offload-h100"]["scenario"])
    bare = copy.deepcopy(tier)
    del bare["serving"]["kv_offload"]
    with_tier, without = estimate_report(tier), estimate_report(bare)
    extra = [a for a in with_tier["assumptions"] if a not in without["assumptions"]]
    assert len(extra) == 1 and "no shared prefix stated (serving.prefix)" in extra[0], extra
    moved = {k for k in with_tier["serving"] if with_tier["serving"][k] != without["serving"][k]}
    assert moved == {"kv_offload_capacity_tokens"}, moved
    # gpt-oss-120b at TP 1: 36 layers x 8 KV heads x 64 x 2 (K, V) x 2 B = 73,728 B a token;
    # 107,374,182,400 B // (128 tokens x that) = 11,377 blocks of 128 tokens (vLLM's own count)
    assert with_tier["serving"]["kv_bytes_per_token"] == 73_728
    assert with_tier["serving"]["kv_offload_capacity_tokens"] == 107_374_182_400 // (128 * 73_728) * 128
    assert with_tier["serving"]["kv_offload_holds_prefix"] is None
    assert with_tier["serving"]["kv_offload_load_seconds"] == 0
    assert {k: v for k, v in with_tier.items() if k not in ("scenario", "assumptions", "serving")} == {
        k: v for k, v in without.items() if k not in ("scenario", "assumptions", "serving")
    }


@pytest.mark.parametrize(
    ("framework", "value", "words"),
    [
        ("vllm", "fa3", "is SGLang's --attention-backend name"),
        ("vllm", "triton", "state 'TRITON_ATTN'"),
        ("sglang", "FLASH_ATTN", "is vLLM's --attention-backend name"),
    ],
)
def test_another_engines_backend_name_is_refused(framework: str, value: str, words: str) -> None:
    """Each engine takes its own --attention-backend names (vLLM's registry in capitals,
    SGLang's ATTENTION_BACKEND_CHOICES in lower case); the other's is refused naming whose."""
    s = copy.deepcopy(CONFIGS["sglang-dsr1-fp8-h200-flashinfer"]["scenario"])
    s["framework"] = framework
    s["serving"]["attention_backend"] = value
    with pytest.raises(ScenarioError, match=r"^serving\.attention_backend: ") as err:
        estimate_report(s)
    assert words in str(err.value), str(err.value)


def test_sglang_backend_names_answer_as_the_default() -> None:
    """InferenceMAX's SGLang DeepSeek-R1 jobs state ``--attention-backend flashinfer`` (H200)
    and ``trtllm_mla`` (B200): priced as null, one assumption line; ``TRITON_ATTN`` under SGLang
    answers as before (no line)."""
    for name in ("sglang-dsr1-fp8-h200-flashinfer", "sglang-dsr1-fp8-b200-trtllm-mla"):
        named = _report(name)
        plain = copy.deepcopy(CONFIGS[name]["scenario"])
        plain["serving"]["attention_backend"] = None
        bare = estimate_report(plain)
        extra = [a for a in named["assumptions"] if a not in bare["assumptions"]]
        assert len(extra) == 1 and extra[0].startswith("attention backend "), extra
        assert named["per_gpu"] == bare["per_gpu"] and named["serving"] == bare["serving"]
    s = copy.deepcopy(CONFIGS["sglang-dsr1-fp8-h200-flashinfer"]["scenario"])
    s["serving"]["attention_backend"] = "TRITON_ATTN"
    assert not [a for a in estimate_report(s)["assumptions"] if a.startswith("attention backend")]
