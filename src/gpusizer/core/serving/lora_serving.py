"""Many LoRA adapters on one base model (``serving.lora``): the GPU slots the engine reserves
and the time their kernels add to a step.

Memory (vLLM ``lora/layers``: ``create_lora_weights`` allocates ``lora_a_stacked``
(max_loras, 1, max_lora_rank, in) and ``lora_b_stacked`` (max_loras, 1, out, max_lora_rank)
per targeted linear layer, in the model's dtype, before the engine profiles: the KV pool
shrinks by them): ``max_loaded`` slots of a ``rank`` adapter on every target, whatever rank
the adapters have (vLLM docs, LoRA page, "Configuring max_lora_rank": a rank set too high
only pads). Under tensor parallelism one side of each pair is split and the other kept whole
(a column-parallel layer's A, a row-parallel layer's B), so a GPU holds about half the slot
plus half over TP. The adapters beyond the slots wait in host memory (``max_cpu_loras``).

Speed (the Punica SGMV kernels, Chen et al. 2023 arXiv 2310.18547; vLLM ``lora_shrink`` and
``lora_expand``): each targeted layer adds a shrink (tokens x in x rank) and an expand (tokens
x rank x out), two kernels, reading the A and B of every distinct adapter in the step (the
requests spread evenly over the ``adapters``, at most ``max_loaded`` at once). The kernels
also move every token's activations, whatever the rank: the shrink reads the layer's input
(tokens x in) and the expand adds into its output in place, reading and writing it (tokens x
out twice; vLLM ``lora/ops/triton_ops`` ``lora_expand`` with ``ADD_INPUTS``), so a token
costs ``(in + 2 out)`` activations per target on top of the adapters' weights. Per GPU that is
the slot's rank-1 shape: ``slot parameters / rank`` is ``in + out`` summed over the targets.

By release (``VLLMKnobs.lora_gather_per_token``): V0's Punica kernels (vLLM 0.6-0.7,
``vllm/lora/ops/triton_ops`` ``bgmv_shrink`` / ``bgmv_expand``: the grid is (splits, tokens),
each program loading its token's adapter rows) read an adapter's weights once per decode token,
and ``sgmv`` once per 32-token tile of a prompt (``BLOCK_M = 32``); V0's wrapper
(``vllm/lora/punica.py`` ``add_lora_packed_nslice``, "TODO fuse these kernels") runs a zeroed
fp32 buffer, a shrink and an expand for every slice of a packed layer: 21 kernels a Llama
layer, launched one by one in V0's eager prefill steps. V1 groups a step's tokens by adapter
and runs one shrink and one expand per packed layer.

MoE experts (vLLM ``lora/layers/fused_moe.py`` ``FusedMoEWithLoRA``, the kernel
``lora/ops/triton_ops/fused_moe_lora_op.py`` ``_fused_moe_lora_kernel`` as PR 27402 gave it
PDL): the slot holds every expert's A and B (``w13_lora_a_stacked`` (max_loras,
local_num_experts, rank, hidden) and the rest: memory as above), but
``moe_lora_align_block_size`` sorts each adapter's (token, routed expert) pairs by expert in
blocks of ``BLOCK_SIZE_M``, and a program multiplies one block by the A or B of that block's
(adapter, expert) alone. So a token's math and activations are its top-k experts' (``M x
top_k`` rows), and a step reads, per adapter, the experts its tokens route to: the base step's
distinct-experts rule (``core/speed/step_moe.py`` ``experts_read``) at that adapter's tokens. vLLM
refuses expert parallelism with MoE LoRA (``assert not self.base_layer.use_ep``), so a GPU's
own tokens route over all the experts.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..errors import ScenarioError
from ..memory.lora import lora_trainable, routed_expert_lora
from ..model.architecture import resolve
from ..model.serving_features import LoraServingSpec
from ..model.specs import Scenario
from ..registry.dtypes import nbytes
from ..speed.step import StepModel, experts_read
from ..speed.step_wrap import StepWork, StepWrapper

ALL_LINEAR = ("q", "k", "v", "o", "gate", "up", "down")
DEFAULT_RANK = 16  # vLLM max_lora_rank
DEFAULT_LOADED = 1  # vLLM max_loras
KERNELS_PER_TARGET = 2  # shrink and expand
V0_KERNELS_PER_SLICE = 3  # torch.zeros buffer, shrink, expand (vllm/lora/punica.py add_lora)
SGMV_TILE = 32  # prompt tokens a V0 sgmv program covers (sgmv_shrink BLOCK_M)


def lora_of(s: Scenario) -> LoraServingSpec | None:
    """The scenario's served adapters when set (a serving scenario with ``adapters``)."""
    spec = s.serving.lora
    if spec is None or spec.adapters is None or s.workload.trains:
        return None
    return spec


def _settings(spec: LoraServingSpec) -> tuple[int, int, tuple[str, ...]]:
    """(slots on the GPU, rank, targets) as set or vLLM's defaults."""
    return spec.max_loaded or DEFAULT_LOADED, spec.rank or DEFAULT_RANK, spec.targets or ALL_LINEAR


