"""Published RL step times replayed by tests/core/test_rl_evidence.py (docs/evidence/rl.md).

NeMo RL's performance summary (NVIDIA-NeMo/RL docs/about/performance-summary.md, v0.4 and
v0.6 tables; GRPO on OpenMathInstruct-2, Megatron-core training, vLLM generation, on-policy:
colocated), with the recipes' settings (examples/configs/recipes/llm/performance/*.yaml and
examples/configs/grpo_math_1B.yaml): 64 prompts x 32 generations (G-GBS 2,048) or 512
responses, train_global_batch_size 512, train_micro_batch_size 1, activation checkpointing,
sequence packing, distributed optimizer, vLLM gpu_memory_utilization 0.6. The table gives the
mean generated length (G-Average Seq len: NeMo RL's Tokens/sec/GPU counts the prompt beside it,
docs/evidence/rl.md section 2k) and the maximum sequence (max_total_sequence_length)."""

from __future__ import annotations

from typing import Any, NamedTuple

PROMPT = 128  # assumed mean prompt of OpenMathInstruct-2 with NeMo RL's CoT template (not published)
H100, GB200 = "h100-sxm-80gb", "gb200-186gb"
# GPUs one NVLink domain joins (hardware.gpus_per_node). The GB200 tables ran on GB200-NVL72
# ("System: GB200-NVL72"): the recipes' cluster.gpus_per_node 4 is the host (a compute tray of
# two Grace CPUs and four GPUs), and NCCL crosses trays over the rack's NVLink (MNNVL), which
# needs CUDA cuMem: vLLM leaves NCCL_CUMEM_ENABLE on where /dev/nvidia-caps-imex-channels exists
# (vLLM PR #16992) and, from PR #24141 (vLLM 0.11), everywhere; NeMo RL v0.5.0 and v0.6.0 pin
# vLLM 0.11.2 and 0.17.1 and set it to 1 for non-colocated generation. The model's node is that
# domain, 72 (presets/gpus/gb200-186gb.json; the 4-GPU tray is taken where the host matters,
# core/serving/load.py NVL_TRAY_GPUS). DGX H100: 8, the scenario's default.
NVLINK_DOMAIN = {GB200: 72}
# The vLLM release each NeMo RL tag installs (pyproject.toml's vllm extra and uv.lock at the tag,
# the local mirror of NVIDIA-NeMo/RL; core/registry/rl_framework_releases.py states the same
# pins as each release's rl.rollout.engine_version): a row runs the release of the table or
# blog it was published in. v0.3.0 and v0.3.1 both pin 0.9.0; main moved to 0.10.0 on
# 2025-08-05 (PR #766), so issue #959's reruns (2025-08-21, of the v0.3 blog's recipes at tag
# v0.3.0) are stated as the tag's 0.9.0 (docs/evidence/rl.md, the pinned releases' section).
# A release the catalog does not model takes the nearest older modelled one's rules
# (core/registry/engines.py ``release``): 0.10.0 -> 0.9.1, 0.11.2 and 0.17.1 -> 0.11.1.
NEMO_RL_VLLM = {"v0.3": "0.9.0", "v0.4": "0.10.0", "v0.5": "0.11.2", "v0.6": "0.17.1", "v0.7": "0.20.0"}
# The vLLM release the replays took before they stated their pins (the catalog's newest then),
# at which the phase analyses of docs/evidence/rl.md sections 10-29 (the GB200 pairs, the MoE
# phase bounds, the log-prob and preemption checks) were recorded: ``RLFigure.recorded``
RECORDED_VLLM = "0.33.0"


