"""Speculative decoding (``serving.speculative``): what a proposer adds to the engine's memory
and how it changes a decode step.

Speed (Leviathan et al. 2023, arXiv 2211.17192 §3.1, eq. 1): a step proposes ``k`` tokens per
request, the target verifies the ``k + 1`` positions in one forward pass and keeps each draft
token with probability ``a`` until the first miss, so a step emits
``E = (1 - a^(k+1)) / (1 - a)`` tokens (``k + 1`` at ``a = 1``). The step costs the target's
forward pass over ``k + 1`` tokens per request (the verify: memory-bound at small batch, so
nearly free, compute-bound at large batch, so ``k + 1`` times the work: the gain shrinks with
batch, specdecode-bench.github.io on vLLM 0.10-0.11 H100) plus ``k`` proposer passes:

- ``draft_model``: the draft model's own decode step (its step model on the same GPU);
- ``eagle`` / ``eagle3``: one decoder layer of the target's width and an LM head (EAGLE,
  Li et al. 2024 arXiv 2401.15077 §4; EAGLE-3 arXiv 2503.01840 its own head of a 32,000-token
  draft vocabulary, vLLM ``llama_eagle3.py`` ``draft_vocab_size``);
- ``mtp``: DeepSeek-V3's multi-token-prediction module, one more layer of the target (its MoE
  layer) with its own embedding and head copies (arXiv 2412.19437 §2.2; vLLM
  ``deepseek_mtp.py``);
- ``ngram``: prompt lookup on the host, no GPU work.

An EAGLE head's pass also reads its own projections (core/serving/eagle_extra.py); SGLang's draft
tree drafts over ``topk`` branches and verifies its count of tokens (core/serving/spec_tree.py).

Memory: the proposer's weights (loaded before the engine profiles, so the KV pool shrinks by
them) and its layers' KV (vLLM V1 gives the draft's attention layers pages in the same pool: a
token costs the target's and the draft's bytes).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ScenarioError
from ..memory.inference import kv_bytes_per_token_layer
from ..model.architecture import Arch, resolve
from ..model.params import ParamCounts, count_parameters
from ..model.serving_features import SpeculativeSpec
from ..model.specs import ModelSpec, Scenario
from ..registry.dtypes import nbytes
from ..speed.step import StepModel
from ..speed.step_wrap import StepWork, StepWrapper
from .eagle_extra import HeadExtra
from .mtp import check_mtp
from .mtp_depth import check_depth
from .spec_tree import Tree, check_tree

EAGLE3_DRAFT_VOCAB = 32000  # yuhuili/EAGLE3-LLaMA3.1-Instruct-8B config draft_vocab_size


@dataclass(frozen=True)
class Method:
    """A proposer's defaults: draft tokens per step and the acceptance rate ``a`` (per token,
    Leviathan's alpha) with the figure it comes from."""

    id: str
    tokens: int
    acceptance: float
    source: str


METHODS: dict[str, Method] = {
    m.id: m
    for m in (
        Method(
            "draft_model",
            4,
            0.7,
            "an assumption in the middle of Leviathan et al. 2023 Table 3's measured alphas",
        ),
        Method(
            "eagle",
            2,
            0.54,
            "vLLM PR 16035: EAGLE-LLaMA3-Instruct-8B on MT-Bench, 4 draft tokens, acceptance length 2.08",
        ),
        Method(
            "eagle3",
            3,
            0.745,
            "vLLM issue 26191: EAGLE3-LLaMA3.1-Instruct-8B, MT-Bench, 7 draft tokens, acceptance length 3.53",
        ),
        Method("mtp", 1, 0.85, "DeepSeek-V3 report §5.4.3: the second token accepted 85-90% of the time"),
        Method(
            "ngram", 3, 0.5, "an assumption: prompt lookup hits as often as the output repeats the prompt"
        ),
    )
}


def speculative_of(s: Scenario) -> SpeculativeSpec | None:
    """The scenario's speculative decoding when it is on (a serving scenario with a method)."""
    spec = s.serving.speculative
    if spec is None or spec.method is None or s.workload.trains:
        return None
    return spec


def expected_tokens(a: float, k: int) -> float:
    """Tokens a step emits per request: (1 - a^(k+1)) / (1 - a) (module docstring)."""
    return float(k + 1) if a >= 1.0 else (1.0 - a ** (k + 1)) / (1.0 - a)


