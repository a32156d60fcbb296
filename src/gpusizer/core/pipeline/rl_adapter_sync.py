"""The colocated weight sync of a LoRA policy whose adapter the engine serves
(``rl.rollout.serves_adapter``, core/pipeline/rl_roles.serves_adapter), seconds per step.

verl hands vLLM the adapter, not the whole model (``verl/workers/sharding_manager/fsdp_vllm.py``
at June 2025, the version of the GRPO-LoRA logs replayed in docs/evidence/rl.md section 6):
once the base is in the engine (``load_format: safetensors``, so ``base_sync_done``),
``__enter__`` collects the LoRA tensors and ``update_params`` passes them to
``llm_engine.add_lora`` as a ``TensorLoRARequest``. No 16-bit model is exported, packed or
loaded, so none of the full refit's terms (core/pipeline/rl_transitions.refit_seconds: the
per-tensor export, the IPC pack) applies. What the collection costs instead:

1. **The base is gathered to read the adapter.** Under FSDP the adapter's shards live in the
   layers' flat parameters, so verl unshards them: ``layered_summon_lora_params``
   (``verl/utils/fsdp_utils.py``, ``rollout.layered_summon: true`` as the logs set it) runs
   ``FSDP.summon_full_params`` on each decoder layer in turn (the root's embedding, norm and LM
   head are not summoned); without it one ``summon_full_params`` of the whole model gathers the
   same layers. Each layer's gather is waited for before the next is issued (a context manager
   per layer). Under mixed precision FSDP1 gathers the full-precision flat parameter there
   (PyTorch ``torch/distributed/fsdp/_flat_param.py``, ``FlatParamHandle._force_full_precision``:
   true in ``SUMMON_FULL_PARAMS``), so the bytes are the stored weights' (fp32 when verl loads
   the actor in fp32), not ``param_dtype``'s. A Megatron policy exports its adapter alone (verl
   ``verl/workers/engine/megatron/transformer_impl.py`` ``get_per_tensor_param``:
   ``export_adapter_weights`` once ``base_sync_done``): no gather of the base.
2. **The adapter goes to host memory** (``param.detach().cpu()`` for each LoRA tensor): a fresh
   pageable tensor each, priced as the optimizer's pageable copies are
   (core/pipeline/rl_transitions.py: dask-cuda's measured host allocation and unpinned copy
   rates on a PCIe host; the link's rate on a Grace or unified-memory host).
3. **The engine loads it** (vLLM ``LoRAModel.from_lora_tensors``, then the slot's
   ``set_lora`` copies): the adapter in the engine's 16-bit dtype to the GPU over the host link.

Left out for lack of a measured rate: ``torch.cuda.empty_cache()`` after each layer's summon and
the Python work per LoRA tensor (a synchronous copy each)."""

from __future__ import annotations

from ..memory.lora import lora_trainable
from ..memory.lora_experts import expert_layout
from ..model.params import count_parameters
from ..model.specs import GPUSpec, Scenario
from ..registry.dtypes import nbytes
from ..speed.collectives import all_gather_seconds
from ..speed.train_rates import group_link, network_gb_per_s
from .rl_check import rl_of
from .rl_transitions import (
    HOST_EFFICIENCY,
    PAGEABLE_ALLOC_BYTES_PER_S,
    PAGEABLE_COPY_BYTES_PER_S,
    host_link_gb_per_s,
    pageable_host,
)

ENGINE_BYTES = 2  # the engine's adapter slots hold 16-bit tensors (vLLM lora_dtype: the model's)


def base_gather_seconds(s: Scenario, gpu: GPUSpec) -> float:
    """Item 1 of the module docstring: the decoder layers' stored weights all-gathered one layer
    at a time over the FSDP ranks (0 without FSDP / ZeRO-3 or on one rank)."""
    p = s.parallelism
    ranks = p.data * p.context
    if p.zero_stage < 3 or ranks <= 1:
        return 0.0
    c = count_parameters(s.model)
    layers = c.dense_layers + c.moe_layers
    outside = c.embedding + c.position_embedding + c.lm_head + c.final_norm
    layer_bytes = (c.total - outside) * nbytes(s.precision.weights) / (p.tensor * p.pipeline * layers)
    net = s.hardware.network_gb_per_s or network_gb_per_s(gpu)
    link = group_link(gpu, ranks, p.tensor, s.hardware.gpus_per_node, net)
    return layers * all_gather_seconds(link, layer_bytes, ranks)


def adapter_host_seconds(s: Scenario, gpu: GPUSpec) -> float:
    """Items 2 and 3: the whole adapter to pageable host memory at its stored precision, then
    into the engine in 16 bits over the host link."""
    w, rl = s.workload, rl_of(s)
    params = lora_trainable(s.model, w.lora_rank, w.lora_targets, expert_layout(s)).total
    host = (rl.host_link_gb_per_s or host_link_gb_per_s(gpu)) * 1e9 * HOST_EFFICIENCY
    stored = params * nbytes(s.precision.weights)
    if pageable_host(gpu):
        out = stored / PAGEABLE_ALLOC_BYTES_PER_S + stored / PAGEABLE_COPY_BYTES_PER_S
    else:
        out = stored / host
    return out + params * ENGINE_BYTES / host


def adapter_sync_seconds(s: Scenario, gpu: GPUSpec) -> float:
    """The ``weight_sync`` phase of a colocated LoRA policy whose adapter the engine serves."""
    return base_gather_seconds(s, gpu) + adapter_host_seconds(s, gpu)
