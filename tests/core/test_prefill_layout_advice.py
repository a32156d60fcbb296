"""The sizing advice tries a scenario at other tensor widths than the one set (each option's
layout, a weights bound on one GPU). Where the prefill pool sets its own attention-DP ranks
(``serving.disaggregated.prefill_attention_data``) that do not divide such a width, the split
has no replica there: the estimate at that width gives no split figures instead of dividing
by a zero-GPU rank (the window's advice and ``gpusizer-cli plan`` failed with a traceback)."""

from __future__ import annotations

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from tests.scenarios import vllm_serving

MOE_SPLIT = vllm_serving(
    "qwen3-30b-a3b",
    parallelism={"tensor": 2},
    serving={"disaggregated": {"prefill_gpus": 2, "decode_gpus": 2, "prefill_attention_data": 2}},
)


def test_a_width_the_prefill_ranks_do_not_divide_has_no_split() -> None:
    s = parse_scenario(MOE_SPLIT)
    whole = estimate(s).serving
    assert whole is not None and whole.disaggregated_prefill_gpus == 2  # as set: the split is answered
    narrow = s.model_copy(update={"parallelism": s.parallelism.model_copy(update={"tensor": 1})})
    sv = estimate(narrow).serving
    assert sv is not None and sv.disaggregated_prefill_gpus == 0 and sv.disaggregated_ttft_seconds == 0


def test_the_advice_sizes_such_a_scenario() -> None:
    from gpusizer.core.sizing.gpus_needed import gpus_needed

    option = gpus_needed(parse_scenario(MOE_SPLIT))
    assert option is not None and (option.gpus or 0) >= 2
