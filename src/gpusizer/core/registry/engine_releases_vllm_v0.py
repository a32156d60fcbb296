"""vLLM's V0-era releases, 0.6.4 - 0.7.0 (the V0 engine also of 0.7.x - 0.10.x run with
VLLM_USE_V1=0): the defaults and measured costs that decide their memory and step.
core/registry/engine_releases.py places them first in the ``VLLM`` table (oldest first), before
the V1 releases of core/registry/engine_releases_vllm_v1.py and its own; every figure names the
file, function and version it was read from, docs/evidence/serving.md holds the excerpts.
GiB = 2^30.
"""

from __future__ import annotations

from .engine_knobs import VLLMKnobs
from .engine_releases_vllm_v1 import VLLM_STEPS
from .engines import BatchTier, EngineRelease, GiB, Scheduling

# vLLM V0 (0.6.x, 0.7.x) without chunked prefill runs prompt steps alone (V0 scheduler.py
# _schedule_default: prefills first, then decodes).
_V0 = Scheduling(mixed=False, watermark=0.01)
# V0 overlaps its output processing with the next step from 0.6.0 (PR #7049); with
# --disable-async-output-proc (``serving.async_output`` false) every step waits for the last
# one's: 0.2 ms at one sequence and 3.4 ms at 32, measured in LLMEngine._process_model_outputs
# for Llama3-70B FP8 on 4 x H100 at 128 prompt tokens (vllm RFC #6913, the profile the
# asynchronous processor was built on; its 1,024-sequence row, 0.2 ms against a 20 %
# expected reduction, contradicts itself and is not used): 0.0968 ms + 0.1032 ms a sequence.
V0_SERIAL_OUTPUT = (0.2e-3 - (3.4e-3 - 0.2e-3) / 31, (3.4e-3 - 0.2e-3) / 31)

# Non-torch memory that appears with more than one GPU (NCCL communicators, custom all-reduce
# buffers), a fixed part plus one per other rank, from two measured layouts per engine
# generation: V0 3.58 - 1.79 = 1.79 GiB at TP 2 (PR #10511) and 5.68 - 0.35 = 5.33 GiB at TP 8
# (vllm#10702, H200); V1's in engine_releases.py.
_V0_COMM, _V0_PEER = int(1.2 * GiB), int(0.59 * GiB)
# V0 from 0.7.0 counts only what grows outside torch's reserved memory since a snapshot taken
# before the distributed init: 0.30 - 0.16 = 0.14 GiB at TP 2 (vllm#15815) and about 0.22 at
# TP 4 (0.34-0.43 logged, vllm#16570).
_V07_COMM, _V07_PEER = int(0.10 * GiB), int(0.04 * GiB)


def _v0(version: str, date: str, vllm: VLLMKnobs, *sources: str) -> EngineRelease:
    """A V0 release: memory fraction 0.9, 256 sequences, chunked prefill only past a 32,768-token
    context, the whole context charged on every layer, 1 GiB of CUDA graphs, vLLM's host cost
    of a step (engine_releases.py says why) and V0's scheduling; its own knobs and sources."""
    return EngineRelease(
        version,
        date,
        0.9,
        (BatchTier(0, 256, 0),),
        chunked_prefill="long_context",
        vllm=vllm,
        kv_layout="whole_context",
        graph_bytes=GiB,
        steps=VLLM_STEPS,
        scheduling=_V0,
        sources=sources,
    )


V0_RELEASES: tuple[EngineRelease, ...] = (
    _v0(
        "0.6.4",
        "2024-11",
        VLLMKnobs(
            non_torch_bytes=int(0.35 * GiB),
            comm_bytes=_V0_COMM,
            comm_per_peer_bytes=_V0_PEER,
            context_in_budget=True,
            lora_gather_per_token=True,
            serial_output=V0_SERIAL_OUTPUT,
        ),
        "vllm 0.6.x engine/arg_utils.py: gpu_memory_utilization 0.90, max_num_seqs "
        "256; chunked prefill only above max_model_len 32768 (use_long_context)",
        "vllm#10517 (RTX 3090): non_torch 0.35 GiB; the profile peak is the forward "
        "pass alone (0.06 GiB at 2,048 tokens, 256 sequences: no sampler)",
    ),
    _v0(
        "0.6.5",
        "2024-12",
        VLLMKnobs(
            sampler_bytes_per_logit=40,
            non_torch_bytes=int(1.79 * GiB),
            comm_bytes=_V0_COMM,
            comm_per_peer_bytes=_V0_PEER,
            context_in_budget=True,
            lora_gather_per_token=True,
            serial_output=V0_SERIAL_OUTPUT,
        ),
        "vllm PR #10511 (memory profiling overhaul): non_torch 1.79 / 3.58 GiB at "
        "TP 1 / 2, activation peak 1.26 GiB = the V0 sampler (worker/model_runner.py "
        "profile_run; sampler.py: fp32 logits, sort values + int64 indices, "
        "probs_sort, cumsum, scatter, probs, logprobs = 40 B per logit)",
    ),
    _v0(
        "0.7.0",
        "2025-01",
        VLLMKnobs(
            sampler_bytes_per_logit=40,
            non_torch_bytes=int(0.16 * GiB),
            comm_bytes=_V07_COMM,
            comm_per_peer_bytes=_V07_PEER,
            startup_free_check=False,
            lora_gather_per_token=True,
            serial_output=V0_SERIAL_OUTPUT,
        ),
        "vllm 0.7.3 worker/worker.py init_device: MemorySnapshot() after set_device, before "
        "init_worker_distributed_environment; utils.py memory_profiling: non_torch_increase "
        "= change of (cuda used - torch reserved) since that snapshot, so the CUDA context "
        "lies outside the budget, NCCL inside, and the allocator's cached slack no longer "
        "counts as non-torch (PR #11809 / #12126, January 2025)",
        "non-torch at TP 1: 0.16 GiB (PR #12126, H100; 0.03 GiB on an RTX 4060, vllm#13882); "
        "TP 2: 0.30 GiB (vllm#15815, 2 x L40S); TP 4: 0.34-0.43 GiB (vllm#16570, 4 x A100 "
        "40GB)",
        "the V0 engine of 0.7.x-0.10.x (VLLM_USE_V1=0 or a V0 fallback): the same profile "
        "run and 40 B per logit sampler as 0.6.5 (vllm#13882: peak 1.42 GiB logged)",
    ),
)
