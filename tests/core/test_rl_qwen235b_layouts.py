"""NeMo RL's Qwen3-235B rows (tests/core/rl_figures*.py) against the recipes they ran: each row
states its recipe's TP, CP, EP, PP, expert TP, vLLM TP and GPU pools, and the scenario is
accepted at that layout (docs/evidence/rl.md, the section on these rows at EP 16).

Sources: NVIDIA-NeMo/RL ``examples/configs/recipes/llm/performance/grpo-qwen3-235b-*.yaml``
through their ``defaults:`` chains, at tags v0.4.0, v0.5.0, v0.6.0 and v0.7.0 (16n8g: TP 2, CP 2,
PP 8, EP 16, vLLM TP 16, 16 nodes of 8; 32n8g: 32 nodes; 16n4g: PP 4, vLLM TP 8, 16 nodes of 4;
32n4g: 32 nodes of 4; 32n8g-async-1off: TP 4, CP 1, PP 8, EP 16, generation 16 nodes of 8 at
vLLM TP 8; 32n4g-async-1off: PP 4, generation 16 nodes of 4); ``examples/configs/grpo_math_1B.yaml``
``megatron_cfg.expert_tensor_parallel_size: 1`` at each tag, no recipe overriding it. Megatron-Core
``initialize_model_parallel`` (NVIDIA/Megatron-LM ``megatron/core/parallel_state.py``,
core_v0.13.0): the experts' grid needs expert TP x EP x PP to divide the world size
(core/pipeline/validate_expert_tensor.py)."""

from __future__ import annotations

from math import ceil

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.scenario import parse_scenario

from .rl_figures import FIGURES, OFF_POLICY, RLFigure
from .rl_figures_v05 import V05_OFF, V05_ON
from .rl_figures_v07 import V07_OFF, V07_ON

# recipe -> ((TP, CP, EP, PP), vLLM TP, training GPUs, generation GPUs), read at the tags above
_16N8G = ((2, 2, 16, 8), 16, 128, 0)
_32N8G = ((2, 2, 16, 8), 16, 256, 0)
_16N4G = ((2, 2, 16, 4), 8, 64, 0)
_32N4G = ((2, 2, 16, 4), 8, 128, 0)
_32N8G_1OFF = ((4, 1, 16, 8), 8, 128, 128)  # 32 nodes of 8, generation 16 of them
_32N4G_1OFF = ((4, 1, 16, 4), 8, 64, 64)  # 32 nodes of 4, generation 16 of them

RECIPES = {
    "v0.4 Qwen3-235B, 128 H100": _16N8G,
    "v0.4 Qwen3-235B 1-off, 128+128 H100": _32N8G_1OFF,
    "v0.5 Qwen3-235B, 128 H100": _16N8G,
    "v0.5 Qwen3-235B, 64 GB200": _16N4G,
    "v0.5 Qwen3-235B 1-off, 128+128 H100": _32N8G_1OFF,
    "v0.5 Qwen3-235B 1-off, 64+64 GB200": _32N4G_1OFF,
    **{
        f"{tag} Qwen3-235B{row}": recipe
        for tag in ("v0.6", "v0.7")
        for row, recipe in (
            (", 128 H100", _16N8G),
            (", 256 H100", _32N8G),
            (", 64 GB200", _16N4G),
            (", 128 GB200", _32N4G),
            (" 1-off, 128+128 H100", _32N8G_1OFF),
            (" 1-off, 64+64 GB200", _32N4G_1OFF),
        )
    },
}

ALL = (*FIGURES, *OFF_POLICY, *V05_ON, *V05_OFF, *V07_ON, *V07_OFF)
ROWS = [f for f in ALL if f.preset == "qwen3-235b-a22b"]


def _ids(rows: list[RLFigure]) -> list[str]:
    return [f.name for f in rows]


def test_every_qwen3_235b_row_has_its_recipe() -> None:
    # 18 rows: v0.4 two, v0.5 four, v0.6 and v0.7 six each (the summary's tables at the tags)
    assert sorted(_ids(ROWS)) == sorted(RECIPES)


@pytest.mark.parametrize("f", ROWS, ids=_ids(ROWS))
def test_row_states_its_recipe_layout(f: RLFigure) -> None:
    layout, engine_tp, train, generate = RECIPES[f.name]
    assert (f.layout, f.engine_tp, f.gpus, f.rollout_gpus) == (layout, engine_tp, train, generate)
    p = f.scenario()["parallelism"]
    assert p["expert_tensor"] == 1  # grpo_math_1B.yaml expert_tensor_parallel_size: 1
    assert p["tensor"] * p["context"] * p["data"] * p["pipeline"] == train
    # Megatron-Core's expert grid: expert TP x EP x PP divides the world (parallel_state.py)
    assert train % (1 * p["expert"] * p["pipeline"]) == 0


@pytest.mark.parametrize("f", ROWS, ids=_ids(ROWS))
def test_row_is_accepted_at_the_recipe_layout(f: RLFigure) -> None:
    s = parse_scenario(f.scenario())
    assert (s.parallelism.expert, s.parallelism.expert_tensor) == (16, 1)


@pytest.mark.parametrize("f", ROWS, ids=_ids(ROWS))
def test_without_expert_tp_the_refusal_names_it(f: RLFigure) -> None:
    # at Megatron's default expert TP = TP the experts shard over DP x CP, which EP 16 must divide:
    # DP x CP is 4 (1-off rows) or 8 (128 H100, 64 GB200); 16 on 256 H100 and 128 GB200
    sc = f.scenario()
    del sc["parallelism"]["expert_tensor"]
    p = sc["parallelism"]
    if (p["data"] * p["context"]) % 16 == 0:
        assert parse_scenario(sc).parallelism.expert_tensor is None
        return
    with pytest.raises(ScenarioError) as err:
        parse_scenario(sc)
    assert err.value.field == "parallelism.expert"
    assert err.value.message.endswith("set parallelism.expert_tensor 1")


@pytest.mark.parametrize(("pp", "outer"), [(8, 11), (4, 23)])
def test_recipe_stage_split_keeps_the_modelled_slowest_stage(pp: int, outer: int) -> None:
    # the recipes set num_layers_in_first/last_pipeline_stage 11 at PP 8 (16n8g, 32n8g-async-1off)
    # and 23 at PP 4 (16n4g, 32n4g-async-1off): Qwen3-235B's 94 layers leave the middle stages
    # ceil(94 / PP) layers, the first stage the estimator takes (core/speed/train_step.py _split)
    layers = parse_scenario(ROWS[0].scenario()).model.layers
    assert layers == 94
    middle = (layers - 2 * outer) / (pp - 2)
    assert middle == ceil(layers / pp)
