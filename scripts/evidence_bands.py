"""Generate src/gpusizer/presets/evidence-bands.json: the band each regime's replayed published
figures give (estimate / published, per figure).

Reads the data files the tests replay (tests/core/data/*.json through the replay helpers of
tests/core: engine logs, trainer tables, published training peaks, measured HF / PEFT /
technique records, published serving and training speeds), runs the estimator on each figure,
groups the ratios by regime (core/evidence/regimes.py) and keeps per regime its count, a
stratified fifth held out (every fifth of the regime's figures in the order of their keys'
sha-256), the 10th and 90th percentile of the other four fifths, how many of the held-out fifth
that band holds and how many of all its figures the same construction holds with each fifth
held out in turn (5-fold cross-validation). A regime of 5-11 figures, too few for split
conformal's 80 % ranks (``OWN_BAND_MIN``), takes the band of its nearest parent regime
(core/evidence/regimes.py ``pool_chain``), checked on its own fifths the same way; besides, the cases
replayed (``framework|gpu|model``, what makes a scenario's confidence ``measured``) and the
oldest engine release a speed figure was replayed on (an older one is ``extrapolated``).

Speed ratios are estimated speed / published speed (a time is inverted): above 1 the estimate is
fast. Memory ratios are estimate / published bytes (or tokens, for an engine's KV pool).

    PYTHONPATH=src:. python scripts/evidence_bands.py            # write the file
    PYTHONPATH=src:. python scripts/evidence_bands.py --check    # exit 1 if it differs
    PYTHONPATH=src:. python scripts/evidence_bands.py --table    # the README's table
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gpusizer.core.evidence.bands import BANDS_PATH, band_edges, conformal_min, percentile, release_key
from gpusizer.core.evidence.confidence import case_key
from gpusizer.core.evidence.regimes import DISAGG, in_pool, memory_regime, pool_chain, speed_regime
from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.report import estimate_report
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.engines import release

MIN_FIGURES = 5  # below this a regime states its count, not a band
RATIO_DECIMALS = 4  # the precision of the file's band edges, and so of the ratios compared to them
# the fewest figures whose four fifths reach split conformal's 80 % ranks (conformal_min, 9
# ratios): 12 (12 - ceil(12 / 5) = 9); a regime with fewer takes its parent's band
OWN_BAND_MIN = next(n for n in range(1, 100) if n - -(-n // 5) >= conformal_min())


@dataclass(frozen=True)
class Figure:
    key: str  # source file : record : figure
    regime: str
    ratio: float  # estimate / published (speed: estimated speed / published speed)
    case: str = ""  # framework|gpu|model where the scenario names a catalog model and GPU
    release: str = ""  # the engine release the figure was replayed on, where it states one
    # "upper" / "lower" where the published figure only bounds the value (its record's
    # ``bound``, with ``bound_reason``: a card's size, "fits on"): no ratio, so not in a band
    bound: str = ""
    gpu: str = ""  # the catalog GPU a speed figure ran on ("" for a GPU block or none stated)


def _regime(kind: str, scenario: dict[str, Any]) -> tuple[str, str]:
    """The figure's regime and its case (core/evidence/confidence.py ``case_key``)."""
    s = parse_scenario(scenario)
    gpu = scenario_gpu(s)
    regime = memory_regime(s, gpu) if kind == "memory" else speed_regime(s, gpu)
    named = "preset" in scenario.get("model", {}) and isinstance(scenario.get("hardware", {}).get("gpu"), str)
    return regime, case_key(s, gpu) if named else ""


def _gpu(scenario: dict[str, Any] | None) -> str:
    """The catalog id of the GPU a speed figure ran on, whatever its model ("" for a GPU block):
    a regime's ``gpus``, what a GPU's speed confidence reads (core/evidence/confidence.py)."""
    if not scenario or not isinstance(scenario.get("hardware", {}).get("gpu"), str):
        return ""
    return scenario_gpu(parse_scenario(scenario)).id


