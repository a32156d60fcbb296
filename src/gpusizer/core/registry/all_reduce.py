"""When a serving engine's tensor-parallel all-reduce runs its own kernel and when NCCL
(core/speed/step_terms.py prices the first at alpha + bytes / beta, the second with NCCL's protocol
model, core/speed/collectives.py).

vLLM (every release the project models, 0.6.4 through 0.33): ``CustomAllreduce`` in
``vllm/distributed/device_communicators/custom_all_reduce.py`` is disabled when the group
"spans across nodes" (``in_the_same_node_as``: one host), when the world size is not in
``_SUPPORTED_WORLD_SIZES = [2, 4, 6, 8]``, and for more than two GPUs that are not fully
NVLink-connected ("not supported on more than two PCIe-only GPUs"); ``should_custom_ar`` takes
a message only when ``inp_size < self.max_size`` (``max_size=8192 * 1024``). Every other
all-reduce of the TP group goes to pynccl (``CudaCommunicator.all_reduce``: quick reduce on
ROCm MI300 when set, then the custom kernel, then pynccl). SGLang's copy of the class
(``sglang/srt/distributed/device_communicators/custom_all_reduce.py``, "Adapted from ... vllm
v0.6.4.post1") keeps the same rules, ``_MAX_CAR_SIZE = 8192 * 1024`` on CUDA (twice that on
ROCm, "crossover is at 16MB buffer size for ROCm"; the rules apply on NVIDIA GPUs only:
core/serving/step_costs.py ``all_reduce``).

TensorRT-LLM's PyTorch backend (0.19, 1.0; ``cpp/tensorrt_llm/thop/allreduceOp.cpp``
``ifFallbackToNCCL``: "message_size_bytes > max_workspace_size" -> NCCL, and NCCL without peer
access) takes its one-shot / two-shot kernels (MNNVL across an NVL72 domain) up to
``getMaxRequiredWorkspaceSize``: 16,000,000 bytes for two ranks, 8,000,000 for more
(``cpp/tensorrt_llm/common/customAllReduceUtils.h``). Its 0.5 engines ran NCCL unless built
with ``--use_custom_all_reduce`` (``action='store_true'``, "Activates latency-optimized
algorithm for all-reduce instead of NCCL", the examples' build.py of that time).

vLLM's and SGLang's kernel is priced at its measured time where aiconfigurator timed it on the
GPU and group size, one stage or two by its own switch (core/speed/allreduce_measured.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

MiB = 1 << 20


@dataclass(frozen=True)
class AllReduceRule:
    """Where an engine's own all-reduce kernel runs (else NCCL): ``world_sizes`` the group
    sizes it supports (empty: any), ``max_bytes`` the largest message it takes (bytes, the
    tensor each rank holds; it takes messages strictly below), ``one_host`` whether the group
    must sit in one host, ``pcie_ranks`` the largest group it serves without a scale-up link."""

    world_sizes: tuple[int, ...] = ()
    max_bytes: float = float("inf")
    one_host: bool = False
    pcie_ranks: int = 1 << 30
    max_bytes_pair: float | None = None  # ``max_bytes`` for a group of two where it differs
    enabled: bool = True  # False: NCCL for every message
    # the kernel's measured times where timed (core/speed/allreduce_measured.py table id; "":
    # alpha + bytes / beta)
    measured: str = ""

    def kernel(self, ranks: int, host_gpus: int, scale_up: bool) -> bool:
        """Whether a group of ``ranks`` (hosts of ``host_gpus`` GPUs; ``scale_up``: NVLink or
        another fabric joins them) may run the engine's kernel at all."""
        if not self.enabled or (self.world_sizes and ranks not in self.world_sizes):
            return False
        if self.one_host and ranks > host_gpus:
            return False
        return scale_up or ranks <= self.pcie_ranks

    def limit(self, ranks: int) -> float:
        """The largest message (bytes, exclusive) the kernel takes in a group of ``ranks``."""
        if ranks == 2 and self.max_bytes_pair is not None:
            return self.max_bytes_pair
        return self.max_bytes


ENGINE_KERNEL = AllReduceRule()
VLLM_CUSTOM_AR = AllReduceRule((2, 4, 6, 8), 8 * MiB, True, 2, measured="vllm-custom-ar")
SGLANG_CUSTOM_AR = replace(VLLM_CUSTOM_AR, measured="sglang-custom-ar")
TRTLLM_WORKSPACE_AR = AllReduceRule(max_bytes=8e6 + 1, max_bytes_pair=16e6 + 1)  # taken up to and at
NCCL_ONLY = AllReduceRule(enabled=False)
