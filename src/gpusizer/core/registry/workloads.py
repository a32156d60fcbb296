"""Workload kinds: what is done with a model, as one registry (like :data:`dtypes.DTYPES`).

Every place that asks "is this training?", "does it train adapters only?" or "is the frozen
base quantised?" reads a property of the kind's entry here, never its id. Adding a kind is one
:func:`register` call; the estimator, the variants chart, the window and the CLI follow.

Sources of the properties:
- LoRA trains rank-r adapters beside frozen weights (Hu et al. 2021, arXiv 2106.09685 §4.1).
- QLoRA stores the frozen base in 4-bit NF4 with double quantisation and trains 16/32-bit
  adapters (Dettmers et al. 2023, arXiv 2305.14314 §3).
- Pre-training and full fine-tuning train every weight (the same memory; different data).
"""

from __future__ import annotations

from dataclasses import dataclass

from .table import add


@dataclass(frozen=True)
class Role:
    """One part of a kind's work (RL post-training: a policy trained, a rollout engine
    serving, a reference and a reward model): the scenario's model doing the work of the kind
    ``kind`` (a single-role kind's id), under its own framework (None: the scenario's) and
    precision fields (``(field, value)`` pairs over the scenario's)."""

    name: str
    kind: str
    framework: str | None = None
    precision: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class WorkloadKind:
    """One kind of work: its flags, and the work it builds (``work``, a key of
    core/pipeline/work.py ``WORK_BUILDERS``: "training", "serving", or "roles" for a kind
    made of ``roles`` that share the GPUs). ``variant_weights``: the weight dtypes the
    training-vs-inference (variants) chart shows this kind at, one bar each, left to right."""

    id: str
    label: str
    short_label: str  # in charts and tables ("LoRA")
    is_training: bool
    is_adapter: bool = False  # trains adapters only; the base weights are frozen
    quantised_base: bool = False  # the frozen base is stored quantised
    base_dtype: str | None = None  # the base's storage unless a quantised format is chosen
    variant_weights: tuple[str, ...] = ()
    source: str = ""
    work: str = ""  # "" : "training" when it trains, else "serving"
    roles: tuple[Role, ...] = ()
    phased: bool = False  # a step of phases on shared or split GPUs (RL): the phase timeline applies
    # trains a model from its initialisation: the variants chart's bar of it carries no
    # preference step (a fine-tune's: Rafailov et al. 2023, arXiv:2305.18290 §4, the SFT model
    # is the reference), though scenario-format.md accepts one on the kind
    from_scratch: bool = False
    # the scenario field (dotted path) setting the width (TP) of the kind's own inference engine,
    # which the advisor searches as it searches training layouts (core/sizing/engine_width.py);
    # "": the kind has no engine of its own beside its training (or serving is the whole work)
    engine_width: str = ""
    # the scenario fields (dotted paths) naming the frameworks of the kind's own engines beside
    # the scenario's framework: the GPUs they run on bound the kind's as the framework's do
    # (core/pipeline/runs_on.py)
    engines: tuple[str, ...] = ()
    # workload fields the kind sets itself from its own block, each with the fields that set it
    # (RL: the policy's sequence from the prompt and the longest response): a command-line flag
    # setting one is said to be ignored (cli_args.py), not silently dropped
    derived: tuple[tuple[str, str], ...] = ()

    @property
    def work_key(self) -> str:
        """The key of the builder of this kind's work (core/pipeline/work.py)."""
        return self.work or ("training" if self.is_training else "serving")

    @property
    def trains(self) -> bool:
        """Training fields, speed, panels and charts apply: the kind trains, or one of its
        roles does."""
        if self.roles:
            return any(WORKLOAD_KINDS[r.kind].is_training for r in self.roles)
        return self.is_training

    @property
    def serves(self) -> bool:
        """Serving fields and charts apply: the kind serves, or one of its roles does."""
        if self.roles:
            return any(not WORKLOAD_KINDS[r.kind].is_training for r in self.roles)
        return not self.is_training

    @property
    def in_sentence(self) -> str:
        """The short label inside a sentence ("Llama 3.1 8B, pre-training"): its first letter
        in lower case, unless the first word is an acronym ("LoRA", "QLoRA")."""
        word = self.short_label.split(" ")[0]
        if any(ch.isupper() for ch in word[1:]):
            return self.short_label
        return self.short_label[:1].lower() + self.short_label[1:]


WORKLOAD_KINDS: dict[str, WorkloadKind] = {}


def register(kind: WorkloadKind) -> WorkloadKind:
    """Add a kind (a DuplicateId if its id is taken); the registry's order is the order users
    see. A role names a registered kind of one role (a ValueError otherwise: roles do not nest)."""
    for role in kind.roles:
        done = WORKLOAD_KINDS.get(role.kind)
        if done is None or done.roles:
            raise ValueError(f"role {role.name!r} of kind {kind.id!r}: {role.kind!r} is not a one-role kind")
    return add(WORKLOAD_KINDS, kind.id, kind, "workload kind")


for _k in (
    WorkloadKind(
        "pretraining",
        "Pre-training",
        "Pre-training",
        True,
        variant_weights=("bf16",),
        source="Kaplan et al. 2020, arXiv 2001.08361",
        from_scratch=True,
    ),
    WorkloadKind(
        "full_finetune",
        "Full fine-tune",
        "Full fine-tune",
        True,
        variant_weights=("bf16",),
        source="every weight trained, as pre-training",
    ),
    WorkloadKind(
        "lora",
        "LoRA fine-tune",
        "LoRA",
        True,
        is_adapter=True,
        variant_weights=("bf16",),
        source="Hu et al. 2021, arXiv 2106.09685",
    ),
    WorkloadKind(
        "qlora",
        "QLoRA fine-tune",
        "QLoRA",
        True,
        is_adapter=True,
        quantised_base=True,
        base_dtype="nf4",
        variant_weights=("nf4",),
        source="Dettmers et al. 2023, arXiv 2305.14314",
    ),
    WorkloadKind(
        "inference",
        "Inference",
        "Inference",
        False,
        variant_weights=("fp16", "fp8", "int4"),
        source="serving: weights, KV cache and runtime buffers",
    ),
):
    register(_k)

# RL post-training: a policy trained beside a rollout engine, a reference, a reward and (PPO) a
# critic, in phases on shared or split GPUs (core/pipeline/work_rl.py; HybridFlow, arXiv 2409.19256)
register(
    WorkloadKind(
        "rl",
        "RL post-training",
        "RL",
        True,
        # no bar in the training-vs-inference chart: its bars are one model's weights trained
        # or served alone (the seed articles' seven); an RL step is several roles at once
        variant_weights=(),
        source="HybridFlow (verl), arXiv 2409.19256; OpenRLHF, arXiv 2405.11143",
        work="rl",
        phased=True,
        engine_width="rl.rollout.tensor",
        engines=("rl.rollout.engine",),
        # core/pipeline/rl_roles.py trainer_scenario
        derived=(
            ("workload.sequence_length", "rl.prompt_tokens and rl.rollout.response_tokens"),
            ("workload.global_batch_size", "rl.rollout.prompts_per_step and samples_per_prompt"),
            ("workload.training_tokens", "rl.steps and the step's responses"),
        ),
    )
)