def method(spec: SpeculativeSpec) -> Method:
    """The registered method of a spec that is on (:func:`speculative_of`)."""
    return METHODS[spec.method or "ngram"]


def settings(spec: SpeculativeSpec) -> tuple[int, float]:
    """(draft tokens per step, acceptance rate) as set or the method's default."""
    m = method(spec)
    return (
        spec.num_tokens or m.tokens,
        spec.acceptance_rate if spec.acceptance_rate is not None else m.acceptance,
    )


def check_speculative(s: Scenario) -> None:
    """A draft model is given for ``draft_model`` only and shares the target's vocabulary
    (vLLM refuses a draft whose vocabulary differs: the verify compares token ids); ``mtp``
    needs a model that ships MTP layers (core/serving/mtp.py) and, on vLLM, a draft count above
    them that they divide (core/serving/mtp_depth.py). A draft
    model kept while the method is off must still be a model block: the file is saved back
    with it, and a later method of "draft_model" would read it."""
    where = "serving.speculative.draft_model"
    kept = s.serving.speculative.draft_model if s.serving.speculative is not None else None
    if kept is not None and not isinstance(kept, ModelSpec):
        raise ScenarioError(where, "must be a model block (a preset or the architecture's fields)")
    spec = speculative_of(s)
    if spec is None:
        return
    if spec.method == "draft_model" and spec.draft_model is None:
        raise ScenarioError(where, 'required with method "draft_model" (a preset or a model block)')
    if spec.method != "draft_model" and spec.draft_model is not None:
        raise ScenarioError(where, f'only with method "draft_model", not "{spec.method}"')
    table = s.profile.features(s.serving.engine_version)
    check_mtp(s.model, spec.method, "serving.speculative.method", table)
    check_depth(s.model, spec, "serving.speculative.num_tokens", table)
    check_tree(spec, settings(spec)[0], "serving.speculative", table, s.serving.engine_version)
    if isinstance(spec.draft_model, ModelSpec):
        v, dv = resolve(s.model).vocab, resolve(spec.draft_model).vocab
        if v != dv:
            raise ScenarioError(
                f"{where}.vocab_size", f"the draft's vocabulary ({dv:,}) must be the target's ({v:,})"
            )


def _head_params(spec: SpeculativeSpec, arch: Arch, counts: ParamCounts) -> float:
    """Parameters of an EAGLE head or MTP module (module docstring)."""
    h, layer = arch.hidden, counts.dense_layer
    if spec.method == "eagle":  # one layer + fc over [embedding, feature]; head shared
        return layer.total + 2 * h * h
    if spec.method == "eagle3":  # qkv over 2h inputs, fc over 3 features, its own head
        return (
            layer.total
            + h * (arch.q_dim + 2 * arch.kv_dim)
            + 3 * h * h
            + min(arch.vocab, EAGLE3_DRAFT_VOCAB) * h
        )
    moe = counts.moe_layer or layer  # mtp: the target's (MoE) layer, eh_proj, embedding and head
    return moe.total + 2 * h * h + arch.vocab * h * 2


@dataclass(frozen=True)
class DraftMemory:
    """Per GPU: the proposer's weights and the KV bytes one token adds to its layers."""

    weight_bytes: float
    kv_bytes_per_token: float


def draft_memory(s: Scenario, arch: Arch, counts: ParamCounts) -> DraftMemory:
    """The proposer's memory on one GPU (split by tensor parallelism like the target's)."""
    spec = speculative_of(s)
    if spec is None or spec.method == "ngram":
        return DraftMemory(0.0, 0.0)
    tp, wb = s.parallelism.tensor, nbytes(s.precision.weights)
    if spec.method == "draft_model" and spec.draft_model is not None:
        darch = resolve(spec.draft_model)
        kv = kv_bytes_per_token_layer(darch, s.precision.kv_cache, tp) * darch.attention_layers
        return DraftMemory(count_parameters(spec.draft_model).total * wb / tp, kv)
    kv = kv_bytes_per_token_layer(arch, s.precision.kv_cache, tp)  # one draft layer
    return DraftMemory(_head_params(spec, arch, counts) * wb / tp, kv)


