"""Importing a GGUF file: its metadata as a model block, its tensor types as the precision, and
the stored bytes per group; the files are written by gguf-py's GGUFWriter (tests/io/gguf_files.py).
"""

from __future__ import annotations

from pathlib import Path

import gguf
import numpy as np
import pytest

from gpusizer import ScenarioError, estimate_report
from gpusizer.core.model.presets import model_presets
from gpusizer.core.registry.dtypes import DTYPES
from gpusizer.io.gguf_import import GGML_DTYPES
from gpusizer.io.gguf_reader import read_gguf
from gpusizer.io.model_import import import_model

from .gguf_files import TINY_KV, TINY_LAYER, T, llama_q4_k_m, write_gguf

LLAMA_KV = {**TINY_KV, "general.name": "Tiny Llama", "llama.block_count": 2}


def test_our_table_is_gguf_py_readers(tmp_path: Path):
    """The reader agrees with gguf-py's GGUFReader (llama.cpp's reference) on a file the
    reference writer made with real tensor data."""
    path = tmp_path / "real.gguf"
    w = gguf.GGUFWriter(path, "llama")
    w.add_name("Real")
    w.add_block_count(1)
    w.add_token_list([f"t{i}" for i in range(5000)])  # longer than the reader keeps
    w.add_tensor("token_embd.weight", np.zeros((64, 34 * 8), np.uint8), raw_dtype=T.Q8_0)
    w.add_tensor("blk.0.attn_norm.weight", np.ones(256, np.float32))
    w.add_tensor("blk.0.attn_q.weight", np.zeros((256, 256), np.float16))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    ours, ref = read_gguf(path), gguf.GGUFReader(path)
    assert ours.data_start == ref.data_offset
    assert [(t.name, t.type, list(t.dims), t.bytes, ours.data_start + t.offset) for t in ours.tensors] == [
        (t.name, int(t.tensor_type), [int(d) for d in t.shape], int(t.n_bytes), int(t.data_offset))
        for t in ref.tensors
    ]
    assert ours.metadata["general.name"] == "Real"
    assert ours.metadata["tokenizer.ggml.tokens"].count == 5000


def test_the_committed_fixture(tmp_path: Path):
    """tests/io/data/tiny-q8_0.gguf: written by GGUFWriter with its (zero) data, 37 KB; the
    frozen bundle's smoke test imports it too (packaging/smoke_test.sh)."""
    path = Path(__file__).parent / "data" / "tiny-q8_0.gguf"
    ref = gguf.GGUFReader(path)
    r = import_model(path)
    assert r["name"] == "Tiny Llama Q8_0" and r["precision"]["weights"] == "gguf_q8_0"
    assert r["checkpoint"]["bytes"] == sum(int(t.n_bytes) for t in ref.tensors)
    assert r["checkpoint"]["difference"] == 0


def test_every_mapped_ggml_type_costs_what_ggml_stores():
    # ggml-common.h block sizes, as gguf-py's GGML_QUANT_SIZES gives them
    for name, dtype in GGML_DTYPES.items():
        block, size = gguf.GGML_QUANT_SIZES[T.__members__[name]]
        assert DTYPES[dtype].bits == pytest.approx(8 * size / block), name


def test_q8_0_llama_exact(tmp_path: Path):
    h, f, v = 256, 512, 1000
    tensors = [
        ("token_embd.weight", (h, v), T.Q8_0),
        ("output_norm.weight", (h,), T.F32),
        ("output.weight", (h, v), T.Q8_0),
    ]
    for i in range(2):
        tensors += [
            (f"blk.{i}.{n}.weight", d, T.Q8_0)
            for n, d in (
                ("attn_q", (h, h)),
                ("attn_k", (h, 128)),
                ("attn_v", (h, 128)),
                ("attn_output", (h, h)),
                ("ffn_gate", (h, f)),
                ("ffn_up", (h, f)),
                ("ffn_down", (f, h)),
            )
        ]
        tensors += [(f"blk.{i}.attn_norm.weight", (h,), T.F32), (f"blk.{i}.ffn_norm.weight", (h,), T.F32)]
    r = import_model(write_gguf(tmp_path / "tiny-q8.gguf", "llama", LLAMA_KV, tensors))
    m = r["model"]
    assert (r["name"], r["format"]) == ("Tiny Llama", "gguf")
    assert (
        m["layers"],
        m["hidden_size"],
        m["kv_heads"],
        m["ffn_hidden_size"],
        m["vocab_size"],
        m["tied_embeddings"],
    ) == (2, 256, 2, 512, 1000, False)
    assert r["precision"] == {"weights": "gguf_q8_0", "quantization_rule": "gguf-q8_0"}
    ck = r["checkpoint"]
    assert ck["difference"] == 0 and ck["other_bytes"] == 0
    assert ck["by_dtype"] == {"F32": 4 * 256 * 5, "Q8_0": ck["model_bytes"] - 4 * 256 * 5}


