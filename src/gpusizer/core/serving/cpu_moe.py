"""llama.cpp's routed experts in host RAM (``--n-cpu-moe N``, ``--cpu-moe``, ``-ot exps=CPU``).

Sources (ggml-org/llama.cpp, tree of 2026):

- ``common/arg.cpp``: ``--cpu-moe`` / ``-cmoe`` adds the override ``\\.ffn_(up|down|gate)_exps``
  = CPU for every layer; ``--n-cpu-moe N`` / ``-ncmoe N`` adds
  ``blk\\.i\\.ffn_(up|down|gate)_exps`` = CPU for ``i < N`` (``llm_ffn_exps_block_regex``): the
  FIRST N layers' routed-expert tensors stay in a host buffer, everything else of those
  layers (attention, norms, router, shared experts) goes where ``-ngl`` puts it. N past the
  layer count is all of them, as ``--cpu-moe``.
- ``src/llama-model.cpp`` ``load_tensors``: a tensor matching an override is created in that
  buffer type; the rest of its layer stays on the layer's device.
- ``ggml/src/ggml-backend.cpp`` ``ggml_backend_sched``: an op whose weight sits in a host
  buffer runs on the CPU backend, unless the GPU backend's ``offload_op`` claims it;
  ``ggml/src/ggml-cuda/ggml-cuda.cu`` ``ggml_backend_cuda_device_offload_op``: a batch of at
  least ``min_batch_size`` = 32 rows (``GGML_OP_OFFLOAD_MIN_BATCH``; ``MUL_MAT_ID`` counts
  ``ne[2]``, the tokens) is run on the GPU, the weight copied over PCIe first. So a decode step
  (fewer than 32 tokens) reads, on the CPU at host-memory bandwidth, the routed experts its
  tokens chose; a prompt batch of 32 or more copies the layer's experts to the GPU, only
  those its tokens chose (``ggml_backend_sched_compute_splits``: "when offloading MoE
  weights, we can reduce the amount of data copied by copying only the experts that are
  used", the ``ids`` of the ``MUL_MAT_ID`` node gathered in a bitset).
- Experts a step's tokens touch: each token picks ``k`` of ``E`` experts; under even routing
  the expected share of experts touched by ``T`` tokens is ``1 - (1 - k/E)^T`` (the
  occupancy expectation of T independent draws; the balanced routing that the load-balancing
  loss trains towards, Fedus et al. 2021, "Switch Transformers", arXiv:2101.03961 §2.2).
"""

from __future__ import annotations

from ..errors import ScenarioError
from ..model.architecture import Arch, moe_layers_before
from ..model.specs import Scenario

ALL = "all"


def check_cpu_moe(s: Scenario) -> None:
    """``serving.cpu_moe_layers`` is llama.cpp's / Ollama's (the ggml engines) and needs
    routed experts to keep in RAM."""
    n = s.serving.cpu_moe_layers
    if n is None or s.workload.trains:
        return
    if s.profile.kernels != "ggml":
        msg = f"applies to llama.cpp / Ollama (--n-cpu-moe), not {s.profile.label}"
        raise ScenarioError("serving.cpu_moe_layers", msg)
    if s.model.moe is None:
        raise ScenarioError("serving.cpu_moe_layers", "the model has no routed experts (a dense model)")


def cpu_layers(s: Scenario, arch: Arch) -> int:
    """Layers whose routed experts stay in RAM: the first N (``"all"``: every layer)."""
    n = s.serving.cpu_moe_layers
    if n is None or arch.moe is None:
        return 0
    return arch.layers if n == ALL else min(int(n), arch.layers)


def expert_blocks(arch: Arch, experts: float) -> tuple[float, ...]:
    """Routed-expert bytes of each repeating block: ``experts`` (all layers' routed experts,
    as stored) spread evenly over the MoE blocks; 0 on a dense block."""
    moe_n = arch.moe_layers
    if not moe_n:
        return (0.0,) * arch.layers
    per = experts / moe_n
    return tuple(
        per if moe_layers_before(arch.spec, i + 1) > moe_layers_before(arch.spec, i) else 0.0
        for i in range(arch.layers)
    )


def touched_share(arch: Arch, tokens: float) -> float:
    """Expected share of a layer's routed experts that ``tokens`` tokens route to (even
    routing): ``1 - (1 - k/E)^tokens``."""
    moe = arch.moe
    if moe is None or tokens <= 0:
        return 0.0
    return 1.0 - (1.0 - moe.experts_per_token / moe.experts) ** tokens


def routed_share(arch: Arch) -> float:
    """``k / E``: the share of the routed experts one token reads."""
    moe = arch.moe
    return moe.experts_per_token / moe.experts if moe else 0.0


def expert_fields(
    arch: Arch, blocks: tuple[float, ...], experts: tuple[float, ...], output: float, moved: float
) -> tuple[float, float, float]:
    """EngineMemory's fields for ``moved`` expert bytes in RAM (zeros without): the bytes, k/E,
    and the share of one token's weight reads they are (``moved x k/E`` over the layers' and
    output's bytes less the experts a token skips, ``1 - k/E`` of them)."""
    if not moved:
        return 0.0, 0.0, 0.0
    pick = routed_share(arch)
    active = sum(blocks) + output - sum(experts) * (1.0 - pick)
    share = moved * pick / active if active > 0 else 0.0
    return moved, pick, share
