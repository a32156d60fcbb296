"""The recurrent state's dtype each serving engine keeps by default (core/model/state.py,
the profile's ``recurrent_state_dtype``; docs/evidence/training.md, the section on the engines'
linear-attention state).

Sources:

- SGLang ``python/sglang/srt/configs/mamba_utils.py`` (``mamba2_state_dtype``: SSM dtype
  float32 by default, the model config's ``mamba_ssm_dtype`` or ``--mamba-ssm-dtype`` /
  ``SGLANG_MAMBA_SSM_DTYPE`` over it; conv bfloat16; ``mamba_cache_per_req`` = (conv numel x
  conv itemsize + temporal numel x temporal itemsize) x layers); sgl-project/sglang PR #10258
  (2025-09-10, ``--mamba-ssm-dtype``, Qwen3-Next GSM8k at float32 and bfloat16);
  docs/basic_usage/qwen3.md: "The default setting is float32".
- vLLM ``model_executor/layers/mamba/mamba_utils.py`` ``gated_delta_net_state_dtype``: conv and
  temporal state in the model dtype at ``mamba_ssm_cache_dtype`` "auto"; only Qwen3.5's
  ``Qwen3_5ForConditionalGenerationConfig`` (models/config.py) copies a checkpoint's
  ``mamba_ssm_dtype``; Qwen3-Next's config.json states none."""

from __future__ import annotations

from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.state import state_bytes_per_sequence
from gpusizer.core.pipeline.report import estimate_report
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.frameworks import FRAMEWORKS

# Qwen3-Next-80B-A3B (config.json): 36 Gated DeltaNet layers, conv (2 x 16 x 128 + 32 x 128)
# channels x (4 - 1) inputs, recurrent 32 x 128 x 128 values per layer
_LAYERS, _CONV, _REC = 36, 3 * (2 * 16 * 128 + 32 * 128), 32 * 128 * 128


def _qwen3_next() -> object:
    return resolve(parse_scenario({"model": {"preset": "qwen3-next-80b-a3b"}}).model)


def test_sglang_keeps_qwen3_next_state_in_fp32() -> None:
    conv, rec = state_bytes_per_sequence(_qwen3_next(), FRAMEWORKS["sglang"], "bf16")  # type: ignore[arg-type]
    # SGLang mamba_cache_per_req: (conv numel x 2 (bf16) + temporal numel x 4 (fp32)) x 36, exact
    assert conv == _LAYERS * _CONV * 2
    assert rec == _LAYERS * _REC * 4
    assert conv + rec == 77_266_944  # 73.7 MiB a request at TP 1


def test_vllm_keeps_qwen3_next_state_in_the_model_dtype() -> None:
    conv, rec = state_bytes_per_sequence(_qwen3_next(), FRAMEWORKS["vllm"], "bf16")  # type: ignore[arg-type]
    # vLLM gated_delta_net_state_dtype at "auto": both bf16, exact
    assert (conv, rec) == (_LAYERS * _CONV * 2, _LAYERS * _REC * 2)


def test_a_model_stated_dtype_wins_on_every_engine() -> None:
    # Nemotron-Nano-9B-v2 states mamba_ssm_cache_dtype float32: the same on SGLang and vLLM
    spec = resolve(parse_scenario({"model": {"preset": "nemotron-nano-9b-v2"}}).model)
    assert state_bytes_per_sequence(spec, FRAMEWORKS["sglang"], "bf16") == state_bytes_per_sequence(
        spec, FRAMEWORKS["vllm"], "bf16"
    )


def test_sglang_transformer_answers_do_not_move() -> None:
    # no recurrent layers: no state on any engine
    s = {"model": {"preset": "llama-3.1-8b"}, "framework": "sglang", "workload": {"kind": "inference"}}
    assert estimate_report(s)["cache"]["recurrent_state_bytes"] == 0


def test_sglang_serving_report_prices_the_fp32_state() -> None:
    s = {
        "model": {"preset": "qwen3-next-80b-a3b"},
        "workload": {"kind": "inference", "batch_size": 4},
        "framework": "sglang",
        "hardware": {"gpu": "h200-141gb"},
        "parallelism": {"tensor": 4},
    }
    cache = estimate_report(s)["cache"]
    # TP 4 splits channels and heads: a quarter of 77,266,944 a request
    assert cache["recurrent_state_bytes_per_sequence"] == 77_266_944 // 4
