"""verl's and OpenRLHF's releases: the ``rl.*`` knobs each sets by default (the types and the
rules of the table: core/registry/rl_framework_releases.py, NeMo RL's releases beside them)."""

from __future__ import annotations

from .rl_framework_releases import RLDefault, RLRelease, changed, vllm_pin

_VERL_YAML = "verl/trainer/config/ppo_trainer.yaml"
_VERL_ROLLOUT = "verl/trainer/config/rollout/rollout.yaml"
# verl's SGLang engine before v0.6.0 takes only mem_fraction_static of these knobs
# (verl/workers/rollout/sglang_rollout/sglang_rollout.py: VerlEngine(...) at v0.3.0.post1,
# AsyncEngine(...) at v0.5.0, neither given disable_cuda_graph, max_running_requests or
# chunked_prefill_size), so SGLang's own defaults hold there, CUDA graphs on; from v0.6.0
# async_sglang_server.py passes disable_cuda_graph=enforce_eager and
# max_running_requests=max_num_seqs, never a chunked-prefill size
_SGLANG_KEEPS_ITS_OWN = ", vLLM only: verl's SGLang engine is not given it"
# verl v0.3.0.post1 (the same values through v0.4.1): its FSDP workers and vLLM rollout.
# rollout.returns_logprobs holds on a V1 rollout only (engine_from): the knob's cost is vLLM
# V1's engine-core figure (core/pipeline/rl_time.py), and a V0 engine's output is priced by its
# own serial output processing (docs/evidence/rl.md, verl's eager V0 rollout).
_SPMD_LOGPROBS = (
    "verl/workers/rollout/vllm_rollout/vllm_rollout_spmd.py: SamplingParams(logprobs=0, ...) "
    "'can be set to 0 and let actor to recompute', on vLLM V1 (0.8.0 on)"
)
_VERL_030 = RLRelease(
    "0.3.0",
    "2025-04",
    (
        RLDefault(
            "rollout.memory_fraction", 0.5, f"{_VERL_YAML} rollout.gpu_memory_utilization 0.5 (v0.3.0.post1)"
        ),
        RLDefault(
            "rollout.cuda_graphs",
            False,
            f"{_VERL_YAML} rollout.enforce_eager True{_SGLANG_KEEPS_ITS_OWN} (v0.3.0.post1)",
            engine="vllm",
        ),
        RLDefault(
            "rollout.max_sequences",
            1024,
            f"{_VERL_YAML} rollout.max_num_seqs 1024{_SGLANG_KEEPS_ITS_OWN} (v0.3.0.post1)",
            engine="vllm",
        ),
        RLDefault(
            "rollout.max_batched_tokens",
            8192,
            f"{_VERL_YAML} rollout.max_num_batched_tokens 8192, enable_chunked_prefill True"
            f"{_SGLANG_KEEPS_ITS_OWN} (v0.3.0.post1)",
            engine="vllm",
        ),
        RLDefault(
            "rollout.detokenize_in_step",
            False,
            "verl/workers/rollout/vllm_rollout/vllm_rollout.py: SamplingParams detokenize=False "
            "(v0.3.0.post1)",
        ),
        RLDefault(
            "rollout.sleep_level",
            1,
            "verl/workers/sharding_manager/fsdp_vllm.py sleep(level=1) (v0.3.0.post1)",
        ),
        RLDefault(
            "rollout.returns_logprobs",
            True,
            f"{_SPMD_LOGPROBS}; the same at v0.4.1, v0.5.0 and v0.6.0, rollout.mode sync (v0.3.0.post1)",
            engine="vllm",
            engine_from="0.8.0",
        ),
        RLDefault(
            "policy.sequence_packing",
            False,
            f"{_VERL_YAML} actor_rollout_ref.model.use_remove_padding False (v0.3.0.post1)",
        ),
        RLDefault(
            "policy.micro_batch_unit",
            "response",
            f"{_VERL_YAML} actor.ppo_micro_batch_size_per_gpu: responses a micro-batch (v0.3.0.post1)",
        ),
        RLDefault(
            "policy.balanced_micro_batches",
            False,
            f"{_VERL_YAML} actor.use_dynamic_bsz False; verl/workers/actor/dp_actor.py: without it "
            "mini_batch.split(ppo_micro_batch_size_per_gpu), whole responses as they fall, while "
            "trainer.balance_batch True evens out only each rank's total (the same through v0.7.0: "
            "actor/actor.yaml use_dynamic_bsz false) (v0.3.0.post1)",
        ),
        RLDefault(
            "offload_states",
            False,
            f"{_VERL_YAML} actor.fsdp_config param_offload False, optimizer_offload False (v0.3.0.post1)",
        ),
        RLDefault(
            "policy.offload_per_call",
            True,
            "verl/workers/fsdp_workers.py: offload_fsdp_model_to_cpu after every worker call when "
            "param_offload is on (v0.3.0.post1)",
        ),
        RLDefault(
            "policy.prefetch_gathers",
            False,
            "verl/workers/fsdp_workers.py: FSDP(..., forward_prefetch=False) (v0.3.0.post1)",
        ),
        RLDefault(
            "policy.hf_layer_ops",
            "hf-fsdp1",
            f"{_VERL_YAML} actor.strategy fsdp, verl/utils/fsdp_utils.py get_fsdp_wrap_policy: each "
            "Hugging Face decoder layer an FSDP1 unit, run eagerly (the same at v0.5.0) (v0.3.0.post1)",
        ),
        RLDefault(
            "reference.offload",
            True,
            "verl/workers/fsdp_workers.py: 'We force reference policy to use CPUOffload', whatever "
            f"{_VERL_YAML} ref.fsdp_config.param_offload says (v0.3.0.post1)",
        ),
        RLDefault(
            "reference.offload_per_forward",
            True,
            "verl/workers/fsdp_workers.py: cpu_offload = CPUOffload(offload_params=True) for every role "
            "but the actor, so FSDP copies the reference's shards in at each forward (v0.3.0.post1)",
        ),
    ),
)
# v0.5.0: rollout settings move to rollout.yaml (same values); the one-step-off-policy recipe's
# split sync broadcasts tensor by tensor; the Megatron workers' TransformerConfig leaves
# gradient_accumulation_fusion at Megatron-Core's false (the same through v0.7.0, and mbridge's)
_VERL_050 = changed(
    _VERL_030,
    "0.5.0",
    "2025-07",
    RLDefault(
        "broadcast_per_tensor",
        True,
        "recipe/one_step_off_policy/fsdp_workers.py sync_rollout_weights: collective.broadcast "
        "per tensor (v0.5.0)",
    ),
    RLDefault(
        "policy.gradient_accumulation_fusion",
        False,
        "verl/models/mcore/config_converter.py _get_base_transformer_config: no "
        "gradient_accumulation_fusion, Megatron-Core ModelParallelConfig's False (v0.5.0)",
    ),
)
# v0.6.0: CUDA graphs on; sleep level 2 (verl/third_party/vllm/__init__.py VLLM_SLEEP_LEVEL 2
# with vLLM 0.8.5 or later, every modelled V1 release; 1 under layered_summon)
_VERL_060 = changed(
    _VERL_050,
    "0.6.0",
    "2025-10",
    RLDefault(
        "rollout.cuda_graphs",
        True,
        f"{_VERL_ROLLOUT} enforce_eager False, SGLang's disable_cuda_graph too "
        "(verl/workers/rollout/sglang_rollout/async_sglang_server.py) (v0.6.0)",
    ),
    RLDefault(
        "rollout.max_sequences",
        1024,
        f"{_VERL_ROLLOUT} max_num_seqs 1024, SGLang's max_running_requests too "
        "(verl/workers/rollout/sglang_rollout/async_sglang_server.py) (v0.6.0)",
    ),
    RLDefault(
        "rollout.sleep_level",
        2,
        "verl/third_party/vllm/__init__.py VLLM_SLEEP_LEVEL 2 for vllm >= 0.8.5 (v0.6.0)",
    ),
)
# v0.7.0: padding removed by default (the same through v0.9.0); the rollout runs the async
# server, which asks the engine for log-probs only when calculate_log_probs is set
_VERL_070 = changed(
    _VERL_060,
    "0.7.0",
    "2026-01",
    RLDefault(
        "policy.sequence_packing",
        True,
        "verl/trainer/config/model/hf_model.yaml use_remove_padding True (v0.7.0)",
    ),
    RLDefault(
        "rollout.returns_logprobs",
        False,
        f"{_VERL_ROLLOUT} mode async, calculate_log_probs False; verl/experimental/agent_loop/"
        "agent_loop.py logprobs=config.calculate_log_probs, vllm_async_server.py "
        "sampling_params['logprobs'] = 0 if ... else None (v0.7.0)",
        engine="vllm",
    ),
)
VERL: tuple[RLRelease, ...] = (_VERL_030, _VERL_050, _VERL_060, _VERL_070)