def _engine_logs() -> Iterator[Figure]:
    """Each logged figure's estimate / logged value; 1 where the estimate prints as Ollama's
    offload line printed it (one decimal of GiB: "1.2 GiB" is any size within 0.05 GiB of it,
    up to 4 % of a small figure, so a ratio inside that step is the print's, not the model's)."""
    from tests.core.engine_replay import REPLAYS
    from tests.core.engine_replay_2025 import prints_as_logged, replays_2025
    from tests.core.engine_replay_blind import prints_as_logged_blind, replays_blind
    from tests.core.engine_replay_logs_blind2 import replays_blind2
    from tests.core.engine_replay_sglang_blind import replays_sglang_blind
    from tests.core.engine_replay_vllm_012_018 import replays_012_018

    rounds = [*replays_blind(), *replays_blind2(), *replays_012_018(), *replays_sglang_blind()]
    for rp in [*REPLAYS, *replays_2025(), *rounds]:
        run, (regime, case) = rp.run(), _regime("memory", rp.scenario)
        for name, get, value in rp.checks:
            if value > 0:
                est = get(run)
                printed = prints_as_logged(rp.record, name, est)
                printed = printed or prints_as_logged_blind(rp.record, name, est)
                ratio = 1.0 if printed else est / value
                yield Figure(f"engine-logs:{rp.record}:{name}", regime, ratio, case)


def _trainer_tables() -> Iterator[Figure]:
    from tests.core.training_replay import _BIG, LOGS, TRAINING_REPLAYS

    for rp in TRAINING_REPLAYS:
        regime, case = _regime("memory", {"hardware": _BIG, **rp.scenario})
        bound = LOGS[rp.record].get("bound", "")
        yield Figure(f"trainer-tables:{rp.record}", regime, rp.estimate() / rp.logged, case, bound=bound)


def _memory(key: str, scenario: dict[str, Any], published: float, less: float = 0.0) -> Figure:
    rep = estimate_report(scenario, roofline=False)
    regime, case = _regime("memory", scenario)
    return Figure(key, regime, rep["per_gpu"]["total"] / (published - less), case)


def _memory_stage(key: str, rec: dict[str, Any]) -> Figure:
    """A figure logged by one pipeline stage's rank: that stage's total / the figure."""
    from gpusizer.core.pipeline.logged_stage import stage_total

    s = parse_scenario(rec["recipe_scenario"])
    regime, case = _regime("memory", rec["recipe_scenario"])
    return Figure(key, regime, stage_total(s, rec.get("stage", "heavier")) / rec["figure_bytes"], case)


def _training_peaks() -> Iterator[Figure]:
    from tests.core.test_published_training import PEAKS
    from tests.core.test_training_heldout import RECORDS as HELDOUT
    from tests.core.training_figures import DATA, load

    for rec in PEAKS:
        yield _memory(f"training-published:{rec['id']}", rec["recipe_scenario"], rec["figure_bytes"])
    for rec in load("speed-figures-training.json"):
        if "memory_gib" in rec["metrics"]:
            gib = rec["metrics"]["memory_gib"] * 2**30
            yield _memory(f"torchtitan-memory:{rec['id']}", rec["scenario"], gib)
    # held-out published peaks, replayed blind (tests/core/test_training_heldout.py); a record whose
    # stated shape the card cannot hold (``shape_contradicted``: its run held fewer tokens than
    # stated, docs/evidence/training.md section 23) tests no estimate and stays out
    for rec in (r for r in HELDOUT if not r.get("shape_contradicted")):
        yield _memory(f"training-heldout:{rec['id']}", rec["recipe_scenario"], rec["figure_bytes"])
    # later blind rounds, one file each (tests/core/data/training-peaks-blind*.json, the same
    # record form), taken by name so that a new round joins the pool with its file
    for path in sorted(DATA.glob("training-peaks-blind*.json")):
        for rec in json.loads(path.read_text())["records"]:
            if not rec.get("shape_contradicted"):
                yield _memory(f"{path.stem}:{rec['id']}", rec["recipe_scenario"], rec["figure_bytes"])
    # the blind round of the two memory regimes below the 80 % line: a record logged by one rank
    # names its pipeline stage (``stage``: core/pipeline/logged_stage.py)
    for rec in json.loads((DATA / "memory-regimes-blind.json").read_text())["records"]:
        yield _memory_stage(f"memory-regimes-blind:{rec['id']}", rec)


