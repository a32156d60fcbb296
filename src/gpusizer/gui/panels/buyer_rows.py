"""Rows for scenario fields a buyer sets that had no control in the window: the GPU's share of
a unified-memory machine, the network between nodes and tensor parallelism across them (the
Hardware panel), the share of wall time spent training (Assumptions) and Float8 matmuls
(Precision). Each is bound through the one binder, named after its field, and shown where the
core reads it or while it holds a value (so a refusal from a file shows beside it). Blank is
the scenario's null: the answers are those of the scenario without the field.

Where each is read (docs/scenario-format.md): ``hardware.gpu_memory_fraction`` by
core/model/unified.py (unified-memory GPUs only; a discrete GPU ignores it and the assumptions
say so); ``hardware.network_gb_per_s`` by core/speed/train_context.py and train_step.py
(training collectives crossing nodes), the RL weight syncs (core/pipeline/rl_*.py) and a
serving step's DeepEP exchange (core/speed/step_model.py); ``hardware.
allow_cross_node_tensor_parallel`` by core/pipeline/validate_layout.py and the sizing search;
``compute.effective_time_share`` by core/speed/goodput.py; ``precision.matmuls`` by
core/speed/train_context.py and core/memory/stage_activations.py.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QCheckBox

from ...core.model.presets import gpu_spec
from ...core.registry.workloads import WorkloadKind
from ...core.speed.train_rates import network_gb_per_s
from ..quantity_field import QuantityField
from ..state import ScenarioState
from ..widgets import Form, combo

FRACTION = "hardware.gpu_memory_fraction"
NETWORK = "hardware.network_gb_per_s"
CROSS_TP = "hardware.allow_cross_node_tensor_parallel"
TIME_SHARE = "compute.effective_time_share"
MATMULS = "precision.matmuls"
TIPS = {
    FRACTION: "Share of the machine's RAM the GPU may wire (0 to 100%; unified memory only: a Mac, "
    "DGX Spark, Ryzen AI Max), as after raising macOS's limit with sudo sysctl "
    "iogpu.wired_limit_mb=N; the rest of the RAM less 6 GiB for the OS holds what stays off the "
    "GPU (core/model/unified.py). Blank: the device's default share from the catalog. "
    "An engine's own fraction (vLLM gpu_memory_utilization, SGLang mem_fraction_static) is the "
    "Serving panel's \u201cMemory fraction\u201d.",
    NETWORK: "GB/s per GPU and direction between nodes (a 400 Gb/s NIC a GPU is 50): what training "
    "collectives crossing nodes, RL weight syncs and DeepEP's exchange run over. Blank: the "
    "catalog system's scale-out per GPU, else the GPU class's reference NIC "
    "(core/speed/train_rates.py; 25 for A100, 1.25 shared by a desktop's cards on 10 GbE).",
    CROSS_TP: "Lets tensor parallelism span nodes (vLLM and SGLang run it over the network, as "
    "across Macs or DGX Sparks); off, the layout and the sizing keep it within a node.",
    TIME_SHARE: "Share of the run's wall time spent on useful steps (0 to 100%): the rest is "
    "restarts and work lost since the last checkpoint. Blank: from the GPU count, 90% at "
    "16,384 GPUs as Meta's Llama 3 report measured (arXiv:2407.21783 \u00a73.3.4; core/speed/goodput.py).",
    MATMULS: "Float8 training (torchao Float8Linear, Transformer Engine): the linear layers' "
    "matmuls run in FP8 with dynamic scales on a GPU with an FP8 rate, and keep their inputs in "
    "FP8 for the backward; attention, the LM head and saved activations stay in the activations' "
    "dtype (docs/scenario-format.md). MXFP8 (torchtitan's mx converter, Megatron --fp8-recipe "
    "mxfp8; compute capability 10.0 or later) is priced as FP8. Default: the activations' dtype.",
}


def add_hardware_rows(f: Form) -> tuple[QuantityField, QuantityField]:
    """The unified-memory share, the network and cross-node tensor parallelism."""
    share = QuantityField("percent", FRACTION, step=0.01, none_text="device default")
    share.setToolTip(TIPS[FRACTION])
    f.add("GPU memory share", share, FRACTION, name="spin_gpu_memory_fraction")
    net = QuantityField("number", NETWORK, step=12.5, unit="GB/s", none_text="GPU's network")
    net.setToolTip(TIPS[NETWORK])
    f.add("Network per GPU", net, NETWORK, name="spin_network_gb_per_s")
    cross = QCheckBox("Tensor parallel across nodes")
    cross.setToolTip(TIPS[CROSS_TP])
    f.add("", cross, CROSS_TP, name="check_allow_cross_node_tensor_parallel")
    for path in (FRACTION, NETWORK, CROSS_TP):
        f.labels[path].setToolTip(TIPS[path])
    return share, net


def unified(gpu: Any) -> bool:
    """Whether the GPU as the state holds it (an id, an inline spec) shares system RAM."""
    if isinstance(gpu, str):
        try:
            return gpu_spec(gpu).unified_memory
        except KeyError:  # an unknown id: its refusal shows at the GPU list
            return False
    if isinstance(gpu, dict):  # a custom GPU being edited
        return bool(gpu.get("unified_memory"))
    return bool(getattr(gpu, "unified_memory", False))


def refresh_hardware_rows(f: Form, state: ScenarioState, kind: WorkloadKind | None) -> None:
    """Each row where the core reads it (module docstring), or while it holds a value."""
    f.show(FRACTION, unified(state.value("hardware.gpu")) or state.value(FRACTION) is not None)
    a2a = state.value("serving.moe_a2a_backend") not in (None, "none")
    reads_net = kind is not None and (kind.trains or (kind.serves and a2a))
    f.show(NETWORK, reads_net or state.value(NETWORK) is not None)
    node, tensor = state.value("hardware.gpus_per_node"), state.value("parallelism.tensor")
    small = isinstance(node, int) and (node < 8 or (isinstance(tensor, int) and tensor > node))
    f.show(CROSS_TP, small or state.value(CROSS_TP) is True)


def show_hardware_defaults(share: QuantityField, net: QuantityField, est: Any) -> None:
    """The defaults the estimate used, as the blank fields' text."""
    g = est.gpu
    default = g.capacity_bytes / g.memory_bytes if g.memory_bytes else 1.0
    share.setSpecialValueText(f"device default: {default:.0%}")
    net.setSpecialValueText(f"GPU's network: {network_gb_per_s(g):,g} GB/s")


