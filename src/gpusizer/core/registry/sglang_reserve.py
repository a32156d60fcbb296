"""What SGLang adds to the reserve behind its default ``mem_fraction_static`` for attention data
parallelism, speculative decoding and DeepEP, how it cuts a multimodal model's fraction and
where a speculative draft's memory goes, version by version (server_args.py, model_runner.py;
read from the released wheels, docs/evidence/serving.md "SGLang's reserve under DP attention,
speculative decoding, DeepEP and multimodal models").

The base reserve is the release's (core/serving/rules/static_free.py: ``by_tp`` 0.4.3,
``by_class`` 0.4.9, ``formula`` 0.5.3 on); these steps say what each version adds on top. A
step applies from its ``since`` version to the next step's; the version is the scenario's
``serving.engine_version`` (else the release's own), so a step inside one release of the
table (0.5.10 within 0.5.3's rules) is still read. MiB = 2^20 bytes, as SGLang counts.

Our speculative methods as SGLang's ``--speculative-algorithm``: ``draft_model`` STANDALONE
(0.5.2 on), ``eagle`` EAGLE, ``eagle3`` EAGLE3, ``mtp`` NEXTN (SGLang runs it as EAGLE),
``ngram`` NGRAM (0.5.3 on).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from .engines import version_key

# "none": no term; "flat": a fixed GiB whatever the DP size; "per_graph": cuda_graph_max_bs x
# dp_size x 3 MiB (x 4.5 above 300), before the 10 GiB floor
DpReserve = Literal["none", "flat", "per_graph"]
# a multimodal model's cut of the fraction: "all" any fraction x ``vlm_factor`` (model_runner.py,
# stated ones too), "default" only the default one, "vit" the default one x ``vlm_factor`` x
# the ViT's size (server_args.py ``adjust_mem_fraction_for_vlm``)
VlmCut = Literal["all", "default", "vit"]
ALL_METHODS = ("draft_model", "eagle", "eagle3", "mtp", "ngram")


@dataclass(frozen=True)
class ReserveStep:
    """The reserve terms of SGLang versions from ``since`` on: DP attention (``dp``, and
    ``dp_flat_mib`` where "flat"), MiB by speculative method (a method not named adds none),
    MiB with a DeepEP all-to-all backend; ``source`` the lines they transcribe;
    ``draft_after_pool`` where a speculative draft's weights and KV pool come after the target's
    pool, outside the fraction (model_executor/model_runner.py ``init_memory_pool``: the draft
    worker's ``max_total_num_tokens = draft_runner_cache_size``, the target's tokens; sglang
    issue 6875, PR 23862: "Target KV pool is over-allocated because memory profiling runs
    before draft weights are loaded. Draft KV pool (same max_total_num_tokens) is allocated on
    top without being budgeted")."""

    since: str
    dp: DpReserve
    dp_flat_mib: int
    speculative_mib: tuple[tuple[str, int], ...]
    deepep_mib: int
    source: str
    # the draft model loads after the target's pool is sized from the free memory, and its own
    # pool (the target's tokens) comes after it: both outside the fraction (True to 0.5.13)
    draft_after_pool: bool = True
    vlm: VlmCut = "vit"
    vlm_factor: float = 0.95

    def speculative(self, method: str | None) -> int:
        """MiB the speculative ``method`` adds (0 off or not named)."""
        return dict(self.speculative_mib).get(method or "", 0)

    def vlm_cut(self, layers: int, hidden: int, stated: bool) -> float:
        """What a multimodal model's fraction is multiplied by: its vision encoder's ``layers``
        and ``hidden`` width, ``stated`` where the scenario sets the fraction (1: no cut)."""
        if self.vlm != "all" and stated:
            return 1.0
        if self.vlm != "vit":
            return self.vlm_factor
        ratio = layers * hidden**2 / (24 * 1024**2)  # against ViT-L/14
        return self.vlm_factor * max(0.8, min(1.05, 1.0 - 0.1 * (ratio - 1.0)))


def _each(mib: int, *methods: str) -> tuple[tuple[str, int], ...]:
    return tuple((m, mib) for m in methods)


_EAGLES = ("eagle", "eagle3", "mtp")

STEPS: tuple[ReserveStep, ...] = (
    ReserveStep(
        "0.4.3",
        "none",
        0,
        (),
        0,
        "sglang 0.4.3.post2 server_args.py __post_init__: mem_fraction_static by tp_size only; "
        "enable_dp_attention halves chunked_prefill_size and EAGLE / NEXTN set it to -1, "
        "neither changes the fraction; model_runner.py: 'if self.is_multimodal: "
        "self.mem_fraction_static *= 0.95' (any fraction, stated too)",
        vlm="all",
    ),
    ReserveStep(
        "0.4.6",
        "none",
        0,
        (),
        0,
        "sglang 0.4.6 model_runner.py: 'if self.is_multimodal: self.mem_fraction_static *= "
        "0.90' (any fraction); server_args.py: no DP-attention or speculative term",
        vlm="all",
        vlm_factor=0.90,
    ),
    ReserveStep(
        "0.4.8",
        "flat",
        4 * 1024,
        _each(2 * 1024, *ALL_METHODS),
        0,
        "sglang 0.4.8 - 0.5.1 server_args.py __post_init__: 'if self.speculative_algorithm is "
        "not None: # draft model and larger cuda graph buffers reserved_mem += 2 * 1024'; 'if "
        "self.enable_dp_attention: reserved_mem += 4 * 1024' (not scaled by dp_size); "
        "algorithms EAGLE, EAGLE3, NEXTN; 0.4.8 model_runner.py multimodal x 0.90 (any "
        "fraction)",
        vlm="all",
        vlm_factor=0.90,
    ),
    ReserveStep(
        "0.4.9",
        "flat",
        4 * 1024,
        _each(2 * 1024, *ALL_METHODS),
        0,
        "sglang 0.4.9 server_args.py __post_init__: the 0.4.8 terms; 'if "
        "model_config.is_multimodal: self.mem_fraction_static *= 0.90' inside 'if "
        "self.mem_fraction_static is None' (the default only)",
        vlm="default",
        vlm_factor=0.90,
    ),
    ReserveStep(
        "0.4.10",
        "flat",
        4 * 1024,
        _each(2 * 1024, *ALL_METHODS),
        0,
        "sglang 0.4.10 server_args.py adjust_mem_fraction_for_vlm (the default only): 0.95 x "
        "clamp(1 - 0.1 x (layers x hidden^2 / (24 x 1024^2) - 1), 0.8, 1.05) of the vision "
        "config (the same in 0.5.3 and 0.5.23 arg_groups/memory_hook.py)",
    ),
    ReserveStep(
        "0.5.2",
        "flat",
        4 * 1024,
        (("draft_model", 6 * 1024), *_each(2 * 1024, *_EAGLES, "ngram")),
        0,
        "sglang 0.5.2 server_args.py __post_init__: 'if self.speculative_algorithm == "
        '"STANDALONE": reserved_mem += 6 * 1024\' else 2 * 1024; DP attention 4 * 1024',
    ),
    ReserveStep(
        "0.5.3",
        "per_graph",
        0,
        (("draft_model", 6 * 1024), *_each(2 * 1024, *_EAGLES)),
        0,
        "sglang 0.5.3 - 0.5.9 server_args.py _handle_gpu_memory_settings: 'if "
        "self.enable_dp_attention: reserved_mem += self.cuda_graph_max_bs * self.dp_size * 3', "
        "'if self.cuda_graph_max_bs > 300: reserved_mem += self.cuda_graph_max_bs * "
        "self.dp_size * 1.5', both before the 10 GiB floor; after it STANDALONE 6 * 1024, "
        "'elif self.speculative_algorithm != \"NGRAM\"' 2 * 1024",
    ),
    ReserveStep(
        "0.5.10",
        "per_graph",
        0,
        (("draft_model", 6 * 1024), *_each(4 * 1024, *_EAGLES)),
        0,
        "sglang 0.5.10 - 0.5.13 server_args.py _handle_gpu_memory_settings: the EAGLE / NEXTN "
        "term 'reserved_mem += 4 * 1024' (STANDALONE 6, NGRAM none)",
    ),
    ReserveStep(
        "0.5.14",
        "per_graph",
        0,
        (),
        0,
        "sglang 0.5.14 server_args.py _handle_gpu_memory_settings: no speculative term (sglang "
        "PR 23862, 2026-04-27: the flat 4 / 6 GB reservation gives way to the draft's weights "
        "and KV budgeted inside the fraction)",
        draft_after_pool=False,
    ),
    ReserveStep(
        "0.5.15",
        "per_graph",
        0,
        (),
        2 * 1024,
        "sglang 0.5.15 server_args.py, 0.5.22 / 0.5.23 arg_groups/memory_hook.py "
        "reserve_for_deepep_a2a_mb: 'DeepEP all-to-all buffers captured in the decode graph "
        "are real extra allocations': 2 * 1024 after the floor when moe_a2a_backend == "
        '"deepep" and decode CUDA graphs run; the DP term reads attn_dp_size',
        draft_after_pool=False,
    ),
)


@lru_cache(maxsize=64)
def reserve_step(version: str) -> ReserveStep:
    """The step that applies to SGLang ``version`` (the newest not newer; the first for an
    older or unreadable one). Kept by version: ``STEPS`` is fixed and the row frozen."""
    key = version_key(version)
    if key is None:
        return STEPS[0]
    older = [s for s in STEPS if (k := version_key(s.since)) is not None and k[1] <= key[1]]
    return older[-1] if older else STEPS[0]
