"""How the work is split across GPUs: the scenario's ``parallelism`` block
(:class:`ParallelismSpec`: TP, PP, DP, CP, EP, ZeRO, recompute, offload).

Field names are the public contract (docs/scenario-format.md); recompute module ids are checked
against core/registry/recompute_modules.py. The ``workload`` block is core/model/workload_spec.py,
which keeps this name importable.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, PrivateAttr, SerializerFunctionWrapHandler, field_validator, model_serializer

from ..limits import Degree, Strict, Whole
from ..registry.recompute_modules import check_recompute_modules


class ParallelismSpec(Strict):
    """How the work is split across GPUs, and what is recomputed."""

    @property
    def engine_group(self) -> tuple[int, int]:
        """(tensor, attention_data) of the whole engine: the one an attention-DP rank's view
        came from (SGLang's ``tp_size`` and ``dp_size``), else as set."""
        return self._engine_group or (self.tensor, self.attention_data)

    def rank_of(self, tensor: int, attention_data: int) -> ParallelismSpec:
        """This view remembering the engine (``tensor``, ``attention_data``) it is a rank of."""
        self._engine_group = (tensor, attention_data)
        return self

    @property
    def expert_in_tensor(self) -> int:
        """Whole-expert shards inside each tensor-parallel group of an engine's view (vLLM
        ``--enable-expert-parallel`` with TP; core/serving/expert_in_tensor.py), else 1."""
        return self._expert_in_tensor

    def experts_within(self, shards: int) -> ParallelismSpec:
        """This view with the routed experts split ``shards`` ways, whole, inside each TP group."""
        self._expert_in_tensor = shards
        return self

    tensor: Degree = 1
    pipeline: Degree = 1
    virtual_stages: Degree = 1
    data: Degree = 1
    context: Degree = 1
    expert: Degree = 1
    # Megatron-Core expert_tensor_parallel_size: the routed experts' own TP, apart from the
    # attention's (MoE parallel folding; null = tensor, Megatron's default;
    # core/model/expert_tensor.py)
    expert_tensor: Degree | None = None
    # Serving: attention data-parallel ranks inside the tensor-parallel group (SGLang
    # --enable-dp-attention --dp N, TensorRT-LLM enable_attention_dp): each rank runs attention
    # at TP tensor / attention_data on its own requests; the experts span the whole group
    # (core/serving/attention_dp.py)
    attention_data: Degree = 1
    # Serving: ``expert`` splits the routed experts whole inside each replica's TP group only,
    # ``data`` counting independent engines (N x vLLM ``--tensor-parallel-size 8
    # --enable-expert-parallel`` behind a router; core/serving/expert_per_replica.py)
    expert_per_replica: bool = False
    # not a field: the (tensor, attention_data) of the attention-DP engine one rank's view
    # belongs to (core/serving/attention_dp.py ``rank_view``), None for the scenario as set
    _engine_group: tuple[int, int] | None = PrivateAttr(default=None)
    # not a field: the engine view's whole-expert shards inside each TP group
    # (core/serving/expert_in_tensor.py ``tensor_view``), 1 for the scenario as set
    _expert_in_tensor: int = PrivateAttr(default=1)
    # not a field: the context ranks split the heads (Ulysses) where the RL framework's workers
    # do so on this training framework (core/model/context_algorithm.py); None: the
    # training framework's own algorithm
    _heads_split: bool | None = PrivateAttr(default=None)
    zero_stage: Annotated[int, Whole, Field(ge=0, le=3)] = 0
    # DeepSpeed zero_optimization.overlap_comm: ZeRO's reductions and offload copies beside the
    # backward (null: DeepSpeed's default, on at stage 3 only; core/speed/zero2_reduce.py)
    overlap_comm: bool | None = None
    sequence_parallel: bool = False
    recompute: Literal["none", "selective", "full"] = "none"
    attention: Literal["eager", "flash"] = "flash"
    offload_optimizer: bool = False
    offload_parameters: bool = False
    # Additive: DeepSpeed ZeRO++ (zero_optimization's zero_hpz_partition_size,
    # zero_quantized_weights, zero_quantized_gradients; core/memory/zeropp.py): a secondary
    # 16-bit weight partition within that many GPUs, the forward gather in INT8, the gradient
    # reduction in INT4. Null / 1 / false: off.
    zero_hpz_partition_size: Annotated[int, Whole, Field(ge=1, le=1_000_000)] | None = None
    zero_quantized_weights: bool | None = None
    zero_quantized_gradients: bool | None = None
    optimizer_in_backward: bool = False  # each tensor steps as its gradient is ready
    # FSDP1's root unit (embedding, LM head outside a transformer-layer wrap policy: accelerate,
    # HF Trainer) stays gathered from the forward through the backward
    root_unit_gathered: bool = False
    # which FSDP the ZeRO-3 path follows where the two differ: FSDP2 (fully_shard) keeps
    # per-parameter gradients, so the root unit's unsharded gradient is only the LM head's
    # until the embedding's arrives at the end of the backward
    fsdp_version: Literal[1, 2] = 1
    # FSDP1's no_sync() over a step's micro-batches before its last (Lightning Fabric's
    # no_backward_sync, accelerate's accumulate): each unit's gradient kept unsharded until the
    # sync (core/memory/fsdp_no_sync.py)
    fsdp_no_sync: bool = False
    # full recompute is the model's reentrant torch.utils.checkpoint around each FSDP1 unit
    # (transformers' gradient_checkpointing, default use_reentrant): over frozen units FSDP1
    # keeps every layer-input gradient to the backward's end (core/memory/fsdp1_reentrant.py)
    reentrant_checkpoint: bool = False
    # DeepSpeed ZeRO-3's zero_optimization.sub_group_size (elements; DeepSpeed's default 1e9):
    # the step converts one sub-group's gradients to the master dtype at a time
    # (core/memory/zero3_step.py); null: that conversion not priced (the answers as before)
    zero_sub_group_size: Annotated[int, Field(ge=1, le=10**13)] | None = None
    # Megatron-Core cpu_offloading_num_layers: that many layers of each stage keep their saved
    # activations in host RAM (null: as activation_offload says)
    offload_layers: Annotated[int, Field(ge=0, le=10**6)] | None = None
    # Megatron-LM --make-vocab-size-divisible-by (its default 128; NeMo / Megatron-Bridge
    # should_pad_vocab): the vocabulary is padded to a multiple of this x TP (null: none)
    vocab_divisible_by: Annotated[int, Field(ge=1, le=2**20)] | None = None
    activation_offload: Literal["none", "checkpoints", "all"] = "none"  # to host RAM
    # How the weights reach the GPU (core/memory/loading.py): one tensor at a time, the whole
    # 16-bit model before sharding, or FSDP's full state dict unit by unit
    model_loading: Literal["sharded", "whole_model", "full_state_dict"] = "sharded"
    # TP collectives overlapped with the matmuls (torchtitan async TP, Megatron --tp-comm-overlap)
    async_tensor_parallel: bool = False
    # EP all-to-all of one micro-batch hidden behind the other's compute (Megatron-Core
    # --overlap-moe-expert-parallel-comm, DeepSeek-V3's DualPipe; core/speed/train_layer.py)
    expert_overlap: bool = False
    # Recurrent token mixers (Gated DeltaNet, Mamba-2) run whole on every TP rank, not split by
    # it: Miles' HuggingfaceAttention wrapper of Qwen3.5 / Qwen3-Next (core/speed/train_mixers.py)
    replicated_mixers: bool = False
    # Megatron-Core's token dispatcher for the EP all-to-all: "alltoall" (NCCL), or the flex
    # dispatcher's DeepEP / HybridEP, which send a token once to each other node holding any of
    # its experts (core/speed/alltoall_network.py)
    expert_dispatcher: Literal["alltoall", "deepep", "hybridep"] = "alltoall"
    # Megatron-Core --recompute-modules (core/registry/recompute_modules.py RECOMPUTE_MODULES)
    recompute_modules: tuple[str, ...] = Field((), strict=False)
    # Training passes of a MoE under EP: "balanced" every EP rank gets the mean share of the
    # routed tokens (the benchmarks' forced balance); "router" the router's own, skewed load, the
    # busiest EP rank setting each MoE layer (core/speed/expert_load.py; RL's policy sets it)
    expert_routing: Literal["balanced", "router"] = "balanced"

    @model_serializer(mode="wrap")
    def _echo(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        """ZeRO++'s settings left out of the echo when null (scenarios without them echo as
        before)."""
        data: dict[str, object] = handler(self)
        for key in ("zero_hpz_partition_size", "zero_quantized_weights", "zero_quantized_gradients"):
            if getattr(self, key) is None:
                data.pop(key, None)
        return data

    @field_validator("recompute_modules")
    @classmethod
    def _modules(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        return check_recompute_modules(v)

    @property
    def heads_split(self) -> bool | None:
        """Whether the context ranks split the heads as the RL framework set it (None: unset)."""
        return self._heads_split

    def splitting_heads(self, split: bool | None) -> ParallelismSpec:
        """This layout with the RL framework's context algorithm; set once, on a layout just
        copied (not a field: no echo changes)."""
        self._heads_split = split
        return self

    @property
    def gpus(self) -> int:
        return self.tensor * self.pipeline * self.data * self.context