def _measured() -> Iterator[Figure]:
    from tests.core.calibration import training_scenario
    from tests.core.peft_records import cpu_dropout_excess, peft_scenario, technique_scenario
    from tests.core.test_measured_extra import CPU_ONLY
    from tests.core.test_measured_extra import DATA as HF
    from tests.core.test_peft_measured import DATA as PEFT
    from tests.core.test_techniques_measured import DATA as TECH

    from gpusizer import import_hf_config

    for rec in HF["training_memory"]:
        if not rec["id"].startswith(CPU_ONLY):  # the CPU's math-kernel fallback, not a GPU's
            sc = training_scenario(rec, import_hf_config(rec["inputs"]["config"]))
            yield _memory(f"hf-measured:{rec['id']}", sc, rec["measured"]["peak_bytes"])
    for rec in PEFT["records"]:
        peak = rec["measured"]["live_bytes_steady_state_iteration"]["peak_bytes"]
        yield _memory(f"peft-measured:{rec['id']}", peft_scenario(rec), peak, cpu_dropout_excess(rec))
    for rec in TECH["records"]:
        sc, m = technique_scenario(rec), rec["measured"]
        live = m[
            "live_bytes_dispatch_tracker" if "bnb" in rec["inputs"]["optimizer"] else "live_bytes_profiler"
        ]
        host = estimate_report(sc, roofline=False)["host_memory_bytes"]
        yield _memory(f"techniques-measured:{rec['id']}", sc, live["peak_bytes"], host)


def _serving_speeds() -> Iterator[Figure]:
    from tests.core import test_serving_speed as old
    from tests.core.test_speed_figures import FIGURES, RATIOS, speed_ratio

    for r, e in FIGURES:
        ratio = speed_ratio(e, RATIOS[(r["id"], e["label"])])
        regime, case = _regime("speed", e["scenario"])
        release = e["scenario"].get("serving", {}).get("engine_version") or ""
        bound = r.get("bound", "")
        yield Figure(
            f"speed-figures:{r['id']}:{e['label']}", regime, ratio, case, release, bound, _gpu(e["scenario"])
        )
    # serving-speed.json's cases are built inside its test: TensorRT-LLM's by the scenario each
    # is replayed on (a static batch drained as a burst; the batch-1 latency tables at batch
    # one), llama.cpp's llama-bench rows on Apple at batch one. A TensorRT-LLM figure keeps the
    # catalog release whose rules it is replayed on (0.5.0 for the 2023 tables, 0.19.0), so a
    # regime's oldest release counts those tables beside its later figures
    for rid, metric, est, pub, _ in old.CASES:
        ratio = pub / est if "ms" in metric else est / pub
        sc = old.SCENARIOS.get(rid)
        regime = _regime("speed", sc)[0] if sc else "speed/llama.cpp/apple/batch-one"
        yield Figure(f"serving-speed:{rid}:{metric}", regime, ratio, release=_rules_release(sc), gpu=_gpu(sc))


def _rules_release(scenario: dict[str, Any] | None) -> str:
    """The catalog release whose rules a scenario runs (core/registry/engines.py ``release``:
    a version between two documented ones takes the older one's), "" where it names none."""
    version = (scenario or {}).get("serving", {}).get("engine_version")
    if not version:
        return ""
    s = parse_scenario(scenario)
    return release(s.profile.releases, version).version


def _training_speeds() -> Iterator[Figure]:
    from tests.core.training_figures import load, predicted

    for name in (
        "speed-figures-training.json",
        "speed-figures-training-moe.json",
        "speed-figures-training-blackwell.json",
        "speed-figures-training-amd.json",
        "speed-figures-training-torchtitan.json",
    ):
        for rec in load(name):
            est, pub = predicted(rec)
            regime, case = _regime("speed", rec["scenario"])
            bound, gpu = rec.get("bound", ""), _gpu(rec["scenario"])
            yield Figure(f"{name[:-5]}:{rec['id']}", regime, est / pub, case, bound=bound, gpu=gpu)


def _vendors() -> Iterator[Figure]:
    """AMD, Apple (llama.cpp and MLX) and Intel: the published speeds of the vendor files
    (speed-figures-amd.json, -apple.json, -intel.json, replayed by
    tests/core/test_speed_figures_vendors.py) and MLX's "Peak memory" lines (mlx-memory.json,
    tests/core/test_mlx.py)."""
    from tests.core.test_mlx import REPLAYED
    from tests.core.test_speed_figures import speed_ratio
    from tests.core.test_speed_figures_vendors import ALL, RATIOS

    for name, r, e in ALL:
        ratio = speed_ratio(e, RATIOS[(name, r["id"], e["label"])])
        yield _served(f"speed-figures-{name}:{r['id']}:{e['label']}", e, ratio)
    for rec in REPLAYED:
        yield _memory(f"mlx-memory:{rec['id']}", rec["scenario"], rec["published_gb"] * 1e9)


