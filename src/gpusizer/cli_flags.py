"""The scenario flags of ``gpusizer-cli``: one :class:`Flag` per command-line field, the scenario
field it sets and how its value is read (a quantity kind of io/quantities.py, or text).
cli_args.py adds them to a parser and applies them; documented in docs/scenario-format.md
("Command-line scenarios").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Flag:
    """``--name VALUE`` sets ``path``; ``kind`` is a quantity kind of io/quantities.py, or
    "text"; ``choices`` names a registry to list in the help."""

    name: str
    path: str
    kind: str
    help: str
    choices: Callable[[], list[str]] | None = None
    applies: str = ""  # "training" or "inference": the other kind ignores it (a warning says so)


def _kinds() -> list[str]:
    from .core.registry.workloads import WORKLOAD_KINDS

    return list(WORKLOAD_KINDS)


def _frameworks() -> list[str]:
    from .core.registry.frameworks import FRAMEWORKS

    return list(FRAMEWORKS)


def _dtypes() -> list[str]:
    from .core.registry.dtypes import DTYPES

    return list(DTYPES)


FLAGS: tuple[Flag, ...] = (
    Flag("--name", "name", "text", "the scenario's name (shown in reports)"),
    Flag(
        "--model",
        "model",
        "text",
        "a model preset id (`gpusizer-cli presets` lists them); replaces the file's model",
    ),
    Flag("--kind", "workload.kind", "text", "what is done with the model", _kinds),
    Flag("--gpu", "hardware.gpu", "text", "a GPU id (`gpusizer-cli gpus` lists them)"),
    Flag("--gpus-per-node", "hardware.gpus_per_node", "count", "GPUs per node (TP stays within a node)"),
    Flag("--framework", "framework", "text", "whose memory layout is modelled", _frameworks),
    Flag("--tp", "parallelism.tensor", "count", "tensor-parallel degree"),
    Flag("--pp", "parallelism.pipeline", "count", "pipeline-parallel degree (stages)"),
    Flag("--dp", "parallelism.data", "count", "data-parallel degree (replicas)"),
    Flag("--cp", "parallelism.context", "count", "context-parallel degree"),
    Flag("--ep", "parallelism.expert", "count", "expert-parallel degree (MoE)"),
    Flag(
        "--etp",
        "parallelism.expert_tensor",
        "count",
        "the experts' own tensor-parallel degree (Megatron expert_tensor_parallel_size; MoE training)",
        applies="training",
    ),
    Flag("--zero", "parallelism.zero_stage", "count", "ZeRO stage, 0-3 (training)", applies="training"),
    Flag(
        "--context",
        "",
        "context",
        "tokens per sequence: the training sequence length, or "
        "for inference prompt + generated tokens (8k = 8,192)",
    ),
    Flag(
        "--prompt",
        "workload.prompt_tokens",
        "context",
        "prompt tokens per sequence (inference; 8k = 8,192)",
        applies="inference",
    ),
    Flag(
        "--generated",
        "workload.generated_tokens",
        "context",
        "tokens generated per sequence (inference)",
        applies="inference",
    ),
    Flag(
        "--users",
        "workload.batch_size",
        "count",
        "concurrent sequences one replica serves (workload.batch_size, the estimate's batch; the "
        "window's 'Users to serve' is --target-users)",
        applies="inference",
    ),
    Flag(
        "--max-kv-size",
        "serving.max_kv_size",
        "tokens",
        "each sequence's KV cache keeps at most N tokens, the oldest dropped (mlx-lm --max-kv-size)",
        applies="inference",
    ),
    Flag(
        "--target-users",
        "targets.users",
        "count",
        "users to serve at once over all replicas (targets.users: compare and plan grow the count "
        "to it; the window's 'Users to serve')",
        applies="inference",
    ),
    Flag(
        "--max-ttft",
        "targets.max_ttft_seconds",
        "number",
        "target: seconds to the first token at most (targets.max_ttft_seconds; replaces the "
        "default target's)",
        applies="inference",
    ),
    Flag(
        "--min-tokens-per-user",
        "targets.min_tokens_per_second_per_user",
        "number",
        "target: output tokens/s per user at least (targets.min_tokens_per_second_per_user; "
        "replaces the default target's)",
        applies="inference",
    ),
    Flag(
        "--deadline-days",
        "targets.max_training_days",
        "number",
        "target: train workload.training_tokens within this many days (targets.max_training_days)",
        applies="training",
    ),
    Flag(
        "--budget-usd",
        "targets.max_purchase_usd",
        "number",
        "target: what an option buys (its GPUs and their server or host) costs at most this many "
        "USD (targets.max_purchase_usd); rows over it rank after, saying by how much",
    ),
    Flag(
        "--micro-batch",
        "workload.micro_batch_size",
        "count",
        "sequences per GPU per step (training)",
        applies="training",
    ),
    Flag(
        "--global-batch",
        "workload.global_batch_size",
        "count",
        "sequences per optimizer step (training)",
        applies="training",
    ),
    Flag(
        "--tokens",
        "workload.training_tokens",
        "tokens",
        "tokens to train on (1T = 10^12; sets the training time)",
        applies="training",
    ),
    Flag("--lora-rank", "workload.lora_rank", "count", "LoRA rank r", applies="training"),
    Flag(
        "--lora-layers",
        "workload.lora_layers",
        "count",
        "adapters on the last N layers only (mlx_lm.lora --num-layers)",
        applies="training",
    ),
    Flag(
        "--transformers-version",
        "workload.transformers_version",
        "text",
        "transformers release (e.g. 5.1.0): from 5 a MoE's experts are fused 3-D parameters for LoRA",
        applies="training",
    ),
    Flag(
        "--unsloth-version",
        "workload.unsloth_version",
        "text",
        "Unsloth release (e.g. 2026.7.2): from 2026.2.1/2026.7.2 it adapts gpt-oss's experts",
        applies="training",
    ),
    Flag("--weights", "precision.weights", "text", "storage format of the weights", _dtypes),
    Flag("--kv-cache", "precision.kv_cache", "text", "storage format of the KV cache", _dtypes),
)
