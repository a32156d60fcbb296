"""Sentences about a serving block (the report's ``serving``) and a training run's time and cost,
shared by ``gpusizer-cli estimate`` and the window's headline."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .band_text import banded_aside, ms, ms_one, pd_band_words, usd, with_band
from .evidence_text import TOOK, band_words, banded
from .wording import count, duration


def _users(n: int) -> str:
    return f"{n:,} user{'s' if n != 1 else ''}"


def user_tokens(sv: Mapping[str, Any], prompt: int, generated: int) -> int:
    """A request's tokens: prompt + output, the prompt the turns' mean for multi-turn chats
    (the report's ``prefix_mean_prompt_tokens``, core/serving/multi_turn.py)."""
    return (sv.get("prefix_mean_prompt_tokens") or prompt) + generated


def users_line(sv: Mapping[str, Any], tokens_per_user: int) -> str:
    """The headline: how many users the engine holds at ``tokens_per_user`` tokens each."""
    if not sv["starts"]:
        return f"{sv['engine']} does not start: {sv['reason']}"
    cap = int(sv["kv_capacity_tokens"])
    per = sv.get("kv_tokens_per_user") or tokens_per_user  # a capped cache holds fewer per user
    held = cap // per if per else 0
    limit = sv.get("max_sequences") or 0
    # The engine runs at most max_sequences requests at once (vLLM max_num_seqs, llama.cpp
    # n_parallel), however many more the KV cache could hold: the users it serves are the less.
    if 0 < limit < held:
        return (
            f"{count(limit, 'user')} at {tokens_per_user:,} tokens each (the engine's limit, "
            f"max_sequences {limit:,}; its {cap:,} KV tokens would hold {held:,}; "
            f"{sv['max_concurrency']:,.1f} at the full {sv['max_context']:,}-token context)"
        )
    return (
        f"{count(held, 'user')} at {tokens_per_user:,} tokens each "
        f"({cap:,} KV tokens; {sv['max_concurrency']:,.1f} at the full "
        f"{sv['max_context']:,}-token context)"
    )


def load_phrase(sv: Mapping[str, Any]) -> str:
    """The load the speed figures are for, in words (the report's ``serving.load``)."""
    n = int(sv["concurrency"])
    load = sv.get("load", "steady")
    if load == "burst":
        return f"a burst of {count(n, 'request')} at once"
    if load == "rate":
        return f"Poisson arrivals at {sv.get('request_rate') or 0:,.3g} requests/s"
    return f"{count(n, 'steady user')}"


def speed_line(sv: Mapping[str, Any]) -> str:
    """Time to first token (mean, p99), time per output token and tokens/s under the load."""
    held = "" if sv.get("load") == "rate" else f" (up to {sv['running']:,} at once)"
    rng = sv.get("ttft_seconds_range")
    fmt, unit = _ttft_unit(sv)
    band = f"{band_words(rng, fmt, sv['ttft_seconds'])} {unit}, " if rng else ""
    each, total = sv["tokens_per_second_per_user"], sv["tokens_per_second"]
    each_text = banded(f"{each:,.1f} tokens/s each", sv.get("tokens_per_second_per_user_range"), _one, each)
    total_text = banded(f"{total:,.0f} tokens/s in total", sv.get("tokens_per_second_range"), _whole, total)
    return (
        f"{load_phrase(sv)}{held}: first token "
        f"{fmt(sv['ttft_seconds'])} {unit} ({band}p99 {_p99(sv, fmt, unit)}), "
        f"{sv['tpot_seconds'] * 1e3:,.1f} ms per token, "
        f"{each_text}, {total_text}"
    )


def _p99(sv: Mapping[str, Any], fmt: Callable[[float], str] = ms, unit: str = "ms") -> str:
    """The p99 first token in ms with its band (the report's ``ttft_p99_seconds_range``), the
    unit before the band as the mean's: ``300 ms (250-350 ms)``; "300 (runs like this took
    250-350) ms" parted the figure from its unit."""
    if "ttft_p99_seconds" not in sv:
        return f"0 {unit}"
    v, rng = sv["ttft_p99_seconds"], sv.get("ttft_p99_seconds_range")
    return f"{fmt(v)} {unit} ({band_words(rng, fmt, v, TOOK)} {unit})" if rng else f"{fmt(v)} {unit}"


def _ttft_unit(sv: Mapping[str, Any]) -> tuple[Callable[[float], str], str]:
    """Milliseconds, or seconds where the first token (or its p99) takes 10 s or more: a
    70B on a Mac read "first token 34,674 ms (p99 61,590 ms)" beside the figures' "34.7 s"."""
    if max(sv["ttft_seconds"], sv.get("ttft_p99_seconds", 0.0)) >= 10:
        return _one, "s"
    return _ms, "ms"


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.0f}"


