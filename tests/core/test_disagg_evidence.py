"""Disaggregated prefill and decode beside NVIDIA aiconfigurator's published answers for the
same setup (tests/core/data/serving-features.json ``disaggregated_aiconfigurator``;
docs/evidence/serving.md §14): Qwen3-32B in FP8 on H200, 4,000-token prompts, 500 out.

Both express: the aggregated TP4 replica at a batch, the decode worker's speed per user (TP4,
alone), the prefill worker's first token (TP1, one request) and the disaggregated replica's
tokens/s per GPU (4 TP1 prefill workers and one TP4 decode worker). aiconfigurator's TTFT of
the aggregated rows and of the disaggregated replica under load are not compared: its
disaggregated TTFT is the prefill worker's at batch 1 with no queue (276.76 ms in every row,
its prefill pool sized to the decode rate), ours the Poisson queue in front of the prefill
pool (core/serving/disaggregated.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report

DATA = json.loads((Path(__file__).parent / "data" / "serving-features.json").read_text())
AIC = DATA["disaggregated_aiconfigurator"]
TOL = 0.25  # the bar


def _scenario(tp: int, users: int, output: int, split: dict[str, Any] | None = None) -> dict[str, Any]:
    setup = AIC["setup"]
    d: dict[str, Any] = {
        "model": {"preset": setup["model"]},
        "framework": setup["framework"],
        "hardware": {"gpu": setup["gpu"]},
        "parallelism": {"tensor": tp},
        "precision": {"weights": setup["weights"], "kv_cache": setup["kv_cache"]},
        "workload": {
            "kind": "inference",
            "prompt_tokens": setup["prompt"],
            "generated_tokens": output,
            "batch_size": users,
        },
        "serving": {"concurrency": users, "load": "steady"},
    }
    if split:
        d["serving"]["disaggregated"] = split
    return d


def _rows(kind: str) -> list[dict[str, Any]]:
    return [r for r in AIC["rows"] if r["kind"] == kind]


@pytest.mark.parametrize("row", _rows("agg"), ids=lambda r: r["id"])
def test_aggregated_replica(row: dict[str, Any]) -> None:
    """One TP4 replica at the batch: tokens/s per user and per GPU (ours +5 to +15 %)."""
    sv = estimate_report(_scenario(4, row["users"], AIC["setup"]["output"]))["serving"]
    assert sv["tokens_per_second_per_user"] == pytest.approx(row["tokens_per_second_per_user"], rel=TOL)
    assert sv["tokens_per_second"] / 4 == pytest.approx(row["tokens_per_second_per_gpu"], rel=TOL)


@pytest.mark.parametrize("row", _rows("disagg"), ids=lambda r: r["id"])
def test_disaggregated_replica(row: dict[str, Any]) -> None:
    """4 TP1 prefill workers and one TP4 decode worker (8 GPUs): the decode worker's speed per
    user and the replica's tokens/s per GPU."""
    split = {"prefill_gpus": 4, "decode_gpus": 4, "prefill_tensor": 1}
    sv = estimate_report(_scenario(4, row["users"], AIC["setup"]["output"], split))["serving"]
    per_user = 1 / sv["disaggregated_tpot_seconds"]
    assert per_user == pytest.approx(row["tokens_per_second_per_user"], rel=TOL)
    assert sv["disaggregated_tokens_per_second"] / 8 == pytest.approx(
        row["tokens_per_second_per_gpu"], rel=TOL
    )


@pytest.mark.parametrize("row", _rows("prefill"), ids=lambda r: r["id"])
def test_prefill_worker_first_token(row: dict[str, Any]) -> None:
    """The TP1 prefill worker's first token of one 4,000-token prompt (ours with
    trtllm-serve's per-request cost)."""
    sv = estimate_report(_scenario(1, 1, 1))["serving"]
    assert sv["ttft_seconds"] * 1e3 == pytest.approx(row["ttft_ms"], rel=TOL)


