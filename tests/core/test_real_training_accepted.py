"""Training, fine-tuning and RL runs as teams ran them in 2025-26, tried through the estimate
and checked against the stack's source (docs/evidence/training.md, "Real training,
fine-tuning and RL runs the estimate refused, round 3"): accepted where the stack runs them,
or refused in one line that names what is not modelled and the fields that state the run.

Sources (beside each case): TRL ``trl/trainer/dpo_trainer.py`` (v0.19-v0.24: the reference is
``create_reference_model(model)`` unless the model is a ``PeftModel`` or
``precompute_ref_log_probs``; ``concatenated_forward``), ``orpo_trainer.py`` / ``cpo_trainer.py``
(no ``ref_model``), ``grpo_config.py`` (``vllm_mode`` "server" / "colocate"); PyTorch FSDP2
``fully_shard`` on a 2-D mesh (HSDP); DeepSpeed ``deepspeed/runtime/zero/config.py`` (ZeRO++
``zero_hpz_partition_size``, ``zero_quantized_weights``); torchtune v0.6 ``recipes/
qat_distributed.py`` and ``knowledge_distillation_distributed.py``; axolotl
``sequence_parallel_degree`` (docs/sequence_parallelism.qmd); core/registry/training_flags.py."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import MESSAGE_CHARS, ScenarioError
from gpusizer.core.registry.training_flags import TRAINING_FIELDS, TRAINING_KINDS

H100 = {"gpu": "h100-sxm-80gb"}


def _train(preset: str, framework: str, kind: str, par: dict[str, Any], **more: Any) -> dict[str, Any]:
    work = {"kind": kind, "sequence_length": 4096, "micro_batch_size": 1, **more.pop("workload", {})}
    return {
        "model": {"preset": preset},
        "framework": framework,
        "workload": work,
        "parallelism": par,
        "hardware": more.pop("hardware", H100),
        **more,
    }


def _rl(preset: str, framework: str, par: dict[str, Any], rl: dict[str, Any], **work: Any) -> dict[str, Any]:
    return {
        "model": {"preset": preset},
        "framework": framework,
        "workload": {"kind": "rl", "micro_batch_size": 1, **work},
        "parallelism": par,
        "rl": rl,
        "hardware": H100,
    }


def _refusal(s: dict[str, Any]) -> ScenarioError:
    with pytest.raises(ScenarioError) as err:
        estimate_report(s)
    text = str(err.value)
    assert "\n" not in text and not text.endswith("…"), text  # one whole line
    return err.value


# Accepted already (checked, no change): each runs as its stack runs it.
ACCEPTED = {
    # TRL GRPO, DeepSpeed ZeRO-3 on 7 GPUs, `trl vllm-serve` on the 8th (vllm_mode="server")
    "trl-grpo-zero3-vllm-server": _rl(
        "qwen2.5-7b",
        "deepspeed",
        {"data": 7, "zero_stage": 3},
        {"framework": "trl", "placement": "split", "rollout": {"gpus": 1, "prompts_per_step": 56}},
    ),
    # verl GRPO, Megatron backend, TP 2 x CP 2 x DP 2 (actor.megatron.context_parallel_size 2)
    "verl-megatron-cp2": _rl(
        "qwen2.5-7b",
        "megatron",
        {"tensor": 2, "context": 2, "data": 2},
        {"framework": "verl", "rollout": {"tensor": 2}},
    ),
    # verl GRPO with LoRA (actor_rollout_ref.model.lora_rank 64, FSDP backend)
    "verl-grpo-lora": _rl(
        "qwen2.5-7b",
        "fsdp",
        {"data": 8, "zero_stage": 3},
        {"framework": "verl", "policy": {"kind": "lora"}, "rollout": {"tensor": 2}},
        lora_rank=64,
    ),
    # OpenRLHF PPO: actor and critic ZeRO-3 on 8 GPUs, vLLM engines on 4 more (Ray)
    "openrlhf-ppo-split": _rl(
        "llama-3.1-8b",
        "deepspeed",
        {"data": 8, "zero_stage": 3},
        {"framework": "openrlhf", "algorithm": "ppo", "placement": "split", "rollout": {"gpus": 4}},
    ),
    # 6 training + 2 rollout GPUs; 12 colocated GPUs with rollout TP 4
    "rl-split-6-2": _rl("qwen3-8b", "fsdp", {"data": 6}, {"placement": "split", "rollout": {"gpus": 2}}),
    "rl-colocated-12": _rl(
        "qwen3-8b", "fsdp", {"data": 12, "zero_stage": 3}, {"framework": "verl", "rollout": {"tensor": 4}}
    ),
    # LLaMA-Factory FSDP + QLoRA, Llama 3.1 70B on 2 x 48 GB
    "llamafactory-fsdp-qlora": _train(
        "llama-3.1-70b",
        "fsdp",
        "qlora",
        {"data": 2, "zero_stage": 3, "recompute": "full"},
        hardware={"gpu": "rtx-a6000-48gb"},
    ),
    # axolotl sequence_parallel_degree 4 (ring-flash-attn) stated as parallelism.context 4
    "axolotl-sp4": _train(
        "llama-3.1-8b",
        "axolotl",
        "full_finetune",
        {"data": 2, "context": 4, "zero_stage": 3, "recompute": "full"},
        workload={"sequence_length": 32768},
    ),
    # Megatron TP 8 x CP 2 x PP 8 with 2 virtual stages, 405B at 16k
    "megatron-tp8-cp2-vpp": _train(
        "llama-3.1-405b",
        "megatron",
        "pretraining",
        {"tensor": 8, "context": 2, "pipeline": 8, "virtual_stages": 2, "data": 2, "sequence_parallel": True},
        workload={"sequence_length": 16384, "global_batch_size": 256},
    ),
    # MLX LoRA (mlx_lm.lora) on an M3 Ultra
    "mlx-lora-m3-ultra": _train(
        "llama-3.1-8b", "mlx", "lora", {}, hardware={"gpu": "apple-m3-ultra-512gb", "gpus_per_node": 1}
    ),
    # odd GPU counts: FSDP on 3, DeepSpeed ZeRO-2 on 6, Megatron TP 4 x PP 3 on 12, torchtune on 6
    "fsdp-3": _train("llama-3.1-8b", "fsdp", "full_finetune", {"data": 3, "zero_stage": 3}),
    "deepspeed-6": _train("qwen2.5-7b", "deepspeed", "full_finetune", {"data": 6, "zero_stage": 2}),
    "megatron-12": _train(
        "llama-3.1-70b",
        "megatron",
        "pretraining",
        {"tensor": 4, "pipeline": 3, "sequence_parallel": True},
        workload={"global_batch_size": 96},
    ),
    "torchtune-lora-6": _train("llama-3.1-70b", "torchtune", "lora", {"data": 6, "zero_stage": 3}),
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_accepted(name: str) -> None:
    report = estimate_report(copy.deepcopy(ACCEPTED[name]))
    assert report["per_gpu"]["total"] > 0


# A stack's kind written as workload.kind / workload.loss: the line names the fields that state it.
@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        # TRL DPOTrainer / KTOTrainer: now a fine-tune's workload.preference block, its
        # reference copy, adapter_off (PEFT), precomputed or none (core/registry/preference.py)
        ("kind", "dpo", "state workload.preference"),
        ("loss", "dpo", "reference: copy, adapter_off, precomputed, none"),
        ("kind", "kto", "micro_batch_size: pairs"),
        # TRL ORPOTrainer / CPOTrainer (SimPO): no reference model
        ("kind", "orpo", "with workload.kind full_finetune, lora or qlora (no reference"),
        ("loss", "simpo", "workload.preference"),
        ("kind", "grpo", "workload.kind rl with rl.algorithm"),
        ("kind", "SFT", "full_finetune, lora or qlora"),
        ("kind", "reward_modeling", "upper bound"),
    ],
)
def test_stack_kind_names_the_fields(field: str, value: str, words: str) -> None:
    s = _train("llama-3.1-8b", "deepspeed", "full_finetune", {"data": 8, "zero_stage": 3})
    s["workload"][field] = value
    err = _refusal(s)
    assert err.field == f"workload.{field}" and words in str(err)


def test_stated_preference_runs() -> None:
    # DPO with LoRA as the refusal states it (TRL: the reference is the adapters-off base, no
    # copy): 2 pairs a micro-batch are 4 sequences in one concatenated forward
    par = {"data": 8, "zero_stage": 2, "recompute": "full"}
    s = _train(
        "llama-3.1-8b", "deepspeed", "lora", par, workload={"micro_batch_size": 4, "sequence_length": 2048}
    )
    assert estimate_report(s)["fits"]


@pytest.mark.parametrize(
    ("block", "path", "words"),
    [
        (
            {"parallelism": {"data": 32, "zero_stage": 3, "data_shard": 8}},
            "parallelism.data_shard",
            "shard degree",
        ),
        (
            {"parallelism": {"data": 32, "zero_stage": 3, "zero_hpz_partition_size": 8}},
            "parallelism.zero_hpz_partition_size",
            "ZeRO++ applies to deepspeed",  # PyTorch FSDP runs no ZeRO++ (core/memory/zeropp.py)
        ),
        ({"workload": {"kind": "full_finetune", "qat": True}}, "workload.qat", "not modelled"),
        (
            {"workload": {"kind": "lora", "teacher": {"preset": "llama-3.1-70b"}}},
            "workload.teacher",
            "knowledge distillation",
        ),
        (
            {"parallelism": {"data": 2, "sequence_parallel_degree": 4}},
            "parallelism.sequence_parallel_degree",
            "state parallelism.context",
        ),
        (
            {"workload": {"kind": "full_finetune", "gradient_accumulation_steps": 8}},
            "workload.gradient_accumulation_steps",
            "global_batch_size",
        ),
    ],
)
def test_stack_option_names_the_field(block: dict[str, Any], path: str, words: str) -> None:
    s = _train("llama-3.1-70b", "fsdp", "full_finetune", {})
    for key, value in block.items():
        s[key] = {**s[key], **value}
    err = _refusal(s)
    assert err.field == path and words in str(err)


@pytest.mark.parametrize(
    ("rl", "path", "words"),
    [
        ({"rollout": {"vllm_mode": "server"}}, "rl.rollout.vllm_mode", "rl.placement split"),
        ({"rollout": {"fast_inference": True}}, "rl.rollout.fast_inference", "shared_weights true"),
        ({"rollout": {"n": 8}}, "rl.rollout.n", "samples_per_prompt"),
        ({"policy": {"lora_rank": 64}}, "rl.policy.lora_rank", "rl.policy.kind lora"),
    ],
)
def test_rl_option_names_the_field(rl: dict[str, Any], path: str, words: str) -> None:
    err = _refusal(_rl("qwen3-8b", "fsdp", {"data": 8, "zero_stage": 3}, rl))
    assert err.field == path and words in str(err)


def test_every_line_fits_one_message() -> None:
    # the refusal is cut at MESSAGE_CHARS: every line must fit whole after its path
    for path, line in TRAINING_FIELDS.items():
        assert len(f"{path}: unknown field: {line}") < MESSAGE_CHARS, path
    for value, line in TRAINING_KINDS.items():
        assert len(f"workload.kind: {line}; got {value!r}") < MESSAGE_CHARS, value


def test_own_ids_are_not_hinted() -> None:
    # a registered kind or loss is never answered by a stack name's line
    from gpusizer.core.registry.loss_kinds import LOSS_KINDS
    from gpusizer.core.registry.workloads import WORKLOAD_KINDS

    assert not set(TRAINING_KINDS) & (set(WORKLOAD_KINDS) | set(LOSS_KINDS))
