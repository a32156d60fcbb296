"""vLLM's ``max_num_seqs`` default for an engine built from ``AsyncEngineArgs`` (``rl.rollout.async_engine``).

vLLM picks its batch defaults by the *usage context* the engine is created in
(``vllm/engine/arg_utils.py``): the offline ``LLM`` class passes ``UsageContext.LLM_CLASS``, the
OpenAI server ``OPENAI_API_SERVER``, and ``AsyncLLM.from_engine_args`` (``vllm/v1/engine/
async_llm.py``) defaults to ``UsageContext.ENGINE_CONTEXT``, which no table names. Where the
table is keyed by context, an engine of that context and no ``max_num_seqs`` of its own takes
``SchedulerConfig``'s 128 (``vllm/config.py`` ``SchedulerConfig.__post_init__``: "if
self.max_num_seqs is None: self.max_num_seqs = 128"; from 0.11 ``vllm/config/scheduler.py``
``DEFAULT_MAX_NUM_SEQS = 128``, read through ``default_max_num_seqs.get(usage_context,
SchedulerConfig.DEFAULT_MAX_NUM_SEQS)``). Read in the PyPI sdists of vLLM 0.9.0, 0.9.1, 0.9.2,
0.10.0, 0.11.2, 0.17.1 and 0.20.0:

- 0.9.0, 0.9.1: ``default_max_num_seqs = 1024`` on a GPU of 70 GiB or more whose name has no
  "a100", 256 below, one value for every context (``_set_default_args_v1``): the release's
  batch tier (core/registry/engines.py ``BatchTier.max_sequences``), as without the switch.
- 0.9.2 on (0.10.0, 0.11.2, 0.17.1, 0.20.0 read): ``default_max_num_seqs = {LLM_CLASS: 1024,
  OPENAI_API_SERVER: 1024}`` (256 each below 70 GiB), so the engine context gets 128.

NeMo RL builds its rollout engine this way wherever a recipe sets ``vllm_cfg.async_engine: true``
(``nemo_rl/models/generation/vllm/vllm_worker_async.py`` ``_create_engine``:
``AsyncLLM.from_engine_args(AsyncEngineArgs(**llm_kwargs))``, tags v0.4.0-v0.7.0;
``nemo_rl/models/generation/vllm.py`` at v0.3.1) and passes no ``max_num_seqs`` unless the
recipe's ``vllm_kwargs`` does (``llm_kwargs`` in ``vllm_worker.py``); its synchronous engine is
``vllm.LLM(**llm_kwargs)``, the ``LLM_CLASS`` context (1,024 on an H100). Releases before 0.9.0
were not read: there the switch changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from .engines import release


@dataclass(frozen=True)
class EngineContextDefault:
    """A vLLM release from which the engine context's default changes: ``max_sequences`` the
    ``max_num_seqs`` it takes (None: the release's batch tier, as every context then took)."""

    version: str
    date: str
    max_sequences: int | None
    source: str


VLLM_ENGINE_CONTEXT: tuple[EngineContextDefault, ...] = (
    EngineContextDefault(
        "0.9.0",
        "2025-05",
        None,
        "vllm 0.9.0 engine/arg_utils.py _set_default_args_v1: default_max_num_seqs = 1024 "
        "(>= 70 GiB, no 'a100' in the name), else 256, for every usage context",
    ),
    EngineContextDefault(
        "0.9.2",
        "2025-07",
        128,
        "vllm 0.9.2 engine/arg_utils.py _set_default_args_v1: default_max_num_seqs keyed by "
        "LLM_CLASS and OPENAI_API_SERVER only; config.py SchedulerConfig.__post_init__: "
        "max_num_seqs None -> 128 (0.11.2-0.20.0: config/scheduler.py DEFAULT_MAX_NUM_SEQS 128)",
    ),
)


def engine_context_default(version: str | None) -> EngineContextDefault | None:
    """The engine-context row whose default applies to vLLM ``version`` (None: the newest
    modelled vLLM's, the newest row); None for a release older than every row or unreadable."""
    try:
        return release(VLLM_ENGINE_CONTEXT, version)
    except KeyError:
        return None