def _served(key: str, entry: dict[str, Any], ratio: float) -> Figure:
    """A replayed serving speed in its scenario's regime, filed under its engine release."""
    regime, case = _regime("speed", entry["scenario"])
    release = entry["scenario"].get("serving", {}).get("engine_version") or ""
    return Figure(key, regime, ratio, case, release, gpu=_gpu(entry["scenario"]))


def _heldout() -> Iterator[Figure]:
    """Published serving speeds replayed blind, each joining its scenario's regime whatever its
    outcome: speed-figures-heldout.json (tests/core/test_speed_figures_heldout.py;
    docs/evidence/speed.md section 79); the second blind round, speed-figures-blind2.json
    (tests/core/test_speed_figures_blind2.py; docs/evidence/speed.md, the section on the second
    blind round of serving speeds), save a figure whose client reached the server through a cloud
    proxy (``client_path``: its first token times the proxy, no estimate); the third,
    speed-figures-blind3.json (tests/core/test_speed_figures_blind3.py; the section on the third
    blind round), those beyond 4x included (their ``beyond_4x`` says why they are kept); the
    fourth, speed-figures-blind4.json (tests/core/test_speed_figures_blind4.py; the section on the
    fourth blind round); the fifth, speed-figures-blind5.json (tests/core/test_speed_figures_blind5.py;
    the section on the fifth blind round); the sixth, speed-figures-blind6.json
    (tests/core/test_speed_figures_blind6.py; the section on the sixth blind round); the seventh,
    speed-figures-blind7.json (tests/core/test_speed_blind7.py; the section on the seventh blind
    round); the eighth, speed-figures-blind8.json (tests/core/test_speed_blind8.py; the section on
    the eighth blind round); the ninth, speed-figures-blind9.json (tests/core/test_speed_blind9.py;
    the section on the ninth blind round); the tenth, speed-figures-blind10.json
    (tests/core/test_speed_blind10.py; the section on the tenth blind round); the eleventh,
    speed-figures-blind11.json (tests/core/test_speed_blind11.py; the section on the eleventh
    blind round); the twelfth, speed-figures-blind12.json (tests/core/test_speed_blind12.py; the
    section on the twelfth blind round); SGLang's large-batch
    NVIDIA and MoE AMD figures,
    speed-sglang-regimes-blind.json
    (tests/core/test_speed_sglang_regimes.py; keyed speed-figures-sglang-regimes); mlx-lm's blind
    peaks and speeds (mlx-blind.json)."""
    from tests.core import (
        test_speed_blind7,
        test_speed_blind8,
        test_speed_blind9,
        test_speed_blind10,
        test_speed_blind11,
        test_speed_blind12,
        test_speed_figures_blind2,
        test_speed_figures_blind3,
        test_speed_figures_blind4,
        test_speed_figures_blind5,
        test_speed_figures_blind6,
        test_speed_figures_heldout,
        test_speed_sglang_regimes,
    )

    yield from _blind("heldout", test_speed_figures_heldout.SET)
    yield from _blind("blind2", test_speed_figures_blind2.SET, skip="client_path")
    yield from _blind("blind3", test_speed_figures_blind3.SET)
    yield from _blind("blind4", test_speed_figures_blind4.SET)
    yield from _blind("blind5", test_speed_figures_blind5.SET)
    yield from _blind("blind6", test_speed_figures_blind6.SET)
    yield from _blind("blind7", test_speed_blind7.SET)
    yield from _blind("blind8", test_speed_blind8.SET)
    yield from _blind("blind9", test_speed_blind9.SET)
    yield from _blind("blind10", test_speed_blind10.SET)
    yield from _blind("blind11", test_speed_blind11.SET)
    yield from _blind("blind12", test_speed_blind12.SET)
    yield from _blind("sglang-regimes", test_speed_sglang_regimes.SET)
    yield from _mlx_blind()


def _mlx_blind() -> Iterator[Figure]:
    """mlx-lm's printed peaks and speeds replayed blind (mlx-blind.json,
    tests/core/test_mlx_blind.py; docs/evidence/serving.md, the section on MLX blind), each in
    its scenario's regime whatever its outcome; a peak as its memory regime's figure."""
    from tests.core.test_mlx_blind import FIGURES, RATIOS
    from tests.core.test_speed_figures import speed_ratio

    for r, e in FIGURES:
        key = f"mlx-blind:{r['id']}:{e['label']}"
        if e["metric"] == "peak_memory_gb":
            yield _memory(key, e["scenario"], e["published"] * 1e9)
        else:
            yield _served(key, e, speed_ratio(e, RATIOS[(r["id"], e["label"])]))


