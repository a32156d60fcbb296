"""The Serving panel's disaggregated prefill and decode rows (``serving.disaggregated``,
docs/scenario-format.md): the two pools, then the prefill pool's own layout, shown once a
prefill pool is set. Its attention data-parallel ranks and expert span show where they can
apply (an engine with attention data parallelism, core/registry/frameworks.py
``attention_data_flag``, serving a MoE model: core/serving/attention_dp.py); a field holding a
value stays shown, so the error the core gives for it can be fixed where it shows."""

from __future__ import annotations

from ...core.registry.frameworks import FrameworkProfile
from ..quantity_field import QuantityField
from ..state import ScenarioState, get_path
from ..widgets import Form

_SPLIT = "serving.disaggregated."
ATTENTION_DATA = _SPLIT + "prefill_attention_data"
EXPERT = _SPLIT + "prefill_expert"

SPLIT_TIPS = {
    _SPLIT + "prefill_gpus": "Disaggregated serving: GPUs of the prefill pool "
    "(whole replicas of the layout); the answer for the split shows beside the aggregated one.",
    _SPLIT + "decode_gpus": "GPUs of the decode pool (whole replicas of the layout).",
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
}


def add_split_rows(f: Form) -> None:
    """The pools, then the prefill replica's tensor width, attention DP, experts and batch."""
    for label, path, name in (
        ("Prefill pool", _SPLIT + "prefill_gpus", "spin_serving_prefill_gpus"),
        ("Decode pool", _SPLIT + "decode_gpus", "spin_serving_decode_gpus"),
    ):
        f.add(label, QuantityField("count", path, unit="GPUs", none_text="off"), path, name=name)
    for label, path, name, none in (
        ("Prefill TP", _SPLIT + "prefill_tensor", "spin_serving_prefill_tensor", "the layout's"),
        ("Prefill attention DP", ATTENTION_DATA, "spin_serving_prefill_attention_data", "the layout's"),
        ("Prefill EP", EXPERT, "spin_serving_prefill_expert", "the layout's"),
        ("Prefill batch", _SPLIT + "prefill_max_sequences", "spin_serving_prefill_batch", "the engine's"),
    ):
        f.add(label, QuantityField("count", path, none_text=none), path, name=name)


def refresh_split_rows(f: Form, state: ScenarioState, profile: FrameworkProfile) -> None:
    """The prefill pool's rows once it is set; its attention DP and experts where the engine
    has attention data parallelism and the model routes experts, or a value is held (so a
    refusal, a dense model's, shows beside it). Without a pool they are inert and hidden."""
    split = state.value(_SPLIT + "prefill_gpus") is not None
    f.show(_SPLIT + "prefill_tensor", split)
    f.show(_SPLIT + "prefill_max_sequences", split)
    moe = get_path(state.value("model"), "moe") is not None
    dp = split and moe and bool(profile.attention_data_flag)
    for path in (ATTENTION_DATA, EXPERT):
        f.show(path, split and (dp or state.value(path) is not None))