def test_llama_3_1_8b_q4_k_m_file(tmp_path: Path):
    """Llama-3.1-8B-Instruct Q4_K_M: 4.92 GB (bartowski/Meta-Llama-3.1-8B-Instruct-GGUF
    README, file table: Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf 4.92GB). The per-tensor types
    are llama-quantize's (llama.cpp's load log: 193 q4_K, 33 q6_K, 66 f32); the file here has
    no tokenizer (about 8 MB of the real one): 0.5 % tolerance."""
    p = model_presets()["llama-3.1-8b"]
    kv = {
        "general.name": "Meta Llama 3.1 8B Instruct",
        "llama.block_count": 32,
        "llama.context_length": 131072,
        "llama.embedding_length": 4096,
        "llama.feed_forward_length": 14336,
        "llama.attention.head_count": 32,
        "llama.attention.head_count_kv": 8,
        "llama.rope.dimension_count": 128,
        "general.file_type": 15,
    }
    tensors = llama_q4_k_m(32, 4096, 1024, 14336, p["vocab_size"])
    kinds = [t[2] for t in tensors]
    assert (kinds.count(T.Q4_K), kinds.count(T.Q6_K), kinds.count(T.F32)) == (193, 33, 66)
    r = import_model(write_gguf(tmp_path / "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", "llama", kv, tensors))
    ck = r["checkpoint"]
    assert ck["file_bytes"] == pytest.approx(4.92e9, rel=0.005)
    assert r["precision"] == {"weights": "gguf_q4_k_m", "quantization_rule": "gguf-q4_k_m"}
    # the rule's Q6_K share of attn_v / ffn_down is use_more_bits' 16 of 32 layers: exact
    assert abs(ck["relative_difference"]) < 1e-6
    assert ck["other_tensors"] == ["rope_freqs.weight"]
    # the estimate of that scenario holds the same weights
    rep = estimate_report({"model": r["model"], "workload": {"kind": "inference"}, "framework": "llama.cpp"})
    assert rep["scenario"]["precision"]["weights"] == "gguf_q4_k_m"


def test_qwen3_moe_tied_with_head_norms(tmp_path: Path):
    h, e, f = 128, 8, 64
    kv = {
        "general.name": "Tiny Qwen3 MoE",
        "qwen3moe.block_count": 2,
        "qwen3moe.embedding_length": h,
        "qwen3moe.attention.head_count": 4,
        "qwen3moe.attention.head_count_kv": 2,
        "qwen3moe.attention.key_length": 32,
        "qwen3moe.feed_forward_length": 256,
        "qwen3moe.expert_feed_forward_length": f,
        "qwen3moe.expert_count": e,
        "qwen3moe.expert_used_count": 2,
        "qwen3moe.context_length": 4096,
        "general.file_type": 1,
    }
    tensors = [("token_embd.weight", (h, 512), T.F16), ("output_norm.weight", (h,), T.F32)]
    for i in range(2):
        tensors += [
            (f"blk.{i}.{n}.weight", d, T.F16)
            for n, d in (
                ("attn_q", (h, 128)),
                ("attn_k", (h, 64)),
                ("attn_v", (h, 64)),
                ("attn_output", (128, h)),
                ("ffn_gate_inp", (h, e)),
                ("ffn_gate_exps", (h, f, e)),
                ("ffn_up_exps", (h, f, e)),
                ("ffn_down_exps", (f, h, e)),
            )
        ]
        tensors += [
            (f"blk.{i}.{n}.weight", (d,), T.F32)
            for n, d in (("attn_norm", h), ("ffn_norm", h), ("attn_q_norm", 32), ("attn_k_norm", 32))
        ]
    r = import_model(write_gguf(tmp_path / "q.gguf", "qwen3moe", kv, tensors))
    m = r["model"]
    assert m["family"] == "qwen3_moe" and m["tied_embeddings"] and m["qk_norm"] == "head"
    assert m["moe"]["experts"] == e and m["moe"]["expert_ffn_hidden_size"] == f
    assert r["precision"]["quantization_rule"] == "gguf-f16"
    g = r["checkpoint"]["groups"]
    # the per-head q/k norms count with attention (as the estimator counts them) and are
    # stored F32: 2 bytes more than F16 for each of 2 x 32 values in 2 layers
    assert g["attention"]["difference"] == -2 * 2 * 32 * 2
    assert all(g[k]["difference"] == 0 for k in ("embedding", "experts", "router", "norms"))


