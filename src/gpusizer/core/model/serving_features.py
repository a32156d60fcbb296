"""The serving block's deployment features (contract: docs/scenario-format.md "Serving
features"): prefix caching (``serving.prefix``) and speculative decoding
(``serving.speculative``). Null: the feature is off and every answer is as without it.

The rules that read them: core/serving/prefix.py and core/serving/speculative.py."""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import Field, PrivateAttr, field_validator

from ..errors import check_id, excerpt
from ..limits import GpuCount, Rate, Strict, Tokens, Whole
from ..registry.engine_names import spec_method
from ..registry.pd_connectors import PD_CONNECTORS

SpecMethod = Literal["draft_model", "eagle", "eagle3", "mtp", "ngram"]
MAX_SPEC_TOKENS = 16  # vLLM num_speculative_tokens; EAGLE-3's deepest published chain is 8
MAX_SPEC_TOPK = 16  # SGLang --speculative-eagle-topk; the published trees branch 8 (EAGLE PR 173)
MAX_SPEC_VERIFY = 1024  # SGLang --speculative-num-draft-tokens; the published trees verify 64
MAX_TURNS = 1000  # turns per conversation; ShareGPT's longest chats run to a few hundred


class PrefixSpec(Strict):
    """Automatic prefix caching (vLLM ``--enable-prefix-caching``, SGLang RadixAttention): the
    first ``shared_tokens`` of every prompt are the same (a system prompt, a conversation so
    far); a request finds them cached with probability ``hit_rate`` (null: 1, every request
    after the first). ``shared_tokens`` null: no shared prefix (the block is off).
    ``turns``: multi-turn chats instead, each conversation's own history the prefix its next
    turn reuses (core/serving/multi_turn.py; null: off); ``hit_rate`` null then: priced from
    the capacity the live conversations' histories need; ``shared_tokens`` beside it: a system
    prompt every conversation starts with, before its history."""

    shared_tokens: Tokens | None = None
    hit_rate: Annotated[float, Field(ge=0.0, le=1.0)] | None = None
    turns: Annotated[int, Whole, Field(ge=1, le=MAX_TURNS)] | None = None
    # the new user tokens a turn adds, kept by the mean turn's view (multi_turn.py
    # ``turns_view``), whose workload.prompt_tokens is the mean prompt; not part of the contract
    _new_tokens: int | None = PrivateAttr(None)


class SpeculativeSpec(Strict):
    """Speculative decoding: ``method`` proposes ``num_tokens`` tokens per step (vLLM
    ``num_speculative_tokens``, SGLang ``--speculative-num-steps``), the target verifies them in
    one forward pass and keeps each with probability ``acceptance_rate`` (Leviathan et al.'s
    alpha; null: the method's published default, core/serving/speculative.py ``METHODS``).
    ``draft_model``: the draft's model block (a preset or a full block), for ``draft_model``.
    ``topk`` and ``num_draft_tokens``: SGLang's draft tree (``--speculative-eagle-topk``,
    ``--speculative-num-draft-tokens``; null: a chain, core/serving/spec_tree.py).
    ``method`` null: off."""

    method: SpecMethod | None = None
    num_tokens: Annotated[int, Whole, Field(ge=1, le=MAX_SPEC_TOKENS)] | None = None
    acceptance_rate: Annotated[float, Field(gt=0.0, le=1.0)] | None = None
    topk: Annotated[int, Whole, Field(ge=1, le=MAX_SPEC_TOPK)] | None = None
    num_draft_tokens: Annotated[int, Whole, Field(ge=2, le=MAX_SPEC_VERIFY)] | None = None
    # a ModelSpec once parsed (core/pipeline/scenario.py expands and validates the block first;
    # this module cannot name ModelSpec: core/model/specs.py imports it)
    draft_model: Any = None

    @field_validator("method", mode="before")
    @classmethod
    def _method(cls, v: object) -> object:
        # the engine's own spelling of a method it runs as one of these (vLLM rewrites every
        # *_mtp to mtp, SGLang NEXTN to EAGLE): core/registry/engine_names.py
        return spec_method(v)


LoraTarget = Literal["q", "k", "v", "o", "gate", "up", "down"]