def _one(v: float) -> str:
    return f"{v:,.1f}"


def _whole(v: float) -> str:
    return f"{v:,.0f}"


def serving_lines(
    sv: Mapping[str, Any], tokens_per_user: int, split: Mapping[str, Any] | None = None
) -> list[str]:
    """The serving block as the CLI prints it (one fact per line); ``split``: the scenario's
    ``serving.disaggregated`` block (:func:`feature_lines`)."""
    lines = [f"  serving      {users_line(sv, tokens_per_user)}"]
    if sv["starts"] and sv["tokens_per_second"] > 0:  # none when the engine refuses the request
        lines.append(f"  speed        {speed_line(sv)}")
    if sv.get("host_memory_bytes"):
        lines.append(
            f"  system RAM   {sv['host_memory_bytes'] / 2**30:,.2f} GiB "
            f"(layers and KV kept off the GPU; {sv['gpu_layers']} layers on the GPU)"
        )
    if sv.get("cost_per_million_tokens") is not None:
        lines.append(f"  cost         {cost_per_million(sv)} per million output tokens")
    return lines + feature_lines(sv, split)


def cost_per_million(sv: Mapping[str, Any], fmt: Callable[[float], str] = lambda x: f"${x:,.2f}") -> str:
    """``$7.06 ($5.13-$9.52)``: the cost per million output tokens with its band (the report's
    ``cost_per_million_tokens_range``: price x GPUs / tokens per second, the speed band's)."""
    v = sv["cost_per_million_tokens"]
    return with_band(sv, "cost_per_million_tokens", fmt, True) if v is not None else ""