def _blind(name: str, blind: Any, skip: str | None = None) -> Iterator[Figure]:
    """One blind set's figures (tests/core/blind_speeds.py ``BlindSpeeds``), keyed by its file
    speed-figures-``name``.json, less those whose entry states ``skip``."""
    from tests.core.test_speed_figures import speed_ratio

    for r, e in blind.figures:
        if skip is None or skip not in e:
            ratio = speed_ratio(e, blind.ratios[(r["id"], e["label"])])
            yield _served(f"speed-figures-{name}:{r['id']}:{e['label']}", e, ratio)


def _rl_steps() -> Iterator[tuple[str, dict[str, Any], float]]:
    """(key, scenario, published seconds) of each replayed RL step (docs/evidence/rl.md): NeMo RL's
    performance summary (tests/core/rl_figures.py FIGURES, OFF_POLICY; rl_figures_v05.py,
    rl_figures_v07.py), the v0.3
    blog's and issue #959's logged steps (PHASED, tests/core/rl_phase_logs.py LOGS), verl's
    GRPO-LoRA step lines (rl-memory.json), the other frameworks' steps (rl-time-others.json) and
    their issue threads' logged steps (rl-time-logs.json, tests/core/test_rl_time_logs.py) and
    verl's steps from public reports and logs, replayed blind (rl-time-blind3.json,
    tests/core/test_rl_blind_round3.py; rl-time-blind4.json, tests/core/test_rl_blind_round4.py;
    rl-time-blind5.json, tests/core/test_rl_blind_round5.py; rl-time-blind6.json's counted steps,
    tests/core/test_rl_blind6.py; rl-time-blind7.json's throughputs as the steps their tokens imply,
    tests/core/test_rl_blind7.py ``implied_step``; rl-time-blind8.json's steps,
    tests/core/test_rl_blind8.py; rl-time-blind9.json's steps, tests/core/test_rl_blind9.py;
    rl-time-blind10.json's steps, tests/core/test_rl_blind10.py; rl-time-blind11.json's steps,
    tests/core/test_rl_blind11.py; rl-time-blind12.json's steps, tests/core/test_rl_blind12.py).
    Whole steps only: the report's band is applied to the step and the run; a phase's timer is a
    part of the step (its error is a diagnostic of which phase the model misses, docs/evidence/rl.md
    2d, 2h, 6 and 7), and its ratio (a refit at 0.07-0.26 of its timer) says nothing of a step's."""
    from tests.core.rl_figures import FIGURES, OFF_POLICY, PHASED
    from tests.core.rl_figures_v05 import V05_OFF, V05_ON
    from tests.core.rl_figures_v07 import V07_OFF, V07_ON
    from tests.core.rl_phase_logs import LOGS, dtensor
    from tests.core.test_rl_blind6 import RECORDS as BLIND6
    from tests.core.test_rl_blind7 import RECORDS as BLIND7
    from tests.core.test_rl_blind7 import implied_step
    from tests.core.test_rl_blind8 import RECORDS as BLIND8
    from tests.core.test_rl_blind9 import RECORDS as BLIND9
    from tests.core.test_rl_blind10 import RECORDS as BLIND10
    from tests.core.test_rl_blind11 import RECORDS as BLIND11
    from tests.core.test_rl_blind12 import RECORDS as BLIND12
    from tests.core.test_rl_blind_round3 import RECORDS as BLIND3
    from tests.core.test_rl_blind_round4 import RECORDS as BLIND4
    from tests.core.test_rl_blind_round5 import RECORDS as BLIND5
    from tests.core.test_rl_memory_evidence import RECORDS as VERL
    from tests.core.test_rl_time_logs import RECORDS as LOGGED
    from tests.core.test_rl_time_others import RECORDS as OTHERS

    for f in (*FIGURES, *OFF_POLICY, *V05_ON, *V05_OFF, *V07_ON, *V07_OFF, *(f for f, _ in PHASED)):
        yield f"rl-steps:{f.name}", f.scenario(), f.measured
    for f, trainer, _ in LOGS:
        yield f"rl-phase-logs:{f.name}", dtensor(f) if trainer == "dtensor" else f.scenario(), f.measured
    for rec in VERL:
        yield f"rl-memory:{rec['id']}:step", rec["scenario"], rec["measured_step_seconds"]
    for rec in OTHERS:
        if "step" in rec["measured"]:
            yield f"rl-time-others:{rec['id']}:step", rec["scenario"], rec["measured"]["step"]
    for rec in LOGGED:
        yield f"rl-time-logs:{rec['id']}:step", rec["scenario"], rec["measured"]["step"]
    for rec in BLIND3:
        yield f"rl-time-blind3:{rec['id']}:step", rec["scenario"], rec["measured"]["step"]
    for rec in BLIND4:
        yield f"rl-time-blind4:{rec['id']}:step", rec["scenario"], rec["measured"]["step"]
    for rec in BLIND5:
        yield f"rl-time-blind5:{rec['id']}:step", rec["scenario"], rec["measured"]["step"]
    for rec in BLIND6:
        yield f"rl-time-blind6:{rec['id']}:step", rec["scenario"], rec["measured"]["step"]
    for rec in BLIND7:
        yield f"rl-time-blind7:{rec['id']}:step", rec["scenario"], implied_step(rec)
    for rec in BLIND8:
        yield f"rl-time-blind8:{rec['id']}:step", rec["scenario"], rec["measured"]["step"]
    for rec in BLIND9:
        yield f"rl-time-blind9:{rec['id']}:step", rec["scenario"], rec["measured"]["step"]
    for rec in BLIND10:
        yield f"rl-time-blind10:{rec['id']}:step", rec["scenario"], rec["measured"]["step"]
    for rec in BLIND11:
        yield f"rl-time-blind11:{rec['id']}:step", rec["scenario"], rec["measured"]["step"]
    for rec in BLIND12:
        yield f"rl-time-blind12:{rec['id']}:step", rec["scenario"], rec["measured"]["step"]