class SpeculativeStep(StepWrapper):
    """The target's step model with speculative decodes (module docstring): a step's decodes
    verify ``k + 1`` positions each and run ``k`` proposer passes, and emit ``E`` tokens each.
    The scheduler advances one token per decode step, so a step with decodes takes the
    speculative step's decode part divided by ``E`` plus its prompt chunks' part whole."""

    def __init__(
        self,
        base: StepModel,
        k: int,
        a: float,
        draft: StepModel | None,
        layers: float,
        vocab: float,
        tokens: float | None = None,
        tree: Tree | None = None,
        extra: HeadExtra | None = None,
    ) -> None:
        """``tokens``: the tokens a step emits where the positions' acceptance differs (a reused
        MTP layer, core/serving/mtp_depth.py); None: ``expected_tokens(a, k)``. ``tree``: SGLang's
        draft tree (core/serving/spec_tree.py); None: the chain. ``extra``: an EAGLE head's own
        projections (core/serving/eagle_extra.py)."""
        super().__init__(base)
        self.k, self.a = k, a
        self.tokens = expected_tokens(a, k) if tokens is None else tokens
        self._draft, self._draft_layers, self._draft_vocab = draft, layers, vocab
        self._tree = tree if tree is not None and tree.topk > 1 else None
        self._extra = extra

    def _propose(self, d: float, decode_ctx: float) -> float:
        """Seconds of the ``k`` proposer passes for ``d`` requests."""
        base = self._base
        if self._draft is not None:
            dr = self._draft
            ratio = dr.shape.attn_layers / max(1, base.shape.attn_layers)
            one = dr.seconds(d, decode_ctx * ratio, sampled=d) - dr.costs.host
            return self.k * one
        if not self._draft_layers:
            return 0.0
        once = 0.0
        if self._extra is not None and self._extra.per_proposal:  # EAGLE-3's fc, on the verified
            once = self._matmul(d * self._verify(), self._extra.per_proposal)
        if self._tree is None:
            return self.k * self._head_pass(d, decode_ctx) + once
        # a tree: the draft extend at one token a request, then k - 1 passes over topk branches
        t = self._tree.topk
        return self._head_pass(d, decode_ctx) + (self.k - 1) * self._head_pass(d * t, decode_ctx * t) + once

    def _verify(self) -> int:
        """Positions a request the target verifies: ``k + 1``, or the tree's count."""
        return self.k + 1 if self._tree is None else self._tree.verify

    def _matmul(self, d: float, weights: float) -> float:
        """Seconds of ``d`` tokens through ``weights`` parameters (read once, two flops each a
        token), as the LM head is priced."""
        sh, r = self._base.shape, self._base.rate
        return max(2.0 * d * weights / r.head, weights * sh.head_b / r.bandwidth)

    def _head_pass(self, d: float, decode_ctx: float) -> float:
        """Seconds of one EAGLE / MTP head pass over ``d`` tokens: its layers' share of the
        target's step and its LM head (weights read once, two flops a weight a token)."""
        base = self._base
        sh, r = base.shape, base.rate
        body = base.seconds(d, decode_ctx, sampled=0) * self._draft_layers / max(1, sh.layers)
        head_w = sh.hidden * self._draft_vocab
        head = max(2.0 * d * head_w / r.head, head_w * sh.head_b / r.bandwidth)
        if self._extra is None:
            return body + head
        return body + head + self._matmul(d, self._extra.per_pass)

    def _spec(self, w: StepWork) -> float:
        """The verify step of ``w``'s decodes at ``k + 1`` positions each, and their proposals."""
        d = w.decodes
        per = self._verify()  # positions a request
        n = d * per
        sampled = n + (w.sampled or 0.0)
        verify = self._base.seconds(*w._replace(decodes=n, decode_ctx=w.decode_ctx * per, sampled=sampled))
        return verify + self._propose(d, w.decode_ctx)

    def step(self, work: StepWork) -> float:
        w = work
        if not w.decodes:
            return self._base.seconds(*w._replace(decodes=0, decode_ctx=0.0))
        rest = (w.sampled if w.sampled is not None else w.decodes + w.prefill_seqs) - w.decodes
        whole = self._spec(w._replace(sampled=rest))
        if not w.prefill:
            return whole / self.tokens
        alone = self._spec(StepWork(w.decodes, w.decode_ctx, sampled=0.0, graph=w.graph))
        return whole - alone * (1.0 - 1.0 / self.tokens)


def draft_layers(spec: SpeculativeSpec) -> tuple[float, int | None]:
    """(target-width layers a head's pass runs, its head's vocabulary; None: the target's)."""
    if spec.method in ("eagle", "mtp"):
        return 1.0, None
    if spec.method == "eagle3":
        return 1.0, EAGLE3_DRAFT_VOCAB
    return 0.0, None