def test_deepseek_v3_mla(tmp_path: Path):
    h, e = 256, 8
    kv = {
        "general.name": "Tiny DeepSeek",
        "deepseek2.block_count": 3,
        "deepseek2.embedding_length": h,
        "deepseek2.attention.head_count": 4,
        "deepseek2.attention.head_count_kv": 1,
        "deepseek2.attention.key_length": 96,
        "deepseek2.attention.value_length": 64,
        "deepseek2.attention.key_length_mla": 48,
        "deepseek2.attention.value_length_mla": 32,
        "deepseek2.attention.q_lora_rank": 64,
        "deepseek2.attention.kv_lora_rank": 64,
        "deepseek2.rope.dimension_count": 16,
        "deepseek2.feed_forward_length": 512,
        "deepseek2.expert_feed_forward_length": 64,
        "deepseek2.expert_count": e,
        "deepseek2.expert_used_count": 2,
        "deepseek2.expert_shared_count": 1,
        "deepseek2.leading_dense_block_count": 1,
        "deepseek2.expert_gating_func": 2,
        "deepseek2.context_length": 4096,
        "general.file_type": 7,
    }
    tensors = [("token_embd.weight", (h, 512), T.Q8_0), ("output.weight", (h, 512), T.Q8_0)]
    r = import_model(write_gguf(tmp_path / "ds.gguf", "deepseek2", kv, tensors))
    m = r["model"]
    assert m["family"] == "deepseek_v3"
    assert m["mla"] == {
        "q_lora_rank": 64,
        "kv_lora_rank": 64,
        "qk_nope_head_dim": 32,
        "qk_rope_head_dim": 16,
        "v_head_dim": 32,
    }
    assert (m["moe"]["dense_layers"], m["moe"]["shared_experts"]) == (1, 1)