class RLFigure(NamedTuple):
    """One published step: what ran and the measured seconds per step."""

    name: str
    preset: str
    gpu: str
    gpus: int
    layout: tuple[int, int, int, int]  # training TP, CP, EP, PP
    responses: int
    # mean generated tokens per sample: the table's G-Average Seq len, which NeMo RL counts without
    # the prompt (docs/evidence/rl.md section 2k); the blog's and #959's mean generated tokens
    average: int
    longest: int  # T-Max Sequence Length
    engine_tp: int
    measured: float  # Total Step time (s)
    rollout_gpus: int = 0  # 1-step off-policy rows: the generation pool (split, overlapping)
    recompute: str = "full"  # megatron_cfg.activation_checkpointing: true (the MoE-235B/671B, 8B recipes)
    memory_fraction: float = 0.6  # vllm_cfg.gpu_memory_utilization of a colocated recipe
    # NeMo RL v0.4.0's synchronous engine (async_engine false: the Llama 8B, Qwen3-30B-A3B and
    # Qwen3-32B recipes) runs vLLM in-process with skip_tokenizer_init forced false; v0.3.1 and
    # v0.6.0 skip the tokenizer, the DeepSeek V3, Qwen3-235B and async recipes run AsyncLLM
    detokenize: bool = False
    off_policy_steps: int = 1  # grpo.async_grpo.max_trajectory_age_steps of an async recipe
    fp8: bool = False  # the FP8 recipe: Megatron fp8_cfg (blockwise e4m3) and vLLM precision fp8
    max_sequences: int | None = None  # vllm_kwargs.max_num_seqs where a recipe sets it
    packing: bool = True  # policy.sequence_packing.enabled (grpo_math_1B.yaml: true)
    train_batch: int = 512  # policy.train_global_batch_size (grpo_math_1B.yaml: 512)
    # loss_fn.force_on_policy_ratio false; true in most v0.7.0 recipes, where NeMo RL skips the
    # policy's prev_logprobs forward (nemo_rl/algorithms/grpo.py at v0.7.0)
    old_logprobs: bool = True
    # megatron_cfg.moe_permute_fusion where the release's grpo_math_1B.yaml sets it for every
    # recipe (true at v0.7.0); None: the per-recipe rule of v0.4.0-v0.6.0 (``permute_fusion``)
    moe_permute: bool | None = None
    split_fraction: float = 0.8  # vllm_cfg.gpu_memory_utilization of an async recipe's engines
    # vllm_kwargs.speculative_config {method: deepseek_mtp, num_speculative_tokens: 1} (the v0.7.0
    # DeepSeek V3 recipes): the engine drafts one token a step with DeepSeek V3's MTP module
    mtp: bool = False
    # vllm_kwargs.moe_backend where a recipe sets it (triton in every v0.7.0 MoE recipe)
    moe_backend: str | None = None

    @property
    def sync_engine(self) -> bool:
        """The synchronous in-process engine (vllm_cfg.async_engine false, grpo_math_1B.yaml):
        every colocated recipe but DeepSeek V3's and Qwen3-235B's, which set it true, as every
        async 1-off recipe does (tags v0.4.0 and v0.6.0)."""
        return not self.rollout_gpus and self.preset not in ("deepseek-v3", "qwen3-235b-a22b")

    @property
    def engine_version(self) -> str | None:
        """The vLLM release the row ran (``NEMO_RL_VLLM``), from the table's tag in its name;
        the #959 reruns the v0.3 blog's; None for a run of no tagged release (a PR's branch):
        the catalog's newest."""
        return NEMO_RL_VLLM.get("v0.3" if self.name.startswith("#959") else self.name.split()[0])

    def recorded(self) -> dict[str, Any]:
        """The scenario on ``RECORDED_VLLM``, the release the phase analyses of
        docs/evidence/rl.md sections 10-29 were recorded at (how the pins move them: the pinned
        releases' section there)."""
        sc = self.scenario()
        sc["rl"]["rollout"]["engine_version"] = RECORDED_VLLM
        # recorded before the async engines' own max_num_seqs default was stated (the
        # engine-context section of docs/evidence/rl.md): verl's 1,024, as then
        sc["rl"]["rollout"].pop("async_engine", None)
        # recorded before the math environment's verification was priced (rl.reward.verify_workers,
        # core/pipeline/rl_verify.py); kept out also because the popped async engine would price
        # the async recipes' per-response verifications as the synchronous batch's
        sc["rl"].pop("reward", None)
        return sc

    @property
    def permute_fusion(self) -> bool:
        """megatron_cfg.moe_permute_fusion: true in grpo-deepseek-v3-32n8g.yaml and
        grpo-qwen3-235b-16n8g.yaml, which every DeepSeek V3 and Qwen3-235B performance recipe
        inherits (tags v0.4.0-v0.6.0); grpo_math_1B.yaml's false elsewhere; ``moe_permute``
        where a release sets it for every recipe."""
        if self.moe_permute is not None:
            return self.moe_permute
        return self.preset in ("deepseek-v3", "qwen3-235b-a22b")

    @property
    def nemo_rl_table(self) -> bool:
        """A row of the summary's v0.4-v0.7 tables, H100 and GB200 alike: the settings this file
        states from the recipes at those tags. The GB200 recipes inherit them from their H100
        twins (grpo-qwen3-235b-16n4g.yaml from -16n8g, grpo-qwen3-32b-4n4g.yaml from -4n8g at
        v0.6.0-v0.7.0) or set them (grpo-qwen3-32b-4n4g.yaml and -8n4g-async-1off.yaml
        ``sequence_parallel: true`` at v0.5.0), and NeMo RL's Megatron worker pads packed rows
        under PP > 1 on any GPU (docs/evidence/rl.md section 41)."""
        return self.name.startswith(("v0.4", "v0.5", "v0.6", "v0.7"))

    @property
    def sequence_parallel(self) -> bool:
        """megatron_cfg.sequence_parallel: true in every H100 performance recipe that runs TP > 1
        (grpo-qwen3-30ba3b-4n8g.yaml at v0.4.0, grpo-qwen3-32b-4n8g.yaml, grpo-qwen3-235b-16n8g.yaml
        and their async children, tags v0.4.0-v0.7.0; Megatron requires it where TP and EP meet),
        false in grpo_math_1B.yaml and at TP 1. The v0.3.0 blog recipes keep false. Stated for the
        rows of the summary's tables, the GB200 recipes' (which set it too) included."""
        return self.layout[0] > 1 and self.nemo_rl_table

    @property
    def bias_activation_fusion(self) -> bool:
        """megatron_cfg.bias_activation_fusion: no key at tag v0.4.0, so Megatron-Bridge
        62f4704's provider default, false for the Qwen3 and Qwen3-MoE providers (true for Llama
        and DeepSeek); grpo_math_1B.yaml sets true from v0.5.0 (PR #1241)."""
        return not (self.name.startswith("v0.4 ") and self.preset.startswith("qwen3"))

    @property
    def rollout_weights(self) -> str | None:
        """The engine's weights: FP8 under the FP8 recipe (vllm_cfg precision fp8); else the
        checkpoint the recipe loads at ``policy.precision: bfloat16``. For DeepSeek V3 that is a
        BF16 checkpoint, not the preset's block-FP8 release: grpo-deepseek-v3-32n8g.yaml sets
        ``model_name: unsloth/DeepSeek-V3-0324-BF16`` at tags v0.4.0 and v0.5.0, and at v0.6.0
        points to docs/guides/deepseek.md, which casts the FP8 release to BF16 (DeepSeek's
        ``fp8_cast_bf16.py``) and deletes ``quantization_config``; every DeepSeek V3 recipe but the
        FP8 one inherits it. None: the preset's own (BF16 for the Qwen3 and Llama checkpoints)."""
        if self.fp8:
            return "fp8"
        return "bf16" if self.preset == "deepseek-v3" else None

    @property
    def refit_gather(self) -> str | None:
        """What the refit's pipeline broadcast carries (``rl.refit_gather``): the v0.3 blog's and
        issue #959's rows ran NeMo RL v0.3.0, whose ``refit_utils.gather_params`` broadcasts each
        TP-gathered tensor whole over the pipeline group ("full"). The v0.4-v0.7 tables' rows
        "shard": at tags v0.4.0-v0.7.0 both refits (``stream_weights_via_ipc_zmq`` and
        ``broadcast_weights_for_collective`` in ``megatron_policy_worker.py``) iterate
        Megatron-Bridge's ``export_hf_weights``, whose ``megatron_to_hf`` calls
        ``broadcast_from_pp_rank`` on the GPU's own shard before ``gather_from_tp_ranks``
        (``param_mapping.py`` at the pinned 62f4704, 1e9a459, 95e5f38; v0.7.0's fork pin read
        as Megatron-Bridge main): docs/evidence/rl.md sections 37 and 38."""
        if self.name.startswith(("v0.3", "#959")):
            return "full"
        return "shard" if self.name.startswith(("v0.4", "v0.5", "v0.6", "v0.7")) else None

    @property
    def verify_workers(self) -> int | None:
        """``rl.reward.verify_workers``: the Math-Verify actors NeMo RL's math environment deals
        a step's responses to, ``env.math.num_workers: 8`` in grpo_math_1B.yaml at tags v0.3.0
        through v0.7.0 (no Llama or Qwen3 or DeepSeek V3 GRPO performance recipe overrides it; the
        DAPO DeepSeek V3 recipe's 64 is not replayed): every NeMo RL row
        (core/pipeline/rl_verify.py; docs/evidence/rl.md, the verification's section)."""
        return 8 if self.name.startswith(("v0.3", "#959", "v0.4", "v0.5", "v0.6", "v0.7")) else None

    @property
    def pad_packed_rows(self) -> bool:
        """``rl.policy.pad_packed_rows``: NeMo RL's Megatron worker pads each packed row to its
        batch's longest under PP > 1, in training and in the log-prob forwards. Tags v0.4.0-v0.7.0
        (docs/evidence/rl.md section 27) and v0.3.0 alike: ``megatron_policy_worker.py`` at v0.3.0
        (and v0.3.1) sets ``pad_full_seq_to`` from
        ``get_microbatch_iterator_for_packable_sequences_len`` (the batch's longest packed row)
        in ``train`` where ``pipeline_model_parallel_size > 1`` and passes it as
        ``pad_packed_seq_to`` in ``get_logprobs`` ("if pp_size > 1, we need to pad the full
        sequence to the max sequence length to maintain a static PP buffer"). Stated for the
        summary's rows, H100 and GB200 (``nemo_rl_table``), and for the v0.3 blog's and issue
        #959's Megatron rows at PP > 1 (the DTensor rows run PP 1)."""
        v03 = self.name.startswith(("v0.3", "#959"))
        return self.nemo_rl_table or (v03 and self.layout[3] > 1)

    @property
    def node(self) -> dict[str, int]:
        """The NVLink domain where it is not the scenario's default of 8 (``NVLINK_DOMAIN``)."""
        return {"gpus_per_node": NVLINK_DOMAIN[self.gpu]} if self.gpu in NVLINK_DOMAIN else {}

    def scenario(self) -> dict[str, Any]:
        tp, cp, ep, pp = self.layout
        mean = self.average
        prompts = 64 if self.responses == 2048 else 32
        return {
            "model": {"preset": self.preset},
            "framework": "megatron",
            "hardware": {"gpu": self.gpu, **self.node},
            "workload": {"kind": "rl"},
            "parallelism": {
                "tensor": tp,
                "context": cp,
                "expert": ep,
                # every recipe's base config (grpo_math_1B.yaml, tags v0.4.0-v0.7.0) sets
                # megatron_cfg.expert_tensor_parallel_size: 1 and no recipe overrides it
                **({"expert_tensor": 1} if ep > 1 else {}),
                "pipeline": pp,
                "data": self.gpus // (tp * cp * pp),
                "recompute": self.recompute,
                "zero_stage": 1,
                **({"sequence_parallel": True} if self.sequence_parallel else {}),
            },
            # megatron_cfg.distributed_data_parallel_config.grad_reduce_in_fp32 false (tags v0.3.x:
            # grpo_math_1B_megatron.yaml; v0.4.0-v0.7.0: grpo_math_1B.yaml): a 16-bit main_grad buffer
            "precision": {"grad_reduce_in_fp32": False, **({"matmuls": "fp8"} if self.fp8 else {})},
            "rl": {
                "algorithm": "grpo",
                "prompt_tokens": PROMPT,
                "policy": {
                    "mini_batch_size": self.train_batch,
                    "moe_permute_fusion": self.permute_fusion,
                    # defer_fp32_logits false (grpo_math_1B.yaml, tags v0.4.0-v0.6.0): the
                    # log-probs and the loss run DistributedLogprob over FP32 logits
                    "fp32_logprobs": True,
                    "bias_activation_fusion": self.bias_activation_fusion,
                    # Megatron-Core's wgrad accumulation unfused at every tag v0.3.0-v0.7.0
                    # (core/registry/rl_framework_releases.py NEMO_RL's sources): DDP's hook
                    # adds each micro-batch's gradient into main_grad (rl.md section 108)
                    "gradient_accumulation_fusion": False,
                    **({} if self.packing else {"sequence_packing": False}),
                    # NeMo RL's Megatron worker pads each packed row to its batch's longest under
                    # PP > 1 (tags v0.3.0-v0.7.0; docs/evidence/rl.md section 27, ``pad_packed_rows``)
                    **({"pad_packed_rows": True} if self.pad_packed_rows else {}),
                    **({} if self.old_logprobs else {"old_logprobs": False}),
                },
                # NeMo RL keeps the reference on the host and swaps it in for its forward
                # (megatron_policy_worker.py use_reference_model)
                "reference": {"offload": True},
                **({"reward": {"verify_workers": self.verify_workers}} if self.verify_workers else {}),
                "rollout": {
                    "engine_version": self.engine_version,
                    "tensor": self.engine_tp,
                    "prompts_per_step": prompts,
                    "samples_per_prompt": self.responses // prompts,
                    "response_tokens": mean,
                    "response_spread": (self.longest - PROMPT) / mean - 1,
                    # the async recipes' vLLM gpu_memory_utilization on its own GPUs: 0.8 (0.88 in
                    # v0.7.0's Qwen3-235B async recipes: split_fraction)
                    "memory_fraction": self.split_fraction if self.rollout_gpus else self.memory_fraction,
                    "gpus": self.rollout_gpus,
                    "detokenize_in_step": self.detokenize,
                    "weights": self.rollout_weights,
                    "max_sequences": self.max_sequences,
                    # vllm_cfg.async_engine true: AsyncLLM.from_engine_args, whose usage context
                    # takes max_num_seqs 128 where vllm_kwargs sets none (vLLM 0.9.2 on;
                    # core/registry/vllm_engine_context.py); the LLM class's 1,024 otherwise
                    **({} if self.sync_engine else {"async_engine": True}),
                    **({"speculative": {"method": "mtp", "num_tokens": 1}} if self.mtp else {}),
                    **({"moe_backend": self.moe_backend} if self.moe_backend else {}),
                    # vllm_worker.py at v0.3.0-v0.6.0: SamplingParams(logprobs=0); generate copies
                    # each token's log-prob into full_logprobs one element at a time
                    "returns_logprobs": True,
                    "copies_logprobs": self.sync_engine,
                },
                "placement": "split" if self.rollout_gpus else "colocated",
                # every async recipe's refit at tags v0.4.0-v0.7.0: the packed broadcast over one
                # NCCL group of all training and generation GPUs (docs/evidence/rl.md section 22)
                **({"sync_transport": "collective"} if self.rollout_gpus else {}),
                **({"refit_gather": self.refit_gather} if self.refit_gather else {}),
                "off_policy_steps": self.off_policy_steps,
                # NeMo RL moves each optimizer state with v.to("cpu") and back (pageable)
                "offload_memory": "pageable",
            },
        }