def _rl() -> Iterator[Figure]:
    """RL post-training: each step's speed ratio (published seconds / estimated seconds, the
    estimate's speed over the published speed like every time here) in
    ``speed/rl/colocated/<dense|moe>`` or ``speed/rl/split`` (core/evidence/regimes.py
    ``rl_speed_regime``), and verl's ``perf/max_memory_allocated_gb`` against the report's
    ``rl.max_memory_allocated_bytes`` in ``memory/rl`` (tests/core/test_rl_memory_evidence.py;
    rl-time-blind9.json's counters, tests/core/test_rl_blind9.py; rl-memory-blind.json's,
    tests/core/test_rl_memory_blind.py)."""
    from tests.core.test_rl_blind9 import RECORDS as BLIND9
    from tests.core.test_rl_memory_blind import RECORDS as MEMORY_BLIND
    from tests.core.test_rl_memory_evidence import RECORDS as VERL

    for key, scenario, seconds in _rl_steps():
        est = estimate_report(scenario, roofline=False)["rl"]["time_per_step_seconds"]
        regime, case = _regime("speed", scenario)
        yield Figure(key, regime, seconds / est, case, gpu=_gpu(scenario))
    counters = (
        *(("rl-memory", r) for r in VERL),
        *(("rl-time-blind9", r) for r in BLIND9),
        *(("rl-memory-blind", r) for r in MEMORY_BLIND),
    )
    for source, rec in counters:
        counted = estimate_report(rec["scenario"], roofline=False)["rl"]["max_memory_allocated_bytes"]
        regime, case = _regime("memory", rec["scenario"])
        yield Figure(f"{source}:{rec['id']}", regime, counted / (rec["measured_allocated_gib"] * 2**30), case)


def _disagg() -> Iterator[Figure]:
    """The published disaggregated (P/D) figures that the P/D test modules replay and count,
    figure for figure as scripts/disagg_figures.py lists them (its ``figures``: Mooncake, the
    measured P/D runs, vLLM PR 18242, llm-d's pages, the large-scale EP runs, Anyscale's MI325X,
    the five blind P/D rounds, tests/core/test_disagg_blind.py to test_disagg_blind5.py, and
    TKE's H20 grid; docs/evidence/serving.md), each in ``speed/disagg/<metric>`` by its metric
    (a first token, a time per token, a request's whole time and a throughput each
    come from a different step of the P/D model: the prefill pool, the decode pool, both, the
    pools' tokens/s). A time's ratio is published / ours, a throughput's ours / published: the
    estimate's speed over the published speed like every speed here. No GPU nor case is kept:
    the P/D regimes speak for the P/D pools' ranges only (core/evidence/derived.py), never for
    a scenario's confidence or GPU coverage."""
    from disagg_figures import figures as pd_figures

    for f in pd_figures():
        speed = f.metric == "throughput"
        ratio = f.ours / f.published if speed else f.published / f.ours
        key = f"disagg:{f.group}:{f.source}:{f.row}:{f.metric}"
        yield Figure(key, f"speed/{DISAGG}/{f.metric.lower()}", ratio)


