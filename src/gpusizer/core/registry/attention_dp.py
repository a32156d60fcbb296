"""Which serving engines run attention data parallelism (``parallelism.attention_data``) and
at which rank counts: one entry per engine id, each with its switch and sources. The advice's
search (core/sizing/layout_adp.py) reads it to price attention-DP layouts where the engine runs
them; the estimate's own checks are core/serving/attention_dp.py ``check_attention_data``.

What every engine's docs agree on: the switch is for mixture-of-experts models (attention
replicated per rank, each rank its own requests and KV cache, the experts spread over the ranks'
GPUs); a dense model is served by plain data-parallel replicas (vLLM docs "Data Parallel
Deployment": "For MoE models, particularly those like DeepSeek that employ MLA ... it can be
advantageous to use data parallel for the attention layers and expert or tensor parallel (EP or
TP) for the expert layers"; SGLang v0.4 blog 2024-12-04 "Data Parallelism Attention for DeepSeek
Models"), and the estimate refuses attention DP for a dense model. The rank counts differ:

- SGLang ``--tp N --dp A --enable-dp-attention``: ``assert self.dp_size > 1, "Please set a
  dp-size > 1. You can use 1 < dp-size <= tp-size"`` and ``assert self.tp_size % self.dp_size
  == 0`` (python/sglang/srt/server_args.py, ``_handle_data_parallelism``): A divides N, A > 1.
- TensorRT-LLM ``enable_attention_dp``: "sets attention_dp_size = tensor_parallel_size" (NVIDIA
  Dynamo docs "DP Rank Routing (Attention Data Parallelism)"): A = N.
- vLLM ``--data-parallel-size A --enable-expert-parallel`` (docs "Data Parallel Deployment",
  "Expert Parallel Deployment": the experts span DP x TP; "Data Parallel attention can be
  combined with Tensor Parallel attention"): any A ranks of N / A GPUs, stated here as ``tensor``
  N with ``attention_data`` A, so A divides N.

The layout the search prices is the common deployment all three run: every GPU its own attention
replica (A = N), the experts over all N GPUs (EP = N).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .table import add

Ranks = Literal["divides", "equals"]  # A divides the engine's GPUs N, or A is N


@dataclass(frozen=True)
class AttentionDP:
    """One engine's attention data parallelism (for MoE models): its profile ``engine`` id, the
    switch, which rank counts it runs (``ranks``) and the sources."""

    engine: str
    switch: str
    ranks: Ranks
    source: str

    def runs(self, gpus: int, ranks: int) -> bool:
        """Whether the engine runs ``ranks`` attention-DP ranks over an engine of ``gpus`` GPUs
        (``parallelism.tensor``)."""
        if ranks < 2 or gpus % ranks:
            return False
        return self.ranks == "divides" or ranks == gpus


ATTENTION_DP: dict[str, AttentionDP] = {}


def register(entry: AttentionDP) -> AttentionDP:
    """Add an engine's entry (a DuplicateId if its engine is already there)."""
    return add(ATTENTION_DP, entry.engine, entry, "attention-DP engine")


def support(engine: str) -> AttentionDP | None:
    """The engine's entry (None: it runs no attention data parallelism)."""
    return ATTENTION_DP.get(engine)


register(
    AttentionDP(
        "sglang",
        "--tp N --dp A --enable-dp-attention",
        "divides",
        "sglang python/sglang/srt/server_args.py _handle_data_parallelism (dp_size > 1, tp_size % "
        "dp_size == 0); LMSYS blog 2024-12-04 'SGLang v0.4' (data parallelism attention for DeepSeek "
        "models); LMSYS blog 2025-05-05 (--tp 72 --dp 72 --enable-dp-attention over 9 nodes)",
    )
)
register(
    AttentionDP(
        "tensorrt-llm",
        "enable_attention_dp",
        "equals",
        "NVIDIA Dynamo docs 'DP Rank Routing (Attention Data Parallelism)': '--enable-attention-dp "
        "sets attention_dp_size = tensor_parallel_size'; TensorRT-LLM LlmArgs enable_attention_dp",
    )
)
register(
    AttentionDP(
        "vllm",
        "--data-parallel-size A --enable-expert-parallel (--tensor-parallel-size N / A)",
        "divides",
        "vLLM docs serving/data_parallel_deployment ('For MoE models ... data parallel for the "
        "attention layers and expert or tensor parallel (EP or TP) for the expert layers') and "
        "serving/expert_parallel_deployment ('EP is typically coupled with Data Parallelism')",
    )
)
