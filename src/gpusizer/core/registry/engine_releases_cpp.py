"""llama.cpp and Ollama releases: the defaults that decide their memory.

As core/registry/engine_releases.py, for the llama.cpp family (TensorRT-LLM's are in
core/registry/engine_releases_trtllm.py). Every figure names the file, function and version it
was read from; docs/evidence/serving.md holds the excerpts. GiB = 2^30.
"""

from __future__ import annotations

from typing import Any

from .engine_knobs import LlamaCppKnobs, OllamaKnobs
from .engine_releases_trtllm import TENSORRT_LLM
from .engines import EngineRelease, Scheduling, StepCost, us
from .serving_support import OLLAMA_FEATURES

__all__ = ["LLAMA_CPP", "TENSORRT_LLM"]

# Host costs (core/registry/engines.py StepCost; docs/evidence/speed.md).
# llama.cpp launches each ggml node from the host at 9.4 us when a step is not one CUDA graph:
# without graphs an H100 PCIe decodes LLaMA-2 7B Q4_K_M at 143.35 tokens/s (6.98 ms for the
# 740 kernels of 32 layers, core/speed/step_kernels.py), with graphs at 163.83 (ggml-org/llama.cpp#6763).
_GGML_STEPS = (("", StepCost(step=0.0, launch=9.4 * us, torch_launch=False)),)
# llama.cpp: the server batches prompt tokens with the slots' decodes; each slot holds its
# context; CUDA graphs for a batch of one token only ("for a batch size of 1 it's faster but
# for batch sizes >> 1 it's slower", PR #6766).
_GGML = Scheduling(mixed=True, admission="reserve", graph_batch=1, graph_prefill=False)
_ESTIMATE = (
    "ollama llm/memory.go EstimateGPULayers and fs/ggml/ggml.go GraphSize (v0.5.7 - v0.12): "
    "layers placed by Ollama's own estimate of the graph and the KV (core/serving/"
    "ollama_estimate.py)"
)


def _ollama(version: str, date: str, parallel: int, ctx: int, **kw: Any) -> EngineRelease:
    """An Ollama release: its default OLLAMA_NUM_PARALLEL and num_ctx; llama.cpp's runner
    underneath (output layer outside -ngl's count, no CUDA graphs, whole prompts)."""
    return EngineRelease(
        version,
        date,
        None,
        max_sequences=parallel,
        llama_cpp=LlamaCppKnobs(context_tiers=((0, ctx),), output_in_gpu_layers=False),
        kv_block_tokens=1,
        chunked_prefill="off",
        cuda_graphs=False,
        steps=_GGML_STEPS,
        scheduling=_GGML,
        features=OLLAMA_FEATURES,
        **kw,
    )


def _llama_cpp(version: str, date: str, *, cuda_graphs: bool, swa: bool = False, **kw: Any) -> EngineRelease:
    """A llama.cpp build as llama-server / llama-bench run it: one sequence, the output layer
    outside -ngl's count, whole prompts, one-token KV cells; whether decode replays CUDA graphs
    and whether window layers get their own small cache (``swa``: PR 13194, May 2025 on)."""
    return EngineRelease(
        version,
        date,
        None,
        max_sequences=1,
        llama_cpp=LlamaCppKnobs(output_in_gpu_layers=False, swa_cache=swa),
        kv_block_tokens=1,
        chunked_prefill="off",
        cuda_graphs=cuda_graphs,
        steps=_GGML_STEPS,
        scheduling=_GGML,
        **kw,
    )


