"""The concurrency lever of a serving option that misses its targets only because a replica
queues its users: the engine setting that lets one replica run its whole batch at once, where
that meets the targets on the option's GPUs.

A serving option spreads ``targets.users`` over its replicas (core/sizing/fill_serving.py), and
an engine runs at most its request cap of them at once (core/sizing/served.py ``queue_clause``):

* llama.cpp's ``llama-server`` runs ``--parallel`` / ``-np`` slots (``auto``: 4 from the
  ``kv_unified`` releases, tools/server/server.cpp, core/registry/engine_releases_cpp.py
  ``b7000``) in a KV cache of ``-c`` / ``--ctx-size`` cells: split among the slots
  (``n_ctx / n_parallel`` each, tools/server/README.md ``--parallel``, ``-c``), or, with
  ``--kv-unified``, shared by them (core/serving/offload.py ``kv_cells``). A stated
  ``serving.max_context`` of 4,096 holds one 2,560-token request, and the other three of a
  replica's 4 wait for it: Llama 3.1 8B for 4 users on one RTX 3090 reaches its first token in
  13.5 s. ``-c`` of the slots times the stated context (``-c 16384 -np 4``: each slot 4,096
  tokens, as the user asked) holds the 4 at once; Ollama's ``OLLAMA_NUM_PARALLEL`` allocates
  ``num_ctx`` x that many cells itself (core/serving/offload.py), so only its slots bind;
* vLLM ``--max-num-seqs`` and SGLang ``--max-running-requests`` (``serving.max_sequences``)
  cap the requests a replica schedules at once (vllm/config/scheduler.py ``max_num_seqs``).

Where the cap is one of these stated settings (not the memory: more memory is the search's
own lever, the count), the probe re-estimates a layout's scenario with the cap raised to the
replica's batch (the context to the batch times the stated context; the request slots to the
batch), on the fewest GPUs that hold the work first, then on the option's own layout, and keeps
it where the engine starts, holds the batch at once and the speed meets the targets and the
default service level (core/sizing/service_level.py). The option stays as stated and ranked as
stated (the user's configuration is the contract); the lever is said beside it.
"""

from __future__ import annotations

from ..model.field_path import set_path
from ..model.result import Estimate
from ..model.specs import Scenario
from ..pipeline.estimate import estimate
from .batch_lever_fields import BatchLever
from .fill_serving import meets
from .layout_space import Layout
from .pace import option_pace
from .served import load_users, queue_clause, served_pace
from .service_level import default_target
from .unmet import speed_gaps


def cap_changes(s: Scenario, est: Estimate) -> dict[str, int]:
    """The stated settings that cap a replica below its batch and the values that lift them
    ({} where the replica runs its batch, or the memory, not a setting, caps it)."""
    sv, w = est.serving, est.scenario.workload
    batch = w.batch_size
    if sv is None or not queue_clause(est):
        return {}
    out: dict[str, int] = {}
    if sv.max_sequences and sv.max_sequences < batch:
        out["serving.max_sequences"] = batch
    stated = s.serving.max_context
    # the cache is the stated context's cells (llama-server's -c), not what memory leaves
    if stated is not None and sv.kv_capacity_tokens <= sv.max_context and batch * stated > stated:
        out["serving.max_context"] = batch * stated
    return out


def batch_lever(asked: Scenario, s: Scenario, lay: Layout, batch: int) -> BatchLever | None:
    """The lever of the scenario ``s`` laid out as ``lay`` at ``batch`` requests a replica, for
    the scenario ``asked``: the cap lifted on the same layout, where the replica then runs its
    batch at once and meets the targets and the default level (None: no stated cap queues it,
    lifting it does not, or the engine refuses it)."""
    try:
        est = estimate(s)
    except Exception:  # a layout the engine refuses is no lever
        return None
    changes = cap_changes(s, est)
    if not changes:
        return None
    probe = s
    for path, value in changes.items():
        probe = set_path(probe, path, value)
    try:
        got = estimate(probe)
    except Exception:  # a setting the engine refuses is no lever
        return None
    sv = got.serving
    if sv is None or not sv.starts or not got.fits or (got.requests_held or 0) < batch:
        return None
    pace = served_pace(option_pace(got), load_users(asked), lay, batch)
    level = default_target(asked)
    if not meets(pace, asked.targets) or (level is not None and speed_gaps(pace, level)):
        return None
    per_user = pace.tokens_per_second_per_user or 0.0
    return BatchLever(changes, batch, lay.gpus, pace.ttft_seconds or 0.0, per_user, sv.kv_capacity_tokens)