SINGLE = DATA["disaggregated_single_request"]
# Prompt lengths whose first token is within 25 % (docs/evidence/serving.md §14): the
# SGLang run's flat ~125 ms up to 1K tokens misses (since the H20's own grouped-GEMM shares,
# core/speed/rates_gpu.py, ours is flat there too, 77-83 ms: the P/D path's fixed cost is not
# modelled; the 1K row had been within only through the H100's half-rate point). The vLLM
# run's path through toy_proxy_server.py (core/registry/pd_connectors.py ``vllm-mooncake``)
# adds the decode server's chat route, 40.0 ms on GPUStack's host for a release that does not
# parse the chat template on every request (0.11.2 here; 0.11.0's 46.9 less its parse,
# core/registry/chat_template_parse.py), where Mooncake's host runs both servers and the whole
# request in 46 ms at 128 tokens: its 128-2,048-token rows miss by that host's cost; the
# 4,096-token row, +30 % at 46.9 ms a server, is within since the parse left (+19 %)
# (docs/evidence/serving.md, the sections on the P/D request path and the chat template parse)
WITHIN = {
    "mooncake-sglang-h20-qwen3-235b": {2048, 4096, 8192, 16384, 32768},
    "mooncake-vllm-h800-qwen3-8b": {4096, 8192, 16384, 32768},
}
# An H800 is an H100 SXM whose NVLink runs at 400 GB/s both ways (NVIDIA's export part)
H800 = {"interconnect_gb_per_s": 200, "id": "h800-sxm-80gb", "name": "H800 80GB"}


def _gpu(name: str) -> str | dict[str, Any]:
    if name != "h800":
        return name
    base = json.loads(
        (Path(__file__).parents[2] / "src/gpusizer/presets/gpus/h100-sxm-80gb.json").read_text()
    )
    keys = (
        "vendor",
        "compute_capability",
        "category",
        "memory_bytes",
        "usable_memory_bytes",
        "hbm_bandwidth_gb_per_s",
        "dense_tflops",
        "interconnect_kind",
        "gpus_per_node",
        "network_gb_per_s",
    )
    return {**{k: base[k] for k in keys}, **H800}


def _single(src: dict[str, Any], prompt: int, **serving: Any) -> dict[str, Any]:
    """One request at a time (--max-concurrency 1) through a 1P1D split of TP 8 pools;
    ``serving``: fields set over the run's (scripts/disagg_ttft_terms.py: ``api_server``)."""
    tp = src["tensor"]
    split = {"prefill_gpus": tp, "decode_gpus": tp, "link_gb_per_s": src["link_gb_per_s"]}
    if src.get("connector"):
        split["connector"] = src["connector"]
    d: dict[str, Any] = {
        "model": {"preset": src["model"]},
        "framework": src["framework"],
        "hardware": {"gpu": _gpu(src["gpu"])},
        "parallelism": {"tensor": tp},
        "workload": {
            "kind": "inference",
            "prompt_tokens": prompt,
            "generated_tokens": src["output"],
            "batch_size": 1,
        },
        "serving": {"concurrency": 1, "load": "steady", "max_context": 40960, "disaggregated": split},
    }
    if src.get("engine_version"):
        d["serving"]["engine_version"] = src["engine_version"]
    d["serving"].update(serving)
    return dict(estimate_report(d)["serving"])


def _cases() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(src, row) for src in SINGLE for row in src["rows"]]


@pytest.mark.parametrize(("src", "row"), _cases(), ids=lambda x: str(x.get("prompt", x.get("id"))))
def test_single_request_split(src: dict[str, Any], row: dict[str, Any]) -> None:
    """Mooncake's measured 1P1D runs, one request at a time: the KV moved (18 of 18 within
    11 %: vLLM moves whole 16-token blocks, one more than the stated prompt below 2K), the first
    token (9 of 18 within 25 %: SGLang's 128-1,024 tokens miss by the P/D path's fixed cost;
    vLLM's 128-2,048 since its proxy's second API server is priced at another host's chat-route
    cost (``WITHIN``); the 8,192-token vLLM row since prompts pay their
    tokenising, 1.03 us a token; SGLang's 16K and 32K since the H20's own kernel shares,
    core/speed/rates_gpu.py; vLLM's 16K and 32K, 0.74 before, since its prefill chunks'
    all-reduces of 8 MiB and more go to NCCL, core/registry/all_reduce.py) and the transfer
    (ours the link alone, below every measured one: the transfer engine's fixed cost per
    request, 0.4-1.8 ms, is not modelled)."""
    sv = _single(src, row["prompt"])
    unit = 2**20 if src["kv_unit"] == "MiB" else 1
    assert sv["disaggregated_kv_transfer_bytes"] / unit == pytest.approx(row["kv"], rel=0.11)
    ttft = sv["disaggregated_ttft_seconds"] * 1e3
    inside = row["prompt"] in WITHIN[src["id"]]
    assert (ttft == pytest.approx(row["ttft_ms"], rel=TOL)) is inside, (ttft, row, src["notes"])
    assert sv["disaggregated_kv_transfer_seconds"] * 1e3 < row["transfer_ms"]