LLAMA_CPP = (
    _llama_cpp(
        "b2500",
        "2024-03",
        cuda_graphs=False,
        sources=(
            "llama.cpp 2024 logs: 'offloaded 25/33 layers' keeps the output layer on the "
            "CPU until -ngl exceeds n_layer",
        ),
    ),
    _llama_cpp(
        "b2824",
        "2024-05",
        cuda_graphs=True,
        sources=(
            "llama.cpp PR #6766 (CUDA graphs, merged May 2024; GGML_CUDA_USE_GRAPHS on by default "
            "in llama.cpp's build): a batch-one decode step is captured once and replayed",
            "XiongjieDai's tables of builds 2824-2843 match the graph-replayed decode of #6763 "
            "(H100 PCIe: 145.55 tokens/s for Llama 3 8B Q4_K_M; docs/evidence/speed.md)",
        ),
    ),
    _llama_cpp(
        "b5850",
        "2025-07",
        cuda_graphs=True,
        swa=True,
        kernel_era="metal-2025-07",
        sources=(
            "ggml-org/llama.cpp PR #14596 'metal : fuse add, mul' (2025-07-09): RMS_NORM + MUL + ADD "
            "and runs of ADDs in one Metal kernel; the Metal kernels' achieved rates of builds from "
            "then on (core/speed/rates_era.py), the MoE kernel before PR #15541",
        ),
    ),
    _llama_cpp(
        "b6300",
        "2025-08",
        cuda_graphs=True,
        swa=True,
        kernel_era="metal-2025",
        sources=(
            "ggml-org/llama.cpp PR #15541 'metal : improve MUL_MAT_ID' (merged 2025-08-24, about "
            "b6270): the faster expert map and no intermediate src1 / dst copies; b6300 (2025-08-27) "
            "the first build of the replayed figures after it (PR #15616); otherwise as b5850",
        ),
    ),
    _ollama(
        "ollama-0.5",
        "2024-12",
        4,
        2048,
        ollama=OllamaKnobs(
            estimate="uniform", projector_first=True, layers_forward=True, weights_log="blocks_kv"
        ),
        sources=(
            "ollama v0.5.x api/types.go num_ctx 2048; server/sched.go defaultParallel 4",
            _ESTIMATE,
            "llm/memory.go (v0.5.x - v0.6.2) EstimateGPULayers: layers placed from blk.0 "
            "upwards, each at its own size (blk.N + its KV); the memory.weights line adds every "
            "block with its KV and prints repeating = that total - the output layer (to v0.6.0)",
        ),
    ),
    _ollama(
        "ollama-0.6.1",
        "2025-03",
        4,
        2048,
        ollama=OllamaKnobs(
            estimate="uniform", projector_first=True, layers_forward=True, weights_log="blocks"
        ),
        sources=(
            "ollama 033cec232 (2025-03-12, first in v0.6.1) 'count gemma3 vision tensors': "
            "memory.weights adds the blocks alone, total = repeating (f4f0992b6, v0.6.3, adds "
            "the output layer to the total)",
        ),
    ),
    _ollama(
        "ollama-0.6.3",
        "2025-03",
        4,
        2048,
        ollama=OllamaKnobs(estimate="per_layer", projector_first=True, layers_forward=True),
        sources=(
            "ollama f66216e39 (2025-03-24, first in v0.6.3) 'Support heterogeneous KV cache "
            "layer sizes in memory estimation': fs/ggml/ggml.go GraphSize gives gemma3's window "
            "layers parallel x sliding_window + batch cells",
        ),
    ),
    _ollama(
        "ollama-0.6.7",
        "2025-04",
        2,
        4096,
        ollama=OllamaKnobs(estimate="per_layer", projector_first=True, layers_forward=True),
        sources=("ollama commit 424f64863 (2025-04-22): num_ctx 4096, defaultParallel 2",),
    ),
    _ollama(
        "ollama-0.7",
        "2025-05",
        2,
        4096,
        ollama=OllamaKnobs(estimate="per_layer", projector_first=True),
        sources=(
            "ollama 0478d440f (2025-05-13, first in v0.7.0) 'Fixed over vram allocation due to "
            "small initial layer sizes': llm/memory.go places layers from the last block "
            "backwards (v0.7.0 alone also took the largest layer as the buffer; v0.7.1, "
            "3fe74fba4, went back to blk.0)",
        ),
    ),
    _ollama(
        "ollama-0.10",
        "2025-07",
        1,
        4096,
        ollama=OllamaKnobs(estimate="per_layer"),
        sources=("ollama v0.10.0: OLLAMA_NUM_PARALLEL default 1",),
    ),
    _ollama(
        "ollama-0.11",
        "2025-08",
        1,
        4096,
        ollama=OllamaKnobs(estimate="per_layer", gptoss_partial=2.0),
        sources=(
            "ollama v0.11.0 (2025-08-05) fs/ggml/ggml.go GraphSize case gptoss: even layers "
            "parallel x 4096 + batch cells, full = 4 x heads / kv_heads x kvTotal / 6, partial "
            "= 2 x full (v0.11.3 and v0.11.5: the entries below)",
            "the old estimate serves the Ollama engine's models until v0.11.11 (eb10390de) and "
            "every model until v0.13.0 (f560bd077 deletes llm/memory.go)",
        ),
    ),
    _ollama(
        "ollama-0.11.3",
        "2025-08",
        1,
        4096,
        ollama=OllamaKnobs(estimate="per_layer", gptoss_partial=1.0),
        sources=(
            "ollama fcec04bf4 'gptoss: fix memory calc' (#11700, 2025-08-05, first in v0.11.3) "
            "fs/ggml/ggml.go GraphSize case gptoss: partialOffload = fullOffload (read at v0.11.4)",
        ),
    ),
    _ollama(
        "ollama-0.11.5",
        "2025-08",
        1,
        4096,
        ollama=OllamaKnobs(estimate="per_layer", gptoss_partial=1.0, gptoss_full=2.0),
        sources=(
            "ollama 1a19df1f3 (#11823, 2025-08-14, first in v0.11.5) fs/ggml/ggml.go GraphSize "
            "case gptoss: partialOffload = 2 * HeadCountMax / HeadCountKVMin * kvTotal / 6 (kvTotal "
            "of every layer at the whole context, before the branch's windows) and no "
            "fullOffload, which llm/memory.go EstimateGPULayers then sets to the partial (read "
            "at v0.11.5 and v0.11.10)",
        ),
    ),
    _ollama(
        "ollama-0.13",
        "2025-11",
        1,
        4096,
        sources=(
            "ollama v0.13.0 (f560bd077, 2025-11-11): 'Use Ollama engine memory layouts for both "
            "old and new engines', llm/memory.go deleted; llm/server.go createLayout fits layers "
            "by the runner's real allocations (Operation fit/alloc/commit)",
        ),
    ),
    EngineRelease(
        "ollama-0.17",
        "2026-02",
        None,
        max_sequences=1,
        llama_cpp=LlamaCppKnobs(
            context_tiers=((47, 262144), (23, 32768), (0, 4096)), output_in_gpu_layers=False
        ),
        flash_attention=True,
        kv_block_tokens=1,
        chunked_prefill="off",
        cuda_graphs=False,
        steps=_GGML_STEPS,
        scheduling=_GGML,
        features=OLLAMA_FEATURES,
        sources=(
            "ollama server/routes.go (commit 0334ffa62, 2026-02-02): num_ctx by total "
            "VRAM, >= 47 GiB 262144, >= 23 GiB 32768, else 4096",
        ),
    ),
    EngineRelease(
        "b7000",
        "2026-08",
        None,
        max_sequences=4,
        flash_attention=True,
        llama_cpp=LlamaCppKnobs(kv_unified=True, swa_cache=True, gdn_decode="fused-op"),
        kv_block_tokens=1,
        chunked_prefill="off",
        cuda_graphs=True,
        steps=_GGML_STEPS,
        scheduling=_GGML,
        kernel_era="metal-2025",
        sources=(
            "llama.cpp src/llama-model.cpp load_tensors: token_embd on the CPU; "
            "i_gpu_start = max(n_layer + 1 - n_gpu_layers, 0) (the output layer counts)",
            "tools/server/server.cpp: -np auto = 4 with kv_unified; common.h n_ctx 0 = "
            "the training context, flash_attn auto",
            "src/models/delta-net-base.cpp build_delta_net and src/llama-context.cpp "
            "fused_gdn_ar (auto, on where the backend runs GGML_OP_GATED_DELTA_NET: Metal and "
            "CUDA from 2026-03, PRs #19504 / #20340): one fused op a Gated DeltaNet layer, "
            "core/speed/ggml_gdn.py",
        ),
    ),
)
