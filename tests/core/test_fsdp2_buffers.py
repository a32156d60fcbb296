"""FSDP2's collective buffers (core/memory/fsdp2_buffers.py), read at torch v2.7.1
``torch/distributed/fsdp/_fully_shard/``: the previous group's reduce-scatter input held through
the next layer's backward, and the all-gather copy-in stream's second cached output."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.memory.fsdp2_buffers import (
    copy_in_cache_bytes,
    is_fsdp2,
    reduce_scatter_input_bytes,
    rs_held,
)
from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.params import count_parameters
from gpusizer.core.model.sharding import stage_params
from gpusizer.core.model.specs import Scenario
from gpusizer.core.pipeline.scenario import parse_scenario
from tests.core.training_replay import AX_OSS_8, AX_OSS_120, AX_OSS_OFF, TRAINING_REPLAYS, _oss_fft

# One GptOssDecoderLayer from the checkpoints' shapes (hidden 2,880, 64 x 64 query heads, 8 x 64
# key/value heads, gated experts of 2,880 with biases, router, sinks and two norms):
# attention 26,550,144; 32 experts 796,538,880 (20b), 128 experts 3,186,155,520 (120b)
LAYER_20B = 823_186_976
LAYER_120B = 3_213_080_192
EMBEDDING = 201_088 * 2_880  # the embedding and the (untied) LM head, each
LAYER_8B = 218_112_000  # Llama 3.1 8B: 4,096 x 10,240 attention + 3 x 4,096 x 14,336 + norms


def _scenario(d: dict[str, Any]) -> Scenario:
    return parse_scenario({"hardware": {"gpu": "h100-sxm-80gb"}, **d})


def _rs(s: Scenario) -> float:
    counts = count_parameters(s.model)
    sp = stage_params(counts, resolve(s.model), s.parallelism.tensor, 1, 1, True)
    return reduce_scatter_input_bytes(s, sp, 2.0)


def test_the_reduce_scatter_input_is_one_layer_in_the_reduce_dtype() -> None:
    # _fsdp_collectives.py foreach_reduce: reduce_scatter_input of the group's padded unsharded
    # gradients in reduce_dtype (unset: the bf16 gradients' dtype); _fsdp_param_group.py
    # post_backward keeps it in reduce_scatter_state until the next group's post_backward
    s = _scenario(_oss_fft(8, False, "adamw_8bit"))
    assert is_fsdp2(s)
    assert _rs(s) == pytest.approx(LAYER_20B * 2)


def test_fsdp1_adapters_and_zero2_hold_none() -> None:
    fsdp1 = _oss_fft(8, False, "adamw_8bit")
    fsdp1["parallelism"]["fsdp_version"] = 1
    s = _scenario(fsdp1)
    assert not is_fsdp2(s) and _rs(s) == 0 and copy_in_cache_bytes(s) == 0
    zero2 = _oss_fft(8, False, "adamw_8bit")
    zero2["parallelism"]["zero_stage"] = 2
    assert _rs(_scenario(zero2)) == 0 and copy_in_cache_bytes(_scenario(zero2)) == 0
    lora = _oss_fft(8, False, "adamw_8bit")
    lora["workload"] = {**lora["workload"], "kind": "lora", "lora_rank": 8}
    assert _rs(_scenario(lora)) == 0  # the frozen base has no gradient to reduce


def test_the_copy_in_cache_is_the_larger_of_a_layer_and_the_root() -> None:
    # foreach_all_gather allocates each group's flat output on all_gather_copy_in_stream; the
    # forward's AllGatherState keeps the previous one until the next is issued (the root's,
    # 2 x 201,088 x 2,880, beside the first layer's); CPUOffloadPolicy copies each shard to the
    # GPU on that stream first (_fsdp_param.py all_gather_inputs)
    off20 = _scenario(_oss_fft(2, True))
    assert copy_in_cache_bytes(off20) == pytest.approx(2 * EMBEDDING * 2 + LAYER_20B / 2 * 2)
    off120 = _scenario({**_oss_fft(16, True), "model": {"preset": "gpt-oss-120b"}})
    assert copy_in_cache_bytes(off120) == pytest.approx(LAYER_120B * 2 + LAYER_120B / 16 * 2)
    on8 = _scenario(_oss_fft(8, False, "adamw_8bit"))
    assert copy_in_cache_bytes(on8) == pytest.approx(2 * EMBEDDING * 2)


def test_one_shard_gathers_nothing() -> None:
    # _fsdp_param_group.py unshard: world_size == 1 skips the all-gather
    one = _oss_fft(1, False, "adamw_8bit")
    assert copy_in_cache_bytes(_scenario(one)) == 0


def test_torchtitan_is_fsdp2_with_bf16_gathers_and_fp32_reduction() -> None:
    # torchtitan config_manager.py (9dec370): mixed_precision_param bfloat16,
    # mixed_precision_reduce float32 -> apply_fsdp MixedPrecisionPolicy
    s = _scenario(
        {
            "framework": "torchtitan",
            "model": {"preset": "llama-3.1-8b"},
            "workload": {"kind": "pretraining", "sequence_length": 8192},
            "parallelism": {"data": 8},
        }
    )
    assert (s.precision.param_dtype, s.precision.reduce_dtype) == ("bf16", "fp32")
    assert s.parallelism.fsdp_version == 1 and is_fsdp2(s)
    assert _rs(s) == pytest.approx(LAYER_8B * 4)
    assert copy_in_cache_bytes(s) == pytest.approx(LAYER_8B * 2)


def test_the_buffer_adds_what_it_exceeds_a_freed_layer_by() -> None:
    # the first layer's backward has no previous group; by the second, one layer's saved
    # tensors (a checkpoint under full recompute) are freed
    assert rs_held(10.0, 40.0, 8) == 5.0
    assert rs_held(10.0, 400.0, 8) == 0.0
    assert rs_held(0.0, 0.0, 8) == 0.0


@pytest.mark.parametrize(
    ("record", "name", "error"),
    [
        # axolotl ca796fb56 examples/gpt-oss/README.md "8x48GB @ ~36GiB/GPU or 4x80GB @ ~46GiB/GPU",
        # "2x24GB @ ~21GiB/GPU"; 50f2b94d5 the 120B offload config's ~49 GiB (device_mem_reserved)
        (AX_OSS_8, "peak GiB (reserved)", -0.140),
        (AX_OSS_8, "peak GiB (reserved), 4 x 80GB", 0.008),
        (AX_OSS_120, "peak GiB (reserved)", -0.057),
        (AX_OSS_OFF, "peak GiB (reserved)", -0.224),  # recorded miss (training_replay _AX_FSDP)
    ],
)
def test_axolotl_gpt_oss_fsdp2_rows(record: str, name: str, error: float) -> None:
    row = next(r for r in TRAINING_REPLAYS if r.record == record and r.name == name)
    assert row.estimate() / row.logged - 1 == pytest.approx(error, abs=0.005)
