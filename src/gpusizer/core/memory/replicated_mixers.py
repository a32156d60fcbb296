"""A training GPU's parameters when the recurrent mixers run whole on every TP rank
(``parallelism.replicated_mixers``; core/speed/train_mixers.py prices their time).

Source: Miles (radixark/miles) at bb6f7dbd, ``miles_plugins/models/qwen3_5.py``
``Qwen3_5GatedDeltaNet``: the mixer's projections are plain ``torch.nn.Linear`` modules, built
whole on each rank (not Megatron's ``ColumnParallelLinear`` / ``RowParallelLinear``), and
``miles_plugins/models/hf_attention.py`` feeds them the all-gathered sequence ("NOT TP-sharded
(duplicated on all ranks)"). So each TP rank holds the stage's mixers whole, with their gradients
and optimizer states, where a TP-split layer holds 1/TP of them: a stage's matrices take
(TP - 1)/TP x its mixers' parameters more.
"""

from __future__ import annotations

from dataclasses import replace

from ..model.architecture import Arch
from ..model.params import ParamCounts
from ..model.sharding import StageParams
from ..model.specs import Scenario


def replicated(s: Scenario, arch: Arch) -> bool:
    """Whether ``s`` runs its recurrent mixers whole on each of more than one TP rank."""
    return s.parallelism.replicated_mixers and s.parallelism.tensor > 1 and arch.mixer_layers > 0


def with_whole_mixers(s: Scenario, arch: Arch, counts: ParamCounts, sp: StageParams) -> StageParams:
    """``sp`` with its stage's mixers whole on the GPU; ``sp`` itself where nothing is replicated."""
    if not replicated(s, arch) or not sp.mixer_layers:
        return sp
    tp = s.parallelism.tensor
    extra = counts.mixers * sp.mixer_layers / arch.mixer_layers * (tp - 1) / tp
    groups = dict(sp.groups or {})
    if groups:
        groups["attention"] = groups.get("attention", 0.0) + extra
    return replace(sp, matrices=sp.matrices + extra, groups=groups or sp.groups)
