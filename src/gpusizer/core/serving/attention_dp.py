"""Attention data parallelism beside expert parallelism (``parallelism.attention_data``).

The engines' mechanism:

- SGLang ``--tp N --dp A --enable-dp-attention`` (docs.sglang.io "DP, DPA and SGLang DP
  Router"; LMSYS "SGLang v0.4", 2024-12-04, "data parallelism attention for DeepSeek models"):
  the N GPUs of one engine form A attention groups of N / A GPUs; each group runs attention at
  TP N / A on its own requests with its own KV cache (MLA's single KV head is then not held
  N times over), and the MoE layers run over all N GPUs on the tokens of every group.
- TensorRT-LLM ``enable_attention_dp`` (NVIDIA Dynamo "DP Rank Routing (Attention Data
  Parallelism)": "multiple attention DP ranks run within a single worker, each with its own KV
  cache"; ``--enable-attention-dp`` "sets attention_dp_size = tensor_parallel_size"): A = N.
- vLLM ``--data-parallel-size A --enable-expert-parallel`` with ``--tensor-parallel-size N / A``:
  the same split; its experts span DP x TP.

One GPU of such an engine holds what a data-parallel replica of ``tensor / attention_data``
GPUs whose experts are sharded over ``attention_data`` replicas holds (the model's existing
"experts over the data-parallel ranks" layout, core/pipeline/validate.py): attention, dense
and shared-expert weights at TP N / A (replicated over the A groups), 1 / N of the routed
experts, its own requests' KV with the KV heads split N / A ways. Its step is that replica's
(core/speed/step_moe.py ``_experts``: the MoE sees the tokens of all A groups, ``n x ep``, and
reads the experts they route to; dispatch and combine over the group). So the estimate runs on
:func:`rank_view`: the same GPUs, ``tensor / A`` x ``data x A``, experts over ``A``, the
engine's users shared out over its A ranks (its scheduler balances requests over them), and
the whole engine's throughput as the ranks' sum (the serving block's ``data`` x).

Not modelled: SGLang's default dense MLP over the whole TP group (``--moe-dense-tp-size``,
here at the attention groups' TP), its vocabulary-parallel LM head over all N
(``--enable-dp-lm-head`` is the view's), and uneven ranks (the scheduler's balance is taken
as perfect; a rank that idles on a short batch still runs the MoE collectives).
"""

from __future__ import annotations

from ..errors import ScenarioError
from ..model.architecture import ceil_div
from ..model.redundant import check_redundant, physical_experts
from ..model.specs import Scenario
from ..model.workload_spec import ParallelismSpec
from .expert_in_tensor import tensor_view


def _divisors(n: int) -> str:
    return ", ".join(str(d) for d in range(1, n + 1) if n % d == 0)


def _dense_message(tensor: int, a: int) -> str:
    """A dense model's refusal: SGLang runs ``--enable-dp-attention`` on dense models too
    (python/sglang/srt/models/qwen3.py ``Qwen3Attention`` at ``attn_tp_size``, its MLP at the
    whole TP group between layer boundaries), but this module's view holds the MLP at the
    attention groups' TP; it would count every rank's MLP weights ``a`` times over. The
    line names the layouts that state the same GPUs."""
    replicas = f"parallelism.data {a} with tensor {tensor // a}" if tensor % a == 0 else "parallelism.data"
    return (
        "needs a MoE model: attention DP over a dense model (its MLP over every rank's tokens at "
        f"TP {tensor}) is not modelled; state {replicas} (replicas) or attention_data 1"
    )


def check_attention_data(s: Scenario) -> None:
    """``parallelism.attention_data`` divides the tensor-parallel group of an engine that has
    the switch, serving a MoE model; the experts span that group."""
    p = s.parallelism
    a = p.attention_data
    if a == 1:
        return
    field = "parallelism.attention_data"
    if s.workload.trains:
        raise ScenarioError(field, "applies to serving (attention data parallelism in an engine); use 1")
    flag = s.profile.attention_data_flag
    if not flag:
        raise ScenarioError(field, f"{s.profile.label} has no attention data parallelism; use 1")
    if s.model.moe is None:
        raise ScenarioError(field, _dense_message(p.tensor, a))
    if p.tensor % a:
        raise ScenarioError(
            field,
            f"must divide parallelism.tensor ({p.tensor}); allowed: {_divisors(p.tensor)} (vLLM "
            "--data-parallel-size D --tensor-parallel-size T: parallelism.tensor D x T, attention_data D)",
        )
    check_redundant(s)  # replicas that do not spread evenly: named on their own field
    if physical_experts(s) % a:
        raise ScenarioError(field, f"must divide the experts ({s.model.moe.experts})")
    if p.expert > 1 and p.tensor % p.expert:
        raise ScenarioError(
            "parallelism.expert",
            f"with attention_data, must divide parallelism.tensor ({p.tensor}): the experts "
            "span the engine's GPUs",
        )


def attention_tp(p: ParallelismSpec) -> int:
    """The tensor parallelism attention's heads are split at: ``tensor / attention_data`` under
    attention data parallelism (SGLang python/sglang/srt/layers/dp_attention.py
    ``compute_dp_attention_world_info``: ``attn_tp_size = tp_size // dp_size``, and
    DeepseekV2AttentionMLA asserts ``num_heads % attn_tp_size == 0``; TensorRT-LLM's attention
    DP runs attention at TP 1), else ``tensor``. A width the ranks do not divide keeps
    ``tensor`` (its own error names ``parallelism.attention_data``)."""
    a = p.attention_data
    return p.tensor // a if a > 1 and p.tensor % a == 0 else p.tensor


def per_rank_note(p: ParallelismSpec) -> str:
    """The message's note where the heads are split at the attention-DP ranks' TP."""
    tp = attention_tp(p)
    return f" at attention TP {tp} (tensor / attention_data)" if tp != p.tensor else ""


def rank_view(s: Scenario) -> Scenario:
    """The scenario as one attention-DP rank runs it (module docstring); without attention DP
    ``s`` itself, or its view with the experts sharded inside TP where it states that
    (core/serving/expert_in_tensor.py ``tensor_view``)."""
    p = s.parallelism
    a = p.attention_data
    if a == 1:
        return tensor_view(s)
    par = p.model_copy(update={"tensor": p.tensor // a, "data": p.data * a, "expert": a, "attention_data": 1})
    par = par.rank_of(p.tensor, a)  # SGLang's default fraction reads the engine's tp and dp sizes
    sv = s.serving
    users = sv.concurrency if sv.concurrency is not None else s.workload.batch_size
    # TensorRT-LLM skips its batch waiting under attention DP (``PyExecutor._schedule``: "if not
    # self.enable_attention_dp and self.enable_batch_waiting"; core/serving/batch_wait.py)
    update: dict[str, object] = {
        "concurrency": ceil_div(users, a),
        "batch_wait_iterations": None,
        "batch_wait_tokens_ratio": None,
    }
    if sv.requests is not None:
        update["requests"] = ceil_div(sv.requests, a)
    if sv.request_rate is not None:
        update["request_rate"] = sv.request_rate / a
    return s.model_copy(update={"parallelism": par, "serving": sv.model_copy(update=update)})
