"""Hostile input to the recent fields, through the API and every command (docs/evidence/surfaces.md,
"Every recent field in every surface"): a wrong type, a value out of range, an unknown id and a
null where the field takes none are each refused in one line naming the field and what it takes,
and ``estimate``, ``plan`` and ``compare`` exit 2 with nothing written (tests/cli/refusal_suite.py).
A bare NaN in the file names the field too (tests/cli/scenario_file.py). The window's side is
tests/gui/test_surfaces_gui.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.cli.refusal_suite import refusal_tests
from tests.cli.scenario_file import nan_names_the_field
from tests.core.hostile_inputs import RL, at
from tests.core.test_zero3_sub_group import BASELINE
from tests.scenarios import VLLM, vllm_serving

# SGLang on a MoE model, where serving.moe_default_config is read (core/speed/sglang_moe_tiles.py)
SGLANG_MOE: dict[str, Any] = {
    **vllm_serving("qwen3-30b-a3b", parallelism={"tensor": 2}),
    "framework": "sglang",
}
MOE = vllm_serving("qwen3-30b-a3b", parallelism={"tensor": 2})
LORA: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "workload": {"kind": "lora"},
    "hardware": {"gpu": "h100-sxm-80gb"},
}
GPT2_EAGER: dict[str, Any] = {
    "model": {"preset": "gpt-2"},
    "workload": {"kind": "full_finetune", "sequence_length": 1024},
    "parallelism": {"attention": "eager"},
    "hardware": {"gpu": "h100-sxm-80gb"},
}
ZERO3: dict[str, Any] = BASELINE["recipe_scenario"]  # DeepSpeedExamples' ZeRO-3 on 4 H100
TREE: dict[str, Any] = {**VLLM, "serving": {"speculative": {"method": "eagle"}}}

BOOL = "valid boolean"
LOSSES = "must be one of full, chunked, linear_chunked, chunked_16bit, fused, lse_16bit"
LOSS_TAIL = "lse_fp32_shifted_inplace, z_loss, full_logits_held, unsloth_fused"
MOE_BACKENDS = "must be one of triton, flashinfer_trtllm, flashinfer_cutlass, aiter"
(TILES, LOSS, DROP, SUB) = (
    "serving.moe_default_config",
    "workload.loss",
    "model.attention_dropout",
    "parallelism.zero_sub_group_size",
)
(BACKEND, TOPK, DRAFTS) = (
    "serving.moe_backend",
    "serving.speculative.topk",
    "serving.speculative.num_draft_tokens",
)
(PER_FWD, SHARED, SLEEP) = (
    "rl.reference.offload_per_forward",
    "rl.rollout.shared_weights",
    "rl.rollout.sleep_level",
)
(HF_OPS, LOGPROB_MB, TRANSPORT) = (
    "rl.policy.hf_layer_ops",
    "rl.policy.log_prob_micro_batch_size",
    "rl.sync_transport",
)

NOT_BOOLS: tuple[Any, ...] = ("yes", "true", 1, 0, [])
NOT_LOSSES: tuple[Any, ...] = (
    "LSE_FP32_SHIFTED_INPLACE",
    "lse_fp32_shifted",
    " unsloth_fused",
    "unsloth",
    None,
    1,
    [],
)
NOT_BACKENDS: tuple[Any, ...] = ("TRITON", "cutlass", 1, "")
NOT_LEVELS: tuple[Any, ...] = (3, -1, "1", True, 1.5, None)
NOT_HF_OPS: tuple[Any, ...] = ("HF-FSDP1", "x", 1, [])
NOT_TRANSPORTS: tuple[Any, ...] = ("NCCL", "x", 1, True)

CASES: list[tuple[dict[str, Any], str, tuple[str, ...]]] = [
    # true, false or null: a string, a number, a list
    *((at(SGLANG_MOE, TILES, v), TILES, (BOOL,)) for v in NOT_BOOLS),
    # an id of core/registry/loss_kinds.py: miscased, cut short, padded, null, a number, a list
    *((at(LORA, LOSS, v), LOSS, (LOSSES, LOSS_TAIL)) for v in NOT_LOSSES),
    # 0 <= p < 1 or null
    (at(GPT2_EAGER, DROP, -0.1), DROP, ("greater than or equal to 0",)),
    (at(GPT2_EAGER, DROP, 1.0), DROP, ("less than 1",)),
    (at(GPT2_EAGER, DROP, "0.1"), DROP, ("valid number",)),
    (at(GPT2_EAGER, DROP, True), DROP, ("valid number",)),
    # a whole count of parameters, 1 up to 10^13, or null
    (at(ZERO3, SUB, 0), SUB, ("greater than or equal to 1",)),
    (at(ZERO3, SUB, 1.5), SUB, ("valid integer",)),
    (at(ZERO3, SUB, "1e9"), SUB, ("valid integer",)),
    (at(ZERO3, SUB, 10**30), SUB, ("less than or equal to 10000000000000",)),
    # vLLM's --moe-backend ids (core/registry/moe_backends.py)
    *((at(MOE, BACKEND, v), BACKEND, (MOE_BACKENDS,)) for v in NOT_BACKENDS),
    # SGLang's tree: topk 1-16, num_draft_tokens 2-1,024, whole numbers
    (at(TREE, TOPK, 0), TOPK, ("greater than or equal to 1",)),
    (at(TREE, TOPK, 1.5), TOPK, ("whole number",)),
    (at(TREE, TOPK, "2"), TOPK, ("valid integer",)),
    (at(TREE, TOPK, 10**9), TOPK, ("less than or equal to 16",)),
    (at(TREE, DRAFTS, 1), DRAFTS, ("greater than or equal to 2",)),
    (at(TREE, DRAFTS, True), DRAFTS, ("valid integer",)),
    (at(TREE, DRAFTS, 10**9), DRAFTS, ("less than or equal to 1024",)),
    # the RL block's recent fields (docs/evidence/rl.md)
    *((at(RL, PER_FWD, v), PER_FWD, (BOOL,)) for v in NOT_BOOLS[2:]),
    *((at(RL, SHARED, v), SHARED, (BOOL,)) for v in ("yes", 1, None, *NOT_BOOLS[4:])),  # not nullable
    *((at(RL, SLEEP, v), SLEEP, ("0", "1 or 2")) for v in NOT_LEVELS),
    *((at(RL, HF_OPS, v), HF_OPS, ("must be one of hf-fsdp1",)) for v in NOT_HF_OPS),
    (at(RL, LOGPROB_MB, 0), LOGPROB_MB, ("greater than or equal to 1",)),
    (at(RL, LOGPROB_MB, 1.5), LOGPROB_MB, ("whole number",)),
    (at(RL, LOGPROB_MB, "8"), LOGPROB_MB, ("valid integer",)),
    (at(RL, LOGPROB_MB, 10**12), LOGPROB_MB, ("less than or equal to 16777216",)),
    *((at(RL, TRANSPORT, v), TRANSPORT, ("'collective' or 'stage_broadcast'",)) for v in NOT_TRANSPORTS),
]
test_the_api_refuses_in_one_line_naming_the_field, test_the_cli_refuses_a_file_in_one_line_and_exit_2 = (
    refusal_tests(CASES)
)


@pytest.mark.parametrize(
    ("base", "field"),
    [(SGLANG_MOE, TILES), (GPT2_EAGER, DROP), (ZERO3, SUB), (TREE, TOPK), (RL, LOGPROB_MB), (RL, SHARED)],
)
def test_a_bare_nan_names_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], base: dict[str, Any], field: str
) -> None:
    nan_names_the_field(tmp_path, capsys, base, field)
