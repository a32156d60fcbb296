"""Copy vLLM's measured Triton fused MoE on datacentre Blackwell (BF16 experts) out of NVIDIA
aiconfigurator's wheel into the package's data (src/gpusizer/presets/moe-module-times.json,
through scripts/moe_module_json.py), as ``vllm-triton-bf16-sm100``.

aiconfigurator 0.12.0 (PyPI ``aiconfigurator-core``, Apache-2.0) ships
``aiconfigurator_core/systems/data/b200_sxm/moe/vllm/0.19.0/moe_perf.parquet``: ``kernel_source``
``vllm_fused_moe``, ``moe_dtype`` bfloat16, written by the collector that calls vLLM's
``fused_experts`` itself (ai-dynamo/aiconfigurator collector/vllm/collect_moe.py at v0.7.0: FP16
weights, ``fused_experts(..., quant_config=None)``), i.e. the Triton ``fused_moe_kernel`` twice
and ``moe_sum`` with the release's tuned config for the B200 where vLLM ships one
(``fused_moe/configs/E=..,N=..,device_name=NVIDIA_B200.json``), ``get_default_config`` otherwise.
Kept: ``moe_ep_size`` 1, every ``moe_tp_size`` and expert shape where the B200 ran
``get_default_config`` (no ``E=..,N=..,device_name=NVIDIA_B200.json`` BF16 config at 0.19.0, ``N``
the intermediate over TP), the two power-law routings core/speed/step_moe.py assumes, the median
where a token count is timed twice. The shapes with a tuned B200 config are left out: no release
through 0.20.0 ships a BF16 config named ``NVIDIA_GB200`` (the GB200's runs are default-config
ones), and 0.11.x shipped fewer B200 configs than 0.19.0 (a subset). vLLM 0.19.0 is the newest
release whose BF16 oracle runs Triton on SM100 by default (core/speed/moe_measured_lanes.py).

    /tmp/tidy41_aicvenv/bin/python scripts/vllm_triton_sm100_moe_table.py
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from moe_module_json import median_ms, write

DATA = Path("/tmp/tidy41_aicvenv/lib/python3.11/site-packages/aiconfigurator_core/systems/data")
RELEASE = "0.19.0"
KERNEL = "vllm_fused_moe"
ROUTINGS = ("power_law_1.2", "power_law_1.01")
# (E, N) of vLLM 0.19.0's BF16 configs for the B200 (vllm/model_executor/layers/fused_moe/configs,
# PyPI sdist vllm-0.19.0.tar.gz): rows at these shapes ran a tuned config, not the default
B200_TUNED = {(128, 1856), (128, 512), (128, 768), (16, 1024), (32, 1408), (64, 1408)}
B200_TUNED |= {(512, 64), (512, 128), (512, 256), (512, 512), (512, 672), (512, 1344)}
SHAPE = ["num_experts", "hidden_size", "inter_size", "topk", "moe_tp_size", "distribution"]


def series() -> list[dict[str, object]]:
    """The B200 table's BF16 series at EP 1, one per expert shape, TP and routing."""
    df = pd.read_parquet(DATA / "b200_sxm" / "moe" / "vllm" / RELEASE / "moe_perf.parquet")
    keep = (df.kernel_source == KERNEL) & (df.moe_dtype == "bfloat16") & (df.moe_ep_size == 1)
    keep &= df.distribution.isin(ROUTINGS)
    out: list[dict[str, object]] = []
    for (experts, hidden, inter, topk, tp, dist), g in df[keep].groupby(SHAPE):
        if (int(experts), int(inter) // int(tp)) in B200_TUNED:
            continue
        out.append(
            {
                "gpu": "b200-192gb",
                "experts": int(experts),
                "hidden": int(hidden),
                "intermediate": int(inter),
                "top_k": int(topk),
                "tp": int(tp),
                "routing": dist,
                **median_ms(g),
            }
        )
    return out


def main() -> None:
    write(
        "vllm-triton-bf16-sm100",
        series(),
        (
            "aiconfigurator 0.12.0 wheel (PyPI aiconfigurator-core 0.12.0, NVIDIA, Apache-2.0): "
            f"aiconfigurator_core/systems/data/b200_sxm/moe/vllm/{RELEASE}/moe_perf.parquet, "
            f"kernel_source {KERNEL}, moe_dtype bfloat16, moe_ep_size 1, collector/vllm/collect_moe.py "
            "(fused_experts: vLLM's Triton fused_moe_kernel); the shapes where vLLM 0.19.0 ships a "
            "NVIDIA_B200 BF16 config left out (default-config rows only)"
        ),
    )


if __name__ == "__main__":
    main()
