"""Llama 3.2 Vision (``mllama``) imports with its published parameter count (io/hf_vision.py
``_mllama``, from transformers' modeling_mllama.py): before, its tower was read as a plain
32-layer biased ViT with an h_v x h_t projector, 637,726,720 of its 895,028,755 vision and
projector parameters (the 8 gated global layers, the tile embeddings and the 7,680-wide
projector left out). Llama-3.2-11B-Vision's Hugging Face page: 10.67B (10,670,220,835)."""

from __future__ import annotations

from typing import Any

from gpusizer import estimate_report, import_hf_config

# meta-llama/Llama-3.2-11B-Vision config.json (MllamaForConditionalGeneration)
LLAMA_32_11B_VISION: dict[str, Any] = {
    "architectures": ["MllamaForConditionalGeneration"],
    "model_type": "mllama",
    "text_config": {
        "model_type": "mllama_text_model",
        "hidden_size": 4096,
        "num_hidden_layers": 40,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "intermediate_size": 14336,
        "vocab_size": 128256,
        "cross_attention_layers": [3, 8, 13, 18, 23, 28, 33, 38],
        "rope_theta": 500000.0,
        "max_position_embeddings": 131072,
        "tie_word_embeddings": False,
    },
    "vision_config": {
        "model_type": "mllama_vision_model",
        "hidden_size": 1280,
        "num_hidden_layers": 32,
        "num_global_layers": 8,
        "intermediate_size": 5120,
        "attention_heads": 16,
        "image_size": 560,
        "patch_size": 14,
        "num_channels": 3,
        "max_num_tiles": 4,
        "vision_output_dim": 7680,
        "supported_aspect_ratios": [[1, 1], [1, 2], [1, 3], [1, 4], [2, 1], [2, 2], [3, 1], [4, 1]],
    },
}


def test_mllama_vision_exact() -> None:
    block = import_hf_config(LLAMA_32_11B_VISION)
    s = {
        "model": block,
        "workload": {"kind": "lora", "sequence_length": 2048, "micro_batch_size": 1},
        "hardware": {"gpu": "a100-sxm-80gb", "gpus_per_node": 1},
    }
    p = estimate_report(s)["parameters"]
    # MllamaVisionModel 863,567,379 + multi_modal_projector 31,461,376 (modeling_mllama.py)
    assert p["vision"] == 895_028_755
    # the text model less its 8 image-token embedding rows (32,768) and the cross-attention
    # layers' q/k norms and gates (8 x 258): 34,832 of 10.67B
    assert p["total"] + p["vision"] == 10_670_220_835 - 34_832
