"""NeMo RL's performance summary, v0.7 tables ("NeMo RL v0.7": H100 BF16, H100 FP8 and
GB200-NVL72 BF16; docs/about/performance-summary.md at c31fb937a, which links the recipes at
tag v0.7.0), replayed as the v0.4-v0.6 rows are (docs/evidence/rl.md sections 2, 2l, 2m and the
v0.7 section). Settings from the recipes at tag v0.7.0
(examples/configs/recipes/llm/performance/*.yaml, each through its ``defaults:`` chain down to
examples/configs/grpo_math_1B.yaml):
- vLLM gpu_memory_utilization 0.6 colocated (grpo_math_1B.yaml), the GB200 DeepSeek V3 recipes
  0.3, GB200 Qwen3-235B on 64 GPUs 0.4 (on 128: 0.6, set again); async recipes 0.8, the
  Qwen3-235B async ones 0.88 (cherry-pick #3332 at the tag);
- activation checkpointing in the DeepSeek V3, Qwen3-235B and 40K Qwen3-30B-A3B recipes, not in
  the other Qwen3 ones; sequence packing on everywhere;
- moe_permute_fusion true in grpo_math_1B.yaml for every recipe (false at v0.4.0-v0.6.0);
- train_global_batch_size 2,048 in the Qwen3-30B-A3B (4n8g, 4n4g and their 1-off children) and
  Qwen3-32B recipes, 512 elsewhere (the 8-off and 40K ones included);
- loss_fn.force_on_policy_ratio true in every recipe but the 8-off and 40K ones: NeMo RL then
  skips the policy's prev_logprobs forward (``old_logprobs=False``), the reference's still runs;
- async_engine true for DeepSeek V3, Qwen3-235B and the async recipes, false (the synchronous
  engine and its log-prob copy) for the colocated Qwen3-30B-A3B and Qwen3-32B ones;
  skip_tokenizer_init true (no stop strings), so no detokenising in the step.
The vLLM release NeMo RL v0.7.0 pins (pyproject.toml: vllm 0.20.0, a modelled release) is
stated (``rl.rollout.engine_version``, tests/core/rl_figures.py ``NEMO_RL_VLLM``); before
docs/evidence/rl.md's pinned-release section every NeMo RL replay took the newest modelled
release, 0.33.0. The DeepSeek V3 recipes' vllm_kwargs.speculative_config (deepseek_mtp,
one token) is stated (``mtp``: rl.rollout.speculative). Not stated by the scenario, and so not
replayed: the GB200 recipes' HybridEP dispatcher. The table's EP where it exceeds DP x CP
(Qwen3-235B) is replayed as run, at expert TP 1, as in rl_figures.py. Not replayed: the four
Nemotron-3-Super-120B-A12B rows (nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16: a hybrid
Mamba-2 / attention model whose routed experts run in a latent space narrower than the hidden
size, ``moe_latent_size``: no preset, and the model's MoE experts take the hidden size)."""

from __future__ import annotations

from typing import Any

from .rl_figures import GB200, H100, NO_AC, RLFigure

# grpo_math_1B.yaml at v0.7.0: moe_permute_fusion true for every recipe
V07: dict[str, Any] = {"moe_permute": True}
# loss_fn.force_on_policy_ratio true: the policy's prev_logprobs forward skipped
FORCED: dict[str, Any] = {**V07, "old_logprobs": False}
# the DeepSeek V3 recipes (grpo-deepseek-v3-32n8g.yaml and its children): forced ratio, and the
# engine drafts one token a step with the checkpoint's MTP module (speculative_config deepseek_mtp)
# every MoE recipe's vllm_kwargs moe_backend: triton ("vLLM 0.20's default FlashInfer TRTLLM MoE
# backend isn't refit-compatible"; grpo-qwen3-235b-16n8g.yaml, grpo-qwen3-30ba3b-4n8g.yaml,
# grpo-deepseek-v3-32n8g.yaml and the recipes built on them): rl.rollout.moe_backend
TRITON: dict[str, Any] = {"moe_backend": "triton"}
DSV3: dict[str, Any] = {**FORCED, "mtp": True, **TRITON}
# the Qwen3-30B-A3B and Qwen3-32B recipes: train_global_batch_size 2,048, forced ratio, no recompute
QWEN_2K: dict[str, Any] = {**FORCED, **NO_AC, "train_batch": 2048}

