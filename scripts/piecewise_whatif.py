"""What-if, not the model: a vLLM V1 decode step run as PIECEWISE CUDA graphs, every attention
layer's work issued eagerly from Python between the graph pieces.

vLLM V1 before 0.11.0 captured only the pieces between attention calls (vLLM's
torch_compile design doc: "we only capture the cudagraph for the piece of graph between attention
operations"); v0.11.0 "turns on FULL_AND_PIECEWISE as the CUDA graph mode default" (its release
notes; vllm PR #25444), so a decode-only step replays one graph where the attention backend's
``cudagraph_support`` allows it (FlashAttention 3 and Triton attention: ``ALWAYS``). The step model
prices 0.11.0's decode as one replay, and 0.8.0-0.10.x's as one plus 15 us a layer (vllm PR
#20059's PIECEWISE against FULL decode; docs/evidence/speed.md section 136). This script adds,
to a replayed step, a host floor of ``layers x 3 x StepCost.launch`` (the KV-cache write, the
attention kernel and the next piece's replay issued one by one, at the engine's own per-op
cost): the step the larger of that and the GPU's kernels. docs/evidence/speed.md, the section on
gpt-oss's decode graph under vLLM 0.11.0, holds the tables and why the model does not take it.

    PYTHONPATH=src:. python scripts/piecewise_whatif.py
"""

from __future__ import annotations

from typing import Any

from gpusizer import estimate_report
from gpusizer.core.memo import clear_all
from gpusizer.core.speed import step as step_module

OPS_PER_LAYER = 3  # reshape_and_cache_flash, the attention kernel, the next piece's graph replay
_LAYERS = [0]  # attention layers of the scenario being priced (0: the model as it is)
_HOST = step_module.StepModel._host


def _piecewise_host(
    self: Any, gpu: float, replay: bool, seqs: float, rows: Any, kernels: Any = None
) -> float:
    """The step's host costs (core/speed/step.py ``_host``) after the piecewise floor."""
    if replay and _LAYERS[0] and self.costs.launch:
        gpu = max(gpu, _LAYERS[0] * OPS_PER_LAYER * self.costs.launch)
    return float(_HOST(self, gpu, replay, seqs, rows, kernels))


def _gpt_oss(
    gpu: str, tp: int, users: int, lengths: tuple[int, int], version: str, **sv: Any
) -> dict[str, Any]:
    prompt, out = lengths
    work = {"kind": "inference", "prompt_tokens": prompt, "generated_tokens": out, "batch_size": users}
    return {
        "model": {"preset": "gpt-oss-120b"},
        "framework": "vllm",
        "hardware": {"gpu": gpu},
        "parallelism": {"tensor": tp},
        "workload": work,
        "serving": {"concurrency": users, "engine_version": version, **sv},
    }


A100 = {"attention_backend": "TRITON_ATTN", "max_context": 8192}  # as tests/core/test_gpt_oss_hopper_moe.py
RAY = {"max_context": 16000}  # Ray Serve LLM's launch_gptoss.py max_model_len


# (label, scenario, attention layers, published time per token ms or None)
CASES = [
    # vllm#22331 (A100 80GB, vLLM 0.10.1 gptoss image, TRITON_ATTN, one user): 77-78 tokens/s
    (
        "A100 TP 2, 0.10.1, 1 user",
        _gpt_oss("a100-sxm-80gb", 2, 1, (128, 1024), "0.10.1", **A100),
        36,
        1e3 / 77.5,
    ),
    (
        "A100 TP 4, 0.10.1, 1 user",
        _gpt_oss("a100-sxm-80gb", 4, 1, (128, 1024), "0.10.1", **A100),
        36,
        1e3 / 77.5,
    ),
    # Ray Serve LLM aggregated 4 x TP 2 / 2 x TP 4 at 4 users (1 / 2 a replica), 5,000 in / 250 out
    ("H100 TP 2, 0.11.0, 1 user", _gpt_oss("h100-sxm-80gb", 2, 1, (5000, 250), "0.11.0", **RAY), 36, 5.83),
    ("H100 TP 4, 0.11.0, 2 users", _gpt_oss("h100-sxm-80gb", 4, 2, (5000, 250), "0.11.0", **RAY), 36, 5.42),
]


def tpot_ms(scenario: dict[str, Any], layers: int) -> float:
    """Time per output token, ms, with the piecewise host floor of ``layers`` (0: as modelled)."""
    _LAYERS[0] = layers
    clear_all()  # the estimator keeps simulated runs by scenario
    return float(estimate_report(scenario)["serving"]["tpot_seconds"]) * 1e3


def main() -> None:
    """Each case as modelled and as a piecewise decode."""
    step_module.StepModel._host = _piecewise_host  # type: ignore[method-assign]
    print(f"{'run':30s} {'published':>9s} {'as modelled':>14s} {'piecewise':>14s}  (ms, ours / published)")
    for label, sc, layers, published in CASES:
        full, piece = tpot_ms(sc, 0), tpot_ms(sc, layers)
        print(
            f"{label:30s} {published:9.2f} {full:7.2f} ({full / published:.2f}) "
            f"{piece:7.2f} ({piece / published:.2f})"
        )


if __name__ == "__main__":
    main()