def add_time_share(f: Form) -> QuantityField:
    """The share of wall time spent training (Assumptions panel)."""
    spin = QuantityField("percent", TIME_SHARE, step=0.01, none_text="from the GPU count")
    spin.setToolTip(TIPS[TIME_SHARE])
    f.add("Useful time share", spin, TIME_SHARE, name="spin_effective_time_share")
    f.labels[TIME_SHARE].setToolTip(TIPS[TIME_SHARE])
    return spin


def show_time_share(spin: QuantityField, est: Any) -> None:
    share = est.compute.effective_time_share
    spin.setSpecialValueText("from the GPU count" + (f": {share:.2%}" if share is not None else ""))


def add_matmuls(f: Form) -> None:
    """Float8 matmuls (Precision panel)."""
    box = combo(
        [
            ("activations' dtype (default)", None),
            ("FP8 (Float8 training)", "fp8"),
            ("MXFP8 (Blackwell; priced as FP8)", "mxfp8"),
        ]
    )
    box.setToolTip(TIPS[MATMULS])
    f.add("Matmuls", box, MATMULS, name="combo_precision_matmuls")
    f.labels[MATMULS].setToolTip(TIPS[MATMULS])


def training_or_held(state: ScenarioState, kind: WorkloadKind | None, path: str) -> bool:
    """A training-only row: shown for a kind that trains, or while it holds a value."""
    return (kind is not None and kind.trains) or state.value(path) is not None