def feature_lines(sv: Mapping[str, Any], split: Mapping[str, Any] | None = None) -> list[str]:
    """Prefix caching, speculative decoding, LoRA, KV offload and the disaggregated pools, one
    line each when set (the report's ``prefix_*``, ``speculative_*``, ``lora_*``,
    ``kv_offload_*`` and ``disaggregated_*`` fields) and DeepEP's buffers
    (``moe_a2a_buffer_bytes``); ``split``: the scenario's
    ``serving.disaggregated`` block, whose prefill pool's own layout the split's line names."""
    out = []
    if sv.get("prefix_turns"):  # multi-turn chats: each conversation's own history
        mean = sv.get("prefix_mean_prompt_tokens", 0)
        shared = sv.get("prefix_shared_tokens") or 0  # the system prompt, beside the histories
        system = f"; the {shared:,}-token system prompt held once" if shared else ""
        out.append(
            f"  multi-turn   {sv['prefix_turns']} turns, mean prompt {mean:,} "
            f"tokens, {sv.get('prefix_cached_tokens', 0):,} of them cached per request (prefill skipped); "
            f"{sv.get('prefix_hit_rate') or 0:.0%} of later turns find their history{system}"
        )
    elif sv.get("prefix_shared_tokens") or sv.get("prefix_users_held") is not None:
        out.append(
            f"  prefix cache {sv.get('prefix_cached_tokens', 0):,} prompt tokens cached per request "
            f"(prefill skipped); the {sv.get('prefix_shared_tokens', 0):,}-token prefix held once: "
            f"{count(int(sv.get('prefix_users_held') or 0), 'user')} fit the KV cache"
        )
    if sv.get("speculative_method"):
        draft = sv.get("draft_weight_bytes") or 0
        weights = f", proposer {draft / 2**30:,.2f} GiB per GPU" if draft else ""
        out.append(
            f"  speculative  {sv['speculative_method']}: {sv.get('speculative_tokens', 0)} draft tokens, "
            f"acceptance {sv.get('speculative_acceptance_rate') or 0:.2f}, "
            f"{sv.get('speculative_tokens_per_step', 1.0):.2f} tokens per step{weights}"
        )
    if sv.get("lora_adapters"):
        out.append(
            f"  LoRA         {count(int(sv['lora_adapters']), 'adapter')} served, "
            f"{sv.get('lora_loaded', 0):,} on the GPU at once (rank {sv.get('lora_rank', 0)})"
            f"{_lora_in_use(sv)}: "
            f"{(sv.get('lora_weight_bytes') or 0) / 2**30:,.2f} GiB per GPU"
        )
    if sv.get("kv_offload_holds_prefix") is not None:
        held = "holds" if sv["kv_offload_holds_prefix"] else "is too small for"
        wait = sv.get("kv_offload_load_seconds", 0.0) * 1e3
        cap = sv.get("kv_offload_capacity_tokens") or 0
        # No load at all: the cached KV stays on the GPU at this load ("each hit loads its
        # cached KV in 0.0 ms" read as a free tier).
        loads = (
            f"each hit loads its cached KV in {wait:,.1f} ms (added to the first token)"
            if wait > 0
            else "no hit loads from it at this load (the cached KV stays on the GPU)"
        )
        out.append(
            f"  KV offload   {loads}; the tier ({cap:,} tokens) {held} "
            f"{'the histories' if sv.get('prefix_turns') else 'the shared prefix'}"
        )
    if sv.get("disaggregated_prefill_gpus"):
        out.append(_split_line(sv, split))
    if sv.get("moe_a2a_buffer_bytes"):
        out.append(
            f"  DeepEP       buffers {sv['moe_a2a_buffer_bytes'] / 2**30:,.2f} GiB per GPU (in overhead)"
        )
    return out


def training_line(compute: Mapping[str, Any], gpus: int) -> str | None:
    """Training time and cost (None when the scenario names no training tokens)."""
    if not compute.get("time_seconds"):
        return None
    # the GPU-hours and cost sit inside the line's parentheses, so their bands are asides
    # ("3.61 GPU-hours, runs like this 2.84-4.19"), as the window's run rows word them
    hours = banded_aside(
        gpu_hours(compute["gpu_hours"]), compute.get("gpu_hours_range"), _hours, compute["gpu_hours"]
    )
    cost = compute.get("cost")
    money = "" if cost is None else f"; {banded_aside(usd(cost), compute.get('cost_range'), usd, cost)}"
    rng = compute.get("time_seconds_range")
    band = f" ({band_words(rng, duration, compute['time_seconds'], TOOK, ' to ')})" if rng else ""
    took = f"{duration(compute['time_seconds'])}{band}"
    line = f"  training     {took} on {count(gpus, 'GPU')} ({hours}{money})"
    share, wall = compute.get("effective_time_share"), compute.get("wall_time_seconds")
    if share is None or wall is None:
        return line
    # the wall time's band in the training time's words ("1,051.8 to 1,553.3 days"), one range
    # style in one line
    wall_rng = compute.get("wall_time_seconds_range")
    wall_band = f" ({band_words(wall_rng, duration, wall, TOOK, ' to ')})" if wall_rng else ""
    return line + f"; {duration(wall)}{wall_band} of wall time at {share:.2%} effective (restarts, lost work)"


def _hours(hours: float) -> str:
    """A GPU-hour band's end, in ``gpu_hours``'s digits without its unit."""
    return f"{hours:,.0f}" if hours >= 10 else f"{hours:,.2f}"


