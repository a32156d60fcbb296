"""The assumption behind a serving scenario's speed figures, in words: the load simulated, the
step's fixed cost and the kernels' shares of the GPU's peaks (core/serving/load.py
``load_note`` gives it the simulated run). Split from core/serving/load.py for size; the
wording is as it was there.
"""

from __future__ import annotations

from ..model.presets import host_cpu
from ..model.specs import GPUSpec, Scenario
from ..speed.eplb_hierarchical import applies as hierarchical_applies
from ..speed.rates import Rates, power_capped, sixteen_bit_scale
from ..speed.roofline import peak_tflops
from ..speed.roofline_shape import Shape
from ..speed.sglang_moe_tiles import default_rows
from ..speed.step import StepModel
from .engine_settings import EngineSettings
from .scheduler_types import LoadResult, Workload

# DeepEP's low-latency kernels inside one NVLink domain (core/registry/moe_a2a.py)
_nvlink_ll = " (its low-latency kernels over NVLink at the link's own rate: no NIC on the path)"
# core/speed/expert_load.py ``eplb_rank_factor``: the replicas' placement, not the stated balance
_eplb = (
    "; redundant experts placed as EPLB places them (deepseek-ai/EPLB's global policy over the "
    "router's popularity, plus each step's sampling spread)"
)
# core/speed/eplb_hierarchical.py: the model's expert groups divide by the nodes the ranks span
_eplb_groups = (
    "; redundant experts placed as EPLB places them (deepseek-ai/EPLB's hierarchical policy: the "
    "{groups} expert groups packed to the {nodes} nodes, the replicas within each; plus each step's "
    "sampling spread)"
)


def load_text(
    s: Scenario,
    gpu: GPUSpec,
    st: EngineSettings,
    step: StepModel,
    wl: Workload,
    run: LoadResult,
    note: str | None,
) -> str:
    """The assumption behind the speed figures of a simulated run (core/serving/load.py
    ``ServedLoad``: its step model, workload, result and budget note): the load and the step's
    fixed cost."""
    n = wl.users
    what = {
        "steady": f"a steady load of {n:,} user{'s' if n != 1 else ''}",
        "burst": f"a burst of {n:,} request{'s' if n != 1 else ''} at once",
        "rate": f"Poisson arrivals at {wl.rate:g} requests/s",
    }[wl.load]
    done = f"{run.completed:,} request{'s' if run.completed != 1 else ''} simulated"
    if wl.time_boxed and run.completed < wl.requests:
        done += " (the run stopped at its time box)"
    if note:
        done += f" ({note})"
    origin = "serving.step_latency_seconds" if st.step_latency_seconds is not None else "kernel floors + host"
    host = host_cpu(s.hardware)
    if st.step.torch_launch and host.op_dispatch != 1.0:  # the eager steps' ops, on this host
        origin += f"; eager ops issued by {host.short} at {host.op_dispatch:.2f}x an x86 host's time"
    r = step.rates
    balance = step.expert_balance if step.shape.ep > 1 else None  # as stated, not the router's skew
    return (
        f"speed for {what}, {done}; fixed cost per step {step.fixed * 1e3:.2f} ms ({origin}); "
        f"{s.profile.kernels} kernels reach {r.bandwidth:.0%} of the memory bandwidth, "
        f"{matmul_share(gpu, r, s.precision.activations)}"
        + ("" if s.serving.load else " (serving.load not set: steady)")
        + (f"; EP ranks at the stated balance {balance:g} (mean / busiest rank)" if balance else "")
        + (
            _eplb_line(step.shape)
            if not balance and step.shape.ep > 1 and step.shape.physical > step.shape.experts
            else ""
        )
        + (f"; MoE tokens exchanged by {step.a2a.backend.label} at its measured rates" if step.a2a else "")
        + (
            _nvlink_ll
            if step.a2a and step.a2a.backend.mode != "normal" and step.ep_link.kind == "nvlink"
            else ""
        )
        + ("; two-batch overlap (SGLang --enable-two-batch-overlap)" if step.tbo else "")
        + _tiles_line(s, step)
    )


def _tiles_line(s: Scenario, step: StepModel) -> str:
    """The assumption line of ``serving.moe_default_config`` where the step prices it: SGLang's
    Triton MoE at ``get_default_config``'s 16-bit tiles (core/speed/sglang_moe_tiles.py,
    sgl-project/sglang fused_moe_triton_config.py at 083d6013), the second GEMM's grid of
    ``BLOCK_SIZE_M`` x ``BLOCK_SIZE_N`` tiles bounding each MoE call. Empty where the field is
    not true or the step does not read it (another engine, GPU family, expert dtype, EP > 1)."""
    rows = step.costs.moe_w2_tiles
    if not s.serving.moe_default_config or not rows or rows != default_rows(rows[0][0]):
        return ""
    (experts, bm, bn), (_, bm2, bn2) = rows
    return (
        f"; SGLang's Triton MoE at its default tiles, no tuned config file "
        f"(serving.moe_default_config): BLOCK_SIZE_M {bm} x N {bn} up to {experts:,} tokens a call, "
        f"{bm2} x {bn2} above"
    )


def matmul_share(gpu: GPUSpec, r: Rates, activations: str) -> str:
    """The 16-bit matmuls' achieved rate against the peak they run at: on a GeForce card whose
    library accumulates in FP16, the FP16-accumulate peak, twice the catalog's FP32-accumulate
    figure (``sixteen_bit_scale``); else the catalog's 16-bit peak, with board power's cap.
    Apple publishes FP32 TFLOPS only and the catalog's 16-bit figure is that rate, while M3 and
    later GPUs issue FP16, FP32 and integer instructions in parallel (Apple tech talk 111375
    "Explore GPU advancements in M3 and A17 Pro", 2023-11: "the high-performance ALUs execute
    different combinations of integer, FP32, and FP16 in parallel"), so llama.cpp's Metal GEMMs
    (half tiles, float accumulators) run above it: stated in TFLOPS there, not as a share above
    100 %. The rate is the step model's own; only the wording differs."""
    _, peak = peak_tflops(gpu, activations)
    if not peak:
        return "0% of the 16-bit peak"
    scale = sixteen_bit_scale(gpu, r)
    tflops = power_capped(peak * scale * r.matmul, gpu, r.watt_tflops)
    if scale != 1.0:
        return f"{tflops / (peak * scale):.0%} of the FP16-accumulate peak"
    if tflops <= peak:
        return f"{tflops / peak:.0%} of the 16-bit peak"
    why = "Apple states FP32 only; M3 and later issue FP16 and FP32 in parallel" if _apple(gpu) else ""
    return f"{tflops:.1f} TFLOPS of 16-bit matmuls, above the catalog's {peak:g} TFLOPS peak" + (
        f" ({why})" if why else ""
    )


def _apple(gpu: GPUSpec) -> bool:
    return gpu.vendor.lower() == "apple"


def _eplb_line(sh: Shape) -> str:
    """The assumption line of EPLB's placement: the hierarchical policy where it applies."""
    if hierarchical_applies(sh.expert_groups, sh.ep_nodes, sh.experts, sh.ep):
        return _eplb_groups.format(groups=sh.expert_groups, nodes=sh.ep_nodes)
    return _eplb
