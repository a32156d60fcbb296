"""The engine Unsloth's ``fast_inference`` starts: the ``vllm.LLM`` arguments ``load_vllm`` works
out itself (``rl.rollout.shared_weights`` under ``framework: "unsloth"``).

``FastLanguageModel.from_pretrained(..., fast_inference=True, gpu_memory_utilization=G)`` hands
vLLM neither G nor vLLM's own defaults: unsloth-zoo ``unsloth_zoo/vllm_utils.py``
``approximate_vllm_memory_usage`` first estimates the KV room itself, in bytes,

    room = G x free - (linears x 2 B / (16/5 if 4-bit) + (norms + embedding + untied head) x 2 B
                       + LoRA A/B at max_lora_rank on q,k,v,o,gate,up,down x 2 B)
           [- CUDA graphs: 172 x hidden x layers x 4 B, within 0.15-1 GiB, from 2026.2.1]

(``free`` from ``torch.cuda.mem_get_info()``; printed "Unsloth: vLLM's KV Cache can use up to X
GB", in GiB), and ``load_vllm`` then passes (unsloth-zoo at c54bf68b, 2025.3.7, lines 794-960;
at ce232d6, 2026-08, lines 1593-1730 and 2227-2760):

- ``gpu_memory_utilization`` = G x free / total ("actual GPU utilization"), or
  (total - the trainer's activation guess) / total where G x free leaves less than that guess
  (bsz 2 x max_seq_length x (q + k + v + 2 x intermediate) + intermediate x hidden, x 1.25 x 2 B);
- ``max_num_seqs`` and ``max_num_batched_tokens`` by that room in GiB: through 2025.11.4 256 less
  or more 32 a tier (128 up to 2 GiB ... 400 past 80), the batched tokens max_seq_length
  (``chunked_prefill_tokens``, clamped to it) until 2025.9.6, 2048 from it (2afbcc19, chunked
  prefill on); from 2025.11.5 (9308f9ea) (2048, 8), (2048, 16), (4096, 32) ... (8192, 256);
- ``max_model_len`` max_seq_length (rl.prompt_tokens + the longest response here).

``workload.unsloth_version`` picks the rows, read as unsloth-zoo's version (an unsloth release
requires the zoo of about its own number: unsloth 2025.3.8's pyproject.toml,
unslothai/unsloth@0a646e40f5, "unsloth_zoo>=2025.3.7"); null: the newest. FP8 linears count 2 B
/ (8/5) from 2025.10.3. A stated ``rl.rollout.max_sequences`` or ``max_batched_tokens`` is the
user's and wins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..memory.unsloth_experts import FIELD as UNSLOTH_RELEASE
from ..model.architecture import Arch, resolve
from ..model.presets import scenario_gpu
from ..model.specs import GPUSpec, Scenario
from ..registry.engines import GiB, cuda_total_bytes
from .rl_check import rl_of
from .rl_one_copy import engine_fraction
from .rl_qlora_kind import BNB_4BIT
from .rl_tokens import longest_response

# FastLanguageModel.from_pretrained's gpu_memory_utilization default (unslothai/unsloth@015bdef0d9
# unsloth/models/loader.py:430, llama.py:2338), the colocated default of rl_roles as well
FROM_PRETRAINED_G = 0.5
# (first unsloth-zoo version, source commit) of each change read
_BATCHED_2048_SINCE = (2025, 9, 6)  # 2afbcc19: max_num_batched_tokens 2048, chunked prefill on
_FP8_SINCE = (2025, 10, 3)  # 46136714: FP8 linears at 8/5 of 2 B
_NEW_TIERS_SINCE = (2025, 11, 5)  # 9308f9ea: (batched tokens, sequences) tiers
_GRAPHS_SINCE = (2026, 2, 1)  # fa82dcc2: the CUDA-graph term in the room

# (room up to GiB, max_num_seqs) through 2025.11.4: 256 less or more 32 a tier (48 GiB: 226, as written)
_OLD_SEQS = ((2, 128), (4, 160), (8, 192), (12, 224), (16, 256), (24, 288), (40, 320), (48, 226), (80, 368))
# (room up to GiB, max_num_batched_tokens, max_num_seqs) from 2025.11.5
_NEW_TIERS = (
    (2, 2048, 8),
    (4, 2048, 16),
    (8, 4096, 32),
    (12, 4096, 48),
    (16, 6144, 64),
    (24, 6144, 80),
    (40, 8192, 96),
    (48, 8192, 112),
    (80, 8192, 128),
)


@dataclass(frozen=True)
class UnslothEngine:
    """What ``load_vllm`` passes to vLLM: ``fraction`` (gpu_memory_utilization), ``room_gib``
    (its printed KV estimate), ``max_sequences``, ``batched_tokens``."""

    fraction: float
    room_gib: float
    max_sequences: int
    batched_tokens: int


def _version(v: str | None) -> tuple[int, int, int]:
    """``workload.unsloth_version`` ("2025.3.8") as a key; null: the newest rows."""
    if v is None:
        return (9999, 0, 0)
    m = re.match(r"v?(\d{4})\.(\d{1,2})(?:\.(\d+))?", v.strip().lower())
    return (int(m[1]), int(m[2]), int(m[3] or 0)) if m else (9999, 0, 0)


def _model_bytes(a: Arch, rank: int, factor: float) -> float:
    """``bytes_for_model`` of ``approximate_vllm_memory_usage``: linears at 2 B / ``factor``,
    norms, embedding and an untied head at 2 B, one LoRA at ``rank`` on the seven linears."""
    hd, kv, ffn = a.hidden, a.head_dim * a.kv_heads, a.ffn
    linears = ((hd + 2 * kv + hd) * hd + 3 * hd * ffn) * a.layers * 2
    head = 0 if a.spec.tied_embeddings else a.vocab * hd
    sixteen = (2 * hd + a.vocab * hd + head) * 2
    lora = hd * rank * 4 + rank * (2 * hd + 2 * kv) + 2 * hd * rank + ffn * rank
    lora += rank * 2 * ffn + rank * hd
    return linears / factor + sixteen + lora * a.layers * 2


def _factor(weights: str, key: tuple[int, int, int]) -> float:
    """The linears' divisor: 16/5 for bitsandbytes 4-bit ("Should be 4.5 but use 5"), 8/5 for
    FP8 from 2025.10.3 (46136714, ``load_in_8bit``: "Very vague approximation"), else 1."""
    if weights in BNB_4BIT:
        return 16 / 5
    return 8 / 5 if weights == "fp8" and key >= _FP8_SINCE else 1.0


def _graphs(a: Arch) -> float:
    """The CUDA-graph term from 2026.2.1: 172 graphs x hidden x layers x 4 B, within 0.15-1 GiB."""
    return min(max(172 * a.hidden * a.layers * 4, int(0.15 * GiB)), GiB)


def _fraction(a: Arch, seq: int, g: float, free: float, total: float) -> tuple[float, float]:
    """(G x free, possibly lowered, and its share of the total): the trainer's activation guess
    is kept free of vLLM (``account_for_gradients``)."""
    kv = a.head_dim * a.kv_heads
    elements = seq * 2 * (a.hidden + 2 * kv) + seq * 2 * 2 + seq * 2 * 2 * a.ffn + a.ffn * a.hidden
    act = elements * 1.25 * 2  # 2 B, "with 25% extra just in case"
    budget = g * free
    if total - budget < act:
        budget = total - act
    return budget, budget / total


def _sizes(room_gib: float, seq: int, key: tuple[int, int, int]) -> tuple[int, int]:
    """(max_num_seqs, max_num_batched_tokens) by the room, as the release ``key`` sets them."""
    if key >= _NEW_TIERS_SINCE:
        return next(((n, b) for top, b, n in _NEW_TIERS if room_gib <= top), (256, 8192))
    seqs = next((n for top, n in _OLD_SEQS if room_gib <= top), 400)
    return seqs, 2048 if key >= _BATCHED_2048_SINCE else seq


def unsloth_engine(s: Scenario, gpu: GPUSpec, g: float) -> UnslothEngine:
    """``load_vllm``'s arguments for the policy's model on ``gpu`` at ``gpu_memory_utilization``
    ``g`` (module docstring). ``free`` is CUDA's total: the trainer's own context, 0.14 GiB on
    Colab's T4 by its logs, is not taken off."""
    a = resolve(s.model)
    key = _version(s.workload.unsloth_version)
    seq = rl_of(s).prompt_tokens + longest_response(rl_of(s))
    total = float(cuda_total_bytes(gpu))
    budget, fraction = _fraction(a, seq, g, total, total)
    room = budget - _model_bytes(a, s.workload.lora_rank, _factor(s.precision.weights, key))
    if key >= _GRAPHS_SINCE:
        room -= _graphs(a)
    room_gib = max(0.0, room) / GiB
    seqs, batched = _sizes(room_gib, seq, key)
    return UnslothEngine(fraction, room_gib, seqs, batched)


