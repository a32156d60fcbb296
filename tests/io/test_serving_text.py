"""The serving headline counts the users an engine serves: the fewer of what its KV cache holds
and its max_sequences (vLLM max_num_seqs, llama.cpp n_parallel) - the capacity chart's rule."""

from __future__ import annotations

from gpusizer.io.serving_text import users_line

_BLOCK = {
    "starts": True,
    "kv_capacity_tokens": 131072,
    "max_concurrency": 1.0,
    "max_context": 131072,
    "engine": "llama.cpp",
    "reason": None,
}


def test_users_held_by_the_kv_cache() -> None:
    line = users_line({**_BLOCK, "max_sequences": 256}, 8704)
    assert line.startswith("15 users at 8,704 tokens each (131,072 KV tokens")


def test_users_capped_by_max_sequences() -> None:
    # llama-server's default 4 slots (n_parallel auto = 4) share a 131,072-token cache.
    line = users_line({**_BLOCK, "max_sequences": 4}, 8704)
    assert line.startswith("4 users at 8,704 tokens each (the engine's limit, max_sequences 4")
    assert "would hold 15" in line


def test_engine_that_does_not_start() -> None:
    line = users_line({**_BLOCK, "starts": False, "reason": "no memory"}, 8704)
    assert line == "llama.cpp does not start: no memory"


def test_one_user_reads_singular() -> None:
    from gpusizer.io.serving_text import users_line

    sv = {
        "starts": True,
        "kv_capacity_tokens": 5000,
        "max_sequences": 0,
        "max_concurrency": 0.6,
        "max_context": 8192,
    }
    assert users_line(sv, 4096).startswith("1 user at 4,096 tokens each")


def test_feature_lines_only_when_set() -> None:
    """Prefix caching and speculative decoding print a line each when set, none otherwise."""
    from gpusizer.io.serving_text import feature_lines

    assert feature_lines({"prefix_users_held": None, "speculative_method": None}) == []
    lines = feature_lines(
        {
            "prefix_cached_tokens": 1488,
            "prefix_shared_tokens": 1488,
            "prefix_users_held": 557,
            "speculative_method": "eagle3",
            "speculative_tokens": 3,
            "speculative_acceptance_rate": 0.745,
            "speculative_tokens_per_step": 2.71,
            "draft_weight_bytes": 849_362_944,
        }
    )
    assert lines[0].startswith("  prefix cache 1,488 prompt tokens") and "557 users" in lines[0]
    assert "eagle3: 3 draft tokens, acceptance 0.74" in lines[1] and "0.79 GiB" in lines[1]
    lora = feature_lines(
        {"lora_adapters": 100, "lora_loaded": 16, "lora_rank": 64, "lora_weight_bytes": 2**30}
    )
    assert lora == ["  LoRA         100 adapters served, 16 on the GPU at once (rank 64): 1.00 GiB per GPU"]
    base = feature_lines(
        {
            "lora_adapters": 100,
            "lora_loaded": 16,
            "lora_rank": 64,
            "lora_active": 0,
            "lora_weight_bytes": 2**30,
        }
    )
    assert base == [
        "  LoRA         100 adapters served, 16 on the GPU at once (rank 64), 0 in use: 1.00 GiB per GPU"
    ]


_SPLIT = {
    "disaggregated_prefill_gpus": 8,
    "disaggregated_decode_gpus": 8,
    "disaggregated_ttft_seconds": 7.18,
    "disaggregated_kv_transfer_bytes": 7e7,
    "disaggregated_kv_transfer_seconds": 0.0014,
    "disaggregated_tpot_seconds": 0.0509,
    "disaggregated_tokens_per_second": 12948.0,
}


def test_the_split_line_names_the_prefill_pools_own_layout_where_set() -> None:
    """The prefill pool's fields of ``serving.disaggregated`` that the scenario sets, in the
    assumptions' words (TP, attention DP, EP); none set: the line as before."""
    from gpusizer.io.serving_text import feature_lines, prefill_layout

    plain = feature_lines(_SPLIT)
    assert plain == feature_lines(_SPLIT, {"prefill_gpus": 8, "prefill_tensor": None})
    assert plain[0].startswith("  split P/D    8 prefill + 8 decode GPUs: first token 7,180 ms")
    layout = {
        "prefill_tensor": 8,
        "prefill_attention_data": 1,
        "prefill_expert": 1,
        "prefill_max_sequences": 1,
    }
    line = feature_lines(_SPLIT, layout)[0]
    assert line.startswith(
        "  split P/D    8 prefill (TP 8, attention DP 1, EP 1, 1 request a rank at once) + 8 decode GPUs:"
    )
    assert prefill_layout({"prefill_attention_data": 4, "prefill_max_sequences": 2048}) == (
        " (attention DP 4, 2,048 requests a rank at once)"
    )
    assert prefill_layout(None) == ""


def test_the_cli_and_the_report_state_the_prefill_pools_layout() -> None:
    """``gpusizer-cli estimate`` and the report's Speed section carry the same split line."""
    from gpusizer.core.pipeline.estimate import estimate
    from gpusizer.core.pipeline.report import report_from_estimate
    from gpusizer.core.pipeline.scenario import parse_scenario
    from gpusizer.io.estimate_text import text_report
    from gpusizer.io.report import report_facts
    from tests.scenarios import vllm_serving

    split = {"prefill_gpus": 2, "decode_gpus": 2, "prefill_tensor": 1, "prefill_max_sequences": 4}
    scenario = vllm_serving(parallelism={"tensor": 2}, serving={"disaggregated": split})
    est = estimate(parse_scenario(scenario))
    words = "2 prefill (TP 1, 4 requests a rank at once) + 2 decode GPUs: first token"
    assert words in text_report(report_from_estimate(est))
    speed = report_facts(est).speed
    assert any(s.startswith("Split P/D " + words) for s in speed), speed
