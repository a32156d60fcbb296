"""DeepSeek-V3.2 configs (``model_type`` ``deepseek_v32``, DeepseekV32ForCausalLM) import as
DeepSeek-V3's MLA and MoE (io/hf_config.py ``_deepseek``). Before, the type was unknown and
read as a Llama-like decoder: 128 full KV heads instead of MLA's latent, no dense first layers,
702,234,588,160 parameters and 218,624 KV bytes a token at TP 8 (70,272 now). DeepSeek-V3.2-Exp's
config.json is V3's with ``index_n_heads`` 64, ``index_head_dim`` 128, ``index_topk`` 2048 (its
inference/model.py ``Indexer``: wq_b q_lora_rank x 64·128, wk 7,168 x 128, a LayerNorm of 128,
weights_proj 7,168 x 64): those 13,959,424 parameters a layer (851,524,864, 0.13 %) and the
indexer's FP8 key cache are not counted, so the count is V3's own, 671,026,404,352."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpusizer import estimate_report, import_hf_config

V3 = json.loads((Path(__file__).parent / "configs" / "deepseek-v3.json").read_text(encoding="utf-8"))
V32: dict[str, Any] = {
    **V3,
    "architectures": ["DeepseekV32ForCausalLM"],
    "model_type": "deepseek_v32",
    "index_n_heads": 64,
    "index_head_dim": 128,
    "index_topk": 2048,
}


def _report(config: dict[str, Any]) -> dict[str, Any]:
    s = {
        "model": import_hf_config(dict(config)),
        "framework": "vllm",
        "workload": {"kind": "inference"},
        "parallelism": {"tensor": 8},
        "hardware": {"gpu": "h200-141gb"},
    }
    return estimate_report(s)


def test_read_as_deepseek_v3() -> None:
    block = import_hf_config(dict(V32))
    assert block["mla"]["kv_lora_rank"] == 512 and block["moe"]["dense_layers"] == 3
    assert block["moe"]["router_bias"] and block["mtp_layers"] == 1
    assert block["checkpoint_precision"]["quantization_rule"] == "fp8-block"


def test_counts_and_kv_are_v3s() -> None:
    got, v3 = _report(V32), _report(V3)
    assert got["parameters"]["total"] == v3["parameters"]["total"] == 671_026_404_352
    assert got["serving"]["kv_bytes_per_token"] == v3["serving"]["kv_bytes_per_token"] == 70_272