def gpu_hours(hours: float) -> str:
    """``34,210 GPU-hours``; below ten with two digits (a short run read "0 GPU-hours")."""
    return f"{hours:,.0f} GPU-hours" if hours >= 10 else f"{hours:,.2f} GPU-hours"


# the prefill pool's own layout (serving.disaggregated), in the assumptions' words ("TP 8 x PP 1
# x DP 1 x CP 1, EP 8, attention DP 8")
_PREFILL_LAYOUT = (
    ("prefill_tensor", "TP {:,}"),
    ("prefill_attention_data", "attention DP {:,}"),
    ("prefill_expert", "EP {:,}"),
)


def prefill_layout(split: Mapping[str, Any] | None) -> str:
    """The prefill pool's own layout where the scenario sets it, `` (TP 8, attention DP 1, EP 1,
    1 request a rank at once)``; empty where it sets none (the pool runs the scenario's)."""
    split = split or {}
    parts = [fmt.format(split[k]) for k, fmt in _PREFILL_LAYOUT if split.get(k) is not None]
    if split.get("prefill_max_sequences") is not None:
        parts.append(f"{count(int(split['prefill_max_sequences']), 'request')} a rank at once")
    return f" ({', '.join(parts)})" if parts else ""


def _split_line(sv: Mapping[str, Any], split: Mapping[str, Any] | None = None) -> str:
    """The disaggregated pools' answer (the report's ``disaggregated_*``), beside the aggregated;
    the prefill pool's layout where ``split`` (the scenario's block) sets its own."""
    pools = (
        f"{sv['disaggregated_prefill_gpus']:,} prefill{prefill_layout(split)} + "
        f"{sv['disaggregated_decode_gpus']:,} decode GPUs"
    )
    wait = sv.get("disaggregated_decode_wait_seconds", 0.0)  # the decode pool full: users wait
    waits = f"{wait * 1e3:,.0f} ms waiting for a decode slot, " if wait else ""
    path = sv.get("disaggregated_path_seconds", 0.0)  # the connector's request path, where stated
    waits += f"P/D path {path * 1e3:,.1f} ms, " if path else ""
    ttft, ttft_band = _ms_and_band(sv, "disaggregated_ttft_seconds", ms)
    tpot, tpot_band = _ms_and_band(sv, "disaggregated_tpot_seconds", ms_one)
    waits = f"{ttft_band}; {waits}" if ttft_band else waits
    return (
        f"  split P/D    {pools}: first token {ttft} ({waits}KV transfer "
        f"{sv['disaggregated_kv_transfer_bytes'] / 1e9:,.2f} GB, "
        f"{sv['disaggregated_kv_transfer_seconds'] * 1e3:,.1f} ms), "
        f"{tpot}{f' ({tpot_band})' if tpot_band else ''} per token, "
        f"{with_band(sv, 'disaggregated_tokens_per_second', _whole)} tokens/s (aggregated above)"
        + (pd_band_words() if sv.get("disaggregated_tpot_seconds_range") else "")
    )


def _ms_and_band(sv: Mapping[str, Any], key: str, fmt: Callable[[float], str]) -> tuple[str, str]:
    """``("162 ms", "101-541 ms")``: a P/D pool's time and its band ("" without one), each
    with its unit, as the p99's (:func:`_p99`): "7.5 (runs like this took 7.6-17.2) ms per
    token" parted the figure from its unit."""
    v, rng = sv[key], sv.get(key + "_range")
    return f"{fmt(v)} ms", f"{band_words(rng, fmt, v, TOOK)} ms" if rng else ""


def _lora_in_use(sv: Mapping[str, Any]) -> str:
    """ ", N in use" where the requests use fewer adapters than are served (``lora_active``)."""
    active = sv.get("lora_active", sv["lora_adapters"])
    return "" if active == sv["lora_adapters"] else f", {active:,} in use"
