"""Tooltips of the RL panel's knobs (the ``rl.*`` rows of docs/scenario-format.md "RL
post-training"): one sentence each, what the knob does and where it comes from. Merged into
:data:`gpusizer.gui.glossary.GLOSSARY`, so the binder gives every bound widget its line."""

from __future__ import annotations

RL_GLOSSARY: dict[str, str] = {
    "rl.rollout.engine": "The inference engine generating the responses (vLLM or SGLang), at its "
    "release's rules.",
    "rl.rollout.engine_version": "The rollout engine's release whose rules apply (its memory "
    "snapshot, batch tiers, chunked prefill); default: the current one.",
    "rl.rollout.response_spread": "The longest response is the mean x (1 + spread), 0 to 20: it "
    "ends the rollout and sets the training sequence (verl data.max_response_length caps it).",
    "rl.policy.kind": "How the policy trains: all weights, or LoRA adapters on a frozen base (the "
    "Workload panel's LoRA rank and targets); on a 4-bit NF4 or FP4 base (Precision's weights) "
    'the adapters are QLoRA, a file\'s "qlora".',
    "rl.policy.epochs": "Updates over each step's responses (verl ppo_epochs), 1-64.",
    "rl.policy.mini_batch_size": "Sequences per optimizer step (verl ppo_mini_batch_size x "
    "rollout.n, NeMo RL train_global_batch_size); default: every response of the step in one.",
    "rl.policy.micro_batch_size": "Sequences per forward and backward (verl "
    "ppo_micro_batch_size_per_gpu, NeMo RL train_micro_batch_size); default: the workload's.",
    "rl.policy.log_prob_micro_batch_size": "Sequences per log-prob forward of the policy and the "
    "reference (verl log_prob_micro_batch_size_per_gpu, NeMo RL logprob_batch_size); default: "
    "the training micro-batch.",
    "rl.policy.micro_batch_unit": "Packed, what a micro-batch counts: rows of prompt + longest "
    "tokens (NeMo RL train_mb_tokens) or responses at their own lengths (verl use_remove_padding).",
    "rl.policy.sequence_packing": "Responses packed end to end into micro-batch rows (NeMo RL "
    "sequence_packing, verl use_remove_padding); off: each padded to prompt + longest.",
    "rl.policy.expert_routing": "A MoE policy under expert parallelism: the router's own skewed "
    "load, as RL runs it (NeMo RL moe_router_load_balancing_type none), or balanced.",
    "rl.policy.offload_per_call": "Colocated with states offloaded: the policy's weights go to the "
    "GPU and back around every worker call (verl param_offload); off: once a step (NeMo RL).",
    "rl.policy.prefetch_gathers": "FSDP / ZeRO-3 prefetches each layer's all-gather beside the "
    "last layer's compute; off: a LoRA policy's passes wait for every gather (verl's LoRA actor).",
    "rl.policy.balanced_micro_batches": "Responses as they are: the data-parallel ranks' "
    "micro-batches hold about the same tokens (verl use_dynamic_bsz, Miles --balance-data); off: "
    "each rank's whole responses as they fall, every rank waiting for the longest (verl's, "
    "OpenRLHF's and TRL's default).",
    "rl.policy.hf_layer_ops": "A Hugging Face policy's eager layers paced by the host: each "
    "layer takes the longer of its GPU time and the ~120 Python ops FSDP1 and transformers issue "
    "(verl's FSDP workers); not paced: GPU time alone.",
    "rl.reference.enabled": "Whether the frozen reference of the KL term runs; default: the "
    "algorithm's (GRPO and PPO yes, DAPO no).",
    "rl.reference.model": "The reference's own model; default: the policy's (a LoRA policy's "
    "reference is its own base, adapters off). It must share the policy's vocabulary.",
    "rl.reference.offload": "The reference kept in host memory between its forwards (verl "
    "ref.fsdp_config.param_offload), brought back over the host link each step.",
    "rl.reference.offload_per_forward": "An offloaded reference copied to the GPU at every "
    "micro-batch's forward, not once a step (FSDP CPUOffload, which verl forces on its reference).",
    "rl.critic.model": "The critic's (value model's) own model, trained like the policy; default: "
    "the policy's.",
    "rl.prompt_cap": "The prompt cap each padded row is left-padded to (verl "
    "data.max_prompt_length): unpacked rows and a padded critic's run cap + longest tokens; "
    "default: the mean prompt.",
    "rl.critic.remove_padding": "Whether the critic packs its rows as a packed policy does (verl "
    "critic.model.use_remove_padding); off: its values forward and update run every response "
    "padded to prompt + longest; default: verl's off, else the policy's.",
    "rl.reward.model": "The reward model's own model, one forward over every response; default: "
    "the policy's.",
    "rl.rollout.memory_fraction": "Share of each GPU the engine takes (vLLM gpu_memory_utilization, "
    "SGLang mem_fraction_static); default: 0.5 colocated (verl's examples), the engine's split.",
    "rl.rollout.max_sequences": "Sequences decoding at once per engine (vLLM max_num_seqs); "
    "default: 1,024, verl's rollout.yaml; with the vLLM async engine on, vLLM's own "
    "SchedulerConfig default (128 from vLLM 0.9.2; core/pipeline/rl_engine_seqs.py), as the field shows.",
    "rl.rollout.generation_rounds": "Separate generate calls a step's responses are split into, "
    "in series, each waiting for its longest response (TRL v0.14-v0.16: one per gradient-"
    "accumulation micro-step); split with the pools taking turns only; default 1.",
    "rl.rollout.async_engine": "vLLM's AsyncLLM built from AsyncEngineArgs (NeMo RL async_engine "
    "true): max_num_seqs defaults to 128 from vLLM 0.9.2, not the LLM class's 1,024.",
    "rl.rollout.max_batched_tokens": "vLLM max_num_batched_tokens: prompts prefilled in steps of "
    "at most this many tokens; default: one prefill step per batch.",
    "rl.rollout.cuda_graphs": "Off: the engine decodes without CUDA graphs (vLLM enforce_eager, verl "
    "rollout.enforce_eager true); default: the release's.",
    "rl.rollout.moe_backend": "vLLM's kernel for BF16 experts (--moe-backend; NeMo RL v0.7.0 "
    "passes triton: FlashInfer's BF16 MoE breaks its refit); default: the release's per GPU. "
    "An SGLang rollout takes AITER alone (SGLANG_USE_AITER=1, ROCm); the list follows the engine "
    "and the GPU.",
    "rl.rollout.detokenize_in_step": "The engine detokenises each token in the decode step's own "
    "thread (vLLM V1's engine core in the trainer's process, NeMo RL v0.4.0): 12.5 us a token.",
    "rl.rollout.returns_logprobs": "The engine returns each generated token's log-prob (vLLM "
    "SamplingParams logprobs=0, NeMo RL v0.3.0-v0.6.0): 12.8 us a token (vLLM PR #57442).",
    "rl.rollout.copies_logprobs": "Each replica copies every token's log-prob into a tensor one "
    "element at a time (NeMo RL generate without async_engine): 7.04 us a token, host-paced.",
    "rl.rollout.serves_adapter": "A LoRA policy: the engine decodes through the adapter on its "
    "base weights (vLLM enable_lora, verl's TensorLoRARequest); no: merged weights synced.",
    "rl.rollout.shared_weights": "Unsloth fast_inference: vLLM runs in the trainer's process on "
    "the LoRA policy's own base (one copy, at its storage dtype, 4-bit under QLoRA); the engine adds "
    "only its KV pool, kept through training; the adapter is handed over on the GPU each step.",
    "rl.rollout.standby": "With one weight copy: UNSLOTH_VLLM_STANDBY=1, the KV pool freed outside "
    "rollout (weights stay); memory fraction null takes Unsloth's standby target by GPU memory.",
    "rl.rollout.sleep_level": "Colocated: vLLM sleep mode level; 1 moves the engine's weights to "
    "host RAM and back each step, 2 drops them and the refit refills them; off: the engine keeps "
    "its weights and KV pool through training (TRL v1.x, vllm_enable_sleep_mode False).",
    "rl.rollout.speculative.method": "Speculative decoding in the rollout's decode steps, priced "
    "as serving's (NeMo RL v0.7.0's DeepSeek V3 recipes: vLLM deepseek_mtp, 1 token).",
    "rl.rollout.speculative.num_tokens": "Draft tokens per decode step (vLLM "
    "num_speculative_tokens); default: the method's.",
    "rl.rollout.speculative.acceptance_rate": "Chance each draft token is accepted; default: the "
    "method's published figure, stated in the assumptions.",
    "rl.rollout.speculative.topk": "SGLang's draft tree (--speculative-eagle-topk): branches each "
    "draft pass expands; empty or 1: a chain.",
    "rl.rollout.speculative.num_draft_tokens": "Tokens of the tree each request verifies "
    "(--speculative-num-draft-tokens); a chain verifies draft tokens + 1.",
    "rl.offload_states": "Colocated: the training states (weights, gradients, optimizer) go to "
    "host memory while the engine runs (verl param_offload / optimizer_offload).",
    "rl.offload_memory": "Where offloaded optimizer states go: pinned host memory at the link's "
    "rate, or pageable, a fresh tensor per state each step (NeMo RL v.to('cpu')).",
    "rl.host_link_gb_per_s": "Colocated: GB/s per direction of each GPU's link to host memory, for "
    "the sleep, wake and state moves; default: the GPU's PCIe or NVLink-C2C.",
    "rl.eval.every_steps": "Steps between evaluations inside the framework's step timer (Miles "
    "--eval-interval, NeMo RL val_period): one generation of the eval set on the engine, a step "
    "carrying its share; never: no evaluation.",
    "rl.eval.prompts": "The eval set's prompts (AIME 2024: 30); default: the step's prompts.",
    "rl.eval.samples_per_prompt": "Responses a prompt in the evaluation (Miles --n-samples-per-eval-prompt).",
    "rl.eval.response_tokens": "The evaluation's mean response, tokens; default: the rollout's.",
    "rl.eval.max_response_tokens": "The evaluation's cap (Miles --eval-max-response-len): its "
    "longest response ends it; default: the rollout's longest.",
}
