"""RL frameworks (the scenario's ``rl.framework``): one entry per framework, each with its
releases' defaults for the ``rl.*`` knobs (core/registry/rl_framework_releases.py,
core/registry/rl_framework_releases_verl.py and core/registry/rl_framework_releases_trl.py,
every value with the file and tag it was read from).

A release is picked as the serving engines' are (core/registry/engines.py ``release``): null
the newest modelled, a version listed its own, a version between two the older one's; a
version older than every listed one, or unreadable, is refused naming the releases.
"""

from __future__ import annotations

from dataclasses import dataclass

from .engines import release
from .rl_framework_releases import NEMO_RL, RLDefault, RLRelease
from .rl_framework_releases_trl import TRL
from .rl_framework_releases_verl import OPENRLHF, VERL
from .table import add

__all__ = ["RL_FRAMEWORKS", "RLDefault", "RLFramework", "RLRelease", "register"]


# verl's FSDP workers split a long sequence DeepSpeed-Ulysses style: the HF attention is
# patched with an all-to-all of q, k and v before flash attention and of its output after it
# (verl/models/transformers/monkey_patch.py ``_ulysses_flash_attention_forward``, the k/v heads
# repeated max(sp // kv_heads, 1) times; verl/utils/ulysses.py ``gather_seq_scatter_heads``,
# ``gather_heads_scatter_seq``, ``SeqAllToAll``), the degree actor.ulysses_sequence_parallel_size
# on a (dp = world / sp, sp) device mesh (verl/workers/fsdp_workers.py), the same at v0.3.0.post1,
# v0.5.0, v0.6.0 and v0.7.0; its Megatron workers take Megatron-Core's ring context parallelism
_VERL_ULYSSES = (
    "volcengine/verl v0.3.0.post1-v0.7.0 verl/models/transformers/monkey_patch.py "
    "_ulysses_flash_attention_forward; verl/utils/ulysses.py; verl/workers/fsdp_workers.py "
    "ulysses_device_mesh (dp = world_size // ulysses_sequence_parallel_size)"
)
# verl's Megatron workers pack each response with its prompt and pad it to a multiple of
# tp x cp x 2 tokens under context parallelism, so ring attention's two chunks a rank always
# split evenly whatever the length (v0.4.0-v0.9.0)
_VERL_MCORE_PAD = (
    "volcengine/verl v0.4.0-v0.9.0 verl/models/mcore/util.py preprocess_packed_seqs: "
    "align_size = tp_size * cp_size * 2 if cp_size > 1 else tp_size; pad_size = (align_size - "
    "seqlens_in_batch % align_size) % align_size (v0.5.0 8fdc4d3f)"
)


@dataclass(frozen=True)
class RLFramework:
    """One RL framework: its id, the label it is known by and its releases, oldest first.
    ``ulysses_on``: the training frameworks (core/registry/frameworks.py ids) on which its
    policy's ``parallelism.context`` is Ulysses' head split rather than the training
    framework's own context parallelism (core/model/context_algorithm.py), ``ulysses_source``
    the files that say so. ``pads_rows_on``: the training frameworks on which its workers pad
    each packed sequence to the context split's multiple (no length is refused for ring
    attention's even chunks), ``pads_rows_source`` the file that says so."""

    id: str
    label: str
    releases: tuple[RLRelease, ...]
    ulysses_on: tuple[str, ...] = ()
    ulysses_source: str = ""
    pads_rows_on: tuple[str, ...] = ()
    pads_rows_source: str = ""

    @property
    def versions(self) -> tuple[str, ...]:
        return tuple(r.version for r in self.releases)

    def release(self, version: str | None) -> RLRelease:
        """The release whose defaults apply to ``version`` (null: the newest); KeyError where
        none does."""
        return release(self.releases, version)


RL_FRAMEWORKS: dict[str, RLFramework] = {}


def register(fw: RLFramework) -> RLFramework:
    """Add a framework (a DuplicateId if its id, or a version among its releases, is taken)."""
    seen: dict[str, RLRelease] = {}
    for r in fw.releases:
        add(seen, r.version, r, f"{fw.label} release")
    return add(RL_FRAMEWORKS, fw.id, fw, "RL framework")


for _f in (
    RLFramework("nemo_rl", "NeMo RL", NEMO_RL),
    RLFramework(
        "verl",
        "verl",
        VERL,
        ulysses_on=("fsdp",),
        ulysses_source=_VERL_ULYSSES,
        pads_rows_on=("megatron",),
        pads_rows_source=_VERL_MCORE_PAD,
    ),
    RLFramework("openrlhf", "OpenRLHF", OPENRLHF),
    RLFramework("trl", "TRL", TRL),
):
    register(_f)
