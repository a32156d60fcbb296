"""The Serving panel's disaggregated prefill and decode rows (``serving.disaggregated``,
docs/scenario-format.md): the two pools, then the prefill pool's own layout, shown once a
prefill pool is set. Its attention data-parallel ranks and expert span show where they can
apply (an engine with attention data parallelism, core/registry/frameworks.py
``attention_data_flag``, serving a MoE model: core/serving/attention_dp.py); a field holding a
value stays shown, so the error the core gives for it can be fixed where it shows. The KV
connector whose request path the first token pays lists the connectors of the engine as set
(core/registry/pd_connectors.py, ``PdConnector.engine``), and the arrivals' burstiness and the
run's opening burst show beside it, then the prefill queue (Dynamo's shared pull queue,
core/serving/disagg_pull.py; hidden under a request rate, which does not read it); all with a
prefill pool."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from ...core.model.hardware_spec import GPUSpec
from ...core.registry.frameworks import FrameworkProfile
from ...core.registry.pd_connectors import PD_CONNECTORS
from ..quantity_field import QuantityField
from ..state import ScenarioState, get_path
from ..widgets import ComboBox, Form, combo, fit_popup
from .connector_labels import connector_label, engine_label
from .serving_feature_rows import fill_methods

_SPLIT = "serving.disaggregated."
ATTENTION_DATA = _SPLIT + "prefill_attention_data"
EXPERT = _SPLIT + "prefill_expert"
LINK = _SPLIT + "link_gb_per_s"
CONNECTOR = _SPLIT + "connector"
BURSTINESS = _SPLIT + "arrival_burstiness"
OPENING_BURST = _SPLIT + "opening_burst"
PREFILL_QUEUE = _SPLIT + "prefill_queue"
NO_CONNECTOR = "none (path not priced)"

SPLIT_TIPS = {
    _SPLIT + "prefill_gpus": "Disaggregated serving: GPUs of the prefill pool "
    "(whole replicas of the layout); the answer for the split shows beside the aggregated one.",
    _SPLIT + "decode_gpus": "GPUs of the decode pool (whole replicas of the layout).",
    LINK: "Each GPU's link for the KV hand-off from the prefill pool to the decode pool, GB/s "
    "(10^9 bytes a second; e.g. 50 for a 400 Gb/s NIC): the prompt's KV in whole engine blocks "
    "crosses it before decode starts. Blank: the GPU's scale-out network per GPU, else its "
    "interconnect (DistServe, Zhong et al. 2024: the KV moved once per request).",
    _SPLIT + "prefill_tensor": "Tensor parallelism of a prefill replica (default: the "
    "layout's); prompts are compute-bound, so narrow prefill replicas lose little.",
    _SPLIT + "prefill_max_sequences": "Requests a prefill rank runs at once (its "
    "max_batch_size / --max-running-requests; default: the engine's).",
    ATTENTION_DATA: "Attention data-parallel ranks of a prefill replica (TensorRT-LLM "
    "enable_attention_dp, SGLang --enable-dp-attention --dp N, vLLM --data-parallel-size with "
    "--enable-expert-parallel): each rank runs attention on its own requests with the whole KV "
    "of them, the experts shared. It divides the prefill replica's tensor parallelism; default: "
    "the layout's where it divides it, else 1. aiconfigurator's measured P/D runs pair an "
    "attention-DP prefill worker with a tensor-parallel decode worker.",
    EXPERT: "GPUs a prefill replica spreads its experts over (expert parallelism: TensorRT-LLM "
    "moe_expert_parallel_size, SGLang --ep-size, vLLM --enable-expert-parallel; default: the "
    "layout's where the prefill pool keeps its attention data parallelism, else its ranks). "
    "Above 1 it needs attention data parallelism in the prefill pool and divides the prefill "
    "replica's tensor parallelism; 1: the experts are tensor-parallel.",
    CONNECTOR: "The KV connector and proxy a request passes from the prefill pool to the decode "
    "pool (vLLM --kv-transfer-config NixlConnector, MooncakeConnector or P2pNcclConnector behind "
    "its proxy; SGLang's router): the decode server's API server, the rest of its running step "
    "and the KV read in whole steps are added to the first token, as each connector's source "
    "code runs them (SGLang's: nothing). None: no path priced.",
    BURSTINESS: "Arrivals at the prefill pool as vLLM's benchmark draws them (vllm bench serve "
    "--burstiness): gaps from a gamma of this shape, 1 = Poisson, above 1 more regular, below 1 "
    "burstier. Read only where more users than prefill replicas queue; blank: Poisson.",
    OPENING_BURST: "Whether the run opens with every user's request at once, as a concurrency "
    "benchmark does (aiperf --concurrency: its measured phase starts once the warm-up has "
    "drained): the first wave queues at the prefill pool and the first token's mean holds it, "
    "over the run's requests (serving.requests; blank: four a user). Off: steady arrivals only.",
    PREFILL_QUEUE: "How the users' requests reach the prefill replicas in the closed loop. "
    "Shared: one first-come queue every prefill replica pulls from, one request at a time (NVIDIA "
    "Dynamo v0.3.0's vLLM P/D graph: one NATS JetStream pull consumer), so a request waits only "
    "while every replica is busy; the prefill batch is not read then. Blank: each replica its own "
    "queue, the arrivals split at random. Not read under a request rate.",
}


def add_split_rows(f: Form) -> tuple[ComboBox, QuantityField]:
    """The pools and their link, the prefill replica's tensor width, attention DP, experts and
    batch, then the connector and the arrivals; returns the connector's list (filled per engine:
    refresh) and the link's field (its default named per GPU: :func:`link_default`)."""
    for label, path, name in (
        ("Prefill pool", _SPLIT + "prefill_gpus", "spin_serving_prefill_gpus"),
        ("Decode pool", _SPLIT + "decode_gpus", "spin_serving_decode_gpus"),
    ):
        f.add(label, QuantityField("count", path, unit="GPUs", none_text="off"), path, name=name)
    link = QuantityField("number", LINK, step=25, unit="GB/s", none_text="the GPU's network")
    f.add("KV link", link, LINK, name="spin_disaggregated_link")
    for label, path, name, none in (
        ("Prefill TP", _SPLIT + "prefill_tensor", "spin_serving_prefill_tensor", "the layout's"),
        ("Prefill attention DP", ATTENTION_DATA, "spin_serving_prefill_attention_data", "the layout's"),
        ("Prefill EP", EXPERT, "spin_serving_prefill_expert", "the layout's"),
        ("Prefill batch", _SPLIT + "prefill_max_sequences", "spin_serving_prefill_batch", "the engine's"),
    ):
        f.add(label, QuantityField("count", path, none_text=none), path, name=name)
    box = combo([(NO_CONNECTOR, None)])
    f.add("P/D connector", box, CONNECTOR, name="combo_disaggregated_connector")
    burst = QuantityField("number", BURSTINESS, step=0.5, none_text="Poisson")
    f.add("Arrival burstiness", burst, BURSTINESS, name="spin_arrival_burstiness")
    opening = combo([("off", None), ("on: all users at once", True), ("off (false)", False)])
    f.add("Opening burst", opening, OPENING_BURST, name="combo_disaggregated_opening_burst")
    queue = combo([("one per replica", None), ("shared (Dynamo pull)", "shared")])
    f.add("Prefill queue", queue, PREFILL_QUEUE, name="combo_disaggregated_prefill_queue")
    return box, link


