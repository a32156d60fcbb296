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
