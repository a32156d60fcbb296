"""The parts of a step's engine costs (core/speed/step.py ``EngineCosts``) that the scenario and
the engine release decide together, each as core/serving/load.py ``engine_costs`` asks for it:
the ggml backend, the CUDA-graph batch and sizes, the host's launch cost, how MoE tokens move
between expert-parallel ranks, the all-reduce rule and attention-DP padding. Split from
core/serving/load.py for size; the rules are as they were there.
"""

from __future__ import annotations

from dataclasses import replace

from ..model.node import MNNVL_NODE
from ..model.presets import host_cpu
from ..model.specs import GPUSpec, Scenario
from ..registry.all_reduce import ENGINE_KERNEL, AllReduceRule
from ..speed.rates_era import default_backend
from .engine_settings import EngineSettings


def ggml_backend(s: Scenario, gpu: GPUSpec) -> str:
    """llama.cpp's ggml backend: the scenario's, else the GPU vendor's own ("" for vendor kernels)."""
    if s.profile.kernels != "ggml":
        return ""
    return s.serving.ggml_backend or default_backend(gpu.vendor)


def graph_batch(s: Scenario, default: int) -> int:
    """The largest decode batch a CUDA graph covers: the largest of the sizes the scenario
    states (SGLang ``--cuda-graph-bs``: its CudaGraphRunner's ``max_bs`` is ``max(capture_bs)``
    and a batch up to it replays, padded; the LMSYS GB200 decode captured 1408, sglang issue
    10903), else the release's limit."""
    sizes = s.serving.cuda_graph_batch_sizes
    return max(sizes) if sizes else default


def graph_sizes(s: Scenario, gpu: GPUSpec, st: EngineSettings) -> tuple[int, ...]:
    """The decode batch sizes captured as CUDA graphs with padding: the scenario's
    (``serving.cuda_graph_batch_sizes``), else the SGLang release's default list cut at its
    ``cuda_graph_max_bs`` for the GPU's memory and the TP size (core/registry/engine_knobs.py
    ``SGLangKnobs.graph_sizes``); empty (each batch replays at its own size) elsewhere."""
    if s.serving.cuda_graph_batch_sizes:
        return tuple(sorted(set(s.serving.cuda_graph_batch_sizes)))
    rel = st.release
    tier = rel.tier(gpu) if rel and rel.sglang else None
    if tier is None or not rel or not rel.sglang_knobs.decode_graphs:
        return ()
    wide = s.parallelism.tensor >= 4 and tier.graph_batch_wide
    return rel.sglang_knobs.graph_sizes(tier.graph_batch_wide if wide else tier.graph_batch)


def launch(s: Scenario, st: EngineSettings) -> float:
    """Host seconds per kernel of a step not replayed from a graph: the engine's launch cost,
    PyTorch's per-op dispatch scaled by the host CPU's (core/registry/host_cpus.py: Grace issues
    an op 2.75x as slowly as the x86 hosts the costs were measured on)."""
    if not st.step.torch_launch:
        return st.step.launch
    return st.step.launch * host_cpu(s.hardware).op_dispatch


def piecewise(s: Scenario, st: EngineSettings) -> float:
    """Host seconds a replayed step adds per layer where the release's graphs are PIECEWISE
    (``StepCost.piecewise_layer``: the attention issued from Python between the pieces), scaled
    by the host CPU's per-op dispatch as :func:`launch` is."""
    scale = host_cpu(s.hardware).op_dispatch if st.step.torch_launch else 1.0
    return st.step.piecewise_layer * scale


def moe_comm(s: Scenario, gpu: GPUSpec, st: EngineSettings) -> str:
    """How the MoE layers move tokens between expert-parallel ranks: the release's pattern
    (``EngineRelease.moe_comm``: TensorRT-LLM 0.19-1.0 gathers every rank's quantised tokens and
    reduce-scatters the 16-bit outputs, over NVLink and PCIe alike), and the all-to-all in a
    multi-node NVLink domain (TensorRT-LLM's MNNVL path) or where the release states none.
    Inside an NVLink node the all-to-all once stood in for MoE time the model lacked; the
    engine's CUTLASS grouped GEMMs now run at their measured rates (core/speed/rates_trtllm_moe.py,
    docs/evidence/speed.md section 49), so its own traffic is priced there too."""
    rel = st.release
    if rel is None or s.hardware.gpus_per_node > MNNVL_NODE:
        return "all_to_all"
    return rel.moe_comm


def all_reduce(gpu: GPUSpec, st: EngineSettings) -> AllReduceRule:
    """The release's all-reduce rule (core/registry/all_reduce.py) on NVIDIA GPUs. Elsewhere the
    engine's kernel is kept for every message: the fallback there is RCCL (or another vendor's
    library), whose protocol tuning core/speed/collectives.py does not have, and the AMD shares
    of core/speed/rates.py were measured with the step's all-reduce so priced. The kernel takes
    the release's measured times where they were timed on that GPU (vLLM's on 8 x MI355X,
    core/speed/allreduce_measured.py; the MI300X and MI325X have none, so their answers and
    the CDNA3 shares set on them stay as they were)."""
    if st.release is None:
        return ENGINE_KERNEL
    if gpu.vendor.lower() != "nvidia":
        return replace(ENGINE_KERNEL, measured=st.release.all_reduce.measured)
    return st.release.all_reduce


def dp_padding(s: Scenario, st: EngineSettings) -> bool:
    """Whether the MoE layers of an attention-DP rank run on every rank's tokens padded to the
    busiest rank's count: TensorRT-LLM 0.19-0.21 pad "when x_sf in self.experts is not None"
    (the experts take FP4 activations with their scale factors; Deepseekv3MoE / Qwen3MoE
    ``forward``, PR #3439) and all-gather the padded rows, which the grouped GEMMs then compute;
    PR #6064 (July 2025, "Remove padding in attention DP") gathers each rank's own count."""
    rel, p = st.release, s.parallelism
    if rel is None or not rel.dp_padding:
        return False
    return p.data > 1 and p.expert > 1 and s.precision.weights == "nvfp4"
