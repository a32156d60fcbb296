"""torch.compile and fused kernels change what a layer saves (core/registry/fused_kernels.py,
core/memory/activations.py ``fused``), and the loss kinds by what they keep.

Measured: tests/core/data/compile-measured.json (scripts/measure_compile.py, torch 2.14.1 CPU +
transformers 5.25.0, bf16, sdpa, batch 2 x 256): every decoder layer compiled against eager.
The estimate's per-layer saving equals the measured one to the byte for Llama (GQA), Qwen 2,
Qwen 3 and OLMo 2; Gemma 3 keeps 4·h bytes per layer more than the estimate (one fp32
``1 + weight`` of a norm, 1,024 B of 4.4 MB saved: not modelled).

Derived from the kernels' source (``ctx.save_for_backward``, cited in the registry): Liger's
RMSNorm keeps its input and an fp32 rstd, Liger's SwiGLU gate and up, xformers' fused SwiGLU
(up to 0.0.34) its input, gate and up; flash-attn's xentropy the 16-bit logits and an fp32
log-sum-exp.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import ScenarioError, estimate_report, import_hf_config
from gpusizer.core.registry.fused_kernels import FUSED_KERNELS, FusedKernel, register

DATA = json.loads((Path(__file__).parent / "data" / "compile-measured.json").read_text())
GEMMA_NORM_WEIGHT = 4  # bytes per hidden unit per layer the estimate leaves out (see above)


def _report(model: dict[str, Any], b: int, s: int, **workload: Any) -> dict[str, Any]:
    return estimate_report(
        {
            "model": model,
            "workload": {"kind": "full_finetune", "sequence_length": s, "micro_batch_size": b, **workload},
            "precision": {
                "weights": "bf16",
                "activations": "bf16",
                "gradients": "bf16",
                "master_weights": None,
            },
            "parallelism": {"attention": "flash"},
        }
    )


def _model(rec: dict[str, Any]) -> dict[str, Any]:
    return import_hf_config(rec["config"])


@pytest.mark.parametrize("rec", DATA["records"], ids=lambda r: r["name"])
def test_compile_saving_per_layer_as_measured(rec: dict[str, Any]) -> None:
    # Source: scripts/measure_compile.py (module docstring); to the byte, Gemma 3 within 4·h
    model = _model(rec)
    b, s, n = rec["batch"], rec["seq"], rec["layers"]
    eager = _report(model, b, s)["per_gpu"]["activations"]
    compiled = _report(model, b, s, compile=True)["per_gpu"]["activations"]
    slack = GEMMA_NORM_WEIGHT * model["hidden_size"] if rec["model_type"].startswith("gemma") else 0
    assert (eager - compiled) / n == pytest.approx(rec["per_layer_saving_bytes"], abs=slack)


@pytest.mark.parametrize("rec", DATA["records"], ids=lambda r: r["name"])
def test_compiled_saved_bytes_as_measured(rec: dict[str, Any]) -> None:
    # the script's forward ends in logits.float().sum(): no log-softmax (4·T·V) or labels (8·T);
    # the eager estimate of OLMo 2 and Gemma 3 is 0.2-0.4 % apart already, hence 0.5 %
    model = _model(rec)
    compiled = _report(model, rec["batch"], rec["seq"], compile=True)["per_gpu"]["activations"]
    assert compiled - _head(rec, model) == pytest.approx(rec["saved_compiled_bytes"], rel=0.005)


def _head(rec: dict[str, Any], model: dict[str, Any]) -> float:
    """What the estimate keeps outside the layers and the measuring script does not: the
    log-softmax (4·T·V) and the labels (8·T); its forward ends in logits.float().sum()."""
    t = rec["batch"] * rec["seq"]
    return 4 * t * model["vocab_size"] + 8 * t


def _in_layers(rec: dict[str, Any], model: dict[str, Any], workload: dict, precision: dict) -> float:
    """Bytes the estimate keeps in the layers for ``rec``'s batch and sequence (flash attention),
    as the measuring script counts them."""
    shape = {"sequence_length": rec["seq"], "micro_batch_size": rec["batch"]}
    rep = estimate_report(
        {
            "model": model,
            "workload": {**shape, **workload},
            "precision": precision,
            "parallelism": {"attention": "flash"},
        }
    )
    return rep["per_gpu"]["activations"] - _head(rec, model)


LLAMA = {"preset": "llama-3.1-8b"}


def _layer_delta(**workload: Any) -> float:
    """Activation bytes the workload's kernels take off one Llama 3.1 8B layer (b 1 x 1,024)."""
    eager = _report(LLAMA, 1, 1024)["per_gpu"]["activations"]
    return (eager - _report(LLAMA, 1, 1024, **workload)["per_gpu"]["activations"]) / 32