def test_sglang_short_prompts_miss_by_one_serial_offset() -> None:
    """Mooncake's SGLang 1P1D on H20 (Qwen3-235B, TP 8), one request at a time: from 128 to
    8,192 tokens the published first token exceeds ours by 32-56 ms at every length, while our
    prefill goes from launch-bound (1,226 kernels x 55 us) to GPU-bound (~0.54 s). A host cost
    overlapped with the GPU would vanish once the GPU work exceeds it; this offset does not, so
    it is serial with the forward: a fixed cost of SGLang's P/D request path (or a sync the
    eager forward waits on) that no source read places (docs/evidence/serving.md §16). Not
    modelled, no constant fitted; pinned so that a model of it updates the evidence."""
    src = next(s for s in SINGLE if s["framework"] == "sglang")
    gaps = []
    for row in src["rows"]:
        if row["prompt"] > 8192:
            continue
        ttft = _single(src, row["prompt"])["disaggregated_ttft_seconds"] * 1e3
        gaps.append(row["ttft_ms"] - ttft)
    assert len(gaps) == 7
    assert min(gaps) > 30 and max(gaps) < 60, gaps


def test_lone_request_does_not_queue() -> None:
    """A user has one request outstanding at most: with no more users than prefill replicas
    the first token is one prompt alone plus its transfer (no Poisson queue)."""
    src = SINGLE[0]
    sv = _single(src, 8192)
    d = estimate_report(
        {
            "model": {"preset": src["model"]},
            "framework": src["framework"],
            "hardware": {"gpu": src["gpu"]},
            "parallelism": {"tensor": 8},
            "workload": {
                "kind": "inference",
                "prompt_tokens": 8192,
                "generated_tokens": 128,
                "batch_size": 1,
            },
            "serving": {"concurrency": 1, "load": "steady", "max_context": 40960},
        }
    )["serving"]
    lone = sv["disaggregated_ttft_seconds"] - sv["disaggregated_kv_transfer_seconds"]
    assert lone == pytest.approx(d["ttft_seconds"], rel=0.05)


def _open_loop(row: dict[str, Any]) -> dict[str, Any]:
    """A run sent at a stated rate with its count of requests, open loop as sent
    (``serving.load: "rate"``, core/serving/disagg_rate.py; Poisson gaps, the benchmark
    clients' default: SGLang ``bench_serving``, llm-d's inference-perf); else the closed loop
    at the row's users."""
    if row.get("requests") is None:
        return {}
    return {"load": "rate", "request_rate": row["rate"], "requests": row["requests"]}


def _measured(row: dict[str, Any]) -> dict[str, Any]:
    d: dict[str, Any] = {
        "model": {"preset": row["model"]},
        "framework": row["framework"],
        "hardware": {"gpu": row["gpu"]},
        "parallelism": {"tensor": row["tensor"]},
        "workload": {
            "kind": "inference",
            "prompt_tokens": row["prompt"],
            "generated_tokens": row["output"],
            "batch_size": row["users"],
        },
        "serving": {
            "concurrency": row["users"],
            "load": "steady",
            "disaggregated": row["split"],
            **row.get("serving", {}),
            **_open_loop(row),
        },
    }
    if row.get("weights"):
        d["precision"] = {
            "weights": row["weights"],
            **({"kv_cache": row["kv_cache"]} if row.get("kv_cache") else {}),
        }
    return dict(estimate_report(d)["serving"])


@pytest.mark.parametrize("row", DATA["disaggregated_regular"], ids=lambda r: r["id"])
def test_regular_instances_decode_short_too(row: dict[str, Any]) -> None:
    """The same runs' aggregated ('2 Regular') instances, replayed open loop at half the rate
    each under SGLang 0.4.5 (the PR's date): ours decodes faster than measured there too, by
    far at TP 4 (ITL -46 %), so the A10 split's TP 4 ITL miss is the base decode step's, not
    the split's; TP 2 -3 % (was -24 %) since its ~27-request decode batches run eager, above
    the 8 that SGLang 0.4.x captures as CUDA graphs below 25,000 MB at TP < 4
    (docs/evidence/serving.md §21). First token: TP 4 +8 %; TP 2 +93 % (SGLang ran each new
    prompt at once, its P99 ITL 295 ms; ours batches it with the running decodes)."""
    d: dict[str, Any] = {
        "model": {"preset": row["model"]},
        "framework": row["framework"],
        "hardware": {"gpu": row["gpu"]},
        "parallelism": {"tensor": row["tensor"]},
        "precision": {"weights": row["weights"]},
        "workload": {
            "kind": "inference",
            "prompt_tokens": row["prompt"],
            "generated_tokens": row["output"],
            "batch_size": row["requests"],
        },
        "serving": {
            "concurrency": row["requests"],
            "load": "rate",
            "request_rate": row["rate"],
            "requests": row["requests"],
            "engine_version": row["engine_version"],
        },
    }
    sv = estimate_report(d)["serving"]
    wide = row["tensor"] == 4
    itl, ttft = sv["tpot_seconds"] * 1e3, sv["ttft_seconds"] * 1e3
    assert itl < row["published_itl_ms"], row["source"]
    assert (itl == pytest.approx(row["published_itl_ms"], rel=TOL)) is not wide
    assert (ttft == pytest.approx(row["published_ttft_ms"], rel=TOL)) is wide


