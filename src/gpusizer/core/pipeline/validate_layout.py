"""The layout's checks (core/pipeline/validate.py): tensor, pipeline, expert and context
parallelism against the model, the framework and the node; each violation names the field and
what would be allowed."""

from __future__ import annotations

from ..errors import ScenarioError
from ..memory.device_map import check_device_map, sequential_stages
from ..memory.fsdp_no_sync import check_no_sync
from ..memory.zero3_step import check_sub_group
from ..model.architecture import resolve
from ..model.context_algorithm import pads_sequence
from ..model.redundant import check_redundant, physical_experts
from ..model.specs import Scenario
from ..registry.frameworks import FRAMEWORKS
from ..serving.attention_dp import attention_tp, per_rank_note
from ..serving.expert_in_tensor import check_expert_in_tensor
from ..serving.expert_per_replica import check_expert_per_replica
from .validate_block_quant import check_block_quant
from .validate_context import check_context_heads
from .validate_ddp import check_data_parallel_only
from .validate_expert_tensor import check_expert_tensor
from .validate_model import divisors


def check_parallelism(s: Scenario) -> None:
    """TP divides heads, PP at most layers, EP divides experts, TP within a node (Megatron-LM).
    Under attention data parallelism the heads are split at its attention TP
    (core/serving/attention_dp.py ``attention_tp``). The checks run in this order: the first
    violation is the one named; a data-parallel-only trainer's split first
    (core/pipeline/validate_ddp.py), so its refusal names DDP rather than the heads."""
    check_data_parallel_only(s)
    _check_tensor(s)
    check_pipeline(s)
    _check_stages(s)
    _check_experts(s)
    _check_context_and_node(s)
    _check_replicated_mixers(s)
    check_no_sync(s)
    check_sub_group(s)
    check_block_quant(s)  # after the expert checks: the experts' TP size reads a valid EP


def _check_tensor(s: Scenario) -> None:
    """Tensor parallelism divides the attention heads and the KV heads (or is a multiple), as
    vLLM's ``ModelConfig.verify_with_parallel_config`` and ``QKVParallelLinear`` require. Not
    under an engine whose GPUs split layers or matrix rows rather than heads
    (``FrameworkProfile.tp_splits_heads`` false): llama.cpp's ``--split-mode layer`` gives each
    GPU whole layers (src/llama-model.cpp ``load_tensors``), ``--split-mode row`` a share of
    each matrix's rows by ``--tensor-split``, rounded to the kernel's tile
    (ggml/src/ggml-cuda/ggml-cuda.cu ``get_row_split``), so 3 or 5 GPUs run any model."""
    if not s.profile.tp_splits_heads:
        return
    p, arch = s.parallelism, resolve(s.model)
    tp = attention_tp(p)
    if arch.heads % tp:
        raise ScenarioError(
            "parallelism.tensor",
            f"must divide attention_heads ({arch.heads}){per_rank_note(p)}; allowed: {divisors(arch.heads)}",
        )
    if s.model.mla is None and tp > arch.kv_heads and tp % arch.kv_heads:
        raise ScenarioError(
            "parallelism.tensor",
            f"must divide kv_heads ({arch.kv_heads}) or be a multiple of it{per_rank_note(p)}",
        )
    if tp < arch.kv_heads and arch.kv_heads % tp:
        raise ScenarioError(
            "parallelism.tensor",
            f"must divide kv_heads ({arch.kv_heads}){per_rank_note(p)}; allowed: {divisors(arch.kv_heads)}",
        )


def _check_replicated_mixers(s: Scenario) -> None:
    """``parallelism.replicated_mixers`` (core/speed/train_mixers.py) names the training pass of a
    hybrid model's recurrent mixers: refused for a model without them and for serving."""
    if not s.parallelism.replicated_mixers:
        return
    field = "parallelism.replicated_mixers"
    if not resolve(s.model).mixer_layers:
        msg = "applies to a hybrid model's recurrent mixers (model.linear_attention or model.mamba)"
        msg += "; false here"
        raise ScenarioError(field, msg)
    if not s.workload.trains:
        raise ScenarioError(field, "applies to training and RL (the trainer's layers); false to serve")


def _check_stages(s: Scenario) -> None:
    """Pipeline stages (and their virtual stages) at most the layers."""
    p, arch = s.parallelism, resolve(s.model)
    if p.pipeline > arch.layers:
        raise ScenarioError("parallelism.pipeline", f"at most layers ({arch.layers})")
    if p.virtual_stages > 1 and p.pipeline * p.virtual_stages > arch.layers:
        raise ScenarioError(
            "parallelism.virtual_stages",
            f"pipeline x virtual_stages must not exceed layers ({arch.layers})",
        )