_ORL = "openrlhf/cli/train_ppo_ray.py"
# OpenRLHF v0.7.0 (the same knobs through v0.11.0, whose flags are renamed --vllm.*, --ds.*)
_ORL_070 = RLRelease(
    "0.7.0",
    "2025-04",
    (
        RLDefault("rollout.memory_fraction", 0.95, f"{_ORL} --vllm_gpu_memory_utilization 0.95 (v0.7.0)"),
        RLDefault("rollout.cuda_graphs", True, f"{_ORL} --enforce_eager default False (v0.7.0)"),
        RLDefault("policy.sequence_packing", False, f"{_ORL} --packing_samples default False (v0.7.0)"),
        RLDefault(
            "policy.balanced_micro_batches",
            False,
            f"{_ORL} --micro_train_batch_size samples a micro-batch, packed as they fall under "
            "--packing_samples; --use_dynamic_batch (from v0.9.0) default False (v0.7.0)",
        ),
        RLDefault(
            "offload_states",
            False,
            f"{_ORL} --deepspeed_enable_sleep default False: the training states stay on the GPU (v0.7.0)",
        ),
        RLDefault(
            "broadcast_per_tensor",
            True,
            "openrlhf/trainer/ray/ppo_actor.py _broadcast_to_vllm: one broadcast per parameter (v0.7.0)",
        ),
        vllm_pin(
            "0.8.3", "setup.py extras_require vllm: vllm==0.8.3, README 'pip install openrlhf[vllm]' (v0.7.0)"
        ),
    ),
)
# The tags whose vllm extra (setup.py extras_require "vllm", what `pip install openrlhf[vllm]`
# installs; "vllm_latest" takes any newer) pins another vLLM: (tag, month, pin), each read at
# its tag; the tags between keep the one before's
_ORL_PINS = (
    ("0.7.5", "2025-05", "0.8.5.post1"),
    ("0.8.4", "2025-06", "0.9.0.1"),
    ("0.8.5", "2025-06", "0.9.1"),
    ("0.8.6", "2025-07", "0.9.2"),
    ("0.8.8", "2025-07", "0.10.0"),
    ("0.8.10", "2025-08", "0.10.1.1"),
    ("0.8.11", "2025-09", "0.10.2"),
    ("0.9.0", "2025-10", "0.11.0"),
    ("0.9.1", "2026-01", "0.13.0"),
    ("0.9.3", "2026-02", "0.15.0"),
    ("0.9.4", "2026-03", "0.16.0"),
    ("0.9.5", "2026-03", "0.17.0"),
    ("0.9.6", "2026-03", "0.17.1"),
    ("0.9.7", "2026-03", "0.18.0"),
    ("0.9.10", "2026-04", "0.19.0"),
    ("0.10.2", "2026-04", "0.19.1"),
    ("0.10.4", "2026-06", "0.22.1"),
    ("0.11.0", "2026-08", "0.27.1"),
)
OPENRLHF: tuple[RLRelease, ...] = (
    _ORL_070,
    *(
        changed(_ORL_070, tag, month, vllm_pin(pin, f"setup.py extras_require vllm: vllm=={pin} (v{tag})"))
        for tag, month, pin in _ORL_PINS
    ),
)
