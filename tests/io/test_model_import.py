"""Importing a Hugging Face model folder: the precision its quantization_config declares, the
stored bytes per tensor group from the safetensors headers, and the estimator beside them.

The folders are tiny real-format checkpoints (tests/io/checkpoints.py: safetensors headers as
each format's loader writes them, zero data never read)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer import ScenarioError
from gpusizer.core.pipeline.scenario import parse_scenario, scenario_dict
from gpusizer.io.model_import import import_model, imported_scenario

from .checkpoints import (
    awq,
    fp8_block,
    gpt_oss_tensors,
    gptq,
    llama_tensors,
    nf4,
    plain,
    tiny_gpt_oss_config,
    write_model,
    write_safetensors,
)

CONFIGS = Path(__file__).parent / "configs"
LLAMA: dict[str, Any] = {
    "model_type": "llama",
    "num_hidden_layers": 4,
    "hidden_size": 256,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "intermediate_size": 512,
    "vocab_size": 1024,
    "torch_dtype": "bfloat16",
}


def _with(**extra: Any) -> dict[str, Any]:
    return {**LLAMA, **extra}


def test_unquantised_folder_is_named_after_the_folder_and_checked_exactly(tmp_path: Path):
    folder = write_model(tmp_path / "my-llama", LLAMA, llama_tensors(LLAMA, plain("BF16")))
    r = import_model(folder)
    assert r["name"] == "my-llama" and r["format"] == "huggingface"
    assert r["precision"] == {"weights": "bf16"}
    assert r["model"]["checkpoint_precision"] == {"weights": "bf16"}
    ck = r["checkpoint"]
    # bf16 headers hold 2 bytes per parameter, exactly what the estimator counts per group
    assert ck["difference"] == 0 and ck["other_bytes"] == 0
    assert all(g["difference"] == 0 for g in ck["groups"].values())
    assert ck["model_bytes"] == 2 * gpusizer.estimate_report({"model": r["model"]})["parameters"]["total"]


def test_name_comes_from_name_or_path(tmp_path: Path):
    cfg = _with(_name_or_path="meta-llama/Tiny-Llama")
    r = import_model(write_model(tmp_path / "x", cfg, llama_tensors(cfg, plain("BF16"))))
    assert r["name"] == "Tiny-Llama" == r["model"]["name"]


def test_stored_dtype_follows_the_headers_without_torch_dtype(tmp_path: Path):
    cfg = {k: v for k, v in LLAMA.items() if k != "torch_dtype"}
    r = import_model(write_model(tmp_path / "m", cfg, llama_tensors(cfg, plain("F16"), "F16")))
    assert r["precision"]["weights"] == "fp16"


def test_gptq_sharded_index(tmp_path: Path):
    cfg = _with(
        torch_dtype="float16",
        quantization_config={
            "quant_method": "gptq",
            "bits": 4,
            "group_size": 128,
            "desc_act": False,
            "sym": True,
        },
    )
    folder = write_model(tmp_path / "gptq", cfg, llama_tensors(cfg, gptq(), "F16"), shards=3)
    r = import_model(folder)
    assert r["precision"] == {"weights": "gptq_int4", "quantization_rule": "gptq-awq"}
    ck = r["checkpoint"]
    assert ck["files"] == 3 and ck["format"] == "safetensors"
    # embedding, LM head and norms stay fp16 (2 B, exact); the packed matrices cost 4 bits +
    # an fp16 scale and a 4-bit zero per 128: the layout's g_idx (an int32 per input column,
    # act-order) is the rest, 32 / 256 bits per weight at this tiny width
    for g in ("embedding", "lm_head", "norms"):
        assert ck["groups"][g]["difference"] == 0
    for g in ("attention", "mlp"):
        assert ck["groups"][g]["relative_difference"] == pytest.approx(-0.04, abs=0.025)
    assert r["model"]["checkpoint_precision"] == r["precision"]


def test_awq_with_modules_to_not_convert(tmp_path: Path):
    cfg = _with(
        torch_dtype="float16",
        quantization_config={
            "quant_method": "awq",
            "bits": 4,
            "group_size": 128,
            "version": "gemm",
            "zero_point": True,
            "modules_to_not_convert": ["mlp"],
        },
    )

    def linear(name: str, o: int, n: int) -> Any:
        return plain("F16")(name, o, n) if ".mlp." in name else awq()(name, o, n)

    r = import_model(write_model(tmp_path / "awq", cfg, llama_tensors(cfg, linear, "F16")))
    assert r["precision"] == {
        "weights": "awq_int4",
        "quantization_rule": "gptq-awq",
        "modules": {"mlp": "unquantised"},
    }
    mlp = r["checkpoint"]["groups"]["mlp"]
    assert mlp["difference"] == 0  # left alone: 16-bit, exact


def test_gpt_oss_mxfp4_experts(tmp_path: Path):
    cfg = tiny_gpt_oss_config()
    r = import_model(write_model(tmp_path / "gpt-oss-tiny", cfg, gpt_oss_tensors(cfg)))
    # quantization_config.modules_to_not_convert: self_attn, router, embed_tokens, lm_head
    assert r["precision"] == {"weights": "mxfp4", "quantization_rule": "mxfp4-experts"}
    g = r["checkpoint"]["groups"]
    # MXFP4: 16 bytes of values + 1 E8M0 scale per 32 = 4.25 bits (OCP MX v1.0), exact; the
    # experts' biases (2F + H = 768 per expert beside 3HF = 196,608 weights) are stored bf16
    # and costed at 4.25 bits: exactly this difference
    weights, biases, b = 3 * 256 * 256, 768, 17 / 32
    expected = -biases * (2 - b) / (weights * b + biases * 2)
    assert g["experts"]["relative_difference"] == pytest.approx(expected, rel=1e-9)
    for name in ("attention", "router", "embedding", "lm_head", "norms"):
        assert g[name]["difference"] == 0, name


def test_deepseek_fp8_blocks_and_the_mtp_layer(tmp_path: Path):
    cfg = _with(
        quantization_config={
            "quant_method": "fp8",
            "fmt": "e4m3",
            "activation_scheme": "dynamic",
            "weight_block_size": [128, 128],
        }
    )
    tensors = llama_tensors(cfg, fp8_block)
    tensors["model.layers.4.eh_proj.weight"] = ("BF16", [256, 512])  # the MTP layer
    r = import_model(write_model(tmp_path / "fp8", cfg, tensors))
    assert r["precision"] == {"weights": "fp8", "quantization_rule": "fp8-block"}
    ck = r["checkpoint"]
    # one fp32 scale per 128 x 128 block: 4 / 16384 bytes per weight beyond the FP8 byte
    assert ck["groups"]["attention"]["relative_difference"] == pytest.approx(0, abs=0.002)
    assert ck["other_bytes"] == 256 * 512 * 2
    assert ck["other_tensors"] == ["model.layers.4.eh_proj.weight"]


def test_bitsandbytes_nf4_with_skip_modules(tmp_path: Path):
    cfg = _with(
        quantization_config={
            "quant_method": "bitsandbytes",
            "load_in_4bit": True,
            "bnb_4bit_quant_type": "nf4",
            "bnb_4bit_use_double_quant": True,
            "llm_int8_skip_modules": ["lm_head"],
        }
    )
    r = import_model(write_model(tmp_path / "bnb", cfg, llama_tensors(cfg, nf4)))
    assert r["precision"] == {"weights": "nf4", "quantization_rule": "bitsandbytes"}
    # NF4 + 8-bit absmax per 64 + fp32 per 256 blocks (QLoRA §3); the quant maps and the
    # state blob are per tensor (1.3 KB each), 1.5 % of these tiny matrices
    assert r["checkpoint"]["groups"]["mlp"]["relative_difference"] == pytest.approx(-0.01, abs=0.01)


def test_compressed_tensors_nvfp4_and_fp8():
    nvfp4 = _with(
        quantization_config={
            "quant_method": "compressed-tensors",
            "format": "nvfp4-pack-quantized",
            "config_groups": {
                "group_0": {
                    "targets": ["Linear"],
                    "weights": {"num_bits": 4, "type": "float", "group_size": 16, "strategy": "tensor_group"},
                }
            },
            "ignore": ["lm_head", "re:.*mlp.gate$"],
        }
    )
    block = gpusizer.import_hf_config(nvfp4)
    assert block["checkpoint_precision"] == {"weights": "nvfp4", "quantization_rule": "llm-compressor"}
    fp8 = _with(
        quantization_config={
            "quant_method": "compressed-tensors",
            "config_groups": {
                "group_0": {"targets": ["Linear"], "weights": {"num_bits": 8, "type": "float"}}
            },
            "ignore": ["lm_head", "re:.*self_attn.*"],
            "kv_cache_scheme": {"num_bits": 8},
        }
    )
    block = gpusizer.import_hf_config(fp8)
    assert block["checkpoint_precision"] == {
        "weights": "fp8",
        "quantization_rule": "llm-compressor",
        "modules": {"attention": "unquantised"},
    }


def test_modelopt_hf_quant_config_beside_the_config(tmp_path: Path):
    folder = write_model(tmp_path / "nvfp4", LLAMA, llama_tensors(LLAMA, plain("BF16")))
    (folder / "hf_quant_config.json").write_text(
        json.dumps(
            {
                "producer": {"name": "modelopt", "version": "0.31.0"},
                "quantization": {
                    "quant_algo": "NVFP4",
                    "kv_cache_quant_algo": "FP8",
                    "exclude_modules": ["lm_head"],
                    "group_size": 16,
                },
            }
        ),
        encoding="utf-8",
    )
    r = import_model(folder)
    # the headers are bf16: the groups the format would quantise take their stored dtype
    assert r["precision"]["weights"] == "nvfp4"
    assert r["precision"]["quantization_rule"] == "modelopt"
    assert r["precision"]["modules"]["attention"] == "bf16"
    assert any("kv_cache" in n for n in r["notes"])


def test_meta_fp8_from_fbgemm_modules_to_not_convert():
    n = LLAMA["num_hidden_layers"]
    skip = [f"model.layers.{i}.self_attn.{p}_proj" for i in range(n) for p in "qkvo"]
    skip += [f"model.layers.{i}.mlp.{p}_proj" for i in (0, n - 1) for p in ("gate", "up", "down")]
    block = gpusizer.import_hf_config(
        _with(
            quantization_config={
                "quant_method": "fbgemm_fp8",
                "activation_scale_ub": 1200.0,
                "modules_to_not_convert": [*skip, "lm_head"],
            }
        )
    )
    assert block["checkpoint_precision"] == {"weights": "fp8", "quantization_rule": "meta-fp8"}


def test_headers_override_a_group_stored_otherwise(tmp_path: Path):
    # a GPTQ checkpoint whose LM head is stored fp32: the headers are the truth
    cfg = _with(
        torch_dtype="float16", quantization_config={"quant_method": "gptq", "bits": 4, "group_size": 128}
    )
    tensors = llama_tensors(cfg, gptq(), "F16")
    tensors["lm_head.weight"] = ("F32", [1024, 256])
    r = import_model(write_model(tmp_path / "m", cfg, tensors))
    assert r["precision"]["modules"] == {"lm_head": "fp32"}
    assert r["checkpoint"]["groups"]["lm_head"]["difference"] == 0
    assert any("lm_head: stored as fp32" in n for n in r["notes"])


def test_config_without_weights_and_a_named_json(tmp_path: Path):
    r = import_model(CONFIGS / "gpt-oss-120b.json")
    assert r["checkpoint"] is None and r["name"] == "gpt-oss-120b"
    assert r["precision"] == {"weights": "mxfp4", "quantization_rule": "mxfp4-experts"}
    (tmp_path / "config.json").write_text(json.dumps(LLAMA), encoding="utf-8")
    r = import_model(tmp_path / "config.json")
    assert r["checkpoint"] is None and any("no model.safetensors" in n for n in r["notes"])
    assert import_model(CONFIGS / "deepseek-v3.json")["name"] == "deepseek-v3"


def test_imported_scenario_serves_at_the_checkpoint_precision_and_loads_back():
    r = import_model(CONFIGS / "gpt-oss-120b.json")
    s = parse_scenario(imported_scenario(r))
    assert (s.precision.weights, s.precision.quantization_rule) == ("mxfp4", "mxfp4-experts")
    assert parse_scenario(scenario_dict(s)) == s
    # a training scenario keeps its precision (training loads the checkpoint dequantised)
    base = {"model": {"preset": "gpt-2"}, "workload": {"kind": "lora"}}
    t = parse_scenario(imported_scenario(r, base))
    assert t.precision.weights == "bf16" and t.model.name == "gpt-oss-120b"


def test_public_api():
    r = gpusizer.import_model(CONFIGS / "deepseek-r1.json")
    assert r["precision"] == {"weights": "fp8", "quantization_rule": "fp8-block"}


@pytest.mark.parametrize(
    "setup, message",
    [
        (lambda p: p / "absent", "no such file"),
        (lambda p: p, "needs a config.json or one .gguf"),
        (lambda p: (p / "x.bin").write_bytes(b"\0" * 64) and p / "x.bin", "NUL bytes"),
    ],
)
def test_refused_with_one_line(tmp_path: Path, setup: Any, message: str):
    with pytest.raises(ScenarioError, match=message) as err:
        import_model(setup(tmp_path))
    assert "\n" not in str(err.value)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_not_waited_on(tmp_path: Path):
    fifo = tmp_path / "model.gguf"
    os.mkfifo(fifo)
    with pytest.raises(ScenarioError, match="not a regular file"):
        import_model(fifo)
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(LLAMA), encoding="utf-8")
    os.mkfifo(folder / "model.safetensors")
    with pytest.raises(ScenarioError, match="not a regular file"):
        import_model(folder)


def test_a_shard_outside_the_folder_is_refused(tmp_path: Path):
    folder = tmp_path / "m"
    write_model(folder, LLAMA, {})
    os.remove(folder / "model.safetensors")
    write_safetensors(tmp_path / "outside.safetensors", {"x": ("BF16", [2])})
    (folder / "model.safetensors.index.json").write_text(
        json.dumps({"weight_map": {"x": "../outside.safetensors"}}), encoding="utf-8"
    )
    with pytest.raises(ScenarioError, match="outside the index's folder"):
        import_model(folder)


def test_gpt_oss_120b_checkpoint_size(tmp_path: Path):
    """gpt-oss-120b as released (its config.json, tensors as modeling_gpt_oss.py names them):
    the model card (arXiv 2508.10925, Table 1) gives a 60.8 GiB checkpoint, which "fits into a
    single 80GB GPU". Rounded to 0.1 GiB: 0.5 %."""
    cfg = json.loads((CONFIGS / "gpt-oss-120b.json").read_text(encoding="utf-8"))
    r = import_model(write_model(tmp_path / "gpt-oss-120b", cfg, gpt_oss_tensors(cfg), shards=3))
    ck = r["checkpoint"]
    assert ck["model_bytes"] / 2**30 == pytest.approx(60.8, rel=0.005)
    assert ck["file_bytes"] < 80e9
    assert abs(ck["relative_difference"]) < 0.001  # the experts' bf16 biases
    assert r["precision"] == {"weights": "mxfp4", "quantization_rule": "mxfp4-experts"}


def test_llama_3_1_8b_awq_int4_size(tmp_path: Path):
    """hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4: two shards, about 5.7 GB (its
    quantization_config: awq, 4 bits, group 128, GEMM, zero point; fp16 otherwise)."""
    cfg = json.loads((CONFIGS / "llama-3.1-8b.json").read_text(encoding="utf-8"))
    cfg.update(
        torch_dtype="float16",
        quantization_config={
            "quant_method": "awq",
            "bits": 4,
            "group_size": 128,
            "version": "gemm",
            "zero_point": True,
        },
    )
    r = import_model(write_model(tmp_path / "awq", cfg, llama_tensors(cfg, awq(), "F16"), shards=2))
    ck = r["checkpoint"]
    assert ck["model_bytes"] / 1e9 == pytest.approx(5.7, rel=0.01)
    assert abs(ck["relative_difference"]) < 0.001