# The Qwen3-30B-A3B and Qwen3-32B recipes (grpo-qwen3-30ba3b-4n8g, -4n4g, grpo-qwen3-32b-4n8g and
# their async children, tags v0.4.0 and v0.6.0) leave megatron_cfg.activation_checkpointing at
# grpo_math_1B.yaml's false: no recompute.
NO_AC: dict[str, Any] = {"recompute": "none"}

# Every row at its recipe's EP, with the base config's expert TP 1 (``scenario``): Megatron-Core
# lays the experts on their own grid, expert TP x EP x PP dividing the GPUs, so the Qwen3-235B
# recipes' EP 16 runs where DP x CP is 4 or 8 (docs/evidence/rl.md section 33; before it, EP 8 and
# EP 4 stood in; tests/core/test_rl_qwen235b_layouts.py checks each row against its recipe).
FIGURES = (
    RLFigure(
        "v0.4 Llama 3.1 8B, 16 H100",
        "llama-3.1-8b",
        H100,
        16,
        (1, 1, 1, 2),
        2048,
        1060,
        4096,
        1,
        97.7,
        detokenize=True,
    ),
    RLFigure(
        "v0.4 Qwen3-30B-A3B, 32 H100",
        "qwen3-30b-a3b",
        H100,
        32,
        (2, 1, 8, 1),
        2048,
        3154,
        4096,
        4,
        225,
        detokenize=True,
        **NO_AC,
    ),
    RLFigure(
        "v0.6 Qwen3-30B-A3B, 32 H100",
        "qwen3-30b-a3b",
        H100,
        32,
        (1, 1, 8, 1),
        2048,
        3203,
        4096,
        2,
        192,
        **NO_AC,
    ),
    RLFigure(
        "v0.4 Qwen3-32B, 32 H100",
        "qwen3-32b",
        H100,
        32,
        (4, 1, 1, 4),
        2048,
        3206,
        4096,
        4,
        393,
        detokenize=True,
        **NO_AC,
    ),
    RLFigure(
        "v0.4 Qwen3-235B, 128 H100", "qwen3-235b-a22b", H100, 128, (2, 2, 16, 8), 512, 5671, 8192, 16, 506
    ),
    RLFigure(
        "v0.6 Qwen3-235B, 128 H100", "qwen3-235b-a22b", H100, 128, (2, 2, 16, 8), 512, 5698, 8192, 16, 395
    ),
    RLFigure(
        "v0.6 Qwen3-235B, 256 H100", "qwen3-235b-a22b", H100, 256, (2, 2, 16, 8), 512, 5713, 8192, 16, 312
    ),
    RLFigure("v0.4 DeepSeek V3, 256 H100", "deepseek-v3", H100, 256, (1, 1, 16, 16), 512, 745, 1536, 32, 154),
    RLFigure("v0.6 DeepSeek V3, 256 H100", "deepseek-v3", H100, 256, (1, 1, 16, 16), 512, 701, 1536, 32, 134),
    RLFigure("v0.6 DeepSeek V3, 512 H100", "deepseek-v3", H100, 512, (1, 1, 16, 16), 512, 697, 1536, 32, 111),
    RLFigure(
        "v0.6 Qwen3-30B-A3B, 16 GB200",
        "qwen3-30b-a3b",
        GB200,
        16,
        (1, 1, 16, 1),
        2048,
        3199,
        4096,
        1,
        221,
        **NO_AC,
    ),
    RLFigure(
        "v0.6 Qwen3-235B, 64 GB200",
        "qwen3-235b-a22b",
        GB200,
        64,
        (2, 2, 16, 4),
        512,
        5709,
        8192,
        8,
        286,
        memory_fraction=0.4,  # grpo-qwen3-235b-16n4g.yaml
    ),
    RLFigure(
        "v0.6 Qwen3-235B, 128 GB200", "qwen3-235b-a22b", GB200, 128, (2, 2, 16, 4), 512, 5693, 8192, 8, 345
    ),
    RLFigure(
        "v0.6 DeepSeek V3, 128 GB200",
        "deepseek-v3",
        GB200,
        128,
        (1, 1, 16, 8),
        512,
        711,
        1536,
        32,
        108,
        memory_fraction=0.3,  # grpo-deepseek-v3-32n4g.yaml
    ),
    RLFigure(
        "v0.6 DeepSeek V3, 256 GB200",
        "deepseek-v3",
        GB200,
        256,
        (1, 1, 16, 8),
        512,
        700,
        1536,
        32,
        98.7,
        memory_fraction=0.3,  # grpo-deepseek-v3-64n4g.yaml (from 32n4g)
    ),
)