def _check_experts(s: Scenario) -> None:
    """Expert parallelism: a MoE model, its (physical) experts and the data x context ranks."""
    p, moe = s.parallelism, s.model.moe
    folded = check_expert_tensor(s)  # Megatron-Core's expert grid, where the field sets one
    check_expert_per_replica(s)  # independent TP x EP engines (core/serving/expert_per_replica.py)
    if p.expert > 1:
        if moe is None:
            raise ScenarioError("parallelism.expert", "must be 1 for a dense model (no experts)")
        check_redundant(s)  # replicas that do not spread evenly: named on their own field
        if physical_experts(s) % p.expert:
            raise ScenarioError(
                "parallelism.expert",
                f"must divide experts ({moe.experts}); allowed: {divisors(moe.experts, 256)}",
            )
        # a serving engine may shard them whole inside TP instead (core/serving/expert_in_tensor.py)
        dc = p.data * p.context
        if p.attention_data == 1 and not folded and dc % p.expert and not check_expert_in_tensor(s):
            raise ScenarioError(
                "parallelism.expert",
                f"must divide data x context ({p.data * p.context}): experts are sharded over "
                f"the data-parallel ranks{_unsplit_experts_hint(s)}",
            )


def _unsplit_experts_hint(s: Scenario) -> str:
    """Where training could run the experts unsplit, EP borrowing the tensor ranks, the field
    that says so. Megatron-Core (``--expert-tensor-parallel-size 1``; its expert grid,
    core/pipeline/validate_expert_tensor.py) and torchtitan (``expert_tensor_parallel_degree``,
    default 1: torchtitan/distributed/parallel_dims.py ``_validate``, "EP would borrow all cp
    and tp and some dp_shard degree") run such layouts; the default expert TP here is TP."""
    p = s.parallelism
    if not s.workload.trains or p.tensor == 1 or s.parallelism.gpus % (p.expert * p.pipeline):
        return ""
    return (
        "; to shard them over tensor x data x context instead, as Megatron-Core's "
        "--expert-tensor-parallel-size 1 and torchtitan's default do, set "
        "parallelism.expert_tensor 1"
    )


def _check_context_and_node(s: Scenario) -> None:
    """Context parallelism splits the training sequence evenly; tensor parallelism in one node."""
    p = s.parallelism
    # verl's Ulysses pads each row to its degree instead (core/model/context_algorithm.py)
    uneven = s.workload.sequence_length % (2 * p.context)
    if p.context > 1 and uneven and s.workload.trains and not pads_sequence(s):
        raise ScenarioError(
            "parallelism.context",
            f"2 x context must divide sequence_length ({s.workload.sequence_length}) "
            "(load-balanced ring attention)",
        )
    if s.workload.trains:
        check_context_heads(s)  # DeepSpeed Ulysses splits heads (core/pipeline/validate_context.py)
    hw = s.hardware
    # under attention DP only the ranks' attention TP is tensor-parallel traffic; the experts'
    # exchange may cross nodes as EP over replicas does (SGLang's --tp 72 --dp 72 over 9 nodes)
    if attention_tp(p) > hw.gpus_per_node and not hw.allow_cross_node_tensor_parallel:
        runs = _CROSS_TP_RUN.get(s.framework, _CROSS_TP)
        raise ScenarioError(
            "parallelism.tensor",
            f"at most gpus_per_node ({hw.gpus_per_node}); tensor parallelism across nodes is "
            f"allowed only with hardware.allow_cross_node_tensor_parallel true ({runs}; "
            "its all-reduce then crosses the network)",
        )


_CROSS_TP = "vLLM and SGLang run it, e.g. --tp 16 --nnodes 2"
# mlx-lm's utils.py ``sharded_load(repo, pipeline_group, tensor_group)``: ``model.shard(group)``
# over an ``mx.distributed`` group, one process a Mac under ``mlx.launch``
_CROSS_TP_RUN = {"mlx": "mlx-lm runs it over Macs: mlx.launch with sharded_load's tensor_group"}


def check_pipeline(s: Scenario) -> None:
    """ScenarioError naming ``parallelism.pipeline`` when it is above 1 under a framework with
    no pipeline parallelism for this kind of work (FrameworkProfile.pipelines: FSDP, the HF
    Trainer and the recipes built on them shard over data-parallel ranks instead), with the
    frameworks of the same kind that have it; a ZeRO stage above the one its pipeline engine
    takes (DeepSpeed: 1) is refused on ``parallelism.zero_stage``. The HF Trainer trains
    stages spread by device_map one after another (core/memory/device_map.py)."""
    kind, prof, p = s.workload.info, s.profile, s.parallelism
    if p.pipeline <= 1:
        return
    if prof.pipelines(kind):
        if kind.trains and p.zero_stage > prof.pipeline_max_zero:
            raise ScenarioError(
                "parallelism.zero_stage",
                f"at most {prof.pipeline_max_zero} with parallelism.pipeline > 1 under "
                f"{prof.label} (its pipeline engine refuses ZeRO-{p.zero_stage}); got {p.zero_stage}",
            )
        return
    others = ", ".join(f.id for f in FRAMEWORKS.values() if f.fits(kind) and f.pipelines(kind))
    if sequential_stages(s):  # the HF Trainer's device_map model parallelism
        check_device_map(s, others)
        return
    work, instead = (
        ("training", " (shard over data with zero_stage instead)") if kind.trains else ("serving", "")
    )
    raise ScenarioError(
        "parallelism.pipeline",
        f"{prof.label} has no pipeline parallelism for {work}: set 1{instead}, or a framework "
        f"that has it: {others or 'none'}",
    )
