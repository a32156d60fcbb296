"""One-sentence definitions of the terms the window uses, shown as tooltips, and the short
name the window gives a serving engine."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .glossary_rl import RL_GLOSSARY

if TYPE_CHECKING:
    from ..core.registry.frameworks import FrameworkProfile

GLOSSARY: dict[str, str] = {
    "model": "The network to size: pick a preset, describe an architecture, or give only its "
    "parameter count.",
    "model.name": "A label for this model; it does not change the estimate.",
    "model.parameters": "Total number of weights; the architecture is then inferred from it.",
    "model.layers": "Number of transformer decoder blocks stacked in the model.",
    "model.hidden_size": "Width of the residual stream: the size of each token's vector.",
    "model.attention_heads": "Number of query heads each attention layer splits the hidden vector into.",
    "model.kv_heads": "Number of key/value heads (grouped-query attention shares each among "
    "several query heads; auto = one per query head).",
    "model.head_dim": "Size of each attention head (auto = hidden size / attention heads).",
    "model.ffn_hidden_size": "Inner width of the feed-forward (MLP) block.",
    "model.vocab_size": "Number of tokens in the vocabulary: the rows of the embedding matrix.",
    "model.mtp_layers": "Multi-token-prediction layers the checkpoint ships beside the model "
    "(DeepSeek-V3: 1; unknown = not stated). Speculative method mtp drafts with them; more draft "
    "tokens than layers reuse them, each reuse accepted less often.",
    "model.mlp": "Gated MLPs (SwiGLU) have three matrices, plain MLPs two.",
    "model.tied_embeddings": "The output layer reuses the input embedding matrix instead of having its own.",
    "model.moe": "Mixture of experts: each token runs through only a few of many feed-forward experts.",
    "model.moe.experts": "Number of routed experts in each mixture-of-experts layer.",
    "model.moe.experts_per_token": "How many experts the router sends each token to.",
    "model.moe.expert_ffn_hidden_size": "Inner width of each expert's feed-forward block.",
    "model.moe.shared_experts": "Experts every token passes through, in addition to the routed ones.",
    "model.moe.expert_groups": (
        "Groups the router picks experts within (DeepSeek-V3: 8; 0: none). EPLB packs the groups to "
        "nodes first where the nodes divide them."
    ),
    "workload.kind": "What is done with the model: pre-train it, fine-tune all or part of it, or serve it.",
    "workload.sequence_length": "Tokens in each training sample (the context length trained on).",
    "workload.micro_batch_size": "Samples each GPU processes in one forward/backward pass.",
    "workload.global_batch_size": "Samples per optimizer step over all GPUs, reached by gradient "
    "accumulation (auto = micro-batch x data parallel).",
    "workload.training_tokens": "Tokens to train on in total; sets the training time estimate.",
    "workload.lora_rank": "Rank r of the low-rank adapter matrices LoRA trains beside each frozen weight.",
    "workload.lora_targets": "Which weight matrices get a LoRA adapter.",
    "workload.batch_size": "Sequences served at once: each keeps its own KV cache.",
    "workload.prompt_tokens": "Tokens in each prompt (processed at once in the prefill).",
    "workload.generated_tokens": "Tokens generated per sequence after the prompt.",
    "precision.weights": "Storage format of the model weights, quantisation scales included.",
    "precision.activations": "Format of the activations: the intermediate tensors the forward "
    "pass keeps for the backward pass.",
    "precision.gradients": "Format of the gradients the backward pass computes for each weight.",
    "precision.master_weights": "A separate higher-precision copy of the weights the optimizer "
    "updates (none = update the weights in place).",
    "precision.optimizer": "The update rule; it decides how many state values are kept per "
    "weight (AdamW: two, SGD: none).",
    "precision.optimizer_states": "Format of the optimizer's per-weight states (e.g. AdamW's "
    "momentum and variance).",
    "precision.kv_cache": "Format of the KV cache: the keys and values of past tokens kept so "
    "each new token attends to them without recomputing.",
    "precision.adapters": "Format of the trainable LoRA adapter weights.",
    "parallelism.tensor": "Tensor parallel: each layer's matrices are split across this many "
    "GPUs, which exchange partial results every layer.",
    "parallelism.pipeline": "Pipeline parallel: the layers are split into this many stages, "
    "each on its own GPU.",
    "parallelism.virtual_stages": "Interleaved pipeline: each GPU holds this many smaller "
    "chunks of layers, shrinking the pipeline bubble.",
    "parallelism.data": "Data parallel: this many replicas each process different samples and "
    "average their gradients.",
    "parallelism.context": "Context parallel: the sequence is split across this many GPUs (ring attention).",
    "parallelism.expert": "Expert parallel: the experts of each MoE layer are spread over this many GPUs "
    "(serving with vLLM, SGLang or TensorRT-LLM: also whole experts over the tensor-parallel GPUs, "
    "e.g. TP 8 with EP 8).",
    "parallelism.zero_stage": "ZeRO stage: shard optimizer states (1), plus gradients (2), plus "
    "weights (3) across the data-parallel GPUs.",
    "parallelism.overlap_comm": "DeepSpeed overlap_comm: run ZeRO's gradient reductions (ZeRO-2: "
    "one in every backward) and offload copies beside the backward instead of in line with it "
    "(default: DeepSpeed's, on at ZeRO-3 only).",
    "parallelism.sequence_parallel": "Sequence parallel: with tensor parallelism, also split "
    "norms and dropout along the sequence, sharding their "
    "activations.",
    "parallelism.recompute": "Activation recomputation: drop activations in the forward pass "
    "and recompute them in the backward pass (selective: attention "
    "only; full: keep only each layer's input).",
    "parallelism.attention": "Attention kernel: eager materialises the s x s score matrix, "
    "flash (fused) never stores it.",
    "parallelism.offload_optimizer": "Keep optimizer states in CPU memory instead of the GPU.",
    "parallelism.expert_dispatcher": "Megatron-Core's token dispatcher for the expert-parallel "
    "all-to-all: NCCL's all-to-all sends every routed copy; DeepEP and HybridEP "
    "(--moe-flex-dispatcher-backend) send a token once to each other node holding its experts. "
    "Matters where the EP group spans nodes.",
    "parallelism.expert_overlap": "Overlap the EP all-to-all of one micro-batch with the other's "
    "compute (Megatron-Core --overlap-moe-expert-parallel-comm, DeepSeek-V3's DualPipe).",
    "parallelism.expert_tensor": "The routed experts' own tensor-parallel size (Megatron-Core "
    "--expert-tensor-parallel-size, MoE parallel folding): a GPU holds experts / (ETP x EP), and "
    "the EP group's ranks are ETP apart (ETP 1: EP neighbouring GPUs). '= TP' (empty) as Megatron "
    "defaults; NeMo RL's recipes set 1.",
    "parallelism.zero_sub_group_size": "DeepSpeed ZeRO-3's zero_optimization.sub_group_size, in "
    "elements (DeepSpeed's default 1e9): its optimizer step converts one sub-group's gradients "
    "at a time into a flat copy and then the master's dtype (fp32), held beside the model "
    "states until that sub-group is stepped. Empty: that conversion is not priced.",
    "parallelism.fsdp_version": "Which PyTorch FSDP shards the weights at ZeRO-3. FSDP1 "
    "(FullyShardedDataParallel) flattens each unit's parameters into one flat parameter: its "
    "root unit (embedding, LM head) holds one whole flat gradient through the backward, and it "
    "has no_sync(). FSDP2 (fully_shard) shards each parameter on its own (DTensor): the root "
    "holds only the LM head's gradient, its collectives keep a reduce-scatter input and a "
    "second all-gather output cached, and it has no no_sync().",
    "parallelism.fsdp_no_sync": "Under FSDP1 (ZeRO-3), a step's micro-batches before its last "
    "run in no_sync() (Lightning Fabric's no_backward_sync, as Lit-GPT calls it): each unit keeps "
    "its whole gradient unsharded until the sync, a LoRA layer's too (frozen weights and adapters "
    "share one flat parameter). Adds the layers' gradients to the forward and backward. "
    "transformers' Trainer (through accelerate), axolotl and Lit-GPT run it by default when a "
    "step accumulates (under the Trainer with LoRA only the adapters' units hold a gradient); "
    "a file that leaves the field out gets its stack's default.",
    "parallelism.reentrant_checkpoint": "Full recompute is the model's own reentrant "
    "torch.utils.checkpoint around each FSDP1 unit (transformers' gradient_checkpointing with "
    "its default use_reentrant=True, as the HF Trainer, TRL and PEFT's FSDP QLoRA run it). Over "
    "frozen units (LoRA, QLoRA) FSDP1's reshard hook keeps every layer's input gradient until "
    "the backward ends (torch 2.4.1 fsdp/_runtime_utils.py): adds layers - 1 hidden states of "
    "the micro-batch when the first layer is rebuilt. Needs ZeRO-3 under FSDP1 and full "
    "recompute; off: FSDP's own checkpoint wrapper or use_reentrant=False.",
    "parallelism.expert_per_replica": "The replicas are independent engines, each splitting the "
    "routed experts whole over its own tensor-parallel ranks (vLLM --tensor-parallel-size 8 "
    "--enable-expert-parallel per engine, behind a router); Expert (EP) divides TP, Data (DP) "
    "counts the engines. Each engine is priced as the DP 1 one.",
    "parallelism.replicated_mixers": "A hybrid model's recurrent mixers (Gated DeltaNet, "
    "Mamba-2) run whole on every tensor-parallel rank instead of split by it: Miles' Megatron spec "
    "of Qwen3.5 and Qwen3-Next wraps them as Hugging Face modules after an all-gather. Each TP "
    "rank then does their whole work.",
    "workload.loss": "How the loss is computed: full logits keep the fp32 log-softmax of every "
    "token (4 bytes x tokens x vocabulary); the chunked loss (torchtune) "
    "upcasts one chunk at a time, cutting the temporary logits, and with the "
    "projection in the loss (torchtune 0.6 and later) only one chunk of logits "
    "exists at a time; the fused linear cross-entropy (Liger, Unsloth) never keeps the "
    "logits at all; torchtitan's runs each chunk's backward inside the loss; transformers "
    "4.46-4.48 keep an fp32 shifted copy beside the full logits.",
    "workload.first_step_longest": "The stated batch x sequence length is step 0's only: the "
    "loop puts the longest sample first and draws later batches at random (Lit-GPT's 2023 "
    "finetune scripts), so no earlier step's outputs add to that peak.",
    "workload.loss_chunks": "Chunks the chunked or fused loss runs in (auto: torchtune's 8; "
    "Liger's rows rule for the fused loss).",
    "workload.compile_loss": "torch.compile of the chunked loss: keeps the 16-bit logits and "
    "two numbers per token instead of the fp32 log-softmax (half).",
    "workload.compile": "torch.compile of each layer: faster, and each layer keeps less for "
    "the backward pass (norms keep their input, the MLP its gate and up; the rest is "
    "recomputed).",
    "workload.fused_kernels": "Fused kernels in force (Liger, flash-attn, xformers): a fused "
    "RMSNorm keeps its input and one number per token, a fused SwiGLU/GeGLU gate and up; a loss "
    "kernel sets the loss. Liger's defaults: rope, rmsnorm, swiglu, fused_linear_cross_entropy.",
    "workload.expert_kernel": "How the trainer runs a MoE layer's experts: a grouped GEMM "
    "(Megatron, torchtitan) or MegaBlocks keep only the routed tokens' activations; "
    "transformers' eager loop (gpt-oss, 4.55) also copies every expert's weights for the "
    "backward and builds one more whole expert-tensor gradient in each layer's backward.",
    "workload.lora_dropout": "LoRA dropout: each adapted module keeps its own dropout output "
    "and a 1-byte mask (CUDA); 0 keeps neither.",
    "workload.kbit_prepare": "PEFT's prepare_model_for_kbit_training: embedding, norms and the "
    "output layer in fp32, so activations are fp32 too (costs "
    "memory; for QLoRA stability). Applies to a 4-bit or 8-bit base only.",
    "workload.preference": "A preference fine-tune (TRL DPO, KTO, ORPO, SimPO): chosen and "
    "rejected run as one batch, so the micro-batch counts pairs and the step runs twice the "
    "rows; DPO and KTO also run a frozen reference's forward (a third more compute).",
    "workload.preference.reference": "Where the reference log-probs come from: a frozen copy "
    "(its weights held, sharded as the policy), the base with the adapters off (LoRA, no "
    "copy), computed before training, or none (ORPO, SimPO).",
    "parallelism.optimizer_in_backward": "Step each weight as soon as its gradient is ready "
    "(torchtune): no full set of gradients is ever kept; "
    "needs no gradient accumulation.",
    "parallelism.activation_offload": "Move saved activations to host RAM and bring them back "
    "in backward: checkpoints = the layer inputs of full "
    "recompute (Unsloth), all = every saved tensor "
    "(torchtune); the GPU keeps about one layer.",
    "hardware.host_memory_bytes": "System RAM of one host (an 8-GPU board, or a 4-GPU tray of an "
    "NVL72 rack): offloaded or paged optimizer states and offloaded activations of its GPUs must "
    "fit in it (not checked when not set).",
    "parallelism.offload_parameters": "Keep weights in CPU memory and stream them in as needed.",
    "framework": "The software whose memory layout is modelled: its saved tensors, buffers and "
    "runtime overhead.",
    "hardware.gpu": "The accelerator: its usable memory decides whether the peak fits.",
    "hardware.gpu.memory_bytes": "Memory of the custom GPU, as the driver reports it.",
    "hardware.gpu.hbm_bandwidth_gb_per_s": "Memory bandwidth: bounds how fast weights and KV "
    "cache stream during decoding.",
    "hardware.gpu.dense_tflops.bf16": "Dense BF16 matrix throughput (not the sparse figure).",
    "hardware.gpus_per_node": "GPUs joined by the fast intra-node link (NVLink); tensor "
    "parallelism stays within a node.",
    "hardware.gpu.price_per_hour": "What one GPU costs per hour: the advisor then ranks "
    "layouts by price, and training time gets a cost.",
    "compute.mfu": "Share of the GPUs' peak FLOP/s the training step reaches. Empty: worked out "
    "from the layout (matmuls, attention, communication, pipeline bubble, optimizer); a number "
    "overrides it.",
    "compute.flops_efficiency": "Share of the datasheet FLOP/s a kernel reaches (compute-bound "
    "steps such as prefill).",
    "compute.bandwidth_efficiency": "Share of the datasheet memory bandwidth a kernel reaches "
    "(memory-bound steps such as decode).",
    "compute.interconnect_efficiency": "Share of the NVLink/fabric bandwidth an all-reduce "
    "reaches (tensor parallelism).",
    "overhead.cuda_context_bytes": "Memory the CUDA context and loaded kernels take before any "
    "tensor exists; 'framework default' uses typical figures.",
    "overhead.workspace_bytes": "Library workspaces (cuBLAS, NCCL buffers, CUDA graphs).",
    "overhead.allocator_fraction": "Caching-allocator slack and fragmentation, as a share of "
    "the tensor peak.",
    "rl": "RL post-training: the policy trained beside a rollout engine generating its "
    "responses, with a reference, a reward and (PPO) a critic, in phases.",
    "rl.algorithm": "GRPO, PPO, DAPO, RLOO, REINFORCE++: whether a critic is trained (PPO) and a "
    "reference runs for the KL term (not DAPO).",
    "rl.placement": "Colocated: one set of GPUs runs rollout, log-probs, training and weight "
    "sync in turn (verl's hybrid engine). Split: the engine on its own GPUs, overlapping training "
    "one step off-policy (OpenRLHF, async RL).",
    "rl.rollout": "The inference engine generating the responses: samples per prompt x prompts "
    "per step, mean response length, its own TP; in split placement its own GPUs.",
    "rl.prompt_tokens": "Mean prompt length in tokens.",
    "rl.framework": "The RL framework you run (NeMo RL, verl, OpenRLHF, TRL): picking one sets the RL "
    "knobs to its release's defaults, read from its tagged configs (memory fraction, CUDA graphs, "
    "packing, offload, weight sync...); a knob you change stays yours, through later switches of "
    "framework or release too. None: the knobs as they are.",
    "rl.framework_version": "The framework's release whose defaults apply; a version between two "
    "modelled releases takes the older one's, and the assumptions say so. Default: the newest "
    "modelled release.",
    "rl.overlap": "Split pools: the rollout of step n+1 runs beside training on step n, one step "
    "off-policy (OpenRLHF arXiv 2405.11143, NeMo RL async GRPO), the step as long as the slower "
    "pool; no: the pools take turns, the step their sum.",
    "rl.broadcast_per_tensor": "Split pools: the weight sync broadcasts each tensor in its own "
    "NCCL call and the engine loads it on its own (verl's fully-async sync with the checkpoint "
    "engine off), one call's latency a tensor; off: the gathered model's bytes only (NeMo RL).",
    "rl.sync_transport": "Split pools: how the weight sync moves the model. Default: the gathered "
    "16-bit model through one GPU's network link. NeMo RL collective (v0.4.0-v0.7.0 non-colocated "
    "refit): one NCCL group of every training and rollout GPU, packed buckets broadcast over the "
    "node's network links beside the export, the slower of the two. Miles / slime: each pipeline "
    "stage's source rank gathers its Megatron tensors and broadcasts them to the engines, the "
    "stages in turn.",
    "rl.refit_gather": "Megatron under pipeline parallelism: what the refit's gather broadcasts "
    "from stages on other nodes, each GPU through its own network link. Default: nothing beyond "
    "the node-shared gather. Full tensors: NeMo RL v0.3.x (each stage's TP-gathered tensors). "
    "Own shard: Megatron-Bridge, NeMo RL v0.4.0 on (each GPU's shard, then the all-gathers).",
    "rl.off_policy_steps": "Split pools with overlap: the oldest policy a trained response may "
    "come from, in steps (NeMo RL grpo.async_grpo.max_trajectory_age_steps, 1-64). Above 1 each "
    "rollout replica holds that many steps' requests and refills a slot as a response ends "
    "(NeMo RL async_utils.py). Colocated, or without overlap, it is not read.",
    "rl.rollout.weights": "The rollout engine's weight format (e.g. FP8): NeMo RL's vllm_cfg "
    "precision fp8 has vLLM quantise each synced tensor to FP8 in 128 x 128 blocks as it loads "
    "it (nemo_rl/models/generation/vllm/quantization/fp8.py). The sync still moves the 16-bit "
    "weights. Default: the 16-bit weights the policy syncs.",
    "rl.steps": "RL steps of the run: its time and cost.",
    "rl.reward.kind": "Rule: a verifier or function, no GPU. Model: a reward model's forward "
    "over every response.",
    "rl.reward.verify_workers": "A rule reward's CPU workers (NeMo RL env.math.num_workers, 8): "
    "each checks its share of the step's responses with Math-Verify, one after another, at "
    "12.2 ms a response (verl PR #1206), before the rollout ends. Default: not priced.",
    "rl.policy.moe_permute_fusion": "Megatron's fused MoE token permutation (moe_permute_fusion: "
    "off in NeMo RL's grpo_math_1B.yaml, on in its DeepSeek V3 and Qwen3-235B performance "
    "recipes): the policy's eager MoE layers issue fewer host ops. Its log-prob forwards and "
    "training run each layer at the slower of the GPU and the host CPU issuing the layer's ops "
    "(Megatron and Megatron-Bridge policies of a MoE model only).",
    "rl.policy.fp32_logprobs": "NeMo RL's log-probs and loss over FP32 logits (its Megatron "
    "policy: defer_fp32_logits false, DistributedLogprob's eager log-softmax): each scoring "
    "forward moves 46 bytes a logit and training 68, at the GPU's memory bandwidth. Off: the "
    "training step's own loss, no log-softmax pass priced.",
    "rl.policy.bias_activation_fusion": "Megatron's fused SwiGLU (bias_activation_fusion: "
    "NeMo RL v0.4.0 left it off for Qwen3 models, v0.5.0 on set it true). Off: the policy's "
    "passes run the activation as separate ops, about 16 more bytes per routed expert value "
    "forward and 36 backward (Megatron policies only).",
    "rl.policy.gradient_accumulation_fusion": "Megatron-Core's gradient_accumulation_fusion "
    "(verl v0.5.0-v0.7.0 and NeMo RL leave it off). Off: after every micro-batch's backward, DDP "
    "adds each 16-bit gradient into main_grad, about 10 bytes per parameter a GPU holds (6 with a "
    "16-bit main_grad, grad_reduce_in_fp32 false) at its "
    "memory bandwidth, so small micro-batches pay it more often (Megatron policies only).",
    "rl.policy.pad_packed_rows": "NeMo RL's Megatron policy under pipeline parallelism pads "
    "every packed micro-batch to the longest packed row of its batch (a static PP buffer): the "
    "log-prob forwards and training compute the padding too, 1.1-1.15x the tokens where "
    "responses run near the cap. Off: each row runs its own tokens (read with PP > 1 only).",
    "rl.policy.pad_rows_to_capacity": "NeMo RL's DTensor (FSDP2) policy pads every packed "
    "micro-batch to its capacity, train_mb_tokens (pack_sequences min_seq_len): its training "
    "at v0.3-v0.5, its log-prob forwards too from v0.6 (the v2 worker). The padded passes "
    "compute the padding; short responses pad only the last rows, a few %. No: each row runs "
    "its own tokens.",
    "rl.policy.old_logprobs": "The policy's own log-prob forward over the rollout before "
    "training (NeMo RL prev_logprobs, verl old_log_prob). Off: skipped, as NeMo RL does with "
    "force_on_policy_ratio and one update a rollout (its v0.7.0 recipes); the reference's "
    "forward still runs.",
    **RL_GLOSSARY,  # the RL panel's knobs (gui/glossary_rl.py)
}


def tooltip_for(path: str) -> str:
    """The definition of the field at ``path`` (its parent's when it has none)."""
    while path:
        if path in GLOSSARY:
            return GLOSSARY[path]
        path = path.rpartition(".")[0]
    return ""


COMPONENT_TIPS: dict[str, str] = {
    "weights": "The model's parameters as stored on this GPU.",
    "gradients": "One gradient per trainable weight, produced by the backward pass.",
    "optimizer": "Optimizer states (e.g. AdamW moments) plus master weights when kept.",
    "activations": "Tensors the forward pass keeps for the backward pass (training), or the "
    "largest live intermediate tensors (inference).",
    "kv_cache": "Keys and values of every past token, kept so generation does not recompute them.",
    "temporary": "Short-lived buffers alive at the peak: logits, gathered ZeRO-3 weights, "
    "communication buffers, optimizer scratch.",
    "overhead": "Memory outside tensors: CUDA context, library workspaces, allocator slack.",
}


def engine_name(profile: FrameworkProfile) -> str:
    """The engine's own name, without the tools sharing its profile:
    ``llama.cpp / Ollama`` -> ``llama.cpp`` (core/registry/frameworks.py labels)."""
    return profile.label.split(" /")[0]