# Off-policy rows (one step; one 8-step row): generation on its own nodes, half the GPUs in the
# async 1-off recipes (async-grpo-*-{2n8g,4n8g,8n8g,32n8g,64n8g}.yaml: colocated.enabled false,
# generation resources half the cluster), overlapping training; `gpus` is the training pool.
# Qwen3-235B: the recipe's EP 16 over DP 4 at expert TP 1 (see the note above FIGURES).
OFF_POLICY = (
    RLFigure(
        "v0.4 Llama 3.1 8B 1-off, 8+8 H100",
        "llama-3.1-8b",
        H100,
        8,
        (1, 1, 1, 2),
        2048,
        1129,
        4096,
        1,
        74.6,
        8,
    ),
    RLFigure(
        "v0.4 Qwen3-30B-A3B 1-off, 16+16 H100",
        "qwen3-30b-a3b",
        H100,
        16,
        (2, 1, 8, 1),  # the v0.4 table's [TP, CP, EP, PP] and generation TP 4 (recipe at v0.4.0)
        2048,
        3158,
        4096,
        4,
        244,
        16,
        **NO_AC,
    ),
    RLFigure(
        "v0.6 Qwen3-30B-A3B 1-off, 16+16 H100",
        "qwen3-30b-a3b",
        H100,
        16,
        (1, 1, 8, 2),
        2048,
        3201,
        4096,
        2,
        152,
        16,
        **NO_AC,
    ),
    RLFigure(
        "v0.4 Qwen3-32B 1-off, 32+32 H100",
        "qwen3-32b",
        H100,
        32,
        (4, 1, 1, 4),
        2048,
        3207,
        4096,
        4,
        215,
        32,
        **NO_AC,
    ),
    RLFigure(
        "v0.4 Qwen3-235B 1-off, 128+128 H100",
        "qwen3-235b-a22b",
        H100,
        128,
        (4, 1, 16, 8),
        512,
        5691,
        8192,
        8,
        241,
        128,
    ),
    RLFigure(
        "v0.6 Qwen3-235B 1-off, 128+128 H100",
        "qwen3-235b-a22b",
        H100,
        128,
        (4, 1, 16, 8),
        512,
        5721,
        8192,
        8,
        231,
        128,
    ),
    RLFigure(
        "v0.4 DeepSeek V3 1-off, 256+256 H100",
        "deepseek-v3",
        H100,
        256,
        (1, 1, 16, 16),
        512,
        744,
        1536,
        32,
        77.9,
        256,
    ),
    RLFigure(
        "v0.6 DeepSeek V3 1-off, 256+256 H100",
        "deepseek-v3",
        H100,
        256,
        (1, 1, 16, 16),
        512,
        710,
        1536,
        32,
        64.1,
        256,
    ),
    # v0.6 table rows replayed since docs/evidence/rl.md section 2l (recipes at tag v0.6.0).
    # grpo-deepseek-v3-64n4g-async-1off.yaml: 64 GB200 nodes of 4, generation 32 of them at vLLM
    # TP 16, training PP 8 EP 16 (as the table), gpu_memory_utilization 0.8 (64n8g-async-1off)
    RLFigure(
        "v0.6 DeepSeek V3 1-off, 128+128 GB200",
        "deepseek-v3",
        GB200,
        128,
        (1, 1, 16, 8),
        512,
        708,
        1536,
        16,
        61.7,
        128,
    ),
    # grpo-qwen3-235b-32n4g-async-1off.yaml: 32 nodes of 4, generation 16 at vLLM TP 8, training
    # TP 4 PP 4 EP 16 on 64 GPUs (DP 4; EP 16 at expert TP 1, as on H100)
    RLFigure(
        "v0.6 Qwen3-235B 1-off, 64+64 GB200",
        "qwen3-235b-a22b",
        GB200,
        64,
        (4, 1, 16, 4),
        512,
        5705,
        8192,
        8,
        278,
        64,
    ),
    # grpo-qwen3-30ba3b-4n4g-async-1off.yaml: 4 nodes of 4, generation 2 of them at vLLM TP 1,
    # training EP 8 on the other 8 GPUs (the table prints the on-policy row's EP 16, which 8
    # training GPUs cannot hold)
    RLFigure(
        "v0.6 Qwen3-30B-A3B 1-off, 8+8 GB200",
        "qwen3-30b-a3b",
        GB200,
        8,
        (1, 1, 8, 1),
        2048,
        3197,
        4096,
        1,
        301,
        8,
        **NO_AC,
    ),
    # grpo-qwen3-30ba3b-24n8g-async-8off.yaml: 24 H100 nodes, generation 8 of them at vLLM TP 2,
    # training TP 1 PP 1 EP 8 on 128 GPUs, max_trajectory_age_steps 8
    RLFigure(
        "v0.6 Qwen3-30B-A3B 8-off, 128+64 H100",
        "qwen3-30b-a3b",
        H100,
        128,
        (1, 1, 8, 1),
        2048,
        3206,
        4096,
        2,
        34.5,
        64,
        off_policy_steps=8,
        **NO_AC,
    ),
    # the H100 FP8 table: grpo-deepseek-v3-64n8g-fp8-async-1off.yaml, Megatron fp8_cfg (e4m3,
    # blockwise), vLLM precision fp8 at TP 16 with max_num_seqs 32, else as 64n8g-async-1off
    RLFigure(
        "v0.6 DeepSeek V3 FP8 1-off, 256+256 H100",
        "deepseek-v3",
        H100,
        256,
        (1, 1, 16, 16),
        512,
        721,
        1536,
        16,
        59.2,
        256,
        fp8=True,
        max_sequences=32,
    ),
)

