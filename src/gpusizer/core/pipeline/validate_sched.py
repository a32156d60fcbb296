"""Checks of the engines' own scheduler settings in ``serving`` (TensorRT-LLM's batch waiting,
SGLang's receive interval and prefill cap): each belongs to one engine (core/serving/batch_wait.py,
core/serving/recv_poll.py)."""

from __future__ import annotations

from ..errors import ScenarioError
from ..model.presets import scenario_gpu
from ..model.redundant import ep_ranks
from ..model.specs import GPUSpec, Scenario
from ..registry.moe_a2a import MOE_A2A_BACKENDS
from ..registry.moe_a2a_buffers import NVL_PEERS
from ..speed.collectives import SCALE_UP_GB_PER_S


def check_scheduler_knobs(s: Scenario) -> None:
    """A scheduler setting names its engine and, where the engine refuses a layout, the layout."""
    _check_batch_wait(s)
    _check_recv_interval(s)
    _check_max_prefill(s)
    _check_adp_balance(s)
    _check_moe_a2a(s)
    _check_tbo(s)


def _check_batch_wait(s: Scenario) -> None:
    """``serving.batch_wait_*`` are TensorRT-LLM's ``batch_wait_timeout_iters`` and
    ``batch_wait_max_tokens_ratio`` (core/serving/batch_wait.py): no other engine has them."""
    sv = s.serving
    if not (sv.batch_wait_iterations or sv.batch_wait_tokens_ratio) or not s.workload.serves:
        return
    if "batch_wait" not in s.profile.scheduler_knobs:
        field = "batch_wait_iterations" if sv.batch_wait_iterations else "batch_wait_tokens_ratio"
        msg = f"TensorRT-LLM's batch waiting: framework tensorrt-llm, not {s.profile.label}; 0 or null else"
        raise ScenarioError(f"serving.{field}", msg)


def _check_recv_interval(s: Scenario) -> None:
    """``serving.scheduler_recv_interval`` is SGLang's ``--scheduler-recv-interval``, which its
    scheduler refuses beside DP attention (core/serving/recv_poll.py)."""
    n = s.serving.scheduler_recv_interval
    if n is None or n == 1 or not s.workload.serves:
        return
    if "recv_interval" not in s.profile.scheduler_knobs:
        msg = f"SGLang's --scheduler-recv-interval: framework sglang, not {s.profile.label}; 1 or null else"
        raise ScenarioError("serving.scheduler_recv_interval", msg)
    if s.parallelism.attention_data > 1:
        msg = "SGLang refuses it with DP attention (parallelism.attention_data above 1); 1 or null"
        raise ScenarioError("serving.scheduler_recv_interval", msg)


def _check_max_prefill(s: Scenario) -> None:
    """``serving.max_prefill_tokens`` is SGLang's ``--max-prefill-tokens``
    (core/serving/prefill_cap.py): no other engine has it."""
    if s.serving.max_prefill_tokens is None or not s.workload.serves:
        return
    if "max_prefill" not in s.profile.scheduler_knobs:
        msg = f"SGLang's --max-prefill-tokens: framework sglang, not {s.profile.label}; null else"
        raise ScenarioError("serving.max_prefill_tokens", msg)


def _check_adp_balance(s: Scenario) -> None:
    """``serving.attention_dp_balance_iterations`` is TensorRT-LLM's ``attention_dp_config``
    balance: an attention-DP engine's (core/serving/adp_balance.py)."""
    sv = s.serving
    if not s.workload.serves:
        return
    if sv.attention_dp_batching_iterations is not None and not sv.attention_dp_balance_iterations:
        msg = "TensorRT-LLM's batching_wait_iters applies with the balance on: set"
        msg += " serving.attention_dp_balance_iterations above 0, or null"
        raise ScenarioError("serving.attention_dp_batching_iterations", msg)
    if not sv.attention_dp_balance_iterations:
        return
    if "attention_dp_balance" not in s.profile.scheduler_knobs:
        msg = f"TensorRT-LLM's attention_dp_config balance: framework tensorrt-llm, not {s.profile.label}"
        raise ScenarioError("serving.attention_dp_balance_iterations", msg)
    if s.parallelism.attention_data <= 1:
        msg = "balances attention-DP ranks: set parallelism.attention_data above 1, or 0 / null"
        raise ScenarioError("serving.attention_dp_balance_iterations", msg)