def test_liger_rmsnorm_keeps_input_and_fp32_rstd() -> None:
    # Liger rms_norm.py: save_for_backward(X, W, RSTD): eager keeps the fp32 input and the
    # normalised 16-bit copy besides (4 + 2 B per value more than X's 2): two norms a layer,
    # and the final norm (patched too, unlike compile's per-layer graphs)
    t, h = 1024, 4096
    assert _layer_delta(fused_kernels=["rmsnorm"]) == 2 * 4 * t * h + 4 * t * h / 32


def test_liger_swiglu_keeps_gate_and_up() -> None:
    # Liger swiglu.py: save_for_backward(a, b): act(gate) (2 B per value) is not kept
    assert _layer_delta(fused_kernels=["swiglu"]) == 2 * 1024 * 14336


def test_xformers_swiglu_recomputes_the_product() -> None:
    # xformers _SwiGLUFusedFunc: save_for_backward(x, ..., x1, x2): neither act(gate) nor the
    # product (the down projection's input) is kept
    assert _layer_delta(fused_kernels=["swiglu_xformers"]) == 2 * 2 * 1024 * 14336


def test_rope_kernel_keeps_the_same_bytes() -> None:
    # Liger rope.py keeps cos and sin, as eager RoPE does
    assert _layer_delta(fused_kernels=["rope"]) == 0


def test_kernel_for_another_activation_changes_nothing() -> None:
    assert _layer_delta(fused_kernels=["geglu"]) == 0  # Llama's MLP is SiLU-gated


def test_compile_is_the_norm_and_activation_kernels_in_the_layers() -> None:
    final_norm = 4 * 1024 * 4096 / 32  # compile is per layer: the final norm stays eager
    assert _layer_delta(compile=True) == _layer_delta(fused_kernels=["rmsnorm", "swiglu"]) - final_norm


def _loss_saved(loss: str, **extra: Any) -> dict[str, Any]:
    return _report(LLAMA, 1, 1024, loss=loss, **extra)


def test_lse_16bit_keeps_two_bytes_per_logit() -> None:
    # flash-attn cross_entropy.py save_for_backward(logits, lse, labels): 2·T·V + 4·T against
    # the fp32 log-softmax's 4·T·V
    t, v = 1024, 128256
    full = _loss_saved("full")["per_gpu"]["activations"]
    lse = _loss_saved("lse_16bit")["per_gpu"]["activations"]
    assert full - lse == 4 * t * v - (2 * t * v + 4 * t)


def test_inplace_backward_has_no_gradient_transient() -> None:
    t, v = 1024, 128256
    lse = _loss_saved("lse_16bit")
    inplace = _loss_saved("lse_16bit_inplace")
    assert lse["per_gpu"]["activations"] == inplace["per_gpu"]["activations"]
    assert lse["per_gpu"]["total"] - inplace["per_gpu"]["total"] <= 2 * t * v


def test_eager_z_loss_keeps_the_fp32_logits() -> None:
    # torch logsumexp_backward(grad, self, result): the fp32 logits (4·T·V) and the LSE (4·T)
    t, v = 1024, 128256
    z = _loss_saved("z_loss")["per_gpu"]["activations"]
    assert z - _loss_saved("full")["per_gpu"]["activations"] == 4 * t * v + 4 * t


def test_loss_kernel_sets_the_loss() -> None:
    rep = _report(LLAMA, 1, 1024, fused_kernels=["rmsnorm", "xentropy"])
    assert rep["scenario"]["workload"]["loss"] == "lse_16bit"
    assert estimate_report(rep["scenario"])["per_gpu"] == rep["per_gpu"]  # the echo loads back
    assert any("log-sum-exp" in line for line in rep["assumptions"])


def test_loss_kernel_against_another_loss_is_an_error() -> None:
    with pytest.raises(ScenarioError, match=r"workload\.loss"):
        _report(LLAMA, 1, 1024, fused_kernels=["fused_linear_cross_entropy"], loss="chunked")


