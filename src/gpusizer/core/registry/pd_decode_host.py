"""The host work a disaggregated (P/D) decode server's step waits for, where an engine's release
ran its decode server without the overlap scheduler that hides that work in its aggregated
servers (core/serving/disagg_decode_host.py adds it to each decode step of the split).

SGLang overlaps its scheduler with the GPU ("runs one batch ahead", SGLang v0.4 blog
2024-12-04), so its aggregated steps carry no host cost (core/registry/engine_releases_sglang.py).
A decode server of ``--disaggregation-mode decode`` did not until sgl-project/sglang PR 5608
("[PD] Support decode overlap schedule", ByronHsu, opened 2025-04-21, merged; "Add an event loop
for decode overlap schedule", ``event_loop_overlap_disagg_decode``, which PR 5788's thread of
2025-04-29 names as on main): before it ``server_args.py`` turned the overlap off on both P/D
servers ("Overlap scheduler is disabled for decode server"; docs/evidence/serving.md §21), and
the decode loop ran its scheduling, batch preparation and output processing serial with each
forward. The PR measured what that costs, on the same decode server before and after
(Llama-3.1-8B-Instruct, TP 4, 16 running requests; its ``Decode batch`` log lines): 3,053.86
output tokens/s without the overlap, 3,458.31 with it, so 16 / 3,053.86 - 16 / 3,458.31 =
0.613 ms a step that the GPU waited for. The PR merged between 2025-04-21 and 2025-04-29,
taken here as first released in 0.4.6 (the release dates were not read: a 0.4.5 post release
built after the merge would be charged wrongly). A stated release before it (0.4.5, which the
April 2025 P/D runs of SGLang PR 4880 and Mooncake's A10 pages ran) takes that cost on every
decode step of the split, a later or unstated one none. A release before 0.4.4 is taken as
having no decode server at all (sgl-project/sglang issue 2932 of 2025-01-17 still asks for P/D;
its first release was not read here), so a split stated at such a release names the memory
rules it runs under, not the server that ran (the SGLang team's May 2025 wide-EP replays state
0.4.3 that way, after PR 5608), and takes nothing. The prefill server's overlap came in a later
PR ("The prefill overlap will be in the next PR"); its host cost is not priced (no measurement
of it found).
"""

from __future__ import annotations

from dataclasses import dataclass

from .engines import version_key

# sgl-project/sglang PR 5608, the decode server's log before and after the change (16 running)
_RUNNING = 16
_TOKENS_S_SERIAL = 3053.86
_TOKENS_S_OVERLAPPED = 3458.31


@dataclass(frozen=True)
class DecodeServerHost:
    """An engine's P/D decode server without its overlap scheduler: ``seconds`` of host work a
    decode step waits for (s), in every release from ``pd_from`` (its first P/D release) to
    before ``overlap_from``."""

    pd_from: str
    overlap_from: str
    seconds: float
    source: str

    def serial_seconds(self, version: str | None) -> float:
        """Seconds a decode step of ``version`` waits for the host (0 unstated: the current
        release; 0 for a version of another family or unreadable)."""
        if version is None:
            return 0.0
        key, low, cut = (version_key(v) for v in (version, self.pd_from, self.overlap_from))
        if key is None or low is None or cut is None or key[0] != cut[0]:
            return 0.0
        return self.seconds if low[1] <= key[1] < cut[1] else 0.0


PD_DECODE_HOST: dict[str, DecodeServerHost] = {
    "sglang": DecodeServerHost(
        "0.4.4",
        "0.4.6",
        _RUNNING / _TOKENS_S_SERIAL - _RUNNING / _TOKENS_S_OVERLAPPED,
        "sgl-project/sglang PR 5608 (2025-04-21): Llama-3.1-8B-Instruct TP 4 decode server, 16 "
        "running, 3,053.86 tokens/s without the overlap schedule, 3,458.31 with it",
    ),
}


def decode_host_seconds(framework: str, version: str | None) -> float:
    """Host seconds a P/D decode step of ``framework`` at ``version`` waits for (0 where the
    engine's decode server overlaps its scheduler, or the release had none, or none is listed)."""
    rule = PD_DECODE_HOST.get(framework)
    return rule.serial_seconds(version) if rule else 0.0