def test_gpt_oss_mxfp4_moe(tmp_path: Path):
    h, e, f = 128, 4, 128
    kv = {
        "general.name": "gpt-oss tiny",
        "gpt-oss.block_count": 2,
        "gpt-oss.embedding_length": h,
        "gpt-oss.attention.head_count": 4,
        "gpt-oss.attention.head_count_kv": 2,
        "gpt-oss.attention.key_length": 32,
        "gpt-oss.attention.sliding_window": 128,
        "gpt-oss.expert_count": e,
        "gpt-oss.expert_used_count": 2,
        "gpt-oss.expert_feed_forward_length": f,
        "gpt-oss.context_length": 4096,
        "general.file_type": 38,
    }
    tensors = [
        ("token_embd.weight", (h, 256), T.Q8_0),
        ("output.weight", (h, 256), T.Q8_0),
        ("output_norm.weight", (h,), T.F32),
    ]
    for i in range(2):
        tensors += [
            (f"blk.{i}.{n}", d, t)
            for n, d, t in (
                ("attn_q.weight", (h, 128), T.Q8_0),
                ("attn_q.bias", (128,), T.F32),
                ("attn_k.weight", (h, 64), T.Q8_0),
                ("attn_v.weight", (h, 64), T.Q8_0),
                ("attn_output.weight", (128, h), T.Q8_0),
                ("attn_sinks.weight", (4,), T.F32),
                ("ffn_gate_inp.weight", (h, e), T.F32),
                ("ffn_gate_exps.weight", (h, f, e), T.MXFP4),
                ("ffn_up_exps.weight", (h, f, e), T.MXFP4),
                ("ffn_down_exps.weight", (f, h, e), T.MXFP4),
                ("attn_norm.weight", (h,), T.F32),
            )
        ]
    r = import_model(write_gguf(tmp_path / "oss.gguf", "gpt-oss", kv, tensors))
    assert r["model"]["family"] == "gpt_oss" and r["model"]["attention_sinks"]
    assert r["precision"]["weights"] == "mxfp4"
    assert r["precision"]["quantization_rule"] == "gguf-mxfp4_moe"
    assert r["checkpoint"]["groups"]["experts"]["by_dtype"] == {"MXFP4": 2 * 3 * h * f * e * 17 // 32}


def test_a_mix_without_a_rule_follows_the_tensor_types(tmp_path: Path):
    # Q4_K_S (file type 14): every matrix Q4_K, norms F32, output Q6_K
    tensors = [
        ("token_embd.weight", (256, 1000), T.Q4_K),
        ("output.weight", (256, 1000), T.Q6_K),
        ("output_norm.weight", (256,), T.F32),
    ]
    for i in range(2):
        tensors += [(f"blk.{i}.{n}.weight", d, T.Q4_K) for n, d in TINY_LAYER]
        tensors += [(f"blk.{i}.attn_norm.weight", (256,), T.F32), (f"blk.{i}.ffn_norm.weight", (256,), T.F32)]
    r = import_model(write_gguf(tmp_path / "s.gguf", "llama", {**LLAMA_KV, "general.file_type": 14}, tensors))
    assert r["precision"] == {
        "weights": "gguf_q4_k",
        "quantization_rule": "uniform",
        "modules": {"lm_head": "gguf_q6_k", "norms": "fp32"},
    }
    assert r["checkpoint"]["difference"] == 0


def test_big_endian_file(tmp_path: Path):
    tensors = [("token_embd.weight", (256, 1000), T.F32)]
    f = read_gguf(write_gguf(tmp_path / "be.gguf", "llama", LLAMA_KV, tensors, endianess=gguf.GGUFEndian.BIG))
    assert f.metadata["llama.block_count"] == 2 and f.tensors[0].dims == (256, 1000)


def test_recurrent_architectures_are_refused_by_name(tmp_path: Path):
    path = write_gguf(tmp_path / "m.gguf", "mamba2", {"mamba2.block_count": 2}, [])
    with pytest.raises(ScenarioError, match="recurrent"):
        import_model(path)


def test_an_unknown_architecture_is_read_as_llama_like(tmp_path: Path):
    kv = {k.replace("llama.", "newarch."): v for k, v in LLAMA_KV.items()}
    tensors = [("token_embd.weight", (256, 1000), T.F16)]
    r = import_model(write_gguf(tmp_path / "n.gguf", "newarch", kv, tensors))
    assert any("Llama-like" in n for n in r["notes"])


def test_a_folder_with_one_gguf(tmp_path: Path):
    write_gguf(tmp_path / "model-Q8_0.gguf", "llama", LLAMA_KV, [("token_embd.weight", (256, 1000), T.Q8_0)])
    (tmp_path / "mmproj-model-f16.gguf").write_bytes(b"GGUF")  # the vision file is skipped
    assert import_model(tmp_path)["name"] == "Tiny Llama"


def test_a_split_gguf_is_read_whole(tmp_path: Path):
    # llama.cpp's gguf-split layout, as GGUFWriter(split_max_tensors=...) writes it
    h, f, v = 256, 512, 1000
    tensors = [("token_embd.weight", (h, v), T.Q8_0), ("output.weight", (h, v), T.Q8_0)]
    tensors += [
        (f"blk.0.{n}.weight", d, T.Q8_0)
        for n, d in (
            ("attn_q", (h, h)),
            ("attn_k", (h, 128)),
            ("attn_v", (h, 128)),
            ("attn_output", (h, h)),
            ("ffn_gate", (h, f)),
            ("ffn_up", (h, f)),
            ("ffn_down", (f, h)),
        )
    ]
    kv = {**LLAMA_KV, "llama.block_count": 1}
    first = write_gguf(tmp_path / "big.gguf", "llama", kv, tensors, split_max_tensors=4)
    assert first.name == "big-00001-of-00003.gguf"
    whole = import_model(write_gguf(tmp_path / "one.gguf", "llama", kv, tensors))
    for path in (first, tmp_path / "big-00002-of-00003.gguf", tmp_path):
        r = import_model(path)
        assert r["checkpoint"]["files"] == 3 and r["name"] == "Tiny Llama"
        assert r["checkpoint"]["model_bytes"] == whole["checkpoint"]["model_bytes"]
    (tmp_path / "big-00003-of-00003.gguf").unlink()
    with pytest.raises(ScenarioError, match=r"big-00003-of-00003\.gguf"):
        import_model(first)
