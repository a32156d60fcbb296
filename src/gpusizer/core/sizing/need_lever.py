"""The engine setting that lets fewer GPUs meet a serving option's targets, where the option
meets them as stated but its need (core/sizing/advise_need.py ``needed``) was grown only
because a stated request cap queues each replica's users.

Llama 3.1 8B Q4 for 4 users on llama.cpp at ``serving.max_context`` 4,096
(tests/cli/data/buyer/serve-llama-8b-apple-amd): a replica's KV cache holds one 2,560-token
request, so one GPU queues the other three (the 4th's first token after seconds) and the need
meets the default level on 2 MI325X or 4 H100 of the 8 bought, as 2 or 4 replicas of one
request each (core/sizing/served.py). The single cards that queue the same way are refused
with the setting that serves all 4 at once on one card (core/sizing/batch_lever.py: ``-c
16384 -np 4``, each slot the 4,096 tokens stated, tools/server/README.md ``--parallel``,
``-c``); the 8-GPU platforms, which meet the targets, said "Need: 4 x H100" and nothing of it.
No buyer rents 4 H100 for 4 users of an 8B model: the fewest GPUs that meet the targets is
the engine setting on one GPU, and the row now says so beside its need.

The probe is the refused rows' (:func:`~gpusizer.core.sizing.batch_lever.batch_lever`): the
users spread over the replicas of the fewest GPUs that hold the work, the cap lifted, the
engine started, the batch held at once, the targets and the default service level
(core/sizing/service_level.py) met. The option keeps its stated need, figures and rank (the
user's configuration is the contract); the lever is said beside the need (``need_lever``).
"""

from __future__ import annotations

from ..model.architecture import ceil_div
from ..model.specs import Scenario
from .batch_lever import batch_lever
from .batch_lever_fields import BatchLever
from .fill import Filler
from .layout_space import Layout
from .served import load_users


def need_lever(
    asked: Scenario, filler: Filler, fewest: dict[int, Layout], needed_gpus: int | None
) -> BatchLever | None:
    """The lever on the fewest GPUs that hold the work (``fewest``: each variant's fewest
    layout), where it meets the targets on fewer GPUs than ``needed_gpus``, the need of an
    option that meets them as stated (None: no stated cap queues a replica there, the lifted
    cap does not meet them, or the need is already the fewest)."""
    if asked.workload.trains or not fewest or not needed_gpus:
        return None
    v, lay = min(fewest.items(), key=lambda item: item[1].gpus)
    if lay.gpus >= needed_gpus:
        return None
    each = ceil_div(load_users(asked), lay.dp)
    lever = batch_lever(asked, filler.scenario(v, lay, each), lay, each)
    return lever if lever is not None and lever.gpus < needed_gpus else None
