"""The per-layer RoPE cos/sin caches of transformers releases that built one in every attention
layer (core/registry/transformers_releases.py ``keeps_rope_cache``: Mistral before 4.42.0).

transformers 4.39.3 ``models/mistral/modeling_mistral.py`` ``MistralRotaryEmbedding.__init__``
registers ``cos_cached`` and ``sin_cached`` of ``max_position_embeddings`` x ``head_dim`` in
``torch.get_default_dtype()``, which ``from_pretrained(torch_dtype=...)`` sets to the load dtype
while the model is built; every ``MistralAttention`` owns one. They are buffers, so
``prepare_model_for_kbit_training`` (which casts parameters) leaves them as loaded, and FSDP
(which flattens parameters) keeps them whole on each GPU. Measured: fms-acceleration's Mistral 7B
rows at c3a069c (transformers 4.39.3, fp16) sit 512.3-512.6 MiB above the same settings at
24bdadb (transformers 4.48.1) on every full fine-tune, one GPU and FSDP over 2 alike
(docs/evidence/training.md, the section on the 2024-07 rows under PEFT's k-bit preparation).

Units: bytes on one GPU.
"""

from __future__ import annotations

from ..model.architecture import Arch
from ..model.sharding import StageParams
from ..model.specs import Scenario
from ..registry.dtypes import DTYPES, nbytes
from ..registry.transformers_releases import keeps_rope_cache

TABLES = 2  # cos and sin


def rope_cache_bytes(s: Scenario, arch: Arch, sp: StageParams) -> float:
    """The stage's attention layers' cos/sin caches, in the dtype the model loads in (the
    weights' where they are floating point, else the compute dtype a quantised base loads
    its other modules in); 0 where the release builds none or the model states no context."""
    if not keeps_rope_cache(s.workload.transformers_version, s.model.family) or not s.model.max_context:
        return 0.0
    weights = DTYPES[s.precision.weights]
    load = s.precision.weights if not weights.quantized else s.precision.activations
    return sp.layers * TABLES * s.model.max_context * arch.head_dim * nbytes(load)
