"""The DeepEP buffers a serving engine holds on each GPU (``serving.moe_a2a_backend``): their
bytes (the backend's spec owns them: core/registry/moe_a2a.py ``A2ABackend.buffer_bytes``, sized
by core/registry/moe_a2a_buffers.py) and where the engine's KV-pool sizing meets them.

- SGLang creates its ``DeepEPBuffer`` lazily, at the first MoE dispatch: CUDA graph capture
  (``model_runner.initialize``: ``init_memory_pool`` before ``init_cuda_graphs``), or the first
  batch without graphs; the pool was sized before from the free memory, so the buffers come out
  of what ``mem_fraction_static`` leaves outside (the SGLang rule charges them beside the CUDA
  graphs; a GPU without that room fails in capture: sgl-project/sglang issues 5285, 29942).
- vLLM creates them at model load (``prepare_communication_buffer_for_model``), before its
  profile run: non-torch memory the profile counts inside ``gpu_memory_utilization`` (the vLLM
  rule charges them with the non-torch memory, the pool smaller by them).

Read only where the exchange is: a served MoE model whose experts span more than one rank and a
backend other than "none" (every other scenario: 0 bytes, its answers unchanged).
"""

from __future__ import annotations

from ..model.architecture import resolve
from ..model.redundant import ep_ranks, physical_experts
from ..model.specs import Scenario
from ..registry.moe_a2a import MOE_A2A_BACKENDS
from ..registry.moe_a2a_buffers import ENGINE_SIZING, NVL_PEERS, BufferBytes, BufferShape

__all__ = ["a2a_buffers", "a2a_note", "auto_warning"]


def a2a_buffers(s: Scenario) -> BufferBytes:
    """The DeepEP buffers on one GPU of the scenario's EP group (empty where none is read)."""
    name = s.serving.moe_a2a_backend
    ranks = ep_ranks(s.parallelism)
    if name in (None, "none") or not s.workload.serves or s.model.moe is None or ranks <= 1:
        return BufferBytes()
    internode = ranks > s.hardware.gpus_per_node
    hidden, tokens = resolve(s.model).hidden, s.serving.moe_a2a_dispatch_tokens
    shape = BufferShape(ranks, hidden, physical_experts(s), internode, tokens)
    return MOE_A2A_BACKENDS[str(name)].buffer_bytes(shape, s.framework)


def a2a_note(s: Scenario, b: BufferBytes) -> tuple[str, ...]:
    """The assumptions the buffers add (none without them), and the warning of
    :func:`auto_warning`."""
    sizing = ENGINE_SIZING.get(s.framework)
    if not b.total or sizing is None:
        return ()
    return (_buffer_note(s, b, sizing.when), *auto_warning(s))


def auto_warning(s: Scenario) -> tuple[str, ...]:
    """``deepep_auto`` with more than 8 EP ranks inside an NVLink domain wider than 8 GPUs (a
    GB200 NVL72): kept, as SGLang's own choice, and said. SGLang picks per step
    (``DeepEPMode.resolve(is_extend_in_batch)``): a step with prompt tokens takes the normal
    kernels, which DeepEP V1 runs on at most 8 NVLink peers (the validator refuses
    ``deepep_normal`` there, core/pipeline/validate_sched.py); a decode-only server (the decode
    pool of a P/D split, as the GB200 runs were) runs the low-latency kernels alone."""
    ranks, node = ep_ranks(s.parallelism), s.hardware.gpus_per_node
    if s.serving.moe_a2a_backend != "deepep_auto" or ranks <= NVL_PEERS or node <= NVL_PEERS:
        return ()
    return (
        f"deepep_auto at EP {ranks} inside one {node}-GPU NVLink domain: SGLang's prompt steps pick "
        f"DeepEP's normal kernels, which DeepEP V1 runs on at most {NVL_PEERS} NVLink peers (DeepEP "
        "issue 392), priced as picked; only a decode-only server (a P/D decode pool) runs the "
        "low-latency kernels alone",
    )


def _buffer_note(s: Scenario, b: BufferBytes, when: str) -> str:
    """The buffers' bytes and where the engine allocates them."""
    label = MOE_A2A_BACKENDS[str(s.serving.moe_a2a_backend)].label
    parts = [f"NVLink {b.nvl / 2**20:,.0f} MiB"] if b.nvl else []
    if b.rdma:
        parts.append(f"RDMA {b.rdma / 2**20:,.0f} MiB in {b.heap // 2**29} NVSHMEM granules of 512 MiB")
    parts.append("workspace 32 MiB")
    return (
        f"{label} buffers {b.total / 2**30:.2f} GiB per GPU in overhead ({', '.join(parts)}), "
        f"allocated {when}"
    )
