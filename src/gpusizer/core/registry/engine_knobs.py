"""The engine families' own release fields, as typed sub-objects of an ``EngineRelease``
(core/registry/engines.py): vLLM's budget and sampler, SGLang's fraction and AITER backend,
llama.cpp's runner (shared by Ollama) and Ollama's own estimate. Each mode is a closed set
mypy checks; the rules ask the knobs, never their strings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# A release's modes, each a closed set mypy checks (the rules ask the release, never its strings).
ChunkedPrefill = Literal["always", "long_context", "off"]
BudgetSnapshot = Literal["none", "before_nccl", "after_nccl"]
SGLangReserve = Literal["by_tp", "by_class", "formula"]
SGLangAiter = Literal["", "fraction_cut", "after_pool"]
OllamaEstimate = Literal["uniform", "per_layer"]
OllamaWeightsLog = Literal["blocks_kv", "blocks", "blocks_output"]
LONG_CONTEXT_CHUNKING = 32768  # vLLM V0 chunks prefill only above this max_model_len


@dataclass(frozen=True)
class VLLMKnobs:
    """vLLM's own defaults (core/serving/rules/vllm.py): its profile run's sampler, the bytes
    inside its budget, where the budget's snapshot is taken, its start-up check, and whether
    the pool pays for the CUDA graphs. The defaults leave another engine's memory alone."""

    sampler_bytes_per_logit: float = 0.0  # profile-run sampler peak per (sequence x vocab)
    # ... when FlashInfer's top-k/top-p sampler runs instead (0: no FlashInfer rule for this
    # release); ``serving.flashinfer_sampler`` says whether it does, null this release's
    # default install and setting (``flashinfer_sampler_default``)
    flashinfer_sampler_bytes_per_logit: float = 0.0
    flashinfer_sampler_default: bool = False
    non_torch_bytes: int = 0  # inside the budget on one GPU
    comm_bytes: int = 0  # more inside the budget when TP x PP > 1 ...
    comm_per_peer_bytes: int = 0  # ... and this per other rank (NCCL / all-reduce buffers)
    # GPU links (``GPUSpec.interconnect_kind``) on which that growth is not charged to a TP
    # group: V1's was measured on NVLink; on PCIe vLLM logs its non-torch without it
    # (engine_releases_vllm_v1.py)
    comm_free_links: tuple[str, ...] = ()
    context_in_budget: bool = False  # the CUDA context lies inside the fraction (V0)
    # Where vLLM V1 takes the memory snapshot its budget counts from (v1/worker/gpu_worker.py):
    # "none" (0.8.x: no snapshot, non-torch = device used - torch allocated, so the CUDA context
    # and NCCL's buffers count inside the fraction), "before_nccl" (0.9.1-0.10.x: init_snapshot
    # before init_worker_distributed_environment: the context outside, NCCL inside) or
    # "after_nccl" (0.11.0 on: both outside)
    budget_snapshot: BudgetSnapshot = "after_nccl"
    # the engine refuses unless fraction x total is free at start (V1 gpu_worker
    # init_device; V0 has no such check)
    startup_free_check: bool = True
    graphs_in_pool: bool = False  # the KV pool pays for the graphs
    # V0's Punica LoRA kernels (vllm/lora/ops/triton_ops bgmv_shrink / bgmv_expand: one program
    # per token, each loading its adapter's weights; sgmv per 32-token tile of a prompt), where
    # V1's group a step's tokens by adapter (core/serving/lora_serving.py)
    lora_gather_per_token: bool = False
    # the CPU offloading connector copies each block layer by layer (0.11.x: per-layer KV
    # tensors), not as one contiguous block across the layers (0.12.0 on; kv_offload.py)
    offload_copies_per_layer: bool = False
    # V0's output processing (``LLMEngine._process_model_outputs``: detokenising, stop checks,
    # the request outputs), which ``--disable-async-output-proc`` runs between steps while the
    # GPU waits: seconds a step, fixed and per sequence sampled (``serving.async_output``
    # false; (0, 0): the release has no V0 engine to run so)
    serial_output: tuple[float, float] = (0.0, 0.0)

    def before_snapshot(self, outside: int, nccl: int) -> int:
        """What lies outside the budget's snapshot of ``outside`` bytes on the device (NCCL's
        ``nccl`` of them): see ``budget_snapshot``."""
        if self.budget_snapshot == "none":
            return 0
        return outside - nccl if self.budget_snapshot == "before_nccl" else outside

    def uses_flashinfer_sampler(self, flashinfer: bool | None) -> bool:
        """Whether the profile run samples with FlashInfer: as the scenario says
        (``serving.flashinfer_sampler``), else as this release does by default."""
        use = self.flashinfer_sampler_default if flashinfer is None else flashinfer
        return bool(use and self.flashinfer_sampler_bytes_per_logit)

    def sampler_bytes(self, flashinfer: bool | None) -> float:
        """Bytes per (sequence x vocab) of the profile run's sampler peak: FlashInfer's
        top-k/top-p path where it runs (:meth:`uses_flashinfer_sampler`), else the release's
        other path."""
        if self.uses_flashinfer_sampler(flashinfer):
            return self.flashinfer_sampler_bytes_per_logit
        return self.sampler_bytes_per_logit


