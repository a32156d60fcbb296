"""What a served option's deployment features do, in the words of its Why (``layout_reason``,
core/sizing/reason.py): speculative decoding, the prefix cache, served LoRA adapters and the KV
offload tier, and multi-turn chats (each conversation's history the prefix of its next turn).

The features change the count and the speeds (core/serving/features.py prices them in the
estimate), but the row and its Why read as for the plain model: Llama 3.1 70B with a 4K shared
system prompt and EAGLE-3 on H100s read "TP 4 within a node (NVLink); 2 replicas; fastest of 4
layouts tried", with nothing of the 2.71 tokens each decode step emits (EAGLE-3 drafting 3 at
the acceptance the estimate states, Leviathan et al. 2023's expected tokens) nor of the 3,686
prompt tokens a request finds cached (vLLM's automatic prefix caching, whole KV blocks);
100 LoRA adapters on Qwen2.5 7B read as the base model alone. A buyer weighing the feature
cannot see that the answer assumes it. The phrase states each feature's figures from the
option's own estimate (``Estimate.serving``), as the report's fields give them; nothing is
re-estimated, and a scenario without the features gets no phrase.
"""

from __future__ import annotations

from ..model.result import Estimate


def feature_part(est: Estimate | None) -> str | None:
    """ "speculative decoding (eagle3): 2.71 tokens a decode step (3 drafted, acceptance 0.745);
    prefix cache: 3,686 of 5,120 prompt tokens a request found cached" (None: no feature)."""
    if est is None or est.serving is None:
        return None
    sv = est.serving
    parts = []
    if sv.speculative_method:
        parts.append(
            f"speculative decoding ({sv.speculative_method}): {sv.speculative_tokens_per_step:,.2f} "
            f"tokens a decode step ({sv.speculative_tokens} drafted, acceptance "
            f"{sv.speculative_acceptance_rate or 0:.3g})"
        )
    if sv.prefix_shared_tokens and not sv.prefix_turns:  # beside turns: the system prompt
        prompt = est.scenario.workload.prompt_tokens
        cached = sv.prefix_cached_tokens
        parts.append(f"prefix cache: {cached:,} of {prompt:,} prompt tokens a request found cached")
    chats = turns_part(est)
    if chats:
        parts.append(chats)
    if sv.lora_adapters:
        parts.append(
            f"{sv.lora_adapters:,} LoRA adapters, {sv.lora_loaded:,} on the GPU at once "
            f"(rank {sv.lora_rank}, {sv.lora_weight_bytes / 2**20:,.0f} MiB a GPU)"
        )
    tier = offload_part(est)
    if tier:
        parts.append(tier)
    return "; ".join(parts) or None


def offload_part(est: Estimate) -> str | None:
    """ "KV offload (cpu, 200 GB): each hit loads its cached KV in 20.2 ms, added to the first
    token; the tier holds the shared prefix". The Why said the prefix cache's tokens and nothing of the
    tier a buyer sized (``serving.kv_offload``): the 200 GB of host memory bought for a Qwen3 32B
    service with a 22K shared prompt, and the wait each hit adds to the first token
    (core/serving/kv_offload.py), were the estimate's alone."""
    sv, spec = est.serving, est.scenario.serving.kv_offload
    if sv is None or sv.kv_offload_holds_prefix is None or spec is None or spec.capacity_gb is None:
        return None  # no tier: the Why as before
    held = "holds" if sv.kv_offload_holds_prefix else "is too small for"
    what = "every live history" if sv.prefix_turns else "the shared prefix"
    # in ms, as the estimate's own "KV offload" line (io/serving_text.py)
    return (
        f"KV offload ({spec.medium or 'cpu'}, {spec.capacity_gb:,.4g} GB): each hit loads its cached KV "
        f"in {sv.kv_offload_load_seconds * 1e3:,.1f} ms, added to the first token; the tier {held} "
        f"{what}"
    )


def turns_part(est: Estimate) -> str | None:
    """ "multi-turn chats: 20 turns a conversation, mean prompt 11,250 tokens; 100% of turns
    after the first found their history (10,444 tokens a request cached, 4,163 of them loaded
    from the offload tier)" (Llama 3.1 8B on H100s, 800 + 300 tokens a turn, 500 GB of host KV).
    With ``serving.prefix.turns`` the row was sized for the mean turn's prompt, not the stated
    ``prompt_tokens``, and its prefill skips the history the cache still holds
    (core/serving/multi_turn.py); the Why read as for single prompts of the stated length. The
    figures are the estimate's report fields (``prefix_turns``, ``prefix_mean_prompt_tokens``,
    ``prefix_hit_rate``, ``prefix_cached_tokens``, ``prefix_offload_tokens``; tokens a request)."""
    sv = est.serving
    if sv is None or not sv.prefix_turns:
        return None  # no multi-turn chats: the Why as before
    tier = (
        f", {sv.prefix_offload_tokens:,} of them loaded from the offload tier"
        if est.scenario.serving.kv_offload is not None
        else ", none from an offload tier"
    )
    shared = sv.prefix_shared_tokens  # beside the turns: the system prompt
    system = f" (a {shared:,}-token system prompt held once)" if shared else ""
    return (
        f"multi-turn chats: {sv.prefix_turns:,} turns a conversation, mean prompt "
        f"{sv.prefix_mean_prompt_tokens:,} tokens{system}; {sv.prefix_hit_rate or 0:.0%} of turns after the "
        f"first found their history ({sv.prefix_cached_tokens:,} tokens a request cached{tier})"
        f"{_token_share(sv.prefix_cached_tokens, sv.prefix_mean_prompt_tokens)}"
    )


def _token_share(cached: int | None, prompt: int | None) -> str:
    """ "; 95.0% of prompt tokens read from the cache": cached over prompt tokens, the mean
    turn's, the share a trace's cache-read count reports. TraceLab's prefix hit ratio is
    ``prefix_tokens / (prefix_tokens + newly_append_tokens)`` a step
    (tracelab.cs.washington.edu/exp/prefix_cache/cache_hit_ratio), 52.6 of 54.9 B tokens, 95.8%:
    each turn's new tokens count as misses there, so the turns' share (100%) and it differ by
    definition, not by an eviction. Dimensionless (tokens over tokens)."""
    if not cached or not prompt:
        return ""
    return f"; {cached / prompt:.1%} of prompt tokens read from the cache"
