"""The count of published RL step and phase time figures within 25 % (estimate / published within
0.75-1.25, docs/evidence/rl.md's convention) and of verl's memory counters within 15 %, computed
from the figures themselves (scripts/rl_figures.py imports each RL test module's replay), so the
count in docs/evidence/rl.md cannot drift from the figures. Tolerance: issue 35's 25 % on every
time figure and 15 % on memory; the bar is 70 % of them."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2] / "scripts"))
import rl_figures

TIMES = rl_figures.time_figures()
MEMORY = rl_figures.memory_figures()


def test_totals() -> None:
    """67 of 124 time figures within 25 % (54 %), the issue's 70 % not met. rl.md section 52's
    hand count, 63 of 124, is what this list gives at main 5805a323 (figure for figure); the three
    since are the NeMo RL v0.4 Qwen3-30B-A3B 1-off on 16+16 H100 (0.740 -> 0.763) and the v0.4
    and v0.6 Qwen3-235B 1-off rows on 128+128 H100 (0.724 -> 0.817, 0.738 -> 0.837), in when
    vLLM's BF16 Triton MoE was read at its measured time on Hopper (docs/evidence/speed.md
    section 93), and the v0.6 Qwen3-235B on 64 GB200 (0.675 -> 0.752), in when vLLM's Triton MoE on
    SM100 before 0.20 was read at the B200's measured default-config time (rl.md section 64).
    69 since the v0.7 Qwen3-235B rows on 64 and 128 GB200 state their recipes' moe_backend triton
    and read that time too (0.694 / 0.676 -> 0.779 / 0.768; rl.md, vLLM's MoE backend). 72 since
    Miles' three H100 weight syncs run Miles' own update path (rl.sync_transport
    "stage_broadcast": 1.684 / 1.742 / 1.750 -> 0.892 / 1.077 / 1.092; rl.md section 67). 73 since
    the host paces verl's Hugging Face layers (rl.policy.hf_layer_ops, verl's releases' default:
    the PPO Qwen2.5-0.5B on 8 A100 0.418 -> 0.769; rl.md, "verl's small models: the host issues
    every layer"). 72 since that PPO record states its script's log-prob micro-batch (8, its
    training's 4: rl.policy.log_prob_micro_batch_size), which halves its old policy's host-paced
    forwards: 0.769 -> 0.736; rl.md, "the log-prob passes' own micro-batch"). 73 of 126 since the
    fourth blind round adds two verl steps, DeepScaleR's 8K stage on 8 H200 and on 8 A100
    (rllm-org/rllm issue 29): 0.614, a miss, and 0.761, within (rl-time-blind4.json; rl.md, "a
    fourth blind round"). 74 of 128 since the fifth blind round adds two verl steps from RLinf's
    "Comparison with VeRL" page, DeepSeek-R1-Distill-Qwen-1.5B on 8 H100 and -7B on 64 GPUs
    (rl-time-blind5.json): 1.355, a miss, and 1.111, within (rl.md, "a fifth blind round"). 73 of
    128 since verl's SGLang rollout before v0.6.0 keeps SGLang's CUDA graphs (verl's sglang_rollout.py
    passes no enforce_eager): the two read 0.668 and 0.602, both short (rl.md, the same section).
    73 of 130 since the sixth blind round adds SkyRL's two Qwen3.5-9B DAPO steps on 8 H100
    (rl-time-blind6.json, its spec-decode page's baseline and MTP run): 0.566 and 0.488, both
    short (rl.md, "a sixth blind round"). 74 of 130 since the ranks of UniRL's FSDP2 DPPO
    profile wait for the longest trajectory of each update (rl.policy.balanced_micro_batches
    false: its training 0.482 -> 1.172; rl.md, the stragglers section). 80 of 138 since the seventh
    blind round adds AMD's eight verl throughputs on 8 H100 and 8 MI300X, each as the step its
    tokens imply (rl-time-blind7.json): 6 within, the PPO deepseek-llm-7b-chat and GRPO
    Qwen2-7B-Instruct H100 rows short (0.600, 0.732; rl.md, "a seventh blind round"). 84 of 147
    since the eighth blind round adds nine verl Megatron GRPO steps of Qwen2.5-7B-Instruct on 8
    H100 (rl-time-blind8.json, NVIDIA's verl_megatron_practice table): 4 within, the rows without
    dynamic batching short, the two CP rows answered since verl's Megatron workers pad each
    sequence (0.192, 0.566; rl.md, "an eighth blind round"). 86 of 149 since the ninth blind
    round adds two verl PPO steps of Qwen2-7B-Instruct with a critic on 8 A100
    (rl-time-blind9.json, dingxianzhong/play-verl's logs): both within, 0.927 and 0.772 (rl.md,
    "a ninth blind round"). 85 of 149 since verl's critic runs its rows padded where the actor
    packs them (critic.model.use_remove_padding False; rl.md, the critic's padded rows): the
    ninth round's recommended step 0.927 -> 1.888, out (its actor reads slow, which the packed
    critic had offset), its min step 0.772 -> 1.203, and the seventh round's four PPO rows
    0.760 / 0.795 / 0.600 / 0.752 -> 0.963 / 1.016 / 0.732 / 0.924, none in or out. 87 of 152
    since the tenth blind round adds three verl V1-trainer steps of Qwen3.5-35B-A3B
    (rl-time-blind10.json, verl docs/advance/v1_async_trainer.md): sync 0.812 and separate_async
    1.228 within, the one-rollout-node run 0.591 short (rl.md, "a tenth blind round"). 88 of 152
    since the whole MLA down-projections. 90 of 154 since the eleventh blind round adds
    SimpleRL-Zoo's two verl GRPO runs of Qwen-2.5-7B and -32B on 16 and 64 H100
    (rl-time-blind11.json, hkust-nlp/simpleRL-reason's README): 0.805 and 0.786, both within
    and short; 0.852 and 0.852 with the launcher's validation every five steps stated (rl.eval; rl.md, "an
    eleventh blind round"). 96 of 165 since the twelfth blind round adds eleven Unsloth
    fast_inference GRPO notebooks on one GPU (rl-time-blind12.json, unslothai/notebooks' saved
    progress bars): 6 within (0.78-1.19), the five misses short, four of them a bitsandbytes
    4-bit base on a T4 (0.18-0.41; rl.md, "a twelfth blind round"). 97 of 165 since a training
    micro-batch holds at most its rank's share of the mini-batch (core/pipeline/rl_logprob_batch.py
    training_micro): the ninth round's min step 0.719 -> 0.779, in; the GRPO 0.5B of round three
    0.582 -> 0.618, still out (rl.md, "verl's micro-batch within the mini-batch"). 95 of 165
    since the seventh round's PPO records state the blog's critic.model.use_remove_padding=True
    (rl.critic.remove_padding true, a packed critic): 0.936 / 0.986 / 0.717 / 0.905 -> 0.747 /
    0.781 / 0.592 / 0.743, the H100 Qwen2 and MI300X deepseek rows out; and verl's padded rows
    run the prompt cap (rl.prompt_cap): the ninth round's 0.873 / 0.779 -> 1.082 / 0.871, both
    still in (rl.md, "verl's padded rows and the seventh round's packed critic")."""
    assert rl_figures.count(TIMES) == (95, 165)  # 97 before the seventh round's packed critic


def test_each_group_as_its_modules_count_it() -> None:
    """(within, counted) per group, as the modules' own pins read them: NeMo RL 44 of 79
    (test_rl_evidence.py 24 of 50, test_rl_evidence_v07.py 15 of 23, 14 before the whole MLA
    down-projections, test_rl_phase_logs.py's blog and #959 steps 5 of 6), verl 36 of 52
    (test_rl_verl_time_evidence.py 20 of 20, test_rl_blind_round3.py 1 of 4,
    test_rl_blind_round4.py 1 of 2, test_rl_blind_round5.py 0 of 2, test_rl_blind7.py 4 of 8,
    test_rl_blind8.py 4 of 9, test_rl_blind9.py 2 of 2, test_rl_blind10.py 2 of 3,
    test_rl_blind11.py 2 of 2; 32 of 45 before the ninth round, 34 of 47 before the critic's
    padded rows, 33 of 47 before the tenth round, 35 of 50 before the eleventh, 37 of 52 before a
    training micro-batch was bounded by its rank's share of the mini-batch, 38 of 52 before the
    seventh round's PPO critic was stated packed), the other
    sources 15 of 34 (test_rl_time_others.py 7 of 18, test_rl_time_papers.py 1 of 2,
    test_rl_time_logs.py 1 of 1, test_rl_blind6.py's SkyRL steps 0 of 2, test_rl_blind12.py's
    Unsloth notebooks 6 of 11; 9 of 23 before the twelfth round)."""
    assert rl_figures.by_group(TIMES) == {"NeMo RL": (44, 79), "verl": (36, 52), "others": (15, 34)}
    within = Counter(f.source for f in TIMES if f.within)
    counted = Counter(f.source for f in TIMES)
    assert {s: (within[s], n) for s, n in counted.items()} == {
        "summary v0.4-v0.6": (24, 50),
        "summary v0.7": (15, 23),  # 14 before the whole MLA down-projections
        "v0.3 blog / #959 logs": (5, 6),
        "rl-memory.json": (20, 20),
        "rl-time-blind3.json": (1, 4),
        "rl-time-blind4.json": (1, 2),
        "rl-time-blind5.json": (0, 2),
        "rl-time-others.json": (7, 18),
        "rl-time-papers.json": (1, 2),
        "rl-time-logs.json": (1, 1),
        "rl-time-blind6.json": (0, 2),
        "rl-time-blind7.json": (4, 8),  # 6 before its PPO critic was stated packed
        "rl-time-blind8.json": (4, 9),
        "rl-time-blind9.json": (2, 2),  # 1 of 2 before the mini-batch's bound
        "rl-time-blind10.json": (2, 3),
        "rl-time-blind11.json": (2, 2),
        "rl-time-blind12.json": (6, 11),
    }


def test_memory_apart() -> None:
    """verl's perf/max_memory_allocated_gb: 16 of 20 within 15 % (test_rl_memory_evidence.py:
    the 2-GPU 0.5B and 1.5B counters of the GSM8K + MATH and MATH-only logs read 16-21 % over).
    17 of 22 with the ninth blind round's two PPO counters on 8 A100 as first replayed
    (test_rl_blind9.py: the recommended run's 0.997 within, the offloaded min run's 1.307 over);
    18 of 22 since verl's critic leaves its states on host during the actor's update (the min
    run 1.307 -> 1.116; core/pipeline/rl_memory.py ``training_side``); 20 of 24 with the blind
    memory round's two play-verl Qwen2.5-0.5B counters (test_rl_memory_blind.py: GRPO 1.062,
    PPO 0.918, both within on first replay)."""
    assert rl_figures.count(MEMORY) == (20, 24)
    assert all(f.group == "memory" and f.phase == "allocated" for f in MEMORY)


def test_whole_steps_and_phases() -> None:
    """132 whole steps (107 before the fourth blind round's two DeepScaleR steps, 109 before the fifth
    round's two steps from RLinf's page, 111 before the sixth round's two SkyRL steps, 113 before the
    seventh round's eight steps implied by AMD's verl throughputs, 121 before the eighth round's
    nine verl Megatron steps, 132 before the tenth round's three verl V1-trainer steps, 135 before
    the eleventh round's two SimpleRL-Zoo steps, 137 before the twelfth round's eleven Unsloth
    notebook steps; 148 since)
    and 17 phase timers
    (rl-time-others.json's and UniRL's); the whole steps are the ones scripts/evidence_bands.py
    ``_rl_steps`` puts in the speed bands, published seconds for published seconds (a step added to
    the bands and not to this count fails here)."""
    import evidence_bands

    assert Counter(f.phase == "step" for f in TIMES) == {True: 148, False: 17}
    banded = sorted(seconds for _, _, seconds in evidence_bands._rl_steps())
    assert sorted(f.published for f in TIMES if f.phase == "step") == banded
