"""Weights a serving engine keeps in host memory (``serving.cpu_offload_gib``: vLLM's and
SGLang's ``--cpu-offload-gb``), and what they cost a step.

Sources:

- vLLM ``vllm/model_executor/models/utils.py`` ``maybe_offload_to_cpu`` (PR 6496, kept in V1):
  at load, each module's parameters move to pinned CPU memory, one after another, until
  ``cpu_offload_gb`` x 2^30 bytes a GPU are offloaded (``vllm/config/cache.py``
  ``cpu_offload_gb``: "The space in GiB to offload to CPU, per GPU"); every forward then
  reads them from host memory (``functional_call`` on copies made ``non_blocking``, or the
  GPU reading the pinned pages over UVA: "V1 CPU offloading requires uva (pin memory)
  support"). The docs' example (``examples/offline_inference/basic/README.md``, "CPU
  offload"): "if you have one 24 GB GPU and set this to 10, virtually you can think of it as
  a 34 GB GPU. Then you can load a 13B model with BF16 weight, which requires at least 26GB".
- SGLang ``python/sglang/srt/utils/offloader.py`` ``OffloaderV1`` (``--cpu-offload-gb``):
  the same budget and the same per-forward copies.

Mechanism: the GPU holds the weights less the offloaded bytes (at most all of them; one
parameter past the budget is not counted); each engine step (prefill or decode) moves the
offloaded bytes over the GPU's host link (core/speed/host_link.py) at the achieved share
training's parameter offload uses (core/speed/param_offload.py ``host_bytes_per_s``) before
its kernels use them, with no overlap (a step's layers wait on their weights).
"""

from __future__ import annotations

from ..errors import ScenarioError
from ..model.specs import GPUSpec, Scenario
from ..speed.param_offload import host_bytes_per_s
from ..speed.step_costs import Offload

GIB = 2**30


def check_weight_offload(s: Scenario, offloads: bool) -> None:
    """``serving.cpu_offload_gib`` applies to the engines whose memory rule offloads weights
    (``offloads``: ``MemoryRule.offloads_weights``; vLLM, SGLang)."""
    gib = s.serving.cpu_offload_gib
    if not gib or s.workload.trains:
        return
    if not offloads:
        msg = (
            f"applies to vLLM and SGLang (--cpu-offload-gb), not {s.profile.label}; "
            "llama.cpp keeps layers in RAM with serving.gpu_layers N"
        )
        raise ScenarioError("serving.cpu_offload_gib", msg)


def offloaded_bytes(s: Scenario, weights: float) -> float:
    """Bytes of one GPU's ``weights`` kept in host memory: the budget, at most all of them."""
    return min((s.serving.cpu_offload_gib or 0.0) * GIB, weights)


def weight_offload(gpu: GPUSpec, host: float) -> Offload:
    """A step's host reads: ``host`` bytes over the link, the GPU running every layer."""
    rate = host_bytes_per_s(gpu)
    return Offload(host, rate, rate, 1.0)


def offload_note(host: float, gpu: GPUSpec) -> str:
    """The assumption line of weights kept in host memory."""
    rate = host_bytes_per_s(gpu)
    return (
        f"{host / GIB:.2f} GiB of weights a GPU in pinned host memory (--cpu-offload-gb), read "
        f"over the host link every step at {rate / 1e9:.0f} GB/s: {host / rate * 1e3:.0f} ms a step"
    )
