"""What an engine step costs the host and how an engine fills a step: one :class:`StepCost`
and one :class:`Scheduling` per engine release (core/registry/engines.py ``EngineRelease``,
read by core/speed/step.py and core/serving/scheduler.py). Seconds. Every figure names the
engine file, function or measurement it was read from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ms = 1e-3
us = 1e-6
# The API servers of vLLM, SGLang and trtllm-serve tokenise a prompt's text with Hugging Face
# tokenizers in one thread before the engine sees it: 1.03 us a prompt token, 4 bytes a token
# (OpenAI's "one token is about 4 characters" of English) at 3.9 MB/s, the single-thread encode
# of English text by tokenizers v0.23.1 in its CI bench (huggingface/tokenizers PR 2298,
# eng_Latn; llama-3.1's tokenizer read 1.9-2.1 MB/s in PR 1582's 2024 bench, before that
# release's speed-ups). StepCost.front_end_per_token.
TOKENISE_PER_TOKEN = 4 / 3.9e6


@dataclass(frozen=True)
class StepCost:
    """What an engine step costs the host beyond the GPU's kernels (core/speed/step.py),
    seconds: ``step`` once per step that the GPU waits for (scheduling, sampling, output
    processing not overlapped with the next step); ``launch`` per kernel of a step not
    replayed from a CUDA graph (the host issues kernels one by one: the step takes at least
    kernels x launch)."""

    step: float
    launch: float
    # host seconds per request of the step that an overlapping scheduler runs beside the GPU
    # (the step takes at least requests x per_request), and under pipeline parallelism, where
    # every rank's host handles every micro-batch (core/speed/step.py)
    per_request: float = 0.0
    per_request_pipeline: float = 0.0
    # ``launch`` is PyTorch's per-op dispatch from Python (vLLM, SGLang, TensorRT-LLM's PyTorch
    # backend, transformers), measured on x86 hosts (transformers' figure names none: taken as
    # x86), so it scales with the host CPU's (core/registry/host_cpus.py); False for a C++
    # runtime's launches (TensorRT engines, ggml), for which no host comparison was found
    torch_launch: bool = True
    # seconds a request spends in the engine's API server outside the steps (chat template,
    # handing it to the scheduler, streaming the first token back; its tokenising grows with
    # the prompt, ``front_end_per_token``): in each
    # request's TTFT and end-to-end time as a client measures them, beside the GPU's steps
    # (another process), so not in the step (core/serving/scheduler.py ``client_view``)
    front_end: float = 0.0
    # the same through /v1/completions where published apart from the chat route (None: as
    # ``front_end``; ``serving.api_endpoint``)
    front_end_completions: float | None = None
    # seconds per prompt token the API server spends tokenising the prompt's text before it
    # hands the request on, beside ``front_end`` (which was measured at short prompts)
    front_end_per_token: float = 0.0
    # host seconds a graph-replayed step adds per layer where the release's CUDA graphs are
    # PIECEWISE (vLLM V1 before 0.11.0): each layer's attention runs eagerly between captured
    # pieces, so a step issues two replays and the attention op a layer, not one replay. PyTorch
    # dispatch like ``launch`` (scaled with the host CPU where ``torch_launch``)
    piecewise_layer: float = 0.0

    def front_end_for(self, endpoint: str | None, prompt_tokens: int = 0) -> float:
        """Seconds a request of ``prompt_tokens`` spends in the API server on ``endpoint``
        (null: chat)."""
        fixed = self.front_end
        if endpoint == "completions" and self.front_end_completions is not None:
            fixed = self.front_end_completions
        return fixed + self.front_end_per_token * prompt_tokens


NO_STEP_COST = StepCost(0.0, 0.0)
# transformers' generate runs the model op by op from Python: 24 us per kernel launch, from
# "without CUDA graphs, LLaMA-7B inference executes at 30 tokens/sec, but with CUDA graphs
# enabled it executes at 69 tokens/sec" (Fireworks, quoted in vllm-project/vllm#914): 33 ms for
# the 1,380 kernels of 32 eager layers (core/speed/step_kernels.py EAGER_LAYER).
EAGER_STEP_COST = StepCost(0.0, 24 * us)


@dataclass(frozen=True)
class Scheduling:
    """How an engine fills a step (core/serving/scheduler.py): ``mixed`` prompt chunks share
    steps with decodes (vLLM V1 and chunked V0, TensorRT-LLM in-flight batching, llama.cpp's
    server) or run in steps of their own (SGLang's default, vLLM V0 without chunking);
    ``admission`` "grow" takes KV as tokens come and preempts when the pool is full (vLLM,
    SGLang), "reserve" holds a request's whole KV from admission (TensorRT-LLM
    GUARANTEED_NO_EVICT, llama.cpp slots); ``graph_batch`` the largest decode batch replayed
    from a CUDA graph, ``graph_prefill`` whether steps with prompt tokens replay graphs too
    (vLLM V1 piecewise graphs); ``per_micro_batch``: under pipeline parallelism the running
    limit and the token budget hold for each in-flight micro-batch, not the whole pipeline
    (TensorRT-LLM: ``_executor_loop_pp`` schedules every micro-batch with its own
    ``_schedule()`` call, and trtllm-bench sizes ``max_batch_size`` as the requests that fit
    divided by ``pp_size``, tensorrt_llm/bench/build/tuning.py ``finetune_setting``);
    ``budget_per_micro_batch``: the token budget alone holds for each micro-batch, the running
    limit for the whole pipeline (vLLM V1: each micro-batch is one ``scheduler.schedule()`` call
    with its own ``max_num_batched_tokens``, v1/engine/core.py ``step_with_batch_queue``, while
    ``max_num_seqs`` counts ``self.running``, the requests in flight included)."""

    mixed: bool = True
    admission: Literal["grow", "reserve"] = "grow"
    graph_batch: int = 512
    graph_prefill: bool = True
    per_micro_batch: bool = False
    budget_per_micro_batch: bool = False
    # a preempted request's full KV blocks stay in the prefix cache and are found again on
    # re-admission, so it recomputes only its last partial block (vLLM V1: prefix caching on by
    # default; core/serving/scheduler_admit.py ``_preempt``)
    cached_preemption: bool = False
    # the share of the pool's blocks admission leaves free: vLLM V0's block manager admits a
    # prompt only while free blocks less its own stay at or above ``watermark`` x the pool
    # (vllm/core/block_manager.py ``can_allocate``, ``watermark=0.01``), so a request just
    # preempted is not re-admitted into the blocks its preemption freed
    watermark: float = 0.0
    # with data-parallel ranks sharing the MoE layers (attention DP), a CUDA graph replays only
    # when every rank's batch is generation-only (TensorRT-LLM 1.0 model_engine.py
    # ``_maybe_get_cuda_graph``: ``tp_allgather([can_run_cuda_graph, batch_size])``, no graph
    # unless all ranks are generation-only with equal batches; core/serving/scheduler_run.py)
    graph_all_ranks: bool = False
    # steps a request that arrives while the engine runs waits before it can be scheduled:
    # TensorRT-LLM's overlap scheduler (PyTorch backend, on by default) schedules and launches
    # step n+1 before it syncs step n and sends its tokens, so the request a finished one's
    # client sends back is fetched only at the loop's next pass, after step n+1 was scheduled,
    # and runs in step n+2 (py_executor.py ``_executor_loop_overlap``; core/serving/
    # scheduler_run.py); an idle engine blocks on its queue and takes it at once
    overlap_skip: int = 0
