"""Held-out published training-memory figures, replayed blind (tests/core/data/training-heldout.json).

The records were added after the estimator was written and it was not changed to fit them: each
is the scenario as its run states it (the record's ``recipe_scenario``), compared with the
published peak per GPU: torchtune v0.2.1 README's Llama 2 table (pytorch/torchtune@83557aa9 "Peak
Memory per GPU (GB)", GB = 1e9 B as torchtune/utils/memory.py ``get_memory_stats`` divides) and
PEFT's accelerate docs (huggingface/peft@5d602fdb docs/source/accelerate/deepspeed.md and
fsdp.md: Llama 2 70B LoRA / QLoRA under ZeRO-3 and FSDP, whole-process memory per GPU), and
torchtune PR #961 (the maintainers' re-measurement of the table's 1 x RTX 4090 full-finetune row
with every input forced to 2048 tokens: 20.2 GB peak allocated, not the table's 24.1). Tolerance:
15 % for a hit; a miss is pinned at its recorded estimate / published ratio (2 %) with its
``reason``, so a change that moves it shows here. Held-out result at recording: 2 of 11 within 15 %;
3 of 12 with the PR #961 figure; 4 of 12 once the v0.2.1 recipes' loops are replayed holding their
fp32 logits through backward (``workload.loss: "full_logits_held"``, tests/core/test_loss_held_logits.py);
5 of 12 once PEFT's QLoRA rows replay bitsandbytes 0.43.0, the release of the docs' commit
(``precision.bitsandbytes_version``: the 4-bit layers keep their inputs).

Second round (docs/evidence/training.md section 25), 11 records: PEFT's MetaMathQA method comparison
(huggingface/peft@5d602fdb method_comparison/MetaMathQA/results/*.json ``accelerator_memory_max``:
the reserved peak of a whole Llama 3.2 3B run on one L40S; full fine-tuning and three LoRA runs),
mlx-lm PR #47 (Llama 3.2 1B LoRA at 4 x 4096, "Peak mem 69.810 GB"), torchtune issue #856 (a
maintainer's Llama 3 8B LoRA run at a forced 1 x 4096, "right at ~24GB"), three axolotl example
READMEs (axolotl-ai-cloud/axolotl@067b021c "This config uses about X GiB VRAM": OLMo 3 7B,
Ministral 8B and Magistral Small QLoRA) and torchtitan PR #996 (Llama 3 8B at 1 x 8192 under FSDP2,
the step log's reserved peak with the whole and the chunked loss). Held-out result: 9 of 11 within
15 % blind; 10 of 11 once MLX's unfused attention backward is charged
(``FrameworkProfile.attention_vjp_scores``, core/memory/attention_vjp.py).

Third round (docs/evidence/training.md section 28), 11 records: transformers' "Efficient Training on a
Single GPU" page (huggingface/transformers@98513dfd docs/source/en/perf_train_gpu_one.mdx, early 2022:
bert-large-uncased sequence classification at 512 tokens on a V100 16GB, pynvml's whole-device use
in MiB, nine TrainingArguments rows: fp32, fp16 autocast, accumulation, checkpointing, Adafactor,
bitsandbytes 8-bit Adam) and torchtitan's NVFP4 page (pytorch/torchtitan@b5bcd76c
torchtitan/components/quantization/nvfp4.md: the compiled bf16 baselines of Llama 3 8B and Qwen3 8B
at 2048 tokens, FSDP 4 on Blackwell, the reserved peak). Held-out result: 8 of 11 within 15 % blind;
9 of 11 once autocast's cast cache is held at the forward's end under full recompute
(core/memory/stage_activations.py ``forward_casts``, tests/core/test_autocast_cache.py).

Fourth round (docs/evidence/training.md section 31), 9 records: axolotl example READMEs
(axolotl-ai-cloud/axolotl: MiMo 7B and Seed-OSS 36B QLoRA at 2 x 2048 packed, "This config uses
about X GiB VRAM"; Llama 4 Scout QLoRA FSDP2 on 4 x H100, "62.8GB VRAM/GPU", the config of the
line's commit 682a9cf79; examples/llama-3/README.md at 15f7910d3, 2024-04, "Single GPU @ 48GB /
11GB", "Dual GPU @ 21GB"; examples/llama-2/README.md at dc71d8872, 2023-08, "about 17 GB ... qlora
and 20 GB ... lora") and PEFT's MetaMathQA rsLoRA rank-64 run (accelerator_memory_max). Held-out
result: 3 of 9 within 15 % blind; 4 of 9 once a bitsandbytes-quantised base that loads whole onto
each GPU is held quantised (core/memory/loading.py, tests/core/test_quantised_whole_load.py); 5 of 9
once the 2023-08 lines replay their stack (PEFT's fp32 cast under ``workload.kbit_prepare``, an
LLM.int8 base included; bitsandbytes 0.41.0), tests/core/test_kbit_int8.py.

Fifth round (docs/evidence/training.md section 32), 11 records: torchtune v0.1.x of April 2024
(pytorch/torchtune@20747cd87 README.md: the "Peak Memory per GPU" table of five Llama 2 7B configs
and the Llama 3 8B LoRA / QLoRA "peak allocated memory" line; @ff594c231
docs/source/examples/lora_finetune.rst: four LoRA rank / target runs of llama2/7B_lora_single_device).
No sequence length is stated: each is replayed at batch x 512, the alpaca builder's default cap at
that commit (torchtune/datasets/_alpaca.py ``max_seq_len=512``). Held-out result: 7 of 11 within
15 % blind; no estimator change (the misses' candidates are in their reasons). And six LitGPT
config-hub rows (Lightning-AI/litgpt@00af8b0d config_hub/finetune/README.md, Llama 3.2 1B / 3B
on one A10G, bf16-true, max_memory_allocated): the LoRA and QLoRA rows 4 of 4 within 15 %; the two
full-finetune rows lie below their own bf16 weights, gradients and AdamW states
(``shape_contradicted``, kept out of the bands). Fifth round: 11 of 17 blind.

Sixth round (docs/evidence/training.md section 37), 12 records: Unsloth's own notebooks
(unslothai/notebooks nb/*.ipynb at the first commit storing each run's output, "Peak reserved
memory = X GB": torch.cuda.max_memory_reserved() / 1024^3, GiB, over the load and the run), QLoRA
on one T4 or A100 under Unsloth 2024.1-2025.9.1, the unpacked runs replayed at batch x
max_seq_length (the bound). Held-out result: 9 of 12 within 15 % blind; the releases before
2024-11 replayed with their loss (16-bit logits, gradient in place: ``lse_16bit_inplace``) move
the ratios, not the count (tests/core/test_training_heldout_unsloth.py); nor does Accelerate's fp32
copy of the logits those releases return (core/memory/amp_outputs.py): 9 of 12, three misses low
come in and three alpaca-cleaned runs go high at the replayed bound.

Seventh round (docs/evidence/training.md, the section after the sixth round), 12 records: Lit-GPT's
resource tables and LoRA tutorial of 2023-10 (Lightning-AI/litgpt@0cc02afa tutorials/resource-tables.md
and tutorials/finetune_lora.md, run at 8641822 on A100-SXM4-40GB with PyTorch 2.1.0 and Lightning
2.1.0.rc0: "Max GPU RAM", torch.cuda.max_memory_allocated() / 1e9): Llama 2 7B / 13B LoRA and QLoRA
under Fabric bf16-true on one GPU and under FSDP on 2 and 4, StableLM 3B under bf16-mixed and
bf16-true. Each at its exact first-iteration shape (the longest sample). Held-out result: 9 of 12
within 15 % blind; 12 of 12 once the FSDP rows replay FSDP1's no_sync() accumulation
(``parallelism.fsdp_no_sync``; tests/core/test_training_heldout_litgpt2023.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.core.blind_replay import load
from tests.core.blind_replay import peak_ratio as _ratio

DATA = load("training-heldout.json")
RECORDS: list[dict[str, Any]] = DATA["records"]
TOLERANCE = 0.15


@pytest.mark.parametrize("rec", RECORDS, ids=lambda r: r["id"])
def test_heldout_figure(rec: dict[str, Any]) -> None:
    # Source: rec["source"]["url"], the row rec["source"]["quoted"]
    ratio = _ratio(rec)
    if rec["within_15"]:
        assert ratio == pytest.approx(1.0, abs=TOLERANCE), rec["source"]["url"]
    else:
        assert rec["reason"], "a miss states its mechanism or 'not traced'"
        assert ratio == pytest.approx(rec["ratio_at_record"], rel=0.02), rec["reason"]


def test_heldout_count() -> None:
    # 7 torchtune v0.2.1 rows, PR #961's re-measurement of one of them and 4 PEFT-docs figures:
    # 4 within 15 % (torchtune's single-GPU QLoRA -15 %, just inside, and LoRA -6 %, the PR #961
    # single-GPU full finetune at a forced 4 x 2048 -1 %, PEFT's ZeRO-3 LoRA of 70B on 8 GPUs -11 %);
    # 5 once the PEFT-docs QLoRA rows replay bitsandbytes 0.43.0, the release their commit asked for,
    # whose MatMul4Bit keeps each 4-bit layer's input (FSDP without offload -16 % -> -15 %)
    # Second round (11 records): 10 within 15 %, the PEFT MetaMathQA runs -4 % to +2 %, mlx-lm PR
    # #47 -7 % (-26 % before attention_vjp_scores), torchtune #856 +7 %, axolotl's Ministral 8B +4 %
    # and Magistral Small +2 %, torchtitan PR #996 -11 % (whole loss) and -8 % (chunked); axolotl's
    # OLMo 3 7B (-26 %) is the miss, not traced
    # Third round (11 records, blind): 8 within 15 %, transformers' perf_train_gpu_one page (BERT-large
    # on a V100, fp32 / fp16 autocast, checkpointing, Adafactor, 8-bit Adam: -13 % to +7 %) and
    # torchtitan's NVFP4 page's compiled Qwen3 8B bf16 baseline (+8 %); the misses were that page's
    # fp16 row at 4 x 512 (-16 %) and 8-bit Adam with checkpointing (-21 %), and the compiled Llama 3
    # 8B baseline at the card's ceiling (+15 %). 9 of 11 once autocast's cast cache is held at the
    # forward's end under full recompute (8-bit Adam -21 % -> -10 %, forward_casts). Since the
    # rows replay the optimizers their settings state (optim 'adamw_hf' / 'adafactor':
    # transformers' own for-loop steps, precision.optimizer adamw_hf / adafactor_hf), the
    # checkpointed rows lose the foreach copy they never had (+7 % -> -8 %, -0 % -> -6 %, -5 % ->
    # -14 %): the same 9 of 11
    # Fourth round (9 records, blind): 3 within 15 %, axolotl's MiMo 7B QLoRA (-11 %) and Seed-OSS
    # 36B QLoRA (+0 %), PEFT MetaMathQA rsLoRA rank 64 (-1 %); the misses: Llama 4 Scout QLoRA
    # FSDP2 on 4 x H100 (-29 %), the 2024-04 Llama 3 README lines (8B full +44 %, 7B 8-bit LoRA
    # +29 %, 70B QLoRA FSDP offload -84 %) and the 2023-08 Llama 2 lines (QLoRA -37 %, LoRA -29 %).
    # 4 of 9 once a bitsandbytes-quantised base loaded whole onto each GPU is held quantised
    # (Scout +6 %, core/memory/loading.py); the 8B full line is -26 % once replayed without the
    # fp32 master its settings deny (master_weights null). 5 of 9 once the 2023-08 Llama 2 lines replay their
    # stack's prepare_model_for_kbit_training (axolotl dc71d8872 casts nothing back under xformers:
    # fp32 embedding, norms, head and residual stream) and bitsandbytes 0.41.0 (LoRA over LLM.int8
    # -15 %, a hit; QLoRA -16 %, still a miss; docs/evidence/training.md, the old-stack section).
    # 6 of 9 once the rebuilt layer's gated MLP backward holds its three fp32 gradients under that
    # preparation (core/memory/peft.py rebuilt_mlp_gradients): QLoRA -16 % -> -10 %, a hit; LoRA
    # -15 % -> -9 % (training.md, the section on the 2024-07 rows under PEFT's k-bit preparation)
    # Fifth round (11 records, blind, torchtune v0.1.x at batch x 512): 7 within 15 %, the v0.1 README's
    # single-GPU full finetune (-1 %), Llama 3 8B QLoRA (-9 %) and LoRA (-3 %), the LoRA tutorial's four
    # runs (-8 % to -10 %); the misses: Llama 2 QLoRA (-44 %, reserved at model init), 2-GPU LoRA (-40 %)
    # and 4-GPU full (-36 %) under FSDP1, and the README's older single-GPU LoRA row (-17 %) that the
    # tutorial's 15.57 GB for the same config does not reproduce. LitGPT's Llama 3.2 config-hub rows:
    # LoRA 1B (-8 %) and 3B (-5 %), QLoRA 1B (-4 %) and 3B (-5 %) within; the full rows (+54 %, +99 %)
    # are below their own weights, gradients and AdamW states (shape_contradicted). 11 of 17
    # FSDP-QLoRA loading (core/memory/fsdp_qlora.py): PEFT's FSDP row -15 % -> -10 % (a hit
    # either way), its ZeRO-3 row -17 % -> -15.4 % and offload row -46 % -> -34 %, axolotl's 70B
    # line -84 % -> -58 %: no count moves
    # Sixth round (12 Unsloth notebook runs, blind, reserved peaks): 9 within 15 %, -14 % to -3 %
    # (Llama 3.1 / 3 8B, Mistral v0.3 7B, Qwen2.5 7B, Gemma 2 9B on alpaca-cleaned, Phi-3.5 mini,
    # Phi-4, Llama 3.3 70B, Qwen3 32B); the misses, all low: Llama 3 8B (-28 %) and Llama 3.2 3B
    # (-52 %) on chat datasets of long samples, TinyLlama packed 2 x 4096 without checkpointing
    # (-19 %). 9 of 12 still with the pre-2024-11 releases' 16-bit logits (lse_16bit_inplace).
    # 9 of 12, other runs, once Accelerate's fp32 copy of the logits those releases return is
    # priced (core/memory/amp_outputs.py): Llama 3 8B Instruct (0.734 -> 0.950), Llama 3.2 3B
    # (0.536 -> 0.851) and TinyLlama (0.837 -> 0.913) come in; Llama 3 8B (1.203), Qwen2.5 7B
    # (1.199) and Gemma 2 9B (1.344) on alpaca-cleaned go high at the replayed 2 x 2048 bound
    # (their batches padded to short samples' longest; each figure lies between the estimate at
    # 2 x 512 and at the bound)
    # Seventh round (12 Lit-GPT runs of 2023-10, Lightning Fabric bf16-true / bf16-mixed, blind):
    # 9 within 15 %, the single-GPU LoRA and QLoRA rows of Llama 2 7B / 13B (-7 % to +2 %) and
    # StableLM 3B bf16-mixed (-12 %) and bf16-true (-4 %); the misses: the three FSDP rows on 2 and
    # 4 A100s (-63 %, -57 %, -76 %). 12 of 12 once FSDP1's no_sync() accumulation keeps each
    # LoRA unit's whole bf16 gradient unsharded (parallelism.fsdp_no_sync: -5 %, -2 %, -4 %),
    # tests/core/test_training_heldout_litgpt2023.py and tests/core/test_fsdp_no_sync.py
    hits = [r["id"] for r in RECORDS if abs(_ratio(r) - 1) <= TOLERANCE]
    # The NVFP4 page's MXFP8 rows (2, recorded once precision.matmuls "mxfp8" could state them;
    # not blind): Llama 3 8B +12 %, Qwen3 8B +9 %, both within. Once torchtitan's chunked loss
    # runs each chunk's backward inside the loss (workload.loss "chunked_backward", read at its
    # source): Llama BF16 +15.1 % -> -0.8 % (a hit), MXFP8 -3.8 %; Qwen3 BF16 -6.1 %, MXFP8 -5.9 %
    assert len(RECORDS) == 86  # 72 + the seventh round's 12 + the MXFP8 rows' 2
    assert hits == [
        "torchtune-readme-v0.2.1|llama-2-7b|qlora|rtx-4090",
        "torchtune-readme-v0.2.1|llama-2-7b|lora|rtx-4090",
        "torchtune-pr961|llama-2-7b|full|forced-2048",
        "peft-docs|llama-2-70b|lora|zero3|8x80gb",
        "peft-docs|llama-2-70b|qlora|fsdp-offload|2x24gb",
        "peft-docs|llama-2-70b|qlora|fsdp|2gpu",
        "peft-metamathqa|llama-3.2-3b|full-finetuning--llama-3.2-3B-lr_0.00001",
        "peft-metamathqa|llama-3.2-3b|lora--llama-3.2-3B-rank32",
        "peft-metamathqa|llama-3.2-3b|lora--llama-3.2-3B-rank64",
        "peft-metamathqa|llama-3.2-3b|lora--llama-3.2-3B-rank10-target-mlp",
        "mlx-lm-pr47|llama-3.2-1b|lora|4x4096",
        "torchtune-issue856|llama-3-8b|lora|forced-1x4096",
        "axolotl-example|ministral-8b|qlora|2x2048",
        "axolotl-example|magistral-small-think|qlora|2x2048",
        "torchtitan-pr996|llama-3-8b|pretraining|baseline",
        "torchtitan-pr996|llama-3-8b|pretraining|chunked-ce",
        "hf-docs-perf-train-gpu-one|bert-large|vanilla",
        "hf-docs-perf-train-gpu-one|bert-large|ga4",
        "hf-docs-perf-train-gpu-one|bert-large|ga4-gc",
        "hf-docs-perf-train-gpu-one|bert-large|ga4-gc-fp16",
        "hf-docs-perf-train-gpu-one|bert-large|adafactor",
        "hf-docs-perf-train-gpu-one|bert-large|ga4-gc-fp16-adafactor",
        "hf-docs-perf-train-gpu-one|bert-large|adam8bit",
        "hf-docs-perf-train-gpu-one|bert-large|ga4-gc-fp16-adam8bit",
        "torchtitan-nvfp4-doc|llama-3-8b|4xgb200|32x2048|bf16-baseline",
        "torchtitan-nvfp4-doc|qwen3-8b|4xgb200|16x2048|bf16-baseline",
        "axolotl-example|mimo-7b-rl|qlora|2x2048",
        "axolotl-example|seed-oss-36b|qlora|2x2048",
        "peft-metamathqa|llama-3.2-3b|lora--llama-3.2-3B-rank64-rslora",
        "axolotl-example|llama-4-scout|qlora|4xh100|fsdp2",
        "axolotl-example|llama-2-7b|qlora|2x4096|2023-08",
        "axolotl-example|llama-2-7b|lora|2x4096|2023-08",
        "torchtune-readme-v0.1|llama-2-7b|full|rtx-4090",
        "torchtune-readme-v0.1|llama-3-8b|qlora|1gpu",
        "torchtune-readme-v0.1|llama-3-8b|lora|1gpu",
        "torchtune-lora-tutorial-v0.1|llama-2-7b|lora|q-v|r8",
        "torchtune-lora-tutorial-v0.1|llama-2-7b|lora|all|r8",
        "torchtune-lora-tutorial-v0.1|llama-2-7b|lora|q-v|r64",
        "torchtune-lora-tutorial-v0.1|llama-2-7b|lora|all|r64",
        "litgpt-config-hub|llama-3.2-1b|lora|1xa10g",
        "litgpt-config-hub|llama-3.2-1b|qlora|1xa10g",
        "litgpt-config-hub|llama-3.2-3b|lora|1xa10g",
        "litgpt-config-hub|llama-3.2-3b|qlora|1xa10g",
        "unsloth-notebook|llama-3.1-8b|alpaca|t4",
        "unsloth-notebook|llama-3-8b-instruct|guanaco-sharegpt|t4",
        "unsloth-notebook|mistral-7b-v0.3|alpaca|t4",
        "unsloth-notebook|llama-3.2-3b-instruct|finetome|t4",
        "unsloth-notebook|phi-3.5-mini|guanaco-sharegpt|t4",
        "unsloth-notebook|phi-4|finetome|t4",
        "unsloth-notebook|llama-3.3-70b-instruct|finetome|a100-80gb",
        "unsloth-notebook|qwen3-32b|openmathreasoning-mini|a100-40gb",
        "unsloth-notebook|tinyllama-1.1b|alpaca-packed|t4",
        "litgpt-2023|llama-2-7b|lora|1xa100|mb1",
        "litgpt-2023|llama-2-7b|qlora-nf4|1xa100|mb1",
        "litgpt-2023|llama-2-7b|qlora-nf4-dq|1xa100|mb1",
        "litgpt-2023|llama-2-7b|lora|1xa100|mb2",
        "litgpt-2023|llama-2-13b|lora|1xa100|mb1",
        "litgpt-2023|llama-2-13b|qlora-nf4|1xa100|mb1",
        "litgpt-2023|llama-2-13b|qlora-nf4-dq|1xa100|mb1",
        "litgpt-2023|llama-2-7b|lora|2xa100-fsdp|mb1",
        "litgpt-2023|llama-2-7b|lora|2xa100-fsdp|mb4",
        "litgpt-2023|llama-2-13b|lora|4xa100-fsdp|mb1",
        "litgpt-2023|stablelm-3b|lora|bf16-mixed|1xa100|mb1",
        "litgpt-2023|stablelm-3b|lora|bf16-true|1xa100|mb1",
        "torchtitan-nvfp4-doc|llama-3-8b|4xgb200|32x2048|mxfp8",
        "torchtitan-nvfp4-doc|qwen3-8b|4xgb200|16x2048|mxfp8",
    ]


def test_a_blind_ratio_states_the_rule_that_moved_it() -> None:
    # mlx-lm PR #47: 0.744 blind; MLX's SDPA backward differentiates the unfused fallback
    # (ml-explore/mlx v0.24.0 mlx/fast.cpp Custom::vjp), three [4, 32, 4096, 4096] bf16 arrays
    # in one layer's backward: 12.9 GB, 0.928 after (core/memory/attention_vjp.py)
    # transformers' perf_train_gpu_one page, 8-bit Adam, 1 x 512, checkpointing, fp16: 0.789 blind;
    # autocast's cast cache (torch aten/src/ATen/autocast_mode.cpp cached_cast) holds the layers'
    # fp16 weight copies until the forward's autocast region exits: 576 MiB, 0.901 after
    # (core/memory/stage_activations.py forward_casts)
    # axolotl's Llama 4 Scout QLoRA FSDP2 (4 x H100), 0.708 blind: at 682a9cf79 the device map is
    # deleted and transformers' bitsandbytes quantizer maps the whole NF4 model to each GPU
    # (quantizers/quantizer_bnb_4bit.py update_device_map) before FSDP2 shards it: 1.062 after
    # (model_loading "whole_model" of a quantised base, core/memory/loading.py); 1.066 with the
    # shared-expert adapters its config states (lora_targets gate/up/down, training.md section 55)
    # axolotl's 2023-08 Llama 2 lines, 0.629 (QLoRA) and 0.707 (LoRA over LLM.int8) blind: at
    # dc71d8872 peft's prepare_model_for_kbit_training casts every non-int8 parameter to fp32 and
    # nothing casts them back under xformers (workload.kbit_prepare, core/memory/peft.py), and
    # bitsandbytes 0.41.0's MatMul4Bit keeps each 4-bit layer's input: 0.837 and 0.852 after;
    # then the rebuilt layer's fp32 MLP gradients under that preparation (core/memory/peft.py
    # rebuilt_mlp_gradients): 0.904 and 0.908
    # (the sixth round's Unsloth runs, replayed with their release's loss: their own test module)
    # (the seventh round's FSDP rows, replayed with fsdp_no_sync: their own test module too)
    own_module = ("unsloth-notebook|", "litgpt-2023|")
    moved = [r for r in RECORDS if "ratio_blind" in r and not r["id"].startswith(own_module)]
    assert [r["id"] for r in moved] == [
        "peft-docs|llama-2-70b|qlora|zero3|2x40gb",
        "peft-docs|llama-2-70b|qlora|fsdp-offload|2x24gb",
        "peft-docs|llama-2-70b|qlora|fsdp|2gpu",
        "mlx-lm-pr47|llama-3.2-1b|lora|4x4096",
        "hf-docs-perf-train-gpu-one|bert-large|ga4-gc-fp16-adam8bit",
        "axolotl-example|llama-4-scout|qlora|4xh100|fsdp2",
        "axolotl-example|llama-3-8b|full|1x8192|2024-04",
        "axolotl-example|llama-3-70b|qlora-fsdp-offload|2x512|2024-04",
        "axolotl-example|llama-2-7b|qlora|2x4096|2023-08",
        "axolotl-example|llama-2-7b|lora|2x4096|2023-08",
    ]
    *peft_docs, mlx, bert, scout, fft24, fsdp70, qlora23, lora23 = moved
    # PEFT's QLoRA docs (6008f272a, 2024-03, 'bitsandbytes>=0.43.0'): the 4-bit layers' kept inputs,
    # 0.820 / 0.524 / 0.843 blind -> 0.831 / 0.544 / 0.854; then the FSDP-QLoRA loading's whole
    # quant state and (FSDP1) the frozen root unit gathered in bf16 -> 0.846 / 0.659 / 0.901; the two
    # FSDP rows then with their accumulation (2) stated, whose Trainer holds each LoRA unit's gradient
    # whole under FSDP1's no_sync() (parallelism.fsdp_no_sync, core/registry/no_sync.py) -> 0.681 / 0.920;
    # then their use_reentrant true over FSDP1's frozen units keeps every layer's input gradient
    # to the backward's end (parallelism.reentrant_checkpoint, core/memory/fsdp1_reentrant.py)
    # -> 0.965 / 1.076
    for rec, after in zip(peft_docs, (0.846, 0.965, 1.076), strict=True):
        assert rec["recipe_scenario"]["precision"]["bitsandbytes_version"] == "0.43.0"
        assert rec["recipe_scenario"]["precision"]["bnb_4bit_quant_storage"] == "bf16"
        assert _ratio(rec) == pytest.approx(after, abs=0.005)
    # axolotl 15f7910d3 Llama 3 70B QLoRA FSDP1 + offload: 0.159 blind -> 0.423 (1.0 GiB of quant
    # state and the 4.2 GB bf16 embedding and head of the gathered root); the rest not traced
    assert fsdp70["recipe_scenario"]["parallelism"]["root_unit_gathered"]
    # then its accumulation (4, the config's) stated, with the Trainer's no_sync() LoRA units -> 0.444
    assert _ratio(fsdp70) == pytest.approx(0.444, abs=0.005)
    # axolotl 2024-04 Llama 3 8B full: 1.441 blind with an fp32 master its settings deny (bf16 load,
    # HF Trainer): 0.738 with master_weights null; the paged states' residency stays the miss
    assert fft24["recipe_scenario"]["precision"]["master_weights"] is None
    assert _ratio(fft24) == pytest.approx(0.738, abs=0.005)
    for old_stack in (qlora23, lora23):
        assert old_stack["recipe_scenario"]["workload"]["kbit_prepare"] and "kbit" in old_stack["reason"]
    assert _ratio(qlora23) == pytest.approx(0.904, abs=0.005)
    assert _ratio(lora23) == pytest.approx(0.908, abs=0.005)
    assert abs(scout["ratio_blind"] - 1) > TOLERANCE and "update_device_map" in scout["reason"]
    assert _ratio(scout) == pytest.approx(1.066, abs=0.005)
    assert abs(mlx["ratio_blind"] - 1) > TOLERANCE and "attention_vjp_scores" in mlx["reason"]
    assert _ratio(mlx) == pytest.approx(0.928, abs=0.005)
    assert abs(bert["ratio_blind"] - 1) > TOLERANCE and "forward_casts" in bert["reason"]
    assert _ratio(bert) == pytest.approx(0.901, abs=0.005)


def test_heldout_records_keep_their_source() -> None:
    # Every record: URL at a commit (or a pull request's or an issue's number), the quoted row,
    # the settings; a GB figure is 1e9 B, a GiB one 2^30 B (axolotl's READMEs)
    for rec in RECORDS:
        src = rec["source"]
        pin = src.get("commit") or (f"/pull/{src['pull']}" if "pull" in src else f"/issues/{src['issue']}")
        assert pin in src["url"] and src["quoted"], rec["id"]
        unit = {"GB": 1e9, "GiB": 2**30}[rec["figure"]["unit"]]
        assert rec["figure_bytes"] == round(rec["figure"]["value"] * unit), rec["id"]
