"""NeMo RL's performance summary, v0.5 tables (docs/about/performance-summary.md at 108bffdab to
e7c0123d7, "Nemo RL v0.5": H100 BF16, H100 FP8 and GB200-NVL72 BF16), replayed as the v0.4 and
v0.6 rows of tests/core/rl_figures.py are (docs/evidence/rl.md section 2m). Settings from the
recipes at tag v0.5.0 (examples/configs/recipes/llm/performance/*.yaml over grpo_math_1B.yaml):
vLLM gpu_memory_utilization 0.6 colocated (the GB200 recipes too at v0.5.0) and 0.8 split;
activation checkpointing in the Llama 8B, DeepSeek V3 and Qwen3-235B recipes, not in the Qwen3
ones; async_engine true for DeepSeek V3, Qwen3-235B and every async recipe; skip_tokenizer_init
true (no stop strings: nemo_rl/models/generation/__init__.py), so no detokenising in the step.
Split rows: `gpus` the training pool, `rollout_gpus` the recipe's generation resources. The
table's EP 16 where DP x CP is smaller (Qwen3-235B) is replayed as run, at expert TP 1, as in
rl_figures.py.
Not replayed: the DAPO DeepSeek V3 row (dynamic sampling, up to 10 generation batches a step,
how many ran not published; EP 32 over DP x CP 8)."""

from __future__ import annotations

from .rl_figures import GB200, H100, NO_AC, RLFigure

V05_ON = (
    # grpo-llama3.1-8b-instruct-2n8g.yaml: PP 2, vLLM TP 1
    RLFigure("v0.5 Llama 3.1 8B, 16 H100", "llama-3.1-8b", H100, 16, (1, 1, 1, 2), 2048, 1019, 4096, 1, 92.8),
    # grpo-deepseek-v3-32n8g.yaml: PP 16, EP 16, vLLM TP 32
    RLFigure("v0.5 DeepSeek V3, 256 H100", "deepseek-v3", H100, 256, (1, 1, 16, 16), 512, 744, 1536, 32, 134),
    # grpo-qwen3-235b-16n8g.yaml: TP 2, CP 2, PP 8, EP 16, vLLM TP 16
    RLFigure(
        "v0.5 Qwen3-235B, 128 H100", "qwen3-235b-a22b", H100, 128, (2, 2, 16, 8), 512, 5700, 8192, 16, 431
    ),
    # grpo-qwen3-30ba3b-4n8g.yaml: EP 8, vLLM TP 2
    RLFigure(
        "v0.5 Qwen3-30B-A3B, 32 H100",
        "qwen3-30b-a3b",
        H100,
        32,
        (1, 1, 8, 1),
        2048,
        3196,
        4096,
        2,
        198,
        **NO_AC,
    ),
    # grpo-qwen3-32b-4n8g.yaml: TP 4, PP 4, vLLM TP 4
    RLFigure(
        "v0.5 Qwen3-32B, 32 H100", "qwen3-32b", H100, 32, (4, 1, 1, 4), 2048, 3251, 4096, 4, 376, **NO_AC
    ),
    # grpo-llama3.1-8b-instruct-2n4g.yaml: 8 GB200, TP 1 PP 1
    RLFigure("v0.5 Llama 3.1 8B, 8 GB200", "llama-3.1-8b", GB200, 8, (1, 1, 1, 1), 2048, 1066, 4096, 1, 91.0),
    # grpo-deepseek-v3-32n4g.yaml: PP 8, EP 16, vLLM TP 32, sequence_packing.enabled false (at
    # v0.5.0 only: each micro-batch of one response padded to the batch's longest)
    RLFigure(
        "v0.5 DeepSeek V3, 128 GB200",
        "deepseek-v3",
        GB200,
        128,
        (1, 1, 16, 8),
        512,
        996,
        1536,
        32,
        128,
        packing=False,
    ),
    # grpo-qwen3-235b-16n4g.yaml: TP 2, CP 2, PP 4, EP 16, vLLM TP 8
    RLFigure(
        "v0.5 Qwen3-235B, 64 GB200", "qwen3-235b-a22b", GB200, 64, (2, 2, 16, 4), 512, 5711, 8192, 8, 332
    ),
    # grpo-qwen3-30ba3b-4n4g.yaml: EP 16, vLLM TP 1
    RLFigure(
        "v0.5 Qwen3-30B-A3B, 16 GB200",
        "qwen3-30b-a3b",
        GB200,
        16,
        (1, 1, 16, 1),
        2048,
        3198,
        4096,
        1,
        232,
        **NO_AC,
    ),
    # grpo-qwen3-32b-4n4g.yaml: TP 2, vLLM TP 1
    RLFigure(
        "v0.5 Qwen3-32B, 16 GB200", "qwen3-32b", GB200, 16, (2, 1, 1, 1), 2048, 3253, 4096, 1, 381, **NO_AC
    ),
)