V07_ON = (
    # grpo-deepseek-v3-32n8g.yaml: PP 16, EP 16, vLLM TP 32
    RLFigure(
        "v0.7 DeepSeek V3, 256 H100",
        "deepseek-v3",
        H100,
        256,
        (1, 1, 16, 16),
        512,
        722,
        1536,
        32,
        93,
        **DSV3,
    ),
    # grpo-deepseek-v3-64n8g.yaml: as 32n8g, EP 32
    RLFigure(
        "v0.7 DeepSeek V3, 512 H100",
        "deepseek-v3",
        H100,
        512,
        (1, 1, 32, 16),
        512,
        724,
        1536,
        32,
        81.2,
        **DSV3,
    ),
    # grpo-qwen3-235b-16n8g.yaml: TP 2, CP 2, PP 8, EP 16, vLLM TP 16
    RLFigure(
        "v0.7 Qwen3-235B, 128 H100",
        "qwen3-235b-a22b",
        H100,
        128,
        (2, 2, 16, 8),
        512,
        5719,
        8192,
        16,
        367,
        **FORCED,
        **TRITON,
    ),
    # grpo-qwen3-235b-32n8g.yaml: as 16n8g on 256 GPUs, EP 16
    RLFigure(
        "v0.7 Qwen3-235B, 256 H100",
        "qwen3-235b-a22b",
        H100,
        256,
        (2, 2, 16, 8),
        512,
        5698,
        8192,
        16,
        285,
        **FORCED,
        **TRITON,
    ),
    # grpo-qwen3-30ba3b-4n8g.yaml: EP 8, vLLM TP 2
    RLFigure(
        "v0.7 Qwen3-30B-A3B, 32 H100",
        "qwen3-30b-a3b",
        H100,
        32,
        (1, 1, 8, 1),
        2048,
        3198,
        4096,
        2,
        171,
        **QWEN_2K,
        **TRITON,
    ),
    # grpo-qwen3-32b-4n8g.yaml: TP 4, PP 4, vLLM TP 4
    RLFigure(
        "v0.7 Qwen3-32B, 32 H100", "qwen3-32b", H100, 32, (4, 1, 1, 4), 2048, 3256, 4096, 4, 323, **QWEN_2K
    ),
    # grpo-qwen3-30ba3b-4n8g-40K.yaml: TP 4, CP 8, EP 8, activation checkpointing, max 40,960
    # tokens, vLLM TP 2; train_global_batch_size 512 and force_on_policy_ratio false (defaults)
    RLFigure(
        "v0.7 Qwen3-30B-A3B 40K, 32 H100",
        "qwen3-30b-a3b",
        H100,
        32,
        (4, 8, 8, 1),
        2048,
        8170,
        40960,
        2,
        2022,
        **V07,
        **TRITON,
    ),
    # grpo-deepseek-v3-32n4g.yaml: PP 8, EP 16, vLLM TP 32, gpu_memory_utilization 0.3
    RLFigure(
        "v0.7 DeepSeek V3, 128 GB200",
        "deepseek-v3",
        GB200,
        128,
        (1, 1, 16, 8),
        512,
        719,
        1536,
        32,
        78.5,
        memory_fraction=0.3,
        **DSV3,
    ),
    # grpo-deepseek-v3-64n4g.yaml: as 32n4g, EP 32
    RLFigure(
        "v0.7 DeepSeek V3, 256 GB200",
        "deepseek-v3",
        GB200,
        256,
        (1, 1, 32, 8),
        512,
        728,
        1536,
        32,
        70.7,
        memory_fraction=0.3,
        **DSV3,
    ),
    # grpo-qwen3-235b-16n4g.yaml: TP 2, CP 2, PP 4, EP 16, vLLM TP 8, gpu_memory_utilization 0.4
    RLFigure(
        "v0.7 Qwen3-235B, 64 GB200",
        "qwen3-235b-a22b",
        GB200,
        64,
        (2, 2, 16, 4),
        512,
        5707,
        8192,
        8,
        268,
        memory_fraction=0.4,
        **FORCED,
        **TRITON,
    ),
    # grpo-qwen3-235b-32n4g.yaml: as 16n4g on 128 GPUs (EP 16), gpu_memory_utilization 0.6
    RLFigure(
        "v0.7 Qwen3-235B, 128 GB200",
        "qwen3-235b-a22b",
        GB200,
        128,
        (2, 2, 16, 4),
        512,
        5711,
        8192,
        8,
        210,
        **FORCED,
        **TRITON,
    ),
    # grpo-qwen3-30ba3b-4n4g.yaml: EP 16, vLLM TP 1
    RLFigure(
        "v0.7 Qwen3-30B-A3B, 16 GB200",
        "qwen3-30b-a3b",
        GB200,
        16,
        (1, 1, 16, 1),
        2048,
        3198,
        4096,
        1,
        186,
        **QWEN_2K,
        **TRITON,
    ),
    # grpo-qwen3-32b-4n4g.yaml: TP 2, PP 4 (from 4n8g), vLLM TP 2
    RLFigure(
        "v0.7 Qwen3-32B, 16 GB200", "qwen3-32b", GB200, 16, (2, 1, 1, 4), 2048, 3254, 4096, 2, 295, **QWEN_2K
    ),
)

