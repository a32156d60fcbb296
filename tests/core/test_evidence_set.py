"""The published training evidence set as a whole (the bar it must meet): every published
training and fine-tuning run the tests replay, counted once, with what holds of it.

- Runs on stated hardware: the speed sets' runs (tests/core/data/speed-figures-training*.json:
  framework tables, recipe READMEs, the DeepSeek-V3 report; torchtitan's with their memory),
  the logged peaks of training-published.json (torchtune, Megatron-LM, Qwen) and
  training-stacks.json (Liger's FSDP example, LitGPT's config hub), the trainers' logs of
  engine-logs-2025.json (ms-swift, axolotl; tests/core/training_replay.py) and Unsloth's
  context tables.
- Refused: none of those with their hardware in the scenario.
- Logged peaks within 15 %: the issue asks 90 %. At the time of writing 79 of 80 (98 %);
  LitGPT's six QLoRA rows came inside (-3 to -9 %) once Lightning's bitsandbytes path was
  read: its LM head is 4-bit too, each 4-bit matmul holds two 16-bit copies of its matrix
  (core/memory/dequant.py) and ``fit`` holds the last step's graph, whose bitsandbytes 0.42
  nodes keep their inputs, through the next forward (core/memory/last_step.py); torchtitan's
  Llama 3.1 70B rows at FSDP 32 x TP 8 moved from -28 / -24 % to -14.2 / -8.7 % with
  loss_parallel's decomposed fp32 log-softmax (core/memory/techniques.py ``logit_bytes``)
  and the LM head's all-gathered input, kept whole by its DTensor ColwiseParallel
  (core/memory/activations_torchtitan.py ``gathered_head_input``); axolotl's gpt-oss-20b
  FSDP2 config on 4 x 80 GB (-22 -> -12 %) once its gradient accumulation (the sharded
  gradients kept between micro-batches) and FSDP2's root unit (embedding and LM head, never
  resharded after the forward; ``parallelism.fsdp_version: 2``) were read from it; its
  8 x 48 GB row (-14 %) and the 120B offload row (-6 %) came inside with transformers 4.55's
  eager expert loop and FSDP2's held reduce-scatter input and copy-in stream cache
  (core/memory/fsdp2_buffers.py). The one miss is recorded where it is replayed: axolotl's
  2 x 24 GB gpt-oss offload row (training_replay.py ``_AX_FSDP``, -22 %). The
  scenarios that set no overhead of their own (``overhead`` absent: the trainers' logs and
  torchtitan's rows; the others zero it to compare with max_memory_allocated, a definition,
  not a fit): 37 of 38 (97 %), the 90 % the issue asks of them too; the miss is among them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpusizer import estimate_report

from .training_replay import TRAINING_REPLAYS, training_table

DATA = Path(__file__).parent / "data"
SPEED_SETS = (
    "speed-figures-training.json",
    "speed-figures-training-blackwell.json",
    "speed-figures-training-moe.json",
)
TOLERANCE = 0.15
WITHIN_AT_LEAST = 0.90  # the issue's
PLAIN_WITHIN_AT_LEAST = 0.90  # the issue's, of the peaks that set no constant (37 of 38 reached)


def _peaks() -> list[tuple[str, dict[str, Any], float, bool]]:
    """(id, scenario, error, sets a constant) of every logged peak."""
    out = []
    published = json.loads((DATA / "training-published.json").read_text())["records"]
    for r in published:
        if r.get("recipe_scenario") and r["compare"] == "total":
            err = estimate_report(r["recipe_scenario"])["per_gpu"]["total"] / r["figure_bytes"] - 1
            out.append((r["id"], r["recipe_scenario"], err, "overhead" in r["recipe_scenario"]))
    for r in json.loads((DATA / "training-stacks.json").read_text())["records"]:
        err = estimate_report(r["scenario"])["per_gpu"]["total"] / r["figure_bytes"] - 1
        out.append((r["id"], r["scenario"], err, "overhead" in r["scenario"]))
    for name in SPEED_SETS:  # torchtitan's memory rows (GiB as it prints them)
        for r in json.loads((DATA / name).read_text()):
            if "memory_gib" in r["metrics"]:
                total = estimate_report(r["scenario"])["per_gpu"]["total"]
                err = total / 2**30 / r["metrics"]["memory_gib"] - 1
                out.append((r["id"], r["scenario"], err, "overhead" in r["scenario"]))
    scenarios = {f"{rp.record}:{rp.name}": rp.scenario for rp in TRAINING_REPLAYS}
    for row in training_table():
        key = f"{row.record}:{row.name}"
        out.append((key, scenarios[key], row.error, "overhead" in scenarios[key]))
    return out


PEAKS = _peaks()


def _runs() -> list[dict[str, Any]]:
    runs = []
    for name in SPEED_SETS:
        runs += json.loads((DATA / name).read_text())
    return runs


def test_at_least_sixty_published_runs() -> None:
    contexts = [
        r
        for r in json.loads((DATA / "training-published.json").read_text())["records"]
        if r["kind"] == "max_context_that_fits"
    ]
    ids = {r["id"] for r in _runs()} | {p[0] for p in PEAKS} | {r["id"] for r in contexts}
    assert len(ids) >= 60, len(ids)


def test_no_run_with_its_hardware_is_refused() -> None:
    # each ran on the hardware its scenario names (source per record)
    with_hardware = [r["scenario"] for r in _runs()]
    stacks = json.loads((DATA / "training-stacks.json").read_text())["records"]
    with_hardware += [r["scenario"] for r in stacks]
    refused = [sc for sc in with_hardware if not estimate_report(sc)["fits"]]
    assert refused == []


def test_logged_peaks_within_tolerance() -> None:
    within = [p for p in PEAKS if abs(p[2]) <= TOLERANCE]
    assert len(within) / len(PEAKS) >= WITHIN_AT_LEAST, (len(within), len(PEAKS))
    plain = [p for p in PEAKS if not p[3]]
    plain_within = [p for p in plain if abs(p[2]) <= TOLERANCE]
    assert plain and len(plain_within) / len(plain) >= PLAIN_WITHIN_AT_LEAST, (len(plain_within), len(plain))