MEASURED = DATA["disaggregated_measured"]
# the known-short runs whose time per token is within 25 % of the published one
ITL_WITHIN = {"sglang-4880-a10-1p1d"}


def published_tpot(row: dict[str, Any]) -> float:
    """The run's published time per output token (ms), the quantity ours'
    ``disaggregated_tpot_seconds`` is: ``published_tpot_ms`` where the record derives it from
    the page's own means (the SGLang A10 pages, whose 'Mean ITL' is a mean over streamed chunks:
    ``published_tpot_from``), else ``published_itl_ms``, which for every other run is the
    client's per-request (latency - TTFT) / (output - 1) (genai-perf, or derived so by the
    record); docs/evidence/serving.md, the section on which quantity each P/D figure compares."""
    return float(row.get("published_tpot_ms", row["published_itl_ms"]))


def test_derived_tpot_is_the_pages_own_means() -> None:
    """The SGLang A10 pages (Mooncake docs/source/performance/sglang/
    sglang-benchmark-results-v1.md, stored version 41cbeeb6): every request 512 tokens, so the
    mean of bench_serving's per-request (latency - ttft) / (output_len - 1) is (mean E2E - mean
    TTFT) / 511: 5.25 ms at TP 4 (printed mean ITL 7.23) and 20.37 at TP 2 (17.06), to the
    page's 0.01 ms."""
    derived = [r for r in MEASURED if "published_tpot_ms" in r]
    assert {r["id"] for r in derived} == {"sglang-4880-a10-1p1d", "sglang-mooncake-a10-1p1d-tp2-rate4"}
    for row in derived:
        tpot = (row["published_e2e_ms"] - row["published_ttft_ms"]) / (row["output"] - 1)
        assert row["published_tpot_ms"] == pytest.approx(tpot, abs=0.005), row["id"]
        assert row["published_tpot_ms"] != pytest.approx(row["published_itl_ms"], rel=0.1)


# the known-short runs whose first token is within 25 %: Dynamo's prefill workers pull from one
# queue (``prefill_queue: "shared"``, core/serving/disagg_pull.py): 1,344 ms against 1,385.48
# (-3 %; +36 % while ours split its 32 users' requests among the four workers at random)
TTFT_WITHIN = {"dynamo-402-vllm-r1-distill-llama-70b-fp8-h100-4p1-1d4"}


