"""TensorRT-LLM's C++ runtime: the runtime buffers and the decoder it allocates before it sizes
the KV pool (docs/evidence/serving.md, the section on TensorRT-LLM#1188).

``TrtGptModelInflightBatching``'s constructor (cpp/tensorrt_llm/batch_manager/
trtGptModelInflightBatching.cpp, the 2024 C++ batch manager of the 0.13-0.16 releases) logs
"Allocated X GPU memory for runtime buffers" around ``createBuffers`` and "... for decoder"
around ``createDecoder``, and only then ``createKvCacheManager`` takes
``free_gpu_memory_fraction`` of what is free. Both are sized by the build, not by the load:
``max_batch_size`` slots (``getMaxNumSequences``), ``max_seq_len`` (the attention window
defaults to it), the padded vocabulary (``getVocabSizePadded``: a multiple of the ranks) and
the engine's ``logits`` tensor type (``PretrainedConfig.logits_dtype``, 'float32' by default,
tensorrt_llm/models/modeling_utils.py). Beam width 1 (the scenario states none).

Bytes a slot, read from the allocations (``manager.gpu`` / ``BufferManager::gpu``; pinned host
copies are not GPU memory, memoryCounters.cpp counts them apart):

- runtime buffers: ``RuntimeBuffers`` logits [max_batch x beam, vocab] (setMaxBufferSizes
  ``numLogits``; batch_manager/runtimeBuffers.cpp), on the last pipeline stage;
  ``DecoderBuffers`` cacheIndirectionInput / Output [slots, beam, window] int32 and logProbs
  [slots, beam, max_seq_len] fp32; ``SlotDecoderBuffers`` outputIds int32 and logProbs fp32
  [beam, max_seq_len] a slot (batch_manager/decoderBuffers.cpp): 20 B x max_seq_len a slot on
  every stage;
- decoder (last stage: ``createDecoder`` runs on ``isLastPipelineParallelRank``):
  ``GptDecoderBatched::setup`` ids, parentIds (int32), logProbs, logProbsTiled (fp32)
  [slots, beam, max_seq_len] (16 B) and embeddingBias [slots, vocab] in the logits type
  (runtime/gptDecoderBatched.cpp); ``DecodingLayerWorkspace`` runtime logits [slots, 1, beam,
  vocab] in the logits type (runtime/decodingLayerWorkspace.cpp); ``PenaltyLayer``
  workspace [slots, 1, beam, vocab] int32 (layers/penaltyLayer.cpp ``allocateWorkspace``).

Not counted: the sampling layers' scratch buffer (``DecodingLayerWorkspace``
``mWorkspaceDeviceBuffer``, sized by the layers' ``getWorkspaceSize`` and resized at run time;
its size at start-up was not traced) and the small per-slot vectors (lengths, slots, offsets).
"""

from __future__ import annotations

from ..model.architecture import Arch
from .engine_settings import EngineSettings

LOGITS_BYTES = 4  # PretrainedConfig.logits_dtype 'float32' (tensorrt_llm/models/modeling_utils.py)
INT32 = 4
FP32 = 4
# [slot, max_seq_len] buffers on every stage: DecoderBuffers cache indirection in + out
# (int32, the window = max_seq_len) and logProbs (fp32); SlotDecoderBuffers outputIds + logProbs
PER_SEQ_ALL_STAGES = 2 * INT32 + FP32 + INT32 + FP32
# GptDecoderBatched joint ids, parentIds (int32), logProbs, logProbsTiled (fp32), last stage
PER_SEQ_DECODER = 2 * INT32 + 2 * FP32
# [slot, vocab] buffers on the last stage: RuntimeBuffers logits, embeddingBias and the decoding
# workspace's runtime logits (the logits type), the penalty layer's occurrence counts (int32)
PER_VOCAB = 3 * LOGITS_BYTES + INT32


def padded_vocab(vocab: int, ranks: int) -> int:
    """``ModelConfig::getVocabSizePadded(worldSize)``: the vocabulary rounded up to the ranks."""
    return -(-vocab // ranks) * ranks


def cpp_runtime_buffers(arch: Arch, st: EngineSettings, ranks: int, last: bool) -> float:
    """Bytes of the runtime buffers and the decoder on one GPU of a stage (``last``: the last
    pipeline stage, which holds the logits and the decoder), for ``st.max_sequences`` slots of
    ``st.max_context`` tokens (the build's max_batch_size and max_seq_len); 0 where the
    release's runtime does not allocate them (``EngineRelease.cpp_runtime_buffers``)."""
    rel = st.release
    if rel is None or not rel.cpp_runtime_buffers:
        return 0.0
    slots, seq = st.max_sequences or 1, st.max_context or 1
    per_slot = PER_SEQ_ALL_STAGES * seq
    if last:
        per_slot += PER_SEQ_DECODER * seq + PER_VOCAB * padded_vocab(arch.vocab, ranks)
    return float(slots * per_slot)


def buffers_note(bytes_: float) -> str:
    """The assumption line for the charge."""
    return (
        f"TensorRT-LLM's C++ runtime allocates {bytes_ / 2**30:.2f} GiB of runtime buffers and "
        "decoder state (max_batch_size slots of the vocabulary and max_seq_len) before it sizes "
        "the KV pool"
    )
