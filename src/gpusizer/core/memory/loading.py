"""Model loading as a phase of the training peak: what one GPU holds while the weights land.

Framework tables report ``torch.cuda.max_memory_allocated`` (or reserved) over the whole run,
so a peak reached while the model loads counts as much as one reached in a step.
``parallelism.model_loading`` says how the weights reach the GPU (the framework profile's
default where the scenario leaves it out); nothing else is alive then (optimizer states are
created at the first step, ``torch.optim`` builds them lazily):

- ``sharded``: every tensor lands in its resident form one at a time, so the load holds the
  resident weights plus one tensor in 16 bit while it is converted: a quantised base's largest
  matrix before bitsandbytes packs it (transformers 4.51.3
  ``quantizers/quantizer_bnb_4bit.py`` ``Bnb4BitHfQuantizer.create_quantized_param``:
  ``Params4bit(...).to(device)`` quantises each parameter on the GPU; Lightning 2.3
  ``plugins/precision/bitsandbytes.py`` ``_Linear4bit`` quantises on init and
  ``_quantize_on_load_hook`` each incoming weight), or a ZeRO-3/FSDP unit before it is split
  (accelerate ``cpu_ram_efficient_loading``, DeepSpeed ``zero.Init``). Anything else loads in
  place: the load is the weights themselves.
- ``whole_model``: the whole model, in 16 bit, on every GPU before it is sharded or
  quantised (axolotl ``loaders/model.py`` ``_apply_post_lora_load_setup``:
  ``self.model.to(device)`` under DDP/FSDP unless ``skip_move_to_device``; the legacy default
  before axolotl #3015, 2025-08-06, and ``experimental_skip_move_to_device: false`` since; its
  gpt-oss FSDP2 configs set it true "to prevent OOM by NOT putting model to GPU before
  sharding"). A bitsandbytes-quantised base lands quantised instead: with no device map the
  quantizer places the whole model on the current GPU (transformers 4.51.3
  ``quantizers/quantizer_bnb_4bit.py`` ``update_device_map``: ``device_map = {"":
  torch.cuda.current_device()}``) and packs each tensor as it arrives
  (``create_quantized_param``), so every GPU holds the whole quantised model, plus one 16-bit
  matrix being packed, before FSDP shards it. axolotl 682a9cf79 (2025-04, ``utils/models.py``
  ``build_model``) deletes the device map of a llama/llama4 model under
  ``fsdp_cpu_ram_efficient_loading``, so its QLoRA FSDP2 runs loaded this way.
- ``full_state_dict``: FSDP1 full-state-dict loading (Lightning 2.3
  ``fabric/strategies/fsdp.py`` ``_load_raw_module_state`` under ``FULL_STATE_DICT`` with
  ``rank0_only=False``, what LitGPT's ``fabric.load_raw`` runs): each wrapped unit is gathered
  on every rank while its weights are copied, and the root's own parameters (embedding, head,
  final norm: LitGPT wraps ``Block`` only) stay gathered through the whole load. Without FSDP
  (ZeRO < 3) it is the plain ``load_state_dict``: the sharded rule.
"""

from __future__ import annotations

from ..model.architecture import Arch
from ..model.sharding import StageParams
from ..model.specs import Scenario
from ..registry.dtypes import DTYPES, nbytes

_LABEL = {
    "sharded": "one tensor at a time into its resident form",
    "whole_model": "the whole 16-bit model on the GPU before sharding",
    "full_state_dict": "FSDP full state dict: each unit gathered in turn, the root's parameters throughout",
}


def _load_bytes(s: Scenario, base_dtype: str) -> float:
    """Bytes per value the weights arrive in: 16 bit, or the trained dtype if wider."""
    wid = s.precision.weights
    return 2.0 if DTYPES[wid].quantized or DTYPES[base_dtype].quantized else max(2.0, nbytes(wid))


def _largest_matrix(arch: Arch, sp: StageParams, tp: int) -> float:
    """Elements of the largest single weight matrix on the stage (embedding or head, an MLP
    or expert projection, the query projection)."""
    per_layer = max(arch.ffn * arch.hidden, arch.q_dim * arch.hidden)
    if arch.moe is not None:
        per_layer = max(per_layer, arch.moe.expert_ffn_hidden_size * arch.hidden)
    ends = arch.vocab * arch.hidden if (sp.first or sp.last) else 0.0
    return max(per_layer / tp, ends / tp)


def load_peak(
    s: Scenario, arch: Arch, sp: StageParams, resident: float, base_dtype: str, whole: float
) -> float:
    """Bytes one GPU of stage ``sp`` holds at the peak of loading, ``resident`` the weights it
    keeps afterwards (quantised, ZeRO-3-sharded or offloaded as the scenario says), ``whole``
    the stage's weights in their stored form before any ZeRO-3 sharding or offload."""
    p = s.parallelism
    b = _load_bytes(s, base_dtype)
    mode = p.model_loading
    sharded = p.zero_stage >= 3
    quantised = DTYPES[base_dtype].quantized
    if mode == "whole_model" and quantised:  # packed as it lands: the whole quantised model
        return max(resident, whole + _largest_matrix(arch, sp, p.tensor) * b)
    if mode == "whole_model":
        return max(resident, sp.total * b)
    if mode == "full_state_dict" and sharded:
        root = sp.groups["embedding"] + sp.groups["lm_head"] if sp.groups else 0.0
        return resident + (root + sp.largest_layer) * b
    if quantised:
        return resident + _largest_matrix(arch, sp, p.tensor) * b
    if sharded:
        return resident + sp.largest_layer * b
    return resident


def loading_note(s: Scenario) -> str | None:
    """The assumption line: how the weights reach the GPU (None where the mode changes
    nothing: full-state-dict loading without FSDP is a plain load)."""
    p = s.parallelism
    mode = p.model_loading
    if mode == "sharded" or (mode == "full_state_dict" and p.zero_stage < 3):
        return None
    return f"model loading: {_LABEL[mode]} ({s.profile.label})"