class LoraServingSpec(Strict):
    """Many LoRA adapters on one base model (vLLM ``--enable-lora``): ``adapters`` served
    (vLLM ``max_cpu_loras``: kept in host memory), ``max_loaded`` of them on the GPU at once
    (``max_loras``; null: 1), every slot sized for ``rank`` (``max_lora_rank``; null: 16) on
    ``targets`` (null: every linear layer). ``adapters`` null: off. ``active``: the adapters
    the requests use (null: every served adapter; 0: the base model's requests on the
    LoRA-enabled server, the slots reserved and no adapter read)."""

    adapters: Annotated[int, Whole, Field(ge=1, le=100_000)] | None = None
    max_loaded: Annotated[int, Whole, Field(ge=1, le=1024)] | None = None
    rank: Annotated[int, Whole, Field(ge=1, le=512)] | None = None
    targets: tuple[LoraTarget, ...] | None = Field(None, strict=False)  # JSON lists
    active: Annotated[int, Whole, Field(ge=0, le=100_000)] | None = None

    @field_validator("targets", mode="before")
    @classmethod
    def _targets(cls, v: object) -> object:
        """A non-empty list of targets, or null for every linear layer: ``[]`` read as null
        would wrap every layer the user emptied the list of."""
        if v is None or (isinstance(v, (list, tuple)) and v):
            return v
        allowed = ", ".join(get_args(LoraTarget))
        raise ValueError(f"must be a list of one or more of {allowed}, or null (every one); got {excerpt(v)}")


class KvOffloadSpec(Strict):
    """KV offload (vLLM ``--kv-offloading-size``, LMCache): the prefix cache's blocks kept in
    host memory (``medium`` "cpu", null) or on a local disk ("disk") of ``capacity_gb`` GB and
    loaded back at ``bandwidth_gb_per_s`` per GPU (null: the medium's default,
    core/serving/kv_offload.py). ``capacity_gb`` null: off."""

    capacity_gb: Rate | None = None  # GB (bounded as every rate: core/limits.py)
    bandwidth_gb_per_s: Rate | None = None
    medium: Literal["cpu", "disk"] | None = None


class DisaggregatedSpec(Strict):
    """Disaggregated prefill and decode (NVIDIA Dynamo, llm-d, SGLang and vLLM PD): a pool of
    ``prefill_gpus`` GPUs computes prompts and hands each request's KV over a link of
    ``link_gb_per_s`` per GPU (null: the GPU's network, else its interconnect) to a pool of
    ``decode_gpus`` GPUs that only decode; each pool in replicas of the scenario's tensor x
    pipeline layout, the prefill pool's at ``prefill_tensor`` (null: the scenario's tensor
    parallelism) with ``prefill_attention_data`` attention data-parallel ranks and its experts
    over ``prefill_expert`` GPUs (null: the scenario's; aiconfigurator's measured P/D runs pair
    an attention-DP prefill worker with a tensor-parallel decode worker). ``prefill_gpus`` null:
    off."""

    # counts take a JSON number with no fraction (2.0) as every count of the scenario does
    # (core/limits.py Whole); 1.5 is refused naming the fraction
    prefill_gpus: GpuCount | None = None  # 1 .. core/limits.py MAX_GPU_COUNT
    decode_gpus: GpuCount | None = None
    link_gb_per_s: Rate | None = None
    prefill_tensor: Annotated[int, Whole, Field(ge=1, le=1024)] | None = None
    prefill_attention_data: Annotated[int, Whole, Field(ge=1, le=1024)] | None = None
    prefill_expert: Annotated[int, Whole, Field(ge=1, le=1024)] | None = None
    # requests one prefill rank runs at once (TensorRT-LLM max_batch_size, SGLang
    # --max-running-requests, vLLM max_num_seqs of the prefill worker; null: the engine's)
    prefill_max_sequences: Annotated[int, Whole, Field(ge=1, le=1_000_000)] | None = None
    # Additive: the requests' arrival process at the prefill pool as vLLM's benchmark states it
    # (``--burstiness``: gamma gaps of this shape, 1 = Poisson, larger = more regular; null:
    # Poisson, as before; core/serving/disagg_queue.py)
    arrival_burstiness: Annotated[float, Field(gt=0.0, le=1e6)] | None = None
    # Additive: the KV connector and proxy whose request path the first token pays (an id of
    # core/registry/pd_connectors.py; null: no path priced, as before)
    connector: str | None = None
    # Additive: the run opens with every user's request at once, as a concurrency benchmark
    # does (aiperf --concurrency after its warm-up drains): the first token's mean holds that
    # burst's queue at the prefill pool over ``serving.requests`` (null/false: as before;
    # core/serving/disagg_burst.py)
    opening_burst: bool | None = None
    # Additive: "shared": every prefill replica pulls one request at a time from one queue
    # (Dynamo v0.3.0's NATS JetStream prefill queue); null: each replica its own queue, the
    # arrivals split among them at random, as before (core/serving/disagg_pull.py)
    prefill_queue: Literal["shared"] | None = None

    @field_validator("connector", mode="before")  # any type: the message names the ids
    @classmethod
    def _connector(cls, v: object) -> str | None:
        return None if v is None else check_id(v, PD_CONNECTORS, "P/D connector")