V05_OFF = (
    # grpo-llama3.1-8b-instruct-2n8g-async-1off.yaml: training 8 (PP 1), generation 8 at TP 1
    RLFigure(
        "v0.5 Llama 3.1 8B 1-off, 8+8 H100",
        "llama-3.1-8b",
        H100,
        8,
        (1, 1, 1, 1),
        2048,
        1123,
        4096,
        1,
        64.8,
        8,
    ),
    # grpo-deepseek-v3-64n8g-async-1off.yaml: 256 + 256, vLLM TP 32
    RLFigure(
        "v0.5 DeepSeek V3 1-off, 256+256 H100",
        "deepseek-v3",
        H100,
        256,
        (1, 1, 16, 16),
        512,
        738,
        1536,
        32,
        64.9,
        256,
    ),
    # grpo-qwen3-235b-32n8g-async-1off.yaml: training TP 4 PP 8 EP 16, generation 128 at TP 8
    RLFigure(
        "v0.5 Qwen3-235B 1-off, 128+128 H100",
        "qwen3-235b-a22b",
        H100,
        128,
        (4, 1, 16, 8),
        512,
        5707,
        8192,
        8,
        203,
        128,
    ),
    # grpo-qwen3-30ba3b-4n8g-async-1off.yaml: training EP 8 PP 2, generation 16 at TP 2
    RLFigure(
        "v0.5 Qwen3-30B-A3B 1-off, 16+16 H100",
        "qwen3-30b-a3b",
        H100,
        16,
        (1, 1, 8, 2),
        2048,
        3201,
        4096,
        2,
        154,
        16,
        **NO_AC,
    ),
    # grpo-qwen3-32b-8n8g-async-1off.yaml: training TP 4 PP 4, generation 32 at TP 4
    RLFigure(
        "v0.5 Qwen3-32B 1-off, 32+32 H100",
        "qwen3-32b",
        H100,
        32,
        (4, 1, 1, 4),
        2048,
        3252,
        4096,
        4,
        200,
        32,
        **NO_AC,
    ),
    # the H100 FP8 table: grpo-llama3.1-8b-instruct-2n8g-fp8-async-1off.yaml (fp8_cfg, vLLM fp8)
    RLFigure(
        "v0.5 Llama 3.1 8B FP8 1-off, 8+8 H100",
        "llama-3.1-8b",
        H100,
        8,
        (1, 1, 1, 1),
        2048,
        1128,
        4096,
        1,
        53.0,
        8,
        fp8=True,
    ),
    # grpo-deepseek-v3-64n8g-fp8-async-1off.yaml: vLLM fp8 at TP 16, max_num_seqs 32
    RLFigure(
        "v0.5 DeepSeek V3 FP8 1-off, 256+256 H100",
        "deepseek-v3",
        H100,
        256,
        (1, 1, 16, 16),
        512,
        761,
        1536,
        16,
        67.6,
        256,
        fp8=True,
        max_sequences=32,
    ),
    # grpo-llama3.1-8b-instruct-2n4g-async-1off.yaml: 4 + 4 GB200
    RLFigure(
        "v0.5 Llama 3.1 8B 1-off, 4+4 GB200",
        "llama-3.1-8b",
        GB200,
        4,
        (1, 1, 1, 1),
        2048,
        1107,
        4096,
        1,
        71.1,
        4,
    ),
    # grpo-deepseek-v3-64n4g-async-1off.yaml: 128 + 128, vLLM TP 16, sequence_packing off (v0.5.0)
    RLFigure(
        "v0.5 DeepSeek V3 1-off, 128+128 GB200",
        "deepseek-v3",
        GB200,
        128,
        (1, 1, 16, 8),
        512,
        994,
        1536,
        16,
        64.5,
        128,
        packing=False,
    ),
    # grpo-qwen3-235b-32n4g-async-1off.yaml: training TP 4 PP 4 EP 16, generation 64 at TP 8
    RLFigure(
        "v0.5 Qwen3-235B 1-off, 64+64 GB200",
        "qwen3-235b-a22b",
        GB200,
        64,
        (4, 1, 16, 4),
        512,
        5711,
        8192,
        8,
        268,
        64,
    ),
    # grpo-qwen3-30ba3b-8n4g-async-1off.yaml: training EP 16, generation 16 at TP 1
    RLFigure(
        "v0.5 Qwen3-30B-A3B 1-off, 16+16 GB200",
        "qwen3-30b-a3b",
        GB200,
        16,
        (1, 1, 16, 1),
        2048,
        3204,
        4096,
        1,
        136,
        16,
        **NO_AC,
    ),
    # grpo-qwen3-32b-8n4g-async-1off.yaml: training TP 2 on 16, generation 16 at TP 1
    RLFigure(
        "v0.5 Qwen3-32B 1-off, 16+16 GB200",
        "qwen3-32b",
        GB200,
        16,
        (2, 1, 1, 1),
        2048,
        3258,
        4096,
        1,
        210,
        16,
        **NO_AC,
    ),
)
