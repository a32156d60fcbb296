"""Apple MLX (mlx-lm): its group quantisation, its KV cache and the peaks mlx-lm prints.

``mlx-memory.json`` holds published "Peak memory: X GB" lines (mx.get_peak_memory() / 1e9) with
the scenario each replays; a record that is not replayed says why. Speed figures are replayed by
tests/core/test_speed_figures_vendors.py (``speed-figures-apple.json``, regime "mlx").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.registry.dtypes import DTYPES
from gpusizer.core.registry.frameworks import FRAMEWORKS
from gpusizer.core.registry.quant_rules import default_rule

RECORDS: list[dict[str, Any]] = json.loads((Path(__file__).parent / "data" / "mlx-memory.json").read_text())
REPLAYED = [r for r in RECORDS if "not_replayed" not in r]
WITHIN = 0.15  # a logged peak within 15 %, the bar for memory


def _scenario(**over: Any) -> dict[str, Any]:
    s: dict[str, Any] = {
        "model": {"preset": "llama-3.1-8b"},
        "framework": "mlx",
        "hardware": {"gpu": "apple-m4-max-128gb"},
        "workload": {"kind": "inference", "prompt_tokens": 1000, "generated_tokens": 24},
        "precision": {"weights": "mlx_int4", "kv_cache": "fp16"},
    }
    for block, fields in over.items():
        s[block] = {**s.get(block, {}), **fields}
    return s


@pytest.mark.parametrize(("dtype", "bits"), [("mlx_int4", 4.5), ("mlx_int6", 6.5), ("mlx_int8", 8.5)])
def test_group_quantisation_keeps_a_16_bit_scale_and_bias_per_64(dtype: str, bits: float) -> None:
    # mlx.core.quantize: group_size 64, one 16-bit scale and one 16-bit bias per group
    assert DTYPES[dtype].bits == bits
    assert default_rule(dtype, moe=False) == "mlx"


def test_the_embedding_and_head_are_quantised_too() -> None:
    # mlx_lm quantize_model quantises every Linear and Embedding: Llama 3.1 8B's 8.03 B parameters
    # at 4.5 bits are 4.517 GB, where 16-bit embedding and head would add 1.57 GB
    weights = estimate(_scenario()).memory.weights
    assert weights / 1e9 == pytest.approx(8.03e9 * 4.5 / 8 / 1e9, rel=0.01)


def test_the_kv_cache_grows_in_steps_of_256_tokens() -> None:
    # mlx_lm/models/cache.py KVCache.step = 256: 1,024 tokens hold 1,024, 1,025 hold 1,280
    at = {
        n: estimate(_scenario(workload={"prompt_tokens": n - 1, "generated_tokens": 1})).memory.kv_cache
        for n in (1024, 1025)
    }
    per_token = 32 * 2 * 8 * 128 * 2  # layers x (K, V) x KV heads x head dim x 2 B
    assert at[1024] == 1024 * per_token
    assert at[1025] == 1280 * per_token


def test_a_quantised_kv_cache_is_bits_plus_its_scales() -> None:
    # mlx_lm --kv-bits 8 (QuantizedKVCache, kv_group_size 64): 8.5 bits a value, not 16
    full = estimate(_scenario()).memory.kv_cache
    q8 = estimate(_scenario(precision={"kv_cache": "mlx_int8"})).memory.kv_cache
    assert q8 == pytest.approx(full * 8.5 / 16, rel=1e-6)


def test_mlx_serves_and_trains_adapters_with_fp32_adapters() -> None:
    prof = FRAMEWORKS["mlx"]
    assert prof.serves and prof.trains and prof.kernels == "mlx"
    lora = _scenario(workload={"kind": "lora", "sequence_length": 512, "batch_size": 4})
    r = estimate(lora)
    assert r.memory.total > r.memory.weights > 0
    assert r.scenario.precision.adapters == "fp32"  # mlx_lm/tuner/lora.py: lora_a, lora_b in fp32


def test_an_unknown_mlx_release_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ScenarioError) as err:
        estimate(_scenario(serving={"engine_version": "0.10.0"}))
    assert "0.19.0" in str(err.value)


@pytest.mark.parametrize("record", REPLAYED, ids=[r["id"] for r in REPLAYED])
def test_a_published_peak_replays_within_15_percent(record: dict[str, Any]) -> None:
    total = estimate(record["scenario"]).memory.total / 1e9
    assert total == pytest.approx(record["published_gb"], rel=WITHIN), record["id"]


def test_every_record_is_replayed_or_says_why() -> None:
    assert len(REPLAYED) >= 4
    assert all(r.get("not_replayed") or r["id"] in {x["id"] for x in REPLAYED} for r in RECORDS)


def test_mlx_lora_defaults_match_the_trainable_count_mlx_lm_prints() -> None:
    # ml-explore/mlx-lm PR #330 (2025-07): "Trainable parameters: 0.041% (1.311M/3212.750M)" for
    # Llama-3.2-3B-Instruct with mlx_lm.lora's defaults of then: rank 8 on q_proj and v_proj (every
    # linear layer since v0.28.2) of the last 16 layers = 16 x 8 x ((3,072 + 3,072) + (3,072 + 1,024))
    w = {"kind": "lora", "lora_targets": ["q", "v"]}
    s = _scenario(model={"preset": "llama-3.2-3b"}, workload=w, precision={"weights": "bf16"})
    est = estimate(s)
    assert est.parameters_trainable == 16 * 8 * (2 * 3072 + 3072 + 1024) == 1_310_720
    assert est.scenario.workload.lora_layers == 16


def test_layers_below_the_first_adapter_keep_no_activations() -> None:
    # a layer below the first adapter needs no gradient: autograd records nothing of it, so
    # adapters on the last 16 of 32 layers keep half the layers' saved tensors
    def acts(layers: int | None) -> float:
        w = {"kind": "lora", "lora_layers": layers, "sequence_length": 1024}
        s = _scenario(workload=w, precision={"weights": "bf16"})
        s["framework"] = "huggingface"
        return float(estimate(s).memory.activations)

    every, half = acts(None), acts(16)
    assert half < every
    assert acts(32) == every


@pytest.mark.parametrize(
    ("workload", "parallelism", "words"),
    [
        ({"lora_layers": 33}, {}, "33 > the model's 32 layers"),
        ({"lora_layers": 8}, {"pipeline": 2}, "pipeline"),
    ],
)
def test_lora_layers_beyond_the_model_or_over_stages_is_refused(
    workload: dict[str, Any], parallelism: dict[str, Any], words: str
) -> None:
    s = _scenario(
        workload={"kind": "lora", **workload}, precision={"weights": "bf16"}, parallelism=parallelism
    )
    s["hardware"] = {"gpu": "h100-sxm-80gb"}
    # PP under DeepSpeed's PipelineModule: the HF Trainer has no pipeline schedule (refused on
    # parallelism.pipeline before lora_layers is read)
    s["framework"] = "deepspeed" if parallelism else "huggingface"
    with pytest.raises(ScenarioError) as err:
        estimate(s)
    assert err.value.field == "workload.lora_layers" and words in str(err.value)