V07_OFF = (
    # grpo-deepseek-v3-64n8g-async-1off.yaml: 256 + 256, vLLM TP 32
    RLFigure(
        "v0.7 DeepSeek V3 1-off, 256+256 H100",
        "deepseek-v3",
        H100,
        256,
        (1, 1, 16, 16),
        512,
        729,
        1536,
        32,
        46.6,
        256,
        **DSV3,
    ),
    # grpo-qwen3-235b-32n8g-async-1off.yaml: training TP 4 PP 8 EP 16 (over DP 4, expert TP 1),
    # generation 128 at TP 8, gpu_memory_utilization 0.88
    RLFigure(
        "v0.7 Qwen3-235B 1-off, 128+128 H100",
        "qwen3-235b-a22b",
        H100,
        128,
        (4, 1, 16, 8),
        512,
        5695,
        8192,
        8,
        204,
        128,
        split_fraction=0.88,
        **FORCED,
        **TRITON,
    ),
    # grpo-qwen3-30ba3b-4n8g-async-1off.yaml: training EP 8 PP 2, generation 16 at TP 2
    RLFigure(
        "v0.7 Qwen3-30B-A3B 1-off, 16+16 H100",
        "qwen3-30b-a3b",
        H100,
        16,
        (1, 1, 8, 2),
        2048,
        3203,
        4096,
        2,
        141,
        16,
        **QWEN_2K,
        **TRITON,
    ),
    # grpo-qwen3-30ba3b-24n8g-async-8off.yaml: generation 64 at TP 2, training EP 8 on 128,
    # max_trajectory_age_steps 8, train_global_batch_size 512, force_on_policy_ratio false
    RLFigure(
        "v0.7 Qwen3-30B-A3B 8-off, 128+64 H100",
        "qwen3-30b-a3b",
        H100,
        128,
        (1, 1, 8, 1),
        2048,
        3203,
        4096,
        2,
        33.1,
        64,
        off_policy_steps=8,
        **V07,
        **TRITON,
        **NO_AC,
    ),
    # grpo-qwen3-32b-8n8g-async-1off.yaml: training TP 4 PP 4, generation 32 at TP 4
    RLFigure(
        "v0.7 Qwen3-32B 1-off, 32+32 H100",
        "qwen3-32b",
        H100,
        32,
        (4, 1, 1, 4),
        2048,
        3258,
        4096,
        4,
        161,
        32,
        **QWEN_2K,
    ),
    # the H100 FP8 table: grpo-deepseek-v3-64n8g-fp8-async-1off.yaml (fp8_cfg blockwise e4m3,
    # vLLM precision fp8 at TP 16, max_num_seqs 32)
    RLFigure(
        "v0.7 DeepSeek V3 FP8 1-off, 256+256 H100",
        "deepseek-v3",
        H100,
        256,
        (1, 1, 16, 16),
        512,
        738,
        1536,
        16,
        61.9,
        256,
        fp8=True,
        max_sequences=32,
        **DSV3,
    ),
    # grpo-deepseek-v3-64n4g-async-1off.yaml: 128 + 128 GB200, training PP 8 EP 16, vLLM TP 16
    RLFigure(
        "v0.7 DeepSeek V3 1-off, 128+128 GB200",
        "deepseek-v3",
        GB200,
        128,
        (1, 1, 16, 8),
        512,
        719,
        1536,
        16,
        35,
        128,
        **DSV3,
    ),
    # grpo-qwen3-235b-32n4g-async-1off.yaml: training TP 4 PP 4 EP 16, generation 64 at TP 8, 0.88
    RLFigure(
        "v0.7 Qwen3-235B 1-off, 64+64 GB200",
        "qwen3-235b-a22b",
        GB200,
        64,
        (4, 1, 16, 4),
        512,
        5699,
        8192,
        8,
        160,
        64,
        split_fraction=0.88,
        **FORCED,
        **TRITON,
    ),
    # grpo-qwen3-30ba3b-4n4g-async-1off.yaml: training EP 8 on 8, generation 8 at TP 1
    RLFigure(
        "v0.7 Qwen3-30B-A3B 1-off, 8+8 GB200",
        "qwen3-30b-a3b",
        GB200,
        8,
        (1, 1, 8, 1),
        2048,
        3200,
        4096,
        1,
        242,
        8,
        **QWEN_2K,
        **TRITON,
    ),
    # grpo-qwen3-32b-8n4g-async-1off.yaml: training TP 2 PP 1 on 16, generation 16 at TP 1
    RLFigure(
        "v0.7 Qwen3-32B 1-off, 16+16 GB200",
        "qwen3-32b",
        GB200,
        16,
        (2, 1, 1, 1),
        2048,
        3255,
        4096,
        1,
        140,
        16,
        **QWEN_2K,
    ),
)