def test_unknown_kernel_names_the_known_ones() -> None:
    with pytest.raises(ScenarioError, match="fused_kernels") as err:
        _report(LLAMA, 1, 1024, fused_kernels=["flash_norm"])
    assert "rmsnorm" in str(err.value) and "swiglu" in str(err.value)


def test_registry_refuses_a_duplicate() -> None:
    with pytest.raises(ValueError, match="registered already"):
        register(FusedKernel("rmsnorm", "again", "norm"))
    assert "rmsnorm" in FUSED_KERNELS


def _titan(loss: str) -> dict[str, Any]:
    return estimate_report(
        {
            "model": LLAMA,
            "workload": {"kind": "pretraining", "sequence_length": 8192, "micro_batch_size": 1, "loss": loss},
            "parallelism": {"data": 8, "tensor": 2},
            "framework": "torchtitan",
        }
    )


def test_torchtitan_honours_the_loss() -> None:
    # the default keeps the fp32 log-softmax of the local logits (4·T·V/TP); the fused
    # cross-entropy 2·T·V/TP + 4·T + labels 8·T
    t, v = 8192, 128256 / 2
    full, lse = _titan("full"), _titan("lse_16bit")
    assert full["per_gpu"]["activations"] - lse["per_gpu"]["activations"] == pytest.approx(
        4 * t * v - (2 * t * v + 12 * t)
    )
    assert _titan("fused")["per_gpu"]["activations"] < lse["per_gpu"]["activations"]


def test_a_registered_kernel_is_used_by_its_effect() -> None:
    # one register() call: a new RMSNorm kernel fuses the norms as the registered one does
    base = _layer_delta(fused_kernels=["rmsnorm"])
    register(FusedKernel("dummy_rmsnorm", "Dummy fused RMSNorm", "norm", ("rmsnorm",)))
    try:
        assert _layer_delta(fused_kernels=["dummy_rmsnorm"]) == base
    finally:
        del FUSED_KERNELS["dummy_rmsnorm"]


@pytest.mark.parametrize("rec", DATA["lora_records"], ids=lambda r: r["name"])
def test_compiled_lora_layer_as_measured(rec: dict[str, Any]) -> None:
    # PEFT LoRA on q and v (fp32 adapters), every layer compiled: Inductor keeps one fp32 cast of
    # the shared norm output for both adapters (eager: one per adapter); to the byte
    model = _model(rec)
    work = {"kind": "lora", "lora_rank": rec["lora"]["r"], "lora_targets": ["q", "v"]}
    prec = {"weights": "bf16", "activations": "bf16", "master_weights": None}

    def acts(compiled: bool) -> float:
        return _in_layers(rec, model, {**work, "compile": compiled}, prec)

    assert acts(False) == rec["saved_eager_bytes"]
    assert acts(True) == rec["saved_compiled_bytes"]


@pytest.mark.parametrize("rec", DATA["autocast_records"], ids=lambda r: r["name"])
def test_compiled_autocast_layer_as_measured(rec: dict[str, Any]) -> None:
    # fp32 parameters under bf16 autocast, every layer compiled: one bf16 cast of each shared
    # Linear input (eager: one per Linear), and the fp32 residual sum before the MLP's norm
    # rebuilt from the layer input and the bf16 attention output; to the byte
    model = _model(rec)
    prec = {"weights": "fp32", "activations": "bf16", "gradients": "fp32", "master_weights": None}

    def acts(compiled: bool) -> float:
        return _in_layers(rec, model, {"kind": "full_finetune", "compile": compiled}, prec)

    assert acts(False) == rec["saved_eager_bytes"]
    assert acts(True) == rec["saved_compiled_bytes"]


@pytest.mark.parametrize("rec", DATA["moe_records"], ids=lambda r: r["name"])
def test_compiled_moe_layer_saving_as_measured(rec: dict[str, Any]) -> None:
    # Qwen3-MoE and Mixtral, every layer compiled: the routed experts' MLPs keep gate, up and
    # product as dense ones do; 1 % (the router's small fp32 tensors: 4-10 KB a layer apart)
    model = _model(rec)
    b, s, n = rec["batch"], rec["seq"], rec["layers"]
    eager = _report(model, b, s)["per_gpu"]["activations"]
    compiled = _report(model, b, s, compile=True)["per_gpu"]["activations"]
    assert (eager - compiled) / n == pytest.approx(rec["per_layer_saving_bytes"], rel=0.01)