def figures() -> list[Figure]:
    """Every replayed figure with its regime and ratio, the ratio rounded to the 4 decimals the
    file states its band edges in: below that, ratios differ by how a log rounds what it prints,
    not by the model (llama.cpp prints its buffers to 0.01 MiB: 12,603.015625 MiB is logged
    12603.02, a ratio 0.9999997 that a band edge at 0.9999999 would count as outside)."""
    out: list[Figure] = []
    for source in (
        _engine_logs,
        _trainer_tables,
        _training_peaks,
        _measured,
        _serving_speeds,
        _training_speeds,
        _vendors,
        _heldout,
        _rl,
        _disagg,
    ):
        out.extend(replace(f, ratio=round(f.ratio, RATIO_DECIMALS)) for f in source())
    return out


def _hash_order(group: list[Figure]) -> list[Figure]:
    return sorted(group, key=lambda f: hashlib.sha256(f.key.encode()).hexdigest())


def folds(group: list[Figure]) -> dict[int, int]:
    """Each figure's fifth (0-4), by the figure's identity (two figures of one record may share
    a key): the regime's figures in the order of their keys' sha-256, every
    fifth from the first, so that every regime is checked out of sample on its share (a hash
    modulo 5 over all figures left some regimes with none held out and others with a quarter).
    Fifth 0 is held out of the shipped band; a pool's fifth k is its regimes' fifths k."""
    return {id(f): i % 5 for i, f in enumerate(_hash_order(group))}


def _edges(pool: list[Figure], fold: dict[int, int], k: int) -> tuple[float, float]:
    return band_edges(sorted(f.ratio for f in pool if fold[id(f)] != k))


def cross_validated(group: list[Figure], pool: list[Figure], fold: dict[int, int]) -> int:
    """How many of the regime's figures fall inside the band built without their fifth, each
    fifth held out in turn (5-fold cross-validation of the construction: every figure is checked
    once out of sample, where one held-out fifth of a small regime is a few figures whose count
    says more about chance than about the band). ``pool``: the figures the band is built from
    (the regime's own, or its parent's where it is pooled)."""
    inside = 0
    for k in range(5):
        lo, hi = _edges(pool, fold, k)
        inside += sum(lo <= f.ratio <= hi for f in group if fold[id(f)] == k)
    return inside


def _band_fields(pool: list[Figure], fold: dict[int, int]) -> dict[str, float]:
    """p10, p90, median and width of the band built from a pool's four fifths not held out; the
    width is the band's span over its median ratio."""
    fit = sorted(f.ratio for f in pool if fold[id(f)])
    lo, hi = (round(x, RATIO_DECIMALS) for x in band_edges(fit))
    mid = round(percentile(fit, 0.5), RATIO_DECIMALS)
    return {"p10": lo, "p90": hi, "median": mid, "median_width": round((hi - lo) / mid, 4)}


def regime_entry(
    group: list[Figure], fold: dict[int, int], pool: list[Figure] | None = None
) -> dict[str, Any]:
    """One regime's count, held-out count and band (from the four fifths not held out of
    ``pool``: its own figures, or its parent's for a regime too small for its own band)."""
    test = [f.ratio for f in group if fold[id(f)] == 0]
    entry: dict[str, Any] = {"figures": len(group), "held_out": len(test)}
    cases = sorted({f.case for f in group if f.case})
    if cases:
        entry["measured"] = cases
    gpus = sorted({f.gpu for f in group if f.gpu})
    if gpus:
        entry["gpus"] = gpus  # the catalog GPUs its figures ran on (speed regimes)
    oldest = min((f.release for f in group if f.release), key=release_key, default=None)
    if oldest:
        entry["oldest_release"] = oldest
    if len(group) < MIN_FIGURES:
        return entry
    entry.update(_band_fields(pool or group, fold))
    entry.update(
        held_out_within=sum(entry["p10"] <= r <= entry["p90"] for r in test),
        cross_validated_within=cross_validated(group, pool or group, fold),
    )
    return entry


