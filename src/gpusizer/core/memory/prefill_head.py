"""The LM head over the prompt's last chunk: mlx-lm before v0.27.0.

mlx-lm's ``generate_step`` prefills the prompt in chunks of ``prefill_step_size`` tokens
(2,048; 512 before 0.22.2) and sends what is left, 1 to ``prefill_step_size`` tokens, through
``_step``, whose model call returns the logits of every one of those positions before
``logits[:, -1, :]`` keeps the last (read at ml-explore/mlx-examples 9f34fdbd, version 0.19.3,
``llms/mlx_lm/utils.py``; ml-explore/mlx-lm v0.22.0 ``mlx_lm/utils.py`` and v0.26.4
``mlx_lm/generate.py``). PR #406 (24fefe3d, 2025-08-28, first in v0.27.0, "only apply lm_head
to the last token") evaluates the chunks' caches only and runs the head on the last token.

So, for a release whose ``prefill_head`` is ``"last_chunk"``, the prefill peak also holds the
16-bit logits of the last chunk's other positions: ``batch x (r - 1) x vocab x 2 B``, with
``r = prompt - step x floor((prompt - 1) / step)``; a 2,048-token prompt at a 2,048 step is one
chunk of 2,048 (Llama 3.2 3B's 128,256-entry vocabulary: 0.52 GB). Every other engine and
release: nothing (the head on the sampled position, as core/memory/inference.py counts it).
"""

from __future__ import annotations

from typing import Any

from ..model.architecture import Arch
from ..model.specs import Scenario
from ..registry.engines import release
from .kv_cap import prefill_step


def last_chunk_logits_bytes(s: Scenario, arch: Arch, batch: Any, prompt: Any, act_bytes: float) -> Any:
    """Bytes of the last prompt chunk's logits beyond the last position's, on one GPU (0 where
    the release runs the head on the last token only). ``batch`` and ``prompt`` may be numpy
    arrays (sweeps); ``act_bytes`` is the activations' bytes per value (the logits' dtype)."""
    prof = s.profile
    if not prof.releases or release(prof.releases, s.serving.engine_version).prefill_head != "last_chunk":
        return 0
    step = prefill_step(s)
    last = prompt - step * ((prompt - 1) // step)  # 1..step tokens in the last forward
    return batch * (last - 1) * arch.vocab * act_bytes / s.parallelism.tensor