@pytest.mark.parametrize("row", [r for r in MEASURED if not r.get("within")], ids=lambda r: r["id"])
def test_measured_split_known_short(row: dict[str, Any]) -> None:
    """Measured P/D runs (docs/evidence/serving.md §14, §21): ours starts later and decodes
    faster. Two A10 servers under SGLang 0.4.5, 1P1D, open loop as sent (1 request/s of 50
    prompts, 4/s of 200: core/serving/disagg_rate.py): TTFT +220 % at TP 4, +316 % at TP 2 (the
    one prefill server past its capacity at 4/s, its queue growing through the run), time per
    token -6 %, -28 % against the pages' own (mean E2E - mean TTFT) / 511 (``published_tpot``;
    -32 %, -14 % against their per-chunk mean ITL, compared before the metric was read); ITL
    (closed loop at 3 and 27 Little's-law users before the split read the rate: +124 %, +39 %,
    -32 %, -14 %; TP 2 within 25 % since its 27-request decode batches run eager, above
    SGLang 0.4.x's 8 captured graph sizes at TP < 4 on a GPU below 25,000 MB; the same runs'
    aggregated TP 4 instance decodes faster in ours too; +144 %, +46 %, -40 %, -17 % before the
    0.4.5 decode server's host step, 0.613 ms serial without the overlap scheduler,
    core/registry/pd_decode_host.py). NVIDIA's Dynamo example of ai-dynamo/
    dynamo issue 402 (one 8 x H100 node, DeepSeek-R1-Distill-Llama-70B FP8, four TP 1 prefill
    workers and one TP 4 decode worker, 32 users, 3,000 in / 150 out, vLLM 0.7.2 V0 with
    Dynamo's remote-prefill patch): TTFT 1,344 ms against 1,385.48 (-3 %, its four prefill
    workers pulling from one queue, TTFT_WITHIN; +37 % before), ITL 14.21 ms
    against 19.42 (-27 %), the decode faster as in TKE's Dynamo grid (docs/evidence/serving.md,
    the section on Dynamo's single-node example). Pinned so that a model closing either gap
    updates the evidence."""
    sv = _measured(row)
    ttft = sv["disaggregated_ttft_seconds"] * 1e3
    if row["id"] in TTFT_WITHIN:
        assert ttft == pytest.approx(row["published_ttft_ms"], rel=TOL), ttft
    else:
        assert ttft > row["published_ttft_ms"], row["source"]
    itl = sv["disaggregated_tpot_seconds"] * 1e3
    assert itl < published_tpot(row), row["source"]
    inside = row["id"] in ITL_WITHIN
    assert (itl == pytest.approx(published_tpot(row), rel=TOL)) is inside, itl


@pytest.mark.parametrize("row", [r for r in MEASURED if r.get("within")], ids=lambda r: r["id"])
def test_measured_split_within(row: dict[str, Any]) -> None:
    """NVIDIA's triton_distributed P/D of Llama 3.1 70B FP8 on two 8 x H100 nodes (four TP 2
    prefill workers, one TP 8 decode worker, 48 closed-loop users, 3,000 in / 150 out; vLLM V0
    with --disable-async-output-proc): TTFT 1,198 ms against 1,157.49 (+3 %), ITL 14.18 ms
    against 15.94 (-11 %), tolerance the issue's 25 %. Without the serial output processing
    (vllm RFC #6913's 0.0968 ms + 0.1032 ms a sequence a step) the decode step runs at 9.13 ms
    (-43 %) and the users' faster cycle queues the prefill pool to 1,572 ms (+36 %).

    llm-d's gpt-oss-120b on two 8 x H200 nodes (vLLM 0.27.1, 8 TP 1 prefills, 2 TP 4 decoders,
    5,400 requests at 45/s as sent, 5,000 in / 250 out): TTFT 455 ms against 518 (-12 %), ITL
    6.99 ms against 7.38 (-5 %) (closed loop at 104 Little's-law users before the split read
    the rate: 514 ms, 8.21 ms), with the experts at the measured times of vLLM's OpenAI Triton MXFP4
    module (core/speed/moe_measured.py; test_llmd_runs_on_the_triton_module)."""
    sv = _measured(row)
    assert sv["disaggregated_ttft_seconds"] * 1e3 == pytest.approx(row["published_ttft_ms"], rel=TOL)
    assert sv["disaggregated_tpot_seconds"] * 1e3 == pytest.approx(row["published_itl_ms"], rel=TOL)
    if row["serving"].get("async_output") is not False:
        return
    eager = {**row, "serving": {**row["serving"], "async_output": None}}
    fast = _measured(eager)
    assert fast["disaggregated_tpot_seconds"] < 0.75 * sv["disaggregated_tpot_seconds"]


@pytest.mark.parametrize("row", DATA["disaggregated_baseline"], ids=lambda r: r["id"])
def test_same_source_aggregated_baseline(row: dict[str, Any]) -> None:
    """The same page's aggregated baseline (one TP 4 worker, 4 closed-loop users): ITL 12.55 ms
    against 15.27 (-18 %, within 25 %); TTFT 385 ms against 709.25 (-46 %): its requests come
    through triton_distributed's own API server and NATS request plane, whose cost is not
    published (ours vLLM's chat route, 46.9 ms). Pinned so that a model of that path updates
    the evidence."""
    sv = _measured({**row, "split": None})
    assert sv["tpot_seconds"] * 1e3 == pytest.approx(row["published_itl_ms"], rel=TOL)
    assert sv["ttft_seconds"] * 1e3 < (1 - TOL) * row["published_ttft_ms"], row["source"]


GRID = json.loads((Path(__file__).parent / "data" / "disagg-dstack-grid.json").read_text())