def _pool(regime: str, groups: dict[str, list[Figure]]) -> tuple[str, list[Figure]] | None:
    """The nearest parent (core/evidence/regimes.py ``pool_chain``) with enough figures for its
    own band, and its figures; None for a regime with enough of its own."""
    if len(groups[regime]) >= OWN_BAND_MIN:
        return None
    for parent in pool_chain(regime):
        members = [f for k, g in groups.items() if in_pool(k, parent) for f in g]
        if len(members) >= OWN_BAND_MIN:
            return parent, members
    raise ValueError(f"no pool of {regime} holds {OWN_BAND_MIN} figures")


def _bounds(bounds: list[Figure]) -> dict[str, int]:
    """How many of a regime's figures are bounds (not counted in its figures or band), and how
    many of them the estimate keeps to (at most an upper bound, at least a lower one)."""
    held = sum(f.ratio <= 1 if f.bound == "upper" else f.ratio >= 1 for f in bounds)
    return {"bounds": len(bounds), "bounds_held": held} if bounds else {}


def generate() -> dict[str, Any]:
    """The file's content."""
    groups: dict[str, list[Figure]] = {}
    bounds: dict[str, list[Figure]] = {}
    for f in figures():
        (bounds if f.bound else groups).setdefault(f.regime, []).append(f)
    fold = {k: v for g in groups.values() for k, v in folds(g).items()}
    regimes, pools = {}, {}
    for k in sorted(groups):
        pooled = _pool(k, groups) if len(groups[k]) >= MIN_FIGURES else None
        if pooled is None:
            regimes[k] = {**regime_entry(groups[k], fold), **_bounds(bounds.get(k, []))}
            continue
        parent, members = pooled
        regimes[k] = {**regime_entry(groups[k], fold, members), "pooled_from": parent}
        regimes[k].update(_bounds(bounds.get(k, [])))
        gpus = sorted({f.gpu for f in members if f.gpu})
        pools[parent] = {
            "figures": len(members),
            **_band_fields(members, fold),
            **({"gpus": gpus} if gpus else {}),
        }
    return {
        "description": __doc__.split("\n\n")[0].replace("\n", " "),
        "min_figures": MIN_FIGURES,
        "own_band_min": OWN_BAND_MIN,
        "regimes": regimes,
        "pools": dict(sorted(pools.items())),
    }


def table(data: dict[str, Any]) -> str:
    """The README's table (``--table``): per regime its figures, band and median width."""
    rows = [
        "| regime | figures | held out (inside the band) | each fifth held out in turn (inside, share) "
        "| band (estimate / published) | width |"
    ]
    rows.append("|---|---:|---:|---:|---|---:|")
    for k, e in data["regimes"].items():
        if "p10" in e:
            inside = f"{e['held_out']} ({e['held_out_within']})"
            share = 100 * e["cross_validated_within"] // e["figures"]  # rounded down: never overstated
            cv = f"{e['figures']} ({e['cross_validated_within']}, {share} %)"
            # a band narrower than the table's 0.01 steps keeps a third decimal, not "1.00-1.00, 0 %"
            d = 3 if e["p90"] - e["p10"] < 0.01 else 2
            band = f"{e['p10']:.{d}f}-{e['p90']:.{d}f}"
            width = f"{100 * e['median_width']:.{d - 2}f} %"
            if "pooled_from" in e:
                pool = e["pooled_from"]
                band += f" (band of `{pool}`: {data['pools'][pool]['figures']} figures)"
        else:
            inside, cv = str(e["held_out"]), "-"
            band, width = f"fewer than {data['min_figures']} figures", "-"
        n = f"{e['figures']} (+ {e['bounds']} bound, not counted)" if e.get("bounds") else e["figures"]
        rows.append(f"| `{k}` | {n} | {inside} | {cv} | {band} | {width} |")
    return "\n".join(rows)


def main(argv: list[str]) -> int:
    if "--table" in argv:
        print(table(json.loads(Path(str(BANDS_PATH)).read_text())))
        return 0
    text = json.dumps(generate(), indent=1) + "\n"
    path = Path(str(BANDS_PATH))
    if "--check" in argv:
        return 0 if path.read_text() == text else 1
    path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
