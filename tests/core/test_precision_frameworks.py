"""Precision as Megatron and Transformer Engine configure it.

- ``precision.grad_reduce_in_fp32`` (Megatron-LM ``--accumulate-allreduce-grads-in-fp32``,
  forced on under ``--bf16`` by arguments.py; megatron/core DistributedDataParallelConfig
  ``grad_reduce_in_fp32``): the main_grad buffer is fp32, or in the parameters' dtype when
  false (param_and_grad_buffer: ``grad_dtype = torch.float if grad_reduce_in_fp32 else
  param.dtype``).
- FP8 under Transformer Engine (NVIDIA/TransformerEngine d0067d0,
  ``transformer_engine/pytorch/module/linear.py``: the quantized input is saved for the wgrad
  GEMM with ``update_usage(rowwise_usage=False, columnwise_usage=True)`` unless
  ``save_original_input``): each Linear's input is kept at 1 byte; norm inputs, q/k/v and the
  fc1 outputs stay 16-bit.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import estimate_report

H, FFN, LAYERS, TOKENS = 4096, 14336, 32, 4096  # Llama 3.1 8B, micro-batch 1 x 4,096, TP 1


def _megatron(**precision: Any) -> dict[str, Any]:
    return estimate_report(
        {
            "model": {"preset": "llama-3.1-8b"},
            "workload": {"kind": "pretraining", "sequence_length": TOKENS, "micro_batch_size": 1},
            "precision": precision,
            "parallelism": {"data": 8, "zero_stage": 1},
            "framework": "megatron",
        }
    )


def test_grad_buffer_in_param_dtype_halves_the_gradients() -> None:
    fp32, bf16 = _megatron(), _megatron(grad_reduce_in_fp32=False)
    assert fp32["per_gpu"]["gradients"] == 2 * bf16["per_gpu"]["gradients"]
    assert _megatron(grad_reduce_in_fp32=True)["per_gpu"] == fp32["per_gpu"]  # the default


def test_te_fp8_keeps_linear_inputs_at_one_byte() -> None:
    # per layer and token: QKV and fc1 inputs (h each), proj input (h), fc2 input (ffn) drop
    # from 2 bytes to 1
    bf16, fp8 = _megatron(), _megatron(matmuls="fp8")
    saved = (bf16["per_gpu"]["activations"] - fp8["per_gpu"]["activations"]) / LAYERS
    assert saved == pytest.approx(TOKENS * (3 * H + FFN))


def test_torchao_float8_keeps_16bit_inputs() -> None:
    # torchao Float8Linear (torchtitan) saves the high-precision input and casts it again
    def titan(**precision: Any) -> int:
        rep = estimate_report(
            {
                "model": {"preset": "llama-3.1-8b"},
                "workload": {"kind": "pretraining", "sequence_length": TOKENS},
                "precision": precision,
                "parallelism": {"data": 8, "recompute": "none"},
                "framework": "torchtitan",
            }
        )
        return int(rep["per_gpu"]["activations"])

    assert titan(matmuls="fp8") == titan()


def _qlora(**precision: Any) -> dict[str, Any]:
    return estimate_report(
        {
            "model": {"preset": "llama-3.1-8b"},
            "workload": {"kind": "qlora", "sequence_length": TOKENS, "lora_targets": ["q", "v"]},
            "precision": {"weights": "nf4", **precision},
        }
    )


def test_old_bitsandbytes_keeps_each_4bit_layer_input() -> None:
    # bitsandbytes 0.42.0 MatMul4Bit: ctx.tensors = (A, B); 0.43.2 (#1270): (None, B). With fp32
    # adapters on q and v nothing shares the 16-bit inputs: the attention's and the MLP's
    # (h each) and the down projection's (ffn) are kept in bf16 by the base layers; layer 0's
    # attention input needs no gradient (frozen embedding), so MatMul4Bit keeps none there
    old, new = _qlora(bitsandbytes_version="0.42.0"), _qlora()
    assert new["per_gpu"] == _qlora(bitsandbytes_version="0.45.0")["per_gpu"]
    extra = old["per_gpu"]["activations"] - new["per_gpu"]["activations"]
    assert extra == pytest.approx(2 * TOKENS * ((2 * H + FFN) * LAYERS - H))


def test_unknown_bitsandbytes_version_names_the_known_ones() -> None:
    from gpusizer import ScenarioError

    # 0.38.1 predates Linear4bit (0.39.0); "latest" is not a release number
    for bad in ("0.38.1", "latest"):
        with pytest.raises(ScenarioError, match="bitsandbytes_version") as err:
            _qlora(bitsandbytes_version=bad)
        assert "0.39.0" in str(err.value) and "0.43.2" in str(err.value)


def test_a_release_between_the_rows_reads_by_the_fix() -> None:
    # ms-swift's 2023-12 benchmark ran bitsandbytes 0.41.3 (training.md, the Qwen 1 rows); a
    # release between the table's rows is read by which side of 0.43.2 (#1270) it falls on
    old, new = _qlora(bitsandbytes_version="0.42.0"), _qlora()
    assert _qlora(bitsandbytes_version="0.41.3")["per_gpu"] == old["per_gpu"]
    assert _qlora(bitsandbytes_version="0.43.3")["per_gpu"] == new["per_gpu"]
    assert _qlora(bitsandbytes_version="0.48.1.post2")["per_gpu"] == new["per_gpu"]


def test_composer_default_is_fsdp_mixed_precision() -> None:
    # composer get_mixed_precision('DEFAULT'): param bf16, reduce fp32 over fp32 shards;
    # 'PURE' is reduce_dtype bf16
    rep = estimate_report(
        {"model": {"preset": "llama-3.1-8b"}, "framework": "composer", "parallelism": {"data": 8}}
    )
    p = rep["scenario"]["precision"]
    assert (p["weights"], p["param_dtype"], p["reduce_dtype"]) == ("fp32", "bf16", "fp32")
    assert rep["scenario"]["parallelism"]["zero_stage"] == 3
    plain = estimate_report(
        {
            "model": {"preset": "llama-3.1-8b"},
            "framework": "fsdp",
            "precision": {
                k: p[k] for k in ("weights", "master_weights", "gradients", "param_dtype", "reduce_dtype")
            },
            "parallelism": {"data": 8, "zero_stage": 3},
        }
    )
    # the bytes alike; the band is the regime's (composer has no replayed run of its own yet)
    assert {k: v for k, v in rep["per_gpu"].items() if k != "total_range"} == {
        k: v for k, v in plain["per_gpu"].items() if k != "total_range"
    }


def test_offload_layers_moves_that_many_layers_to_host() -> None:
    # Megatron-Core cpu_offloading_num_layers: n of the stage's L layers keep their saved
    # tensors in host RAM; one layer is in flight on the GPU
    def acts(n: int | None) -> int:
        rep = estimate_report(
            {
                "model": {"preset": "llama-3.1-8b"},
                "workload": {"kind": "pretraining", "sequence_length": TOKENS, "micro_batch_size": 1},
                "parallelism": {"data": 8, "offload_layers": n},
                "framework": "megatron",
            }
        )
        return int(rep["per_gpu"]["activations"])

    assert acts(1) == acts(None)  # one layer offloaded, one in flight: no change
    assert acts(None) - acts(17) == pytest.approx((acts(None) - acts(31)) * 16 / 30, rel=1e-9)


def test_vocabulary_padded_to_a_multiple_of_d_times_tp() -> None:
    # Megatron-LM _vocab_size_with_padding: Llama 2's 32,000 at TP 8 with 128 -> 32,768
    base = {
        "model": {"preset": "llama-2-7b"},
        "workload": {"kind": "pretraining", "sequence_length": 4096},
        "parallelism": {"tensor": 8, "vocab_divisible_by": 128},
        "framework": "megatron",
    }
    rep = estimate_report(base)
    assert rep["scenario"]["model"]["vocab_size"] == 32768
    plain = estimate_report({**base, "parallelism": {"tensor": 8}})
    assert rep["parameters"]["total"] - plain["parameters"]["total"] == 2 * 768 * 4096
    assert estimate_report(rep["scenario"])["per_gpu"] == rep["per_gpu"]  # the echo loads back