def link_default(gpu: GPUSpec) -> str:
    """The link a blank "KV link" takes, as core/serving/disaggregated.py ``_link`` picks it:
    the GPU's network per GPU, else its interconnect (GB/s)."""
    if gpu.network_gb_per_s:
        return f"GPU's network: {gpu.network_gb_per_s:,g} GB/s"
    return f"interconnect: {gpu.interconnect_gb_per_s:,g} GB/s"


def connector_items(engine: str, held: Any) -> list[tuple[str, Any]]:
    """None, then the connectors ``engine`` runs (the registry's order), then a held one of
    another engine, named so (the core refuses it beside this field)."""
    items: list[tuple[str, Any]] = [(NO_CONNECTOR, None)]
    items += [(connector_label(c.id), c.id) for c in PD_CONNECTORS.values() if c.engine == engine]
    if held is not None and held not in [v for _, v in items]:
        other = PD_CONNECTORS.get(str(held))
        label = (
            f"{connector_label(other.id)}: runs under {engine_label(other.engine)}" if other else str(held)
        )
        items.append((label, held))
    return items


def _fill_connectors(box: ComboBox, engine: str, held: Any) -> list[tuple[str, Any]]:
    """Rebuild the list for ``engine`` (no edit sent), each connector's source as its tooltip."""
    items = connector_items(engine, held)
    fill_methods(box, items, held)
    for i, (_label, value) in enumerate(items):
        spec = PD_CONNECTORS.get(str(value)) if value is not None else None
        if spec is not None and box.itemData(i, Qt.ItemDataRole.ToolTipRole) != spec.source:
            box.setItemData(i, spec.source, Qt.ItemDataRole.ToolTipRole)
    fit_popup(box)
    return items


def refresh_split_rows(f: Form, state: ScenarioState, profile: FrameworkProfile, box: ComboBox) -> None:
    """The prefill pool's rows once it is set; its attention DP and experts where the engine
    has attention data parallelism and the model routes experts, or a value is held (so a
    refusal, a dense model's, shows beside it). Without a pool they are inert and hidden."""
    split = state.value(_SPLIT + "prefill_gpus") is not None
    f.show(LINK, split)
    f.show(_SPLIT + "prefill_tensor", split)
    f.show(_SPLIT + "prefill_max_sequences", split)
    moe = get_path(state.value("model"), "moe") is not None
    dp = split and moe and bool(profile.attention_data_flag)
    for path in (ATTENTION_DATA, EXPERT):
        f.show(path, split and (dp or state.value(path) is not None))
    held = state.value(CONNECTOR)
    items = _fill_connectors(box, profile.id, held)
    f.show(CONNECTOR, split and (len(items) > 1 or held is not None))  # an engine with none: hidden
    f.show(BURSTINESS, split)
    f.show(OPENING_BURST, split)
    rate = state.value("serving.load") == "rate"  # the stated arrivals' own split: not read
    f.show(PREFILL_QUEUE, split and (not rate or state.value(PREFILL_QUEUE) is not None))
