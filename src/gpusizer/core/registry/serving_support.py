"""Which serving features each engine runs (``FrameworkProfile.serving_features``): one
:class:`FeatureTable` per serving engine, each feature's modes with the engine's own switch
and the source that says so (contract: docs/scenario-format.md "Serving features each engine
runs"). The scenario's engine refuses a feature (or a mode of it) its table leaves out, one
line naming the field and the engine's modes (core/pipeline/validate_features.py).

Features and their modes: ``speculative`` the methods (``serving.speculative.method``),
``prefix`` "on", ``lora`` "many" (adapters chosen per request) or "one" (a single adapter
baked into the served model), ``kv_offload`` the media (``serving.kv_offload.medium``: "cpu",
"disk"), ``disaggregated`` "on". Where a source is unclear the mode is allowed and the entry
says so in its ``note``: a deployment that may run is never refused. A mode's first release
(``Support.since``, from the PR that added it and the first tag holding it, or the release
notes) refuses an explicit older release of the family; where no source establishes it, or a
published replay ran the mode on an older release, the mode is not gated and the note says why.

Ollama is a release family of the llama.cpp profile (engine versions "ollama-..."): its
releases carry their own table (``EngineRelease.features``, core/registry/engine_releases_cpp.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from .draft_trees import SGLANG_TREE, VLLM_TREE, DraftTree

FEATURES = ("speculative", "prefix", "lora", "kv_offload", "disaggregated")
ON = (("on", ""),)


@dataclass(frozen=True)
class Support:
    """One feature on one engine: ``modes`` (value, the engine's switch) it runs, empty when it
    runs none; ``source`` the docs or source file (and the release it arrived in) that say so;
    ``note`` what is uncertain, or what the engine runs instead."""

    modes: tuple[tuple[str, str], ...]
    source: str
    note: str = ""
    # (mode, the first version that runs it, as the engine prints versions): an explicit
    # ``serving.engine_version`` of the same family below it is refused (engines.version_key)
    since: tuple[tuple[str, str], ...] = ()

    def first(self, mode: str) -> str | None:
        """The first version that runs ``mode`` (None: every release in the table)."""
        return next((v for m, v in self.since if m == mode), None)

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(m for m, _ in self.modes)

    def runs(self, mode: str) -> bool:
        return mode in self.values

    def listed(self) -> str:
        """The modes as a message lists them: ``draft_model (--model-draft), ngram (...)``."""
        return ", ".join(f"{m} ({flag})" if flag else m for m, flag in self.modes)


def refused(source: str, note: str = "") -> Support:
    """A feature the engine does not run."""
    return Support((), source, note)


@dataclass(frozen=True)
class FeatureTable:
    """One engine's serving features; ``engine`` names it in messages."""

    engine: str
    speculative: Support
    prefix: Support
    lora: Support
    kv_offload: Support
    disaggregated: Support
    # speculative "mtp": a draft count above the checkpoint's MTP layers must be a multiple of
    # them (vLLM SpeculativeConfig, core/serving/mtp_depth.py); other engines reuse them freely
    mtp_reuse_divides: bool = False
    # SGLang's top-k draft tree (core/registry/draft_trees.py); None: not judged
    draft_tree: DraftTree | None = None

    def of(self, feature: str) -> Support:
        return getattr(self, feature)


VLLM_FEATURES = FeatureTable(
    "vLLM",
    speculative=Support(
        (
            ("draft_model", '--speculative-config method "draft_model"'),
            ("eagle", 'method "eagle"'),
            ("eagle3", 'method "eagle3"'),
            ("mtp", 'method "mtp" (deepseek_mtp before)'),
            ("ngram", 'method "ngram"'),
        ),
        "vLLM docs features/speculative_decoding (draft_model, eagle, eagle3, mtp, ngram; "
        "SpeculativeConfig.method); DeepSeek MTP: PR 12755 (opened 2025-02-04, first in 0.7.3); "
        "EAGLE-3: PR 16937 ('[V1][Spec Decode] EAGLE-3 Support', 2025-04-21, first in 0.8.5)",
        "eagle (PR 6830, 2024-08) ran in V0 before 0.6.4, the oldest release modelled, draft_model "
        "and ngram before it: not gated. V1 ran draft models later than EAGLE and n-gram (V0 ran them all)",
        since=(("mtp", "0.7.3"), ("eagle3", "0.8.5")),
    ),
    prefix=Support((("on", "--enable-prefix-caching"),), "vLLM docs features/automatic_prefix_caching"),
    lora=Support((("many", "--enable-lora --max-loras --max-cpu-loras"),), "vLLM docs features/lora"),
    kv_offload=Support(
        (("cpu", "--kv-offloading-size (OffloadingConnector) or LMCache"), ("disk", "LMCache local_disk")),
        "vLLM docs features/disagg_prefill and examples/others/lmcache (KV connectors); the "
        "OffloadingConnector (vLLM blog 'Inside vLLM's new KV offloading connector', 2026-01-08)",
        "not gated: LMCache ran vLLM's CPU and disk tiers through its own wrapper before vLLM's "
        "connectors, so no release a tier arrived in is established",
    ),
    disaggregated=Support(
        (("on", "--kv-transfer-config NixlConnector / P2pNcclConnector"),),
        "vLLM docs features/disagg_prefill (KV connectors: NixlConnector, P2pNcclConnector); the first "
        "connector (PyNcclConnector): PR 10502 '[Core] Implement disagg prefill by StatelessProcessGroup', "
        "merged after 0.6.4 (2024-11-15); issue 11490 runs --kv-transfer-config on the v0.6.5 image",
        "not gated: triton_distributed ran a split on vLLM 0.6.3.post1 with its own patch (a published "
        "replay, tests/core/data/serving-features.json, as release 0.6.4); NixlConnector and "
        "P2pNcclConnector are V1 connectors of later releases",
    ),
    mtp_reuse_divides=True,
    draft_tree=VLLM_TREE,
)

SGLANG_FEATURES = FeatureTable(
    "SGLang",
    speculative=Support(
        (
            ("draft_model", "--speculative-algorithm STANDALONE"),
            ("eagle", "--speculative-algorithm EAGLE"),
            ("eagle3", "--speculative-algorithm EAGLE3"),
            ("mtp", "--speculative-algorithm NEXTN"),
            ("ngram", "--speculative-algorithm NGRAM"),
        ),
        "SGLang docs advanced_features/speculative_decoding; python/sglang/srt/speculative/"
        "spec_info.py SpeculativeAlgorithm: EAGLE, EAGLE3, STANDALONE, NGRAM (NEXTN read as EAGLE); "
        "EAGLE-3: PR 4247 ('[Feature] Support EAGLE 3', opened 2025-03-10, after the 0.4.3 releases)",
        "EAGLE (PR 2150, 2024-12) runs in every release modelled; NEXTN, STANDALONE and NGRAM "
        "arrived later than EAGLE, their first releases not read: not gated",
        since=(("eagle3", "0.4.4"),),
    ),
    prefix=Support((("on", "RadixAttention, on by default"),), "SGLang docs: RadixAttention prefix cache"),
    lora=Support((("many", "--lora-paths --max-loras-per-batch"),), "SGLang docs advanced_features/lora"),
    kv_offload=Support(
        (("cpu", "--enable-hierarchical-cache (HiCache)"), ("disk", "--hicache-storage-backend file")),
        "SGLang docs advanced_features/hicache (host memory tier, storage backends); "
        "--enable-hierarchical-cache: PR 2693, ready to merge 2025-01-28, before 0.4.3 (2025-02)",
        "cpu runs in every release modelled; the disk backends' first release was not read: not gated",
    ),
    disaggregated=Support(
        (("on", "--disaggregation-mode prefill|decode"),),
        "SGLang docs advanced_features/pd_disaggregation",
        "not gated: the large-scale-EP P/D replays run SGLang of May 2025 as release 0.4.3's rules "
        "(tests/core/data/disagg-large-ep-decode.json), the oldest release modelled",
    ),
    draft_tree=SGLANG_TREE,
)

TRTLLM_FEATURES = FeatureTable(
    "TensorRT-LLM",
    speculative=Support(
        (
            ("draft_model", "DraftTargetDecodingConfig"),
            ("eagle", "EagleDecodingConfig"),
            ("eagle3", "EagleDecodingConfig eagle3_one_model"),
            ("mtp", "MTPDecodingConfig"),
            ("ngram", "NGramDecodingConfig"),
        ),
        "TensorRT-LLM docs features/speculative-decoding (draft-target, EAGLE/EAGLE-3, MTP, "
        "NGram, Medusa, ReDrafter, lookahead); tensorrt_llm/llmapi/llm_args.py; docs/source/"
        "release-notes.md: 0.15.0 'Added support for EAGLE', 'prompt-lookup speculative decoding'; "
        "0.19.0 'Added Multi-Token Prediction (MTP) support', 'initial EAGLE-3 implementation'",
        "draft-target's first release was not read (0.14.0 already runs a draft model): not gated",
        since=(("eagle", "0.15.0"), ("ngram", "0.15.0"), ("mtp", "0.19.0"), ("eagle3", "0.19.0")),
    ),
    prefix=Support((("on", "KvCacheConfig enable_block_reuse"),), "TensorRT-LLM docs features/kvcache"),
    lora=Support((("many", "LoraConfig max_loras / max_cpu_loras"),), "TensorRT-LLM docs features/lora"),
    kv_offload=Support(
        (("cpu", "KvCacheConfig host_cache_size"), ("disk", "Dynamo KVBM through its KV connector")),
        "TensorRT-LLM docs features/kvcache 'Host offloading' (host_cache_size)",
        "the engine's own tier is host memory; a disk tier comes from NVIDIA Dynamo's KV block manager",
    ),
    disaggregated=Support(
        (("on", "trtllm-serve disaggregated"),),
        "TensorRT-LLM docs features/disagg-serving",
        "runs in 0.19.0 (its release notes refactor the disaggregated serving scripts); the first "
        "release was not read, so 0.5.0 is not refused",
    ),
)

LLAMA_CPP_FEATURES = FeatureTable(
    "llama.cpp",
    speculative=Support(
        (("draft_model", "--model-draft"), ("ngram", "--spec-type ngram-simple")),
        "llama-server speculative decoding: PR 10455 (commit 9ca2e677, 2024-11-25: build 4164 in "
        "ggml-ci's log, --model-draft / -md); tools/server/README.md --spec-type ngram-*",
        "no EAGLE, EAGLE-3 or MTP head runs in llama-server; the n-gram type is newer than the draft "
        "model (llama-lookup before it was a separate example): its first build is not checked",
        since=(("draft_model", "b4164"),),
    ),
    prefix=Support(
        (("on", "cache_prompt (default) / --cache-reuse"),),
        "tools/server/README.md: each slot reuses its cached prompt prefix (cache_prompt true)",
    ),
    lora=Support(
        (("many", "--lora, per-request 'lora' scales"),),
        "tools/server/README.md --lora / POST /lora-adapters (PR 8857), per request (PR 10994)",
    ),
    kv_offload=Support(
        (("cpu", "--cache-ram"),),
        "llama-server host-memory prompt cache: PR 16391 (merged 2025-10, --cache-ram, 8192 MiB default)",
        "disk: only slot save / restore by hand (--slot-save-path), not a cache tier",
    ),
    disaggregated=refused(
        "llama-server has no prefill/decode split (tools/server/README.md); only proof-of-concept "
        "work outside its releases",
    ),
)

OLLAMA_FEATURES = FeatureTable(
    "Ollama",
    speculative=refused(
        "ollama/ollama issue 5800 (open: --model-draft is not exposed); PR 8134 closed unmerged",
    ),
    prefix=Support(
        (("on", "its runner's input cache"),),
        "ollama runner InputCache: a slot's cached prefix is reused (runner/ollamarunner/cache.go)",
    ),
    lora=Support(
        (("one", "ADAPTER in a Modelfile"),),
        "ollama docs/modelfile.md ADAPTER: the adapter is applied to the model when it loads; no "
        "hot-swap or per-request adapter (issue 9548 open, PR 14032 unmerged)",
    ),
    kv_offload=refused(
        "its runner keeps the prompt cache in the model's KV only through v0.17; issue 18264 "
        "(2026-09) shows a later Ollama running llama-server's host prompt cache (--cache-ram)",
    ),
    disaggregated=refused("Ollama serves each model from one runner (no prefill/decode split)"),
)

MLX_FEATURES = FeatureTable(
    "MLX (mlx-lm)",
    speculative=Support(
        (("draft_model", "--draft-model"),),
        "mlx_lm/generate.py speculative_generate_step, mlx_lm.server --draft-model --num-draft-tokens",
    ),
    prefix=Support(
        (("on", "prompt cache"),),
        "mlx_lm/server.py reuses the cached prompt (trim_prompt_cache); mlx_lm.cache_prompt",
    ),
    lora=Support(
        (("many", "--adapter-path, request 'adapters'"),),
        "mlx_lm SERVER.md: --adapter-path and a request's 'adapters' path (the model reloaded for another)",
        "adapters are swapped by reloading, not batched together",
    ),
    kv_offload=refused(
        "unified memory: the host is the GPU's memory, no separate tier (mlx-lm keeps prompt caches in "
        "the same pool; saved cache files are loaded by hand)",
    ),
    disaggregated=refused("mlx-lm has no prefill/decode split (mlx_lm/server.py, one model process)"),
)

HF_FEATURES = FeatureTable(
    "Hugging Face transformers",
    speculative=Support(
        (
            ("draft_model", "generate(assistant_model=...)"),
            ("ngram", "generate(prompt_lookup_num_tokens=...)"),
            ("mtp", "multi-token prediction"),
        ),
        "transformers docs assisted_decoding: speculative decoding (assistant_model), prompt "
        "lookup decoding; its v5 guide adds a 'Multi-token prediction (MTP)' section",
        "no EAGLE head runs in generate(); MTP allowed as unclear (the release it arrived in was not read)",
    ),
    prefix=Support(
        (("on", "a prefilled cache copied per request"),),
        "transformers docs kv_cache 'Prefill a cache (prefix caching)'",
    ),
    lora=Support(
        (("many", "PEFT load_adapter, adapter_names per row"),),
        "PEFT docs 'Inference with different LoRA adapters in the same batch' (adapter_names)",
    ),
    kv_offload=refused(
        "generate() keeps no prefix-cache tier; its OffloadedCache moves the live cache of a "
        "request, not a cache of prefixes (transformers docs kv_cache)",
    ),
    disaggregated=refused("transformers' generate runs prefill and decode in one process"),
)