def check_lora(s: Scenario) -> None:
    """No more adapters on the GPU than are served (vLLM: max_cpu_loras >= max_loras), and
    no more in use than are served."""
    spec = lora_of(s)
    if spec is None or spec.adapters is None:
        return
    loaded, _, _ = _settings(spec)
    if loaded > spec.adapters:
        raise ScenarioError(
            "serving.lora.max_loaded",
            f"must be at most serving.lora.adapters ({spec.adapters:,}); got {loaded:,} "
            "(vLLM: max_cpu_loras must be >= max_loras)",
        )
    if spec.active is not None and spec.active > spec.adapters:
        raise ScenarioError(
            "serving.lora.active",
            f"must be at most serving.lora.adapters ({spec.adapters:,}); got {spec.active:,}",
        )
    p = s.parallelism
    if (p.expert > 1 or p.attention_data > 1) and refuses_expert_parallel(s):
        raise ScenarioError(
            "parallelism.expert" if p.expert > 1 else "parallelism.attention_data",
            f"vLLM has no expert parallelism with LoRA on a MoE model's experts (got expert {p.expert}, "
            f"attention_data {p.attention_data}; serving.lora.targets include gate/up/down): use 1, "
            'or serving.lora.targets without the MLP (e.g. ["q", "k", "v", "o"])',
        )


def refuses_expert_parallel(s: Scenario) -> bool:
    """Whether vLLM refuses expert parallelism here (``parallelism.expert`` > 1, or attention data
    parallelism: its ``--enable-expert-parallel``): adapters served on the routed experts
    (vllm/lora/layers/fused_moe.py ``FusedMoEWithLoRA``: ``assert not self.base_layer.use_ep``)."""
    spec = lora_of(s)
    if spec is None or s.profile.moe_lora_expert_parallel or s.model.moe is None:
        return False
    _, rank, targets = _settings(spec)
    return routed_expert_lora(s.model, rank, targets) > 0


def _slot_params(s: Scenario, spec: LoraServingSpec) -> float:
    """Parameters of one slot on one GPU (module docstring)."""
    _, rank, targets = _settings(spec)
    whole = lora_trainable(s.model, rank, targets).total
    tp = s.parallelism.tensor
    return whole * (1 + 1 / tp) / 2


class Experts(NamedTuple):
    """A slot's routed experts on one GPU: one expert's adapter parameters over the MoE layers
    (0: none targeted), how many experts, the top-k a token runs (module docstring)."""

    params: float = 0.0
    experts: int = 0
    top_k: int = 0


NO_EXPERTS = Experts()


def _experts(s: Scenario, spec: LoraServingSpec) -> Experts:
    """The routed experts' part of :func:`_slot_params` (split over TP alike)."""
    _, rank, targets = _settings(spec)
    moe = resolve(s.model).moe
    one = routed_expert_lora(s.model, rank, targets)
    if moe is None or not one:
        return NO_EXPERTS
    tp = s.parallelism.tensor
    return Experts(one * (1 + 1 / tp) / 2, moe.experts, moe.experts_per_token)


def lora_bytes(s: Scenario) -> float:
    """Bytes of every GPU slot on one GPU (0 without ``serving.lora``)."""
    spec = lora_of(s)
    if spec is None:
        return 0.0
    loaded, _, _ = _settings(spec)
    return loaded * _slot_params(s, spec) * nbytes(s.precision.activations)


class LoraStep(StepWrapper):
    """The step model with every token through its request's adapter (module docstring)."""

    def __init__(
        self,
        base: StepModel,
        slot_bytes: float,
        params: float,
        kernels: int,
        loaded: int,
        adapters: int,
        act_bytes: float = 0.0,
        experts: Experts = NO_EXPERTS,
        width: float = 0.0,
    ):
        """``slot_bytes``, ``params``: what every token reads and runs of a slot outside the
        routed experts, plus (``params``, ``act_bytes``) its top-k experts'; ``experts``
        prices the routed experts' reads (``width`` bytes a parameter)."""
        # the adapters' kernels join the step's own: their floors, and their launches in a
        # step not replayed from a CUDA graph (core/speed/step.py)
        base = base.with_kernels(kernels * base.shape.layers)
        super().__init__(base)
        self._slot, self._params, self._act = slot_bytes, params, act_bytes
        self._loaded, self._adapters = loaded, adapters
        self._gather = base.costs.lora_gather
        self._lora_experts, self._expert_bytes = experts, experts.params * width

    def _distinct(self, seqs: float) -> float:
        """Adapters a step of ``seqs`` requests uses: requests spread over the adapters."""
        n = self._adapters
        return min(self._loaded, n * (1.0 - (1.0 - 1.0 / n) ** max(1.0, seqs)))

    def _weights_read(self, decodes: float, prefill: float, prefill_seqs: float) -> float:
        """Bytes of the adapter slots a step reads: once per distinct adapter (V1: tokens
        grouped by adapter), or, with the V0 kernels, once per decode token and per 32-token
        tile of a prompt (half a tile left over per prompt on average; module docstring); of
        the routed experts, those the reading tokens route to."""
        if not self._gather:
            adapters = self._distinct(decodes + prefill_seqs)
            routed = adapters * self._routed(max(1.0, (decodes + prefill) / adapters))
            return adapters * self._slot + routed
        reads = decodes + prefill / SGMV_TILE + prefill_seqs / 2
        routed = decodes * self._routed(1.0) + (reads - decodes) * self._routed(SGMV_TILE)
        return reads * self._slot + routed

    def _routed(self, tokens: float) -> float:
        """Bytes of the routed experts' adapters that ``tokens`` tokens of one adapter read: the
        distinct experts they choose (``experts_read``, the base step's rule)."""
        e = self._lora_experts
        if not self._expert_bytes:
            return 0.0
        return experts_read(e.experts, e.top_k, round(tokens, 1), self.routing_alpha) * self._expert_bytes

    def step(self, work: StepWork) -> float:
        t = self._base.seconds(*work)
        tokens = work.decodes + work.prefill
        if not tokens:
            return t
        r = self._base.rate
        weights = self._weights_read(work.decodes, work.prefill, work.prefill_seqs)
        read = (weights + tokens * self._act) / r.bandwidth
        math = 2.0 * tokens * self._params / r.mm
        return t + max(read, math)