def applies(s: Scenario) -> bool:
    """Unsloth's own engine sizes apply: ``framework: "unsloth"`` running vLLM in the trainer
    (``rl.rollout.shared_weights``, ``fast_inference=True``)."""
    ro = rl_of(s).rollout
    # the profile whose own release field is Unsloth's (framework_profile.own_release_field)
    unsloth = s.profile.own_release_field == UNSLOTH_RELEASE
    return unsloth and ro.shared_weights and ro.engine == "vllm"


def unsloth_serving(s: Scenario, serving: dict[str, Any]) -> dict[str, Any]:
    """The rollout engine's ``serving`` block with ``load_vllm``'s fraction and sizes where they
    apply (:func:`applies`; ``serving["memory_fraction"]`` is Unsloth's G); the block itself
    otherwise."""
    g = serving.get("memory_fraction")
    if not applies(s) or g is None:
        return serving
    ro = rl_of(s).rollout
    e = unsloth_engine(s, scenario_gpu(s), g)
    out = {**serving, "memory_fraction": e.fraction}
    if ro.max_sequences is None:
        out["max_sequences"] = e.max_sequences
    if ro.max_batched_tokens is None:
        out["prefill_chunk_tokens"] = e.batched_tokens
    return out


def unsloth_note(s: Scenario) -> str | None:
    """The assumption line of the sizes :func:`unsloth_serving` passed (None where it passed
    none)."""
    if not applies(s):
        return None
    ro, gpu = rl_of(s).rollout, scenario_gpu(s)
    e = unsloth_engine(s, gpu, ro.memory_fraction or engine_fraction(s, gpu) or FROM_PRETRAINED_G)
    rel = s.workload.unsloth_version or "the newest"
    return (
        f"Unsloth fast_inference ({rel}): load_vllm starts vLLM at gpu_memory_utilization "
        f"{e.fraction:.4g}, max_num_seqs {ro.max_sequences or e.max_sequences}, "
        f"max_num_batched_tokens {ro.max_batched_tokens or e.batched_tokens} from its own KV "
        f"estimate of {e.room_gib:.2f} GiB"
    )
