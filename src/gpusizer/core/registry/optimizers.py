"""Optimizers as one registry: states per parameter, how they are stored, where they live.

Sources per entry below. bitsandbytes (``bitsandbytes/optim/optimizer.py``,
``Optimizer2State.init_state`` and ``get_state_buffer``, 0.50):
- 8-bit states: uint8 ``state1``/``state2`` with an fp32 ``absmax`` per **256** values
  (``blocksize`` 256) and one shared 256-entry fp32 ``qmap`` per state; a tensor with fewer
  than ``min_8bit_size`` = 4,096 elements keeps fp32 states (measured: 2.03 B/param on a 46 M
  model, tests/core/data/techniques-measured.json).
- Paged optimizers allocate the states of every tensor with at least 1e5 elements in CUDA
  unified memory (``F.get_paged``, ``cudaMallocManaged``); ``prefetch_state`` pages them in
  before each tensor's update. PyTorch's allocator does not see them
  (``torch.cuda.max_memory_allocated`` leaves them out), and the driver evicts them to host RAM
  under pressure: GPU Sizer counts them in host memory, not in the GPU peak, and the page-in of
  the largest tensor's states at its update as a temporary. Smaller tensors' states stay on the
  GPU as ordinary tensors.
- The update is one in-place CUDA kernel per tensor: no foreach copy of the parameters
  (torch.optim's foreach step allocates one, ``torch/optim/adamw.py`` ``_multi_tensor_adamw``).

For-loop steps (``adamw_forloop``, ``adamw_hf``, ``adafactor_hf``): torch.optim's foreach step
copies every parameter once (``_multi_tensor_adam``: ``torch._foreach_sqrt`` of the second
moments); a per-tensor loop instead holds ``loop_copies`` temporaries of the tensor it updates,
the largest tensor's at the step's peak (sources on each entry).

What the states of one GPU come to is core/memory/optimizer_states.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from .table import add

MIN_8BIT_SIZE = 4096  # bitsandbytes Optimizer8bit min_8bit_size: smaller tensors keep fp32 states
PAGED_MIN_SIZE = 100_000  # bitsandbytes get_state_buffer: smaller tensors are not paged
BLOCK_8BIT = 256  # bitsandbytes blockwise quantisation of optimizer states


@dataclass(frozen=True)
class OptimizerKind:
    """One optimizer. ``states``: state tensors per parameter; ``fixed_state_bytes``: bytes
    per state value when the implementation fixes them (bitsandbytes), else the scenario's
    ``precision.optimizer_states``."""

    id: str
    label: str
    states: float
    eight_bit: bool = False  # bitsandbytes blockwise 8-bit states (small tensors fp32)
    paged: bool = False  # states in unified memory: host RAM, paged in at the update
    fixed_state_bytes: float | None = None
    foreach: bool = True  # torch.optim foreach step: one scratch copy of the parameters
    # a per-tensor (for-loop) step: copies of one tensor alive at once in its update, the
    # largest tensor's at the step's peak (foreach False; 0: an in-place kernel, bitsandbytes)
    loop_copies: int = 0
    step_counter: bool = False  # torch.optim keeps a 4-byte ``step`` tensor per parameter
    # the foreach step stated by the scenario: its scratch is charged even where the framework
    # profile's configs run a fused step (``foreach_scratch`` False)
    foreach_stated: bool = False
    factored: bool = False  # Adafactor: row + column second moments per matrix
    source: str = ""


OPTIMIZER_KINDS: dict[str, OptimizerKind] = {}


def register(kind: OptimizerKind) -> OptimizerKind:
    """Add an optimizer (a DuplicateId if its id is taken); the registry's order is the order
    users see."""
    return add(OPTIMIZER_KINDS, kind.id, kind, "optimizer")


for _o in (
    OptimizerKind(
        "adamw",
        "AdamW",
        2,
        step_counter=True,
        source="Loshchilov & Hutter 2017, arXiv 1711.05101; torch.optim.AdamW",
    ),
    OptimizerKind(
        "adamw_8bit",
        "AdamW 8-bit",
        2,
        eight_bit=True,
        foreach=False,
        source="Dettmers et al. 2021, arXiv 2110.02861; bitsandbytes AdamW8bit",
    ),
    OptimizerKind(
        "adafactor", "Adafactor", 0, factored=True, source="Shazeer & Stern 2018, arXiv 1804.04235"
    ),
    OptimizerKind("sgd", "SGD", 0, source="torch.optim.SGD"),
    OptimizerKind(
        "sgd_momentum",
        "SGD with momentum",
        1,
        step_counter=True,
        source="torch.optim.SGD(momentum>0): one momentum buffer",
    ),
    OptimizerKind(
        "lion", "Lion", 1, step_counter=True, source="Chen et al. 2023, arXiv 2302.06675: one momentum"
    ),
    OptimizerKind(
        "paged_adamw",
        "Paged AdamW (32-bit)",
        2,
        paged=True,
        fixed_state_bytes=4.0,
        foreach=False,
        source="bitsandbytes PagedAdamW (optim_bits=32): fp32 states",
    ),
    OptimizerKind(
        "paged_adamw_8bit",
        "Paged AdamW 8-bit",
        2,
        eight_bit=True,
        paged=True,
        foreach=False,
        source="bitsandbytes PagedAdamW8bit (torchtune full configs)",
    ),
    OptimizerKind(
        "adamw_foreach",
        "AdamW (foreach step)",
        2,
        step_counter=True,
        foreach_stated=True,
        source="torch.optim.AdamW with neither foreach nor fused given: torch picks the foreach "
        "step for CUDA tensors (pytorch/pytorch v2.2.0 torch/optim/optimizer.py "
        "_default_to_fused_or_foreach; torch/optim/adamw.py _multi_tensor_adamw, "
        "`exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs)`: one copy of the stepped "
        "parameters). torchtune's configs name it so until PR #1575 (cca50f02e, 2024-09-14, "
        "v0.3.1: `fused: True`, except PagedAdamW): v0.1.x-v0.3.0 recipes step with it",
    ),
    OptimizerKind(
        "adamw_forloop",
        "AdamW (for-loop step)",
        2,
        step_counter=True,
        foreach=False,
        loop_copies=2,
        source="torch.optim.AdamW(foreach=False): pytorch/pytorch v2.6.0 torch/optim/adam.py "
        "_single_tensor_adam, `denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)`: "
        "the sqrt and the quotient of one tensor alive together",
    ),
    OptimizerKind(
        "adamw_hf",
        "AdamW (transformers' own, for-loop)",
        2,
        foreach=False,
        loop_copies=1,
        source="transformers.optimization.AdamW, the HF Trainer's default optim 'adamw_hf' of "
        "its 2022 releases: huggingface/transformers v4.15.0 src/transformers/optimization.py AdamW.step, "
        'per parameter `denom = exp_avg_sq.sqrt().add_(group["eps"])` (one copy; the step '
        "count a Python int, no tensor)",
    ),
    OptimizerKind(
        "adafactor_hf",
        "Adafactor (transformers' own, for-loop)",
        0,
        factored=True,
        foreach=False,
        loop_copies=2,
        source="transformers.optimization.Adafactor (HF Trainer optim 'adafactor'): "
        "huggingface/transformers v4.15.0 src/transformers/optimization.py Adafactor.step, per "
        "parameter `update = (grad**2) + eps[0]` then `update = self._approx_sq_grad(...)` (a new "
        "tensor beside the first) and `p_data_fp32.add_(-update)` (a negated copy): two copies",
    ),
):
    register(_o)