def with_lora(s: Scenario, step: StepModel) -> StepModel:
    """The step model with the adapters' kernels (unchanged without ``serving.lora``)."""
    spec = lora_of(s)
    if spec is None or spec.adapters is None:
        return step
    loaded, rank, targets = _settings(spec)
    experts = _experts(s, spec)
    rest = _slot_params(s, spec) - experts.experts * experts.params  # outside the routed experts
    params = rest + experts.top_k * experts.params  # what a token runs
    width = nbytes(s.precision.activations)
    # a token's activations through the targets: in + 2 x out, about 1.5 x (in + out)
    act = 1.5 * params / rank * width
    kernels = _kernels(targets, step.costs.lora_gather)
    used = spec.adapters if spec.active is None else spec.active
    if used == 0:
        return _base_requests(step, kernels)
    return LoraStep(step, rest * width, params, kernels, loaded, used, act, experts, width)


def _base_requests(step: StepModel, kernels: int) -> StepModel:
    """The base model's requests on a LoRA-enabled server (``active`` 0). V1's ops return on
    the host before launching when no token has an adapter (``no_lora_flag_cpu`` in
    ``lora_shrink`` / ``lora_expand``): the step is the base's. V0's wrapper still runs every
    slice (``add_lora_packed_nslice``): a decode step replays its ``bgmv`` kernels from the
    CUDA graph, whose programs return at once on a token without an adapter (``lora_index ==
    -1``: their floors, no reads), while a prompt step's ``sgmv`` shrink and expand return on
    the host (``_shrink_prefill``: "No LoRA request, so return directly", ``no_lora``) after
    the slice's zeroed buffer is made (one kernel a slice, launched)."""
    if not step.costs.lora_gather:
        return step
    return _BaseOnLoraServer(step, kernels)


class _BaseOnLoraServer(StepWrapper):
    """V0's step with no adapter in use (:func:`_base_requests`): every kernel's floor in a
    decode step, the buffers alone in a step with prompt tokens."""

    def __init__(self, base: StepModel, kernels: int):
        layers = base.shape.layers
        super().__init__(base.with_kernels(kernels * layers))
        self._prompt = base.with_kernels(kernels // V0_KERNELS_PER_SLICE * layers)

    def step(self, work: StepWork) -> float:
        return (self._prompt if work.prefill else self._base).seconds(*work)


def _kernels(targets: tuple[str, ...], per_slice: bool) -> int:
    """LoRA kernels of one decoder layer. vLLM packs the layers as qkv (3 slices), o, gate_up
    (2 slices) and down; V1 runs a shrink and an expand over every slice of a packed layer,
    V0's Punica wrapper a zeroed buffer, a shrink and an expand for each slice
    (``per_slice``; module docstring)."""
    groups = (({"q", "k", "v"}, 3), ({"o"}, 1), ({"gate", "up"}, 2), ({"down"}, 1))
    used = [slices for g, slices in groups if g & set(targets)]
    if per_slice:
        return sum(V0_KERNELS_PER_SLICE * n for n in used)
    return KERNELS_PER_TARGET * len(used)


def lora_fields(s: Scenario) -> dict[str, Any]:
    """The report's fields of the adapters (empty without ``serving.lora``)."""
    spec = lora_of(s)
    if spec is None:
        return {}
    loaded, rank, _ = _settings(spec)
    return {
        "lora_adapters": spec.adapters,
        "lora_loaded": loaded,
        "lora_rank": rank,
        "lora_active": spec.adapters if spec.active is None else spec.active,
        "lora_weight_bytes": int(lora_bytes(s)),
    }
