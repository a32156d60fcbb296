"""The scenario's ``rl.rollout`` block (contract: docs/scenario-format.md "RL post-training"): the
inference engine that generates the responses of RL post-training, its release, batch and
memory. The rest of the ``rl`` block is core/model/rl_spec.py; the rules that tie it to the
rest of the scenario are core/pipeline/rl_roles.py."""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import Field, field_validator

from ..errors import check_id
from ..limits import Batch, Degree, SomeGpus, Strict, Tokens, Whole
from ..registry.moe_backends import MOE_BACKENDS
from ..registry.stack_names import rollout_engine
from .serving_features import SpeculativeSpec

Spread = Annotated[float, Field(ge=0.0, le=20.0)]

# verl's rollout config (verl/trainer/config/rollout/rollout.yaml): max_num_seqs 1024, the
# engine's sequences at once when rl.rollout.max_sequences is null
VERL_MAX_SEQUENCES = 1024


class RolloutSpec(Strict):
    """The inference engine generating the responses (verl ``actor_rollout_ref.rollout``)."""

    engine: Literal["vllm", "sglang"] = "vllm"
    engine_version: Annotated[str, Field(max_length=40)] | None = None  # null: the current release
    tensor: Degree = 1  # the engine's own TP (verl rollout.tensor_model_parallel_size)
    samples_per_prompt: Batch = 8  # verl rollout.n, OpenRLHF n_samples_per_prompt
    prompts_per_step: Batch = 256  # verl data.train_batch_size
    response_tokens: Tokens = 1024  # mean response length
    # the longest response is mean x (1 + spread): the tail that ends the rollout (verl
    # data.max_response_length caps it)
    response_spread: Spread = 1.0
    # vLLM gpu_memory_utilization / SGLang mem_fraction_static; null: 0.5 colocated (verl's
    # examples), the engine's default split
    memory_fraction: Annotated[float, Field(gt=0.0, le=1.0)] | None = None
    max_sequences: Batch | None = None  # vLLM max_num_seqs; null: the release's default
    # separate generate calls a step's responses are split into, in series, each returning when
    # its longest response ends (TRL's GRPOTrainer v0.14.0-v0.16.x: one call per gradient-
    # accumulation micro-step; core/pipeline/rl_rounds.py); 1: one call for the step
    generation_rounds: Annotated[int, Whole, Field(ge=1, le=4096)] = 1
    # vLLM's AsyncLLM built from AsyncEngineArgs (NeMo RL vllm_cfg.async_engine true), whose
    # usage context has its own max_num_seqs default: 128 from vLLM 0.9.2 where max_sequences
    # is null (core/registry/vllm_engine_context.py); false: the offline LLM class (verl's 1,024)
    async_engine: bool = False
    gpus: SomeGpus = 0  # split placement: GPUs of the rollout pool (colocated: ignored)
    # colocated: vLLM sleep mode level (1: weights to host RAM, KV dropped, NeMo RL's; 2: both
    # dropped, the refit refills the weights); SGLang release_memory_occupation as level 1;
    # 0: the engine does not sleep, its weights and KV pool stay on the GPU through training
    # (TRL v1.x colocate, GRPOConfig.vllm_enable_sleep_mode False; core/pipeline/rl_memory.py)
    sleep_level: Literal[0, 1, 2] = 1
    # decode steps replayed from captured CUDA graphs (null: the release's default; false: vLLM
    # enforce_eager, as verl's rollout.enforce_eager: true runs it)
    cuda_graphs: bool | None = None
    # the engine detokenises every generated token in the decode step's own thread: vLLM V1's
    # synchronous engine core called in the trainer's process (NeMo RL vllm_worker.py:
    # VLLM_ENABLE_V1_MULTIPROCESSING=0, async_engine false) with its tokenizer loaded
    # (skip_tokenizer_init false, as NeMo RL v0.4.0 forces for vLLM 0.10.0); false: no
    # detokenising (skip_tokenizer_init true) or an engine process of its own (AsyncLLM)
    detokenize_in_step: bool = False
    # the engine returns each generated token's log-prob (vLLM SamplingParams logprobs=0, as NeMo
    # RL asks at every tag): the engine core slices and hands it on per request and step
    returns_logprobs: bool = False
    # after its rollout each replica copies every token's log-prob into a tensor one element at a
    # time (NeMo RL vllm_worker.generate with its synchronous engine, async_engine false)
    copies_logprobs: bool = False
    # a LoRA policy's adapter served on the engine's base weights (vLLM enable_lora, verl's
    # TensorLoRARequest), its kernels in every step; false: merged weights synced (null: true)
    serves_adapter: bool | None = None
    # vLLM max_num_batched_tokens: prompt tokens per prefill step (null: the prompts of a batch in
    # one step; verl's tuning scripts set 1536 with chunked prefill off)
    max_batched_tokens: Tokens | None = None
    # the engine's weight dtype (core/registry/dtypes.py id; null: the 16-bit weights the policy
    # syncs): NeMo RL vllm_cfg precision "fp8" has vLLM quantise each synced tensor to FP8 in
    # 128 x 128 blocks as it loads it (nemo_rl/models/generation/vllm/quantization/fp8.py, v0.6.0)
    weights: Annotated[str, Field(min_length=1, max_length=40)] | None = None
    # speculative decoding in the engine's decode steps, as ``serving.speculative`` prices it
    # (core/serving/speculative.py): NeMo RL v0.7.0's DeepSeek V3 recipes set vLLM
    # speculative_config {method: deepseek_mtp, num_speculative_tokens: 1}; null: off. A draft
    # model is not offered here (methods mtp, eagle, eagle3, ngram)
    speculative: SpeculativeSpec | None = None
    # vLLM's ``moe_backend`` for BF16 experts (``serving.moe_backend``; core/registry/
    # moe_backends.py ids): NeMo RL v0.7.0's MoE recipes pass vllm_kwargs moe_backend triton;
    # null: the release's default per GPU family
    moe_backend: str | None = None
    # one copy of the weights: the engine runs in the trainer's process over the LoRA policy's
    # own base at its storage dtype (Unsloth fast_inference, core/pipeline/rl_one_copy.py)
    shared_weights: bool = False
    # with shared_weights: the KV pool discarded outside rollout (UNSLOTH_VLLM_STANDBY=1)
    standby: bool = False

    @field_validator("engine", mode="before")  # vLLM / SGLang in any case (stack_names.py)
    @classmethod
    def _engine(cls, v: object) -> object:
        return rollout_engine(v)

    @field_validator("moe_backend", mode="before")  # any type: the message names the ids
    @classmethod
    def _moe_backend(cls, v: object) -> str | None:
        return None if v is None else check_id(v, MOE_BACKENDS, "vLLM MoE backend")

    @field_validator("sleep_level", mode="before")
    @classmethod
    def _level(cls, v: object) -> object:
        """A level is a number: ``false`` is not level 0, nor ``true`` level 1 (the choice
        compares by equality, which lets booleans through)."""
        if isinstance(v, bool):
            raise ValueError(f"must be 0 (no sleep), 1 or 2; got {str(v).lower()}")
        return v

    @property
    def longest_tokens(self) -> int:
        """Tokens of the longest response: the mean stretched by the spread."""
        return max(1, math.ceil(self.response_tokens * (1 + self.response_spread) - 1e-6))  # no float dust

    @property
    def sequences(self) -> int:
        """The engine's ``max_num_seqs``: as set, else verl's default."""
        return self.max_sequences or VERL_MAX_SEQUENCES
