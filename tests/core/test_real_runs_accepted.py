"""Configurations people run that the estimate refused, each checked against the stack's
source: accepted where the stack accepts them, or refused in one line that names what to state.

Sources (beside each test): llama.cpp ``ggml/src/ggml-cuda/ggml-cuda.cu`` ``get_row_split``
(``--split-mode row`` splits each matrix's rows by ``--tensor-split``, rounded to the kernel's
tile) and ``src/llama-model.cpp`` ``load_tensors`` (``--split-mode layer``: whole layers per
GPU); vLLM ``ModelConfig.verify_with_parallel_config`` ("Total number of attention heads (..)
must be divisible by tensor parallel size (..)"); transformers ``modeling_qwen2_vl.py``
(``Qwen2VisionTransformerPretrainedModel``, ``PatchMerger``, ``VisionMlp``); torchtitan
``torchtitan/distributed/parallel_dims.py`` ``_validate`` and ``job_config.py``
(``expert_tensor_parallel_degree: int = 1``)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import estimate_report, import_hf_config
from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.params import count_parameters
from gpusizer.core.model.specs import ModelSpec

LLAMA_CPP_70B: dict[str, Any] = {
    "model": {"preset": "llama-3.3-70b"},
    "framework": "llama.cpp",
    "precision": {"weights": "gguf_q4_k_m"},
    "workload": {"kind": "inference", "prompt_tokens": 1024, "generated_tokens": 256},
    "serving": {"max_context": 8192},
    "hardware": {"gpu": "rtx-3090-24gb"},
}


def _with(base: dict[str, Any], parallelism: dict[str, Any]) -> dict[str, Any]:
    s = copy.deepcopy(base)
    s["parallelism"] = parallelism
    return s


@pytest.mark.parametrize("gpus", [3, 5, 6])
def test_llama_cpp_runs_any_gpu_count(gpus: int) -> None:
    # Llama 3.3 70B has 64 heads and 8 KV heads; llama.cpp splits layers (default) or matrix
    # rows (get_row_split: rows x tensor_split, rounded to mmq_y), never heads, so 3, 5 or 6
    # GPUs run it. Memory is the layer split the model already prices: the same as pipeline N.
    tp = estimate_report(_with(LLAMA_CPP_70B, {"tensor": gpus}))
    pp = estimate_report(_with(LLAMA_CPP_70B, {"pipeline": gpus}))
    assert tp["per_gpu"] == pp["per_gpu"]
    assert tp["cluster"]["gpus"] == gpus


def test_llama_cpp_odd_heads_model_on_eight_gpus() -> None:
    # Qwen2.5-7B: 28 heads, 4 KV heads; 8 GPUs under llama.cpp are refused by no engine rule
    s = _with(LLAMA_CPP_70B, {"tensor": 8})
    s["model"] = {"preset": "qwen2.5-7b"}
    assert estimate_report(s)["cluster"]["gpus"] == 8


@pytest.mark.parametrize(
    ("preset", "tp", "words"),
    [
        # vLLM verify_with_parallel_config: heads % TP (Llama 3.3 70B: 64 heads)
        ("llama-3.3-70b", 3, "must divide attention_heads (64)"),
        # vLLM QKVParallelLinear: divide(total_num_kv_heads, tp) when TP < KV heads (Phi-4: 10)
        ("phi-4", 4, "must divide kv_heads (10)"),
        # Falcon-7B: 71 heads, vLLM refuses any TP above 1
        ("falcon-7b", 2, "must divide attention_heads (71)"),
    ],
)
def test_vllm_still_refuses_what_vllm_refuses(preset: str, tp: int, words: str) -> None:
    s = _with(LLAMA_CPP_70B, {"tensor": tp})
    s.update(framework="vllm", model={"preset": preset}, precision={})
    s["hardware"] = {"gpu": "a100-sxm-80gb"}
    with pytest.raises(ScenarioError) as err:
        estimate_report(s)
    assert err.value.field == "parallelism.tensor" and words in err.value.message


# Qwen2-VL-7B-Instruct's config.json (Hugging Face, transformers 4.41.2): the text keys flat, the
# tower as embed_dim x mlp_ratio; its vision hidden_size (1536) is not the merger's output
QWEN2_VL_7B: dict[str, Any] = {
    "architectures": ["Qwen2VLForConditionalGeneration"],
    "model_type": "qwen2_vl",
    "hidden_act": "silu",
    "hidden_size": 3584,
    "intermediate_size": 18944,
    "max_position_embeddings": 32768,
    "max_window_layers": 28,
    "num_attention_heads": 28,
    "num_hidden_layers": 28,
    "num_key_value_heads": 4,
    "rms_norm_eps": 1e-06,
    "rope_theta": 1000000.0,
    "sliding_window": 32768,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "use_sliding_window": False,
    "vision_config": {
        "depth": 32,
        "embed_dim": 1280,
        "mlp_ratio": 4,
        "num_heads": 16,
        "in_chans": 3,
        "hidden_size": 1536,
        "patch_size": 14,
        "spatial_merge_size": 2,
        "spatial_patch_size": 14,
        "temporal_patch_size": 2,
    },
    "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
    "vocab_size": 152064,
}


def test_qwen2_vl_imports_with_its_tower() -> None:
    # Refused before ("missing intermediate_size": the tower has none). Counted as
    # modeling_qwen2_vl.py builds it: 32 blocks of LayerNorm + biased qkv/proj + fc1/fc2
    # (1280 -> 5120), a bias-free Conv3d (3 x 2 x 14 x 14), PatchMerger LayerNorm(1280),
    # 5120² + 5120, 5120 x 3584 + 3584: 675,759,104; the text model is Qwen2-7B's
    # 7,615,616,512 (as Qwen2.5-VL-7B's, tests/io/test_hf_families.py). Hugging Face's page
    # for Qwen2-VL-7B-Instruct: 8.29B parameters (to 0.5 %).
    block = import_hf_config(QWEN2_VL_7B)
    assert block["qkv_bias"] is True  # Qwen2's biased q/k/v
    c = count_parameters(ModelSpec(**block))
    assert (c.total, c.vision) == (7_615_616_512, 675_759_104)
    assert abs((c.total + c.vision) / 8.29e9 - 1) < 0.005


def test_qwen2_vl_2b_matches_its_page() -> None:
    # Qwen2-VL-2B-Instruct: hidden 1536, 28 layers, 12 heads, 2 KV heads, 8960, vocab 151936,
    # tied; the same tower, the merger into 1536. Hugging Face's page: 2.21B (to 0.5 %).
    cfg = copy.deepcopy(QWEN2_VL_7B)
    cfg.update(
        hidden_size=1536,
        intermediate_size=8960,
        num_attention_heads=12,
        num_key_value_heads=2,
        vocab_size=151936,
        tie_word_embeddings=True,
    )
    c = count_parameters(ModelSpec(**import_hf_config(cfg)))
    assert abs((c.total + c.vision) / 2.21e9 - 1) < 0.005


def test_qwen2_vl_nested_text_config_reads_the_same() -> None:
    # transformers 4.5x writes the text keys under text_config (model_type qwen2_vl_text)
    flat = import_hf_config(QWEN2_VL_7B)
    text = {k: v for k, v in QWEN2_VL_7B.items() if k not in ("vision_config", "architectures")}
    text["model_type"] = "qwen2_vl_text"
    nested = {"model_type": "qwen2_vl", "text_config": text, "vision_config": QWEN2_VL_7B["vision_config"]}
    inner = import_hf_config(nested)
    assert {k: v for k, v in inner.items() if k not in ("name", "family")} == {
        k: v for k, v in flat.items() if k not in ("name", "family")
    }


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        ({"embed_dim": None}, "embed_dim"),
        ({"mlp_ratio": "big"}, "unusable value"),
        ({"depth": -3}, "depth"),
        ({"embed_dim": 1280.5}, "embed_dim"),
    ],
)
def test_qwen2_vl_hostile_tower(edit: dict[str, Any], words: str) -> None:
    cfg = copy.deepcopy(QWEN2_VL_7B)
    cfg["vision_config"].update(edit)
    with pytest.raises(ScenarioError) as err:
        import_hf_config(cfg)
    assert err.value.field == "config" and words in err.value.message


TRAIN_MOE: dict[str, Any] = {
    "model": {"preset": "qwen3-30b-a3b"},
    "framework": "torchtitan",
    "workload": {"kind": "pretraining", "sequence_length": 4096, "micro_batch_size": 1},
    "hardware": {"gpu": "h100-sxm-80gb"},
}


def test_ep_over_tensor_ranks_names_expert_tensor() -> None:
    # torchtitan TP 2 x DP 2, EP 4: its default expert_tensor_parallel_degree 1 lets EP borrow
    # the TP ranks (parallel_dims.py: ep % (cp*tp) == 0 and dp_shard*cp*tp % ep == 0). The
    # default here is expert TP = TP (Megatron's), so the refusal names the field that runs it.
    with pytest.raises(ScenarioError) as err:
        estimate_report(_with(TRAIN_MOE, {"tensor": 2, "data": 2, "expert": 4}))
    assert err.value.field == "parallelism.expert"
    assert "set parallelism.expert_tensor 1" in err.value.message
    stated = estimate_report(_with(TRAIN_MOE, {"tensor": 2, "data": 2, "expert": 4, "expert_tensor": 1}))
    assert stated["cluster"]["gpus"] == 4


def test_no_expert_tensor_hint_where_it_would_not_run() -> None:
    # EP 8 on 4 GPUs: no expert grid fits, so the refusal offers nothing it would refuse next
    with pytest.raises(ScenarioError) as err:
        estimate_report(_with(TRAIN_MOE, {"tensor": 2, "data": 2, "expert": 8}))
    assert "expert_tensor" not in err.value.message


def test_cross_node_tp_names_the_switch_and_its_value() -> None:
    s = _with(LLAMA_CPP_70B, {"tensor": 16})
    s.update(framework="sglang", model={"preset": "deepseek-v3"}, precision={"weights": "fp8"})
    s["hardware"] = {"gpu": "h100-sxm-80gb"}
    with pytest.raises(ScenarioError) as err:
        estimate_report(s)
    assert "hardware.allow_cross_node_tensor_parallel true" in err.value.message
    s["hardware"]["allow_cross_node_tensor_parallel"] = True  # SGLang's --tp 16 --nnodes 2
    assert estimate_report(s)["cluster"]["gpus"] == 16


# transformers' Trainer on a model loaded with device_map="auto" over 2 GPUs (is_model_parallel:
# trainer.py, no DataParallel; accelerate dispatch_model runs the layers one after another): the
# PEFT QLoRA recipes' way to fine-tune a 70B on two cards before FSDP + QLoRA
DEVICE_MAP: dict[str, Any] = {
    "model": {"preset": "llama-3.1-70b"},
    "framework": "huggingface",
    "workload": {"kind": "qlora", "sequence_length": 2048, "micro_batch_size": 1, "global_batch_size": 8},
    "precision": {"weights": "nf4"},
    "hardware": {"gpu": "a100-sxm-80gb"},
}


def test_device_map_training_splits_the_layers() -> None:
    one = estimate_report(_with(DEVICE_MAP, {"recompute": "full"}))
    two = estimate_report(_with(DEVICE_MAP, {"pipeline": 2, "recompute": "full"}))
    assert two["cluster"]["gpus"] == 2
    # each GPU holds half the layers (the embedding on the first, the head on the last):
    # within 3 % of half the single GPU's weights
    assert abs(two["per_gpu"]["weights"] / (one["per_gpu"]["weights"] / 2) - 1) < 0.03
    # one micro-batch in flight (stage after stage), half the layers' checkpoints: less than
    # the single GPU's activations, not the 1F1B stage's min(PP, m) = 2 micro-batches
    assert two["per_gpu"]["activations"] < one["per_gpu"]["activations"]


def test_device_map_training_runs_one_gpu_at_a_time() -> None:
    # 8 micro-batches: every stage in turn for each (PP stage times each), so the step is no
    # faster than one GPU's; DeepSpeed's 1F1B over the same 2 stages overlaps them
    one = estimate_report(_with(DEVICE_MAP, {"recompute": "full"}))["compute"]
    two = estimate_report(_with(DEVICE_MAP, {"pipeline": 2, "recompute": "full"}))["compute"]
    assert two["tokens_per_second"] <= one["tokens_per_second"]
    full = {**DEVICE_MAP, "workload": {**DEVICE_MAP["workload"], "kind": "lora"}, "precision": {}}
    staged = _with(full, {"pipeline": 2, "recompute": "full"})
    hf = estimate_report(staged)["compute"]
    ds = estimate_report({**staged, "framework": "deepspeed"})["compute"]
    assert ds["tokens_per_second"] > 1.5 * hf["tokens_per_second"]


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        ({"data": 2}, "parallelism.data"),
        ({"zero_stage": 3}, "parallelism.zero_stage"),
        ({"tensor": 2}, "parallelism.tensor"),
        ({"context": 2}, "parallelism.context"),
        ({"virtual_stages": 2}, "parallelism.virtual_stages"),
    ],
)
def test_device_map_alone_in_its_process(edit: dict[str, Any], field: str) -> None:
    # accelerate Accelerator.prepare_model: a model on several devices is refused in any
    # distributed mode; one process drives every GPU
    with pytest.raises(ScenarioError) as err:
        estimate_report(_with(DEVICE_MAP, {"pipeline": 2, **edit}))
    assert err.value.field == field
    assert "device_map" in err.value.message and "megatron" in err.value.message


def test_fsdp_still_has_no_pipeline() -> None:
    with pytest.raises(ScenarioError) as err:
        estimate_report({**_with(DEVICE_MAP, {"pipeline": 2}), "framework": "fsdp"})
    assert err.value.field == "parallelism.pipeline"


def test_a_gpu_the_catalog_lacks_is_described_inline() -> None:
    # Kaggle's P100 is not in the catalog (Colab's T4 was, until the catalog's added cards of
    # docs/evidence/speed.md section 98): the refusal says how to state it, and the inline spec
    # it names runs (NVIDIA Tesla P100 PCIe 16GB datasheet: 16 GB HBM2, 732 GB/s, 18.7 FP16
    # TFLOPS)
    s: dict[str, Any] = {
        "model": {"preset": "llama-3.1-8b"},
        "framework": "huggingface",
        "workload": {"kind": "qlora", "sequence_length": 2048},
        "precision": {"weights": "nf4"},
        "hardware": {"gpu": "p100-16gb"},
    }
    with pytest.raises(ScenarioError) as err:
        estimate_report(s)
    assert err.value.field == "hardware.gpu" and "inline" in err.value.message
    s["hardware"]["gpu"] = {
        "name": "Tesla P100 PCIe 16GB",
        "vendor": "NVIDIA",
        "memory_bytes": 16 * 2**30,
        "hbm_bandwidth_gb_per_s": 732,
        "dense_tflops": {"fp16": 18.7},
    }
    assert estimate_report(s)["gpu"]["name"] == "Tesla P100 PCIe 16GB"