# NeMo RL v0.3 blog's per-phase step ("NeMo-RL V0.3: Scalable and Performant Post-training with
# Nemo-RL via Megatron-Core", nvidia-nemo.github.io/blog/2025/07/21/nemo-rl-v0.3, table as quoted
# in NVIDIA-NeMo/RL issue #959): recipes examples/configs/grpo_math_8B_megatron.yaml and
# grpo_math_70B_megatron.yaml at tag v0.3.0: 64 prompts x 32 generations, train_global_batch_size
# 512, micro-batch 1, max_total_sequence_length 4096 (= max_new_tokens), sequence packing,
# activation checkpointing off, vLLM gpu_memory_utilization 0.6. The table gives the mean
# generated tokens per sample (795 and 398), not the sequence: average = that (the prompt apart).
# Phases: NeMo RL's timers (grpo.py) generation, policy_and_reference_logprobs,
# policy_training, and refit (prepare_for_generation: the moves and the refit together).
PHASED = (
    (
        RLFigure(
            "v0.3 Llama 3.1 8B, 8 H100",
            "llama-3.1-8b",
            H100,
            8,
            (1, 1, 1, 2),
            2048,
            795,
            4096,
            1,
            112,
            recompute="none",
        ),
        {"rollout": 58.0, "log_probs": 18.0, "training": 28.0, "refit": 5.0},
    ),
    (
        RLFigure(
            "v0.3 Llama 3.1 70B, 64 H100",
            "llama-3.1-70b",
            H100,
            64,
            (4, 1, 1, 4),
            2048,
            398,
            4096,
            4,
            147,
            recompute="none",
        ),
        {"rollout": 84.0, "log_probs": 18.0, "training": 28.0, "refit": 14.0},
    ),
)