def _grid_run(run: list[float]) -> tuple[float, float]:
    """Our TTFT and TPOT (ms) of one dstack run: x TP 2 prefill workers and y TP 2 decode
    workers serving ``concurrency`` closed-loop users, the run's mean output per request."""
    x, y, users, isl, _, out = (int(v) for v in run[:6])
    split = {"prefill_gpus": 2 * x, "decode_gpus": 2 * y}
    d: dict[str, Any] = {
        "model": {"preset": GRID["model"]},
        "framework": GRID["framework"],
        "hardware": {"gpu": GRID["gpu"]},
        "parallelism": {"tensor": GRID["tensor"]},
        "workload": {"kind": "inference", "prompt_tokens": isl, "generated_tokens": out, "batch_size": users},
        "serving": {
            "concurrency": users,
            "load": "steady",
            "engine_version": GRID["engine_version"],
            "api_endpoint": "completions",
            "disaggregated": split,
        },
    }
    sv = estimate_report(d)["serving"]
    return sv["disaggregated_ttft_seconds"] * 1e3, sv["disaggregated_tpot_seconds"] * 1e3


def test_dstack_grid_known_short() -> None:
    """dstack's 27 SGLang P/D runs of gpt-oss-120b on one 8 x H200 node (3P1D, 2P2D, 1P3D of
    TP 2 workers; 32-128 users; 2048/2048, 128/2048, 2048/128 tokens): 27 of 54 figures within
    25 % (TTFT 1 of 27, TPOT 26 of 27, 0.77-1.54 of the measured), since SGLang's triton_kernel
    MoE runner takes the measured time of OpenAI's Triton MXFP4 module (core/speed/
    moe_measured.py; before, 4 of 54: every TPOT 5-48 % below the measured) and its custom
    all-reduce its measured times (core/speed/allreduce_measured.py: TP 2's 60-740 KB messages
    4.6-10.1 us against 8.2-10.0 at alpha + bytes / beta; before, 26 of 54, TPOT 0.80-1.58);
    the TPOT miss is the 2048/128 run of 3P1D at 128 users (1.54). The first tokens of short prompts miss most
    (ours 37-45 ms where SGLang's P/D path reads 100-130 ms at 32 users and 0.4-1.1 s at 128,
    the decode server's wait not modelled). Pinned so that a model closing either gap updates
    docs/evidence/serving.md §14 and §24."""
    within = 0
    for run in GRID["runs"]:
        ttft, tpot = _grid_run(run)
        assert 0.76 < tpot / run[7] < 1.6, run
        within += abs(ttft / run[6] - 1) <= TOL
        within += abs(tpot / run[7] - 1) <= TOL
    assert within == 27


def test_dstack_grid_beside_aiconfigurator() -> None:
    """aiconfigurator 0.12.0 on the same 27 runs (its SGLang 0.5.14 tables, prefill at batch 1
    without a queue): 5 of 54 within 25 % (TTFT 5, TPOT 0: its decode steps +38 to +212 %).
    Ours 27 (TPOT 26 of 27) with SGLang's MXFP4 experts at the measured Triton module's times
    (4 before, every TPOT below the measured); every TPOT of ours below aiconfigurator's."""
    theirs = 0
    for run in GRID["runs"]:
        _, tpot = _grid_run(run)
        aic_ttft, aic_tpot = run[9], run[10]
        theirs += abs(aic_ttft / run[6] - 1) <= TOL
        theirs += abs(aic_tpot / run[7] - 1) <= TOL
        assert run[7] < aic_tpot and tpot < aic_tpot, run
    assert theirs == 5


def test_triton_distributed_beside_aiconfigurator() -> None:
    """aiconfigurator 0.12.0 (its vLLM 0.24.0 tables) on triton_distributed's run: P/D TTFT
    521.7 ms (-55 %: the prefill worker at batch 1, no queue), TPOT 11.68 ms (-27 %);
    aggregated TP 4 at 4 users 289.1 ms (-59 %) and 15.44 ms (+1 %). Ours +3 % / -11 % and
    -46 % / -18 %."""
    row = next(r for r in MEASURED if r["id"].startswith("triton-distributed"))
    aic = row["aiconfigurator"]
    assert aic["ttft_ms"] < (1 - TOL) * row["published_ttft_ms"]
    assert aic["tpot_ms"] < (1 - TOL) * row["published_itl_ms"]
    base = DATA["disaggregated_baseline"][0]
    assert base["aiconfigurator"]["tpot_ms"] == pytest.approx(base["published_itl_ms"], rel=TOL)