@dataclass(frozen=True)
class LlamaCppKnobs:
    """llama.cpp's own defaults, which Ollama's runner shares (core/serving/offload.py)."""

    context_tiers: tuple[tuple[float, int], ...] = ()  # Ollama num_ctx: (min GiB, tokens)
    output_in_gpu_layers: bool = True  # llama.cpp -ngl counts the output layer
    kv_unified: bool = False  # llama.cpp: every sequence may use the whole n_ctx
    ubatch_tokens: int = 512  # llama.cpp n_ubatch
    # a window model's window layers in their own small cache (core/serving/llama_swa.py;
    # PR 13194, May 2025): builds from then on
    swa_cache: bool = False
    # what a Gated DeltaNet layer runs in a one-token decode (core/speed/ggml_gdn.py); "": not
    # read (the build predates the fused op), counted as an attention layer
    gdn_decode: str = ""


@dataclass(frozen=True)
class SGLangKnobs:
    """SGLang's own defaults (server_args.py): how ``mem_fraction_static`` is chosen
    (``reserve``: "by_tp" 0.4.3, "by_class" 0.4.9-0.5.1, "formula" 0.5.3 on) and its AITER
    backend on AMD GPUs (core/serving/aiter.py; ``aiter``: "" none (0.4.3), "fraction_cut"
    (0.4.9-0.5.x: mem_fraction_static x 0.85 above 8,192 tokens of context, the workspace
    after the pool) or "after_pool" (2026: no cut for the default backend, the workspace
    after)); ``decode_graphs``: the decode batch sizes the release captures as CUDA graphs
    before its ``cuda_graph_max_bs`` cut (:meth:`graph_sizes`; empty where not read)."""

    reserve: SGLangReserve = "formula"
    aiter: SGLangAiter = ""
    decode_graphs: tuple[int, ...] = ()

    def graph_sizes(self, max_bs: int) -> tuple[int, ...]:
        """The decode batch sizes captured under ``cuda_graph_max_bs`` = ``max_bs``: a larger
        batch runs eager, a smaller one pads to the next size (model_executor/
        cuda_graph_runner.py ``get_batch_sizes_to_capture``, ``can_run``: ``batch_size <=
        max_bs``, ``replay_prepare``: ``bisect_left(capture_bs, raw_bs)``). Empty where the
        release's list was not read."""
        return tuple(b for b in self.decode_graphs if b <= max_bs)

    @property
    def reserve_by_tp(self) -> bool:
        """SGLang 0.4.3: the default fraction by TP size alone, no reserve to add to."""
        return self.reserve == "by_tp"

    @property
    def aiter_cuts_fraction(self) -> bool:
        """SGLang 0.4.9-0.5.x: AITER cuts mem_fraction_static above 8,192 tokens of context."""
        return self.aiter == "fraction_cut"


@dataclass(frozen=True)
class OllamaKnobs:
    """Ollama's placement by its own estimate (core/serving/ollama_estimate.py): ``estimate``
    "uniform" (every layer's KV at the whole context, to v0.6.2) or "per_layer" (window layers
    their window, v0.6.3 on); gpt-oss's graph.partial as a multiple of graph.full (its branch,
    v0.11.0); the vision projector on the first GPU up front (to v0.7.0); the placement order
    (``layers_forward``: blk.0 first, to v0.6.x; else from the last block backwards, v0.7.0
    on, llm/memory.go commit 0478d440f); what its ``memory.weights`` line adds up
    (llm/memory.go MemoryEstimate.LogValue: "blocks_kv" to v0.6.0: total = blocks + their KV,
    repeating = total - output; "blocks" v0.6.1 - v0.6.2: total = repeating = blocks;
    "blocks_output" v0.6.3 on)."""

    estimate: OllamaEstimate = "per_layer"
    gptoss_partial: float = 0.0
    # gpt-oss's graph.full as a multiple of heads / kv_heads x kvTotal / 6 (v0.11.0 - v0.11.4:
    # 4; v0.11.5 on: the branch sets partial = 2 x heads / kv_heads x kvTotal / 6 and no full,
    # so full = partial: 2 with gptoss_partial 1)
    gptoss_full: float = 4.0
    projector_first: bool = False
    layers_forward: bool = False
    weights_log: OllamaWeightsLog = "blocks_output"

    @property
    def windows(self) -> bool:
        """Ollama's estimate gives window layers their window (v0.6.3 on)."""
        return self.estimate == "per_layer"


# The knobs of a release of another family (the defaults leave its memory alone).
NO_VLLM = VLLMKnobs()
NO_LLAMA_CPP = LlamaCppKnobs()