def _check_moe_a2a(s: Scenario) -> None:
    """``serving.moe_a2a_backend`` names an exchange the engine runs (core/registry/moe_a2a.py:
    DeepEP under SGLang and vLLM, ``auto`` SGLang's alone) on NVIDIA GPUs joined by NVLink
    (DeepEP's requirements: "NVLink for intranode communication"). The GPU is judged only where
    the field is read: a served MoE model whose experts span more than one rank (the step model
    asks the backend only then, core/speed/step_model.py ``_a2a``); elsewhere it is kept and not
    read, like ``serving.redundant_experts``."""
    name = s.serving.moe_a2a_backend
    if name in (None, "none") or not s.workload.serves:
        return
    backend = MOE_A2A_BACKENDS[name]
    if s.framework not in backend.engines:
        msg = f"{backend.label} runs under {', '.join(backend.engines)}, not {s.profile.label}; "
        raise ScenarioError("serving.moe_a2a_backend", msg + '"none" or null else')
    gpu = scenario_gpu(s)
    if ep_ranks(s.parallelism) > 1 and a2a_gpu_refusal(s, gpu) is not None:
        msg = f'DeepEP needs NVIDIA GPUs joined by NVLink, not {gpu.name}; "none" or null'
        raise ScenarioError("serving.moe_a2a_backend", msg)
    _check_normal_peers(s, backend.mode)


def _check_normal_peers(s: Scenario, mode: str) -> None:
    """DeepEP V1's normal kernels hold at most 8 NVLink peers (``NUM_MAX_NVL_PEERS 8``,
    csrc/kernels/configs.cuh; ``SourceMeta`` asserts it): past 8 ranks they forward over RDMA
    between groups of 8 GPUs a node, which a wider NVLink domain (a GB200 NVL72 rack, 4 GPUs a
    tray) does not have. The maintainer (deepseek-ai/DeepEP issue 392, 2025-09-05): "Since the
    current normal kernels limits the number of GPUs per node to 8, the normal mode doesn't
    support GB200 yet"; issue 579 (2026-02): "GB200 DeepEP does not support the single-machine
    4-GPU setup" in internode mode. The low-latency kernels run there (over NVLink, PR 193's
    ``allow_mnnvl``); ``deepep_auto`` is SGLang's choice per step and is kept (its note says
    what its prompt steps pick, core/serving/a2a_memory.py)."""
    ranks, node = ep_ranks(s.parallelism), s.hardware.gpus_per_node
    if mode != "normal" or s.model.moe is None or ranks <= NVL_PEERS or node <= NVL_PEERS:
        return
    msg = (
        f"deepep_normal: DeepEP's normal kernels hold at most {NVL_PEERS} NVLink peers, not EP {ranks} "
        f'inside one {node}-GPU NVLink domain (DeepEP issue 392); "deepep_low_latency" runs there, '
        'or "deepep_auto" under SGLang'
    )
    raise ScenarioError("serving.moe_a2a_backend", msg)


def _check_tbo(s: Scenario) -> None:
    """``serving.two_batch_overlap`` is SGLang's ``--enable-two-batch-overlap``: it splits the
    MoE layers' work over DeepEP's two dispatchers (python/sglang/srt/two_batch_overlap.py
    ``MaybeTboDeepEPDispatcher``), so it needs SGLang, experts over more than one rank, a
    serving step without pipeline stages, and a DeepEP backend (core/speed/step_tbo.py)."""
    if not s.serving.two_batch_overlap or not s.workload.serves:
        return
    field = "serving.two_batch_overlap"
    if "two_batch_overlap" not in s.profile.scheduler_knobs:
        msg = f"SGLang's --enable-two-batch-overlap: framework sglang, not {s.profile.label}"
        raise ScenarioError(field, msg + "; false or null else")
    if s.model.moe is None or s.parallelism.expert <= 1 or s.parallelism.pipeline > 1:
        msg = "overlaps the MoE exchange: a MoE model with parallelism.expert above 1 and no pipeline stages"
        raise ScenarioError(field, msg + "; false or null else")
    if s.serving.moe_a2a_backend in (None, "none"):
        msg = "runs DeepEP's dispatchers: set serving.moe_a2a_backend to a deepep_ id; false or null else"
        raise ScenarioError(field, msg)


def a2a_gpu_refusal(s: Scenario, gpu: GPUSpec) -> str | None:
    """Why the scenario's exchange backend cannot run on ``gpu`` (None: it can, or the scenario
    never reads it: no backend, training, a dense model). DeepEP's kernels are CUDA, its
    intranode path NVLink (deepseek-ai/DeepEP README, "Requirements"): a GPU of another vendor,
    or one whose scale-up link is no NVLink-class fabric (below ``SCALE_UP_GB_PER_S``), cannot
    run them. The comparison leaves such a GPU out with this sentence
    (core/pipeline/runs_on.py), as it does a GPU the framework does not run on."""
    name = s.serving.moe_a2a_backend
    if name in (None, "none") or not s.workload.serves or s.model.moe is None:
        return None
    if gpu.vendor.lower() in ("nvidia", "custom") and gpu.interconnect_gb_per_s >= SCALE_UP_GB_PER_S:
        return None
    return f"{MOE_A2A_BACKENDS[name].label} (serving.moe_a2a_backend) needs NVIDIA GPUs joined by NVLink"
