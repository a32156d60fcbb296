"""Time NeMo RL's math verifier per response: ``HFVerifyWorker.verify``'s call of Math-Verify's
``math_metric`` (gold ``LatexExtractionConfig``; prediction ``ExprExtractionConfig`` then
``LatexExtractionConfig``; gold wrapped in ``\\boxed{}``), as ``nemo_rl/environments/
math_environment.py`` runs it at tags v0.4.0-v0.7.0 (docs/evidence/rl.md, the generation timer's
section). Math-Verify is not a dependency of this project; in a virtual environment of its own:

    pip install math-verify==0.8.0 latex2sympy2-extended==1.10.2 sympy==1.14.0 \
        antlr4-python3-runtime==4.9.3     # the versions NeMo RL's uv.lock pins at v0.4.0-v0.6.0
    python scripts/measure_math_verify.py [CHARS ...]

The responses are synthetic (no RL response text is shipped here): sentences of prose with inline
and display LaTeX arithmetic, cut at CHARS characters, either closed by a boxed answer (a response
that ended) or not (one cut by ``max_new_tokens``, where Math-Verify tries every match from the
right). The golds are fractions in LaTeX or integers (MATH's and GSM8K's kinds). Each call has its
own gold and answer, so the verifier's 20-entry parse caches do not hit
across calls. Prints the median, the 10th and the 90th percentile per call, in milliseconds.

With ``tokenizers`` installed too (0.22.1, as NeMo RL v0.6.0's uv.lock pins), it also times the
driver's ``tokenizer.batch_decode`` of the responses (``nemo_rl/experience/rollouts.py``
``generate_responses``): one Rust ``decode`` a response, here with a byte-level BPE trained on the
same synthetic text (Qwen3's 151k vocabulary is not shipped here), in nanoseconds a token.
"""

from __future__ import annotations

import contextlib
import logging
import random
import statistics
import sys
import time

from math_verify.metric import math_metric
from math_verify.parser import ExprExtractionConfig, LatexExtractionConfig

CALLS = 60
WORDS = ("we", "let", "the", "first", "term", "then", "compute", "so", "that", "since", "for", "each")


def _sentence(rng: random.Random) -> str:
    words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 20)))
    a, b, c = rng.randint(2, 999), rng.randint(2, 999), rng.randint(2, 99)
    k = rng.random()
    if k < 0.4:
        return f"{words} ${a}x + {b} = {a * c + b}$, so $x = {c}$."
    if k < 0.6:
        return f"{words}\n\\[\n\\frac{{{a}}}{{{b}}} \\cdot {c} = \\frac{{{a * c}}}{{{b}}}\n\\]\n"
    return f"{words} {a} \\times {c} = {a * c}."


def _gold(rng: random.Random, kind: str) -> str:
    """A gold answer: a fraction in LaTeX or an integer (MATH's and GSM8K's kinds)."""
    if kind == "integer":
        return str(rng.randint(1, 99999))
    return f"\\frac{{{rng.randint(1, 999)}}}{{{rng.randint(2, 999)}}}"


def _response(rng: random.Random, chars: int, answer: str | None) -> str:
    parts: list[str] = []
    while sum(map(len, parts)) < chars:
        parts.append(_sentence(rng))
    text = " ".join(parts)[:chars]
    return text + f"\n\nTherefore, the final answer is $\\boxed{{{answer}}}$." if answer else text


def main(sizes: list[int]) -> None:
    logging.getLogger("math_verify").setLevel(logging.CRITICAL)
    verify = math_metric(
        gold_extraction_target=(LatexExtractionConfig(),),
        pred_extraction_target=(ExprExtractionConfig(), LatexExtractionConfig()),
    )
    rng = random.Random(0)
    verify(["\\boxed{1}"], ["warm-up $\\boxed{1}$"])  # the grammar's first load
    for chars, kind in ((c, k) for c in sizes for k in ("fraction", "integer")):
        for ended in (True, False):
            times = []
            for _ in range(CALLS):
                gold = _gold(rng, kind)
                text = _response(rng, chars, gold if ended else None)
                t = time.perf_counter()
                with contextlib.suppress(Exception):  # NeMo RL scores a failure 0 and goes on
                    verify(["\\boxed{" + gold + "}"], [text])
                times.append(time.perf_counter() - t)
            q = statistics.quantiles(times, n=10)
            print(
                f"chars {chars:6d} gold {kind:8s} ended {ended!s:5}"
                f" median {statistics.median(times) * 1e3:7.2f} ms"
                f"  p10 {q[0] * 1e3:7.2f}  p90 {q[-1] * 1e3:7.2f}"
            )


def decode_rate(chars: int = 12800, responses: int = 256) -> None:
    """Nanoseconds a token of one ``Tokenizer.decode`` a response (skip_special_tokens)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    rng = random.Random(1)
    texts = [_response(rng, chars, "\\frac{7}{3}") for _ in range(responses)]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=8000, show_progress=False))
    ids = [tok.encode(t).ids for t in texts]
    tokens = sum(map(len, ids))
    for _ in range(3):
        t = time.perf_counter()
        for seq in ids:
            tok.decode(seq, skip_special_tokens=True)
        seconds = time.perf_counter() - t
        print(f"decode: {tokens / responses:.0f} tokens a response, {seconds / tokens * 1e9:.0f} ns a token")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [3200, 12800, 15872, 22800])
    try:
        decode_rate()
    except ImportError:
        print("tokenizers not installed: decode not timed")
