"""llama.cpp's routed experts in host RAM (``serving.cpu_moe_layers``: ``--n-cpu-moe N``,
``--cpu-moe``; core/serving/cpu_moe.py, docs/evidence/serving.md §73).

Sources: llama.cpp ``common/arg.cpp`` (``--n-cpu-moe N``: ``blk.i.ffn_(up|down|gate)_exps``
= CPU for ``i < N``), ``ggml/src/ggml-cuda/ggml-cuda.cu`` (``offload_op``: a batch of 32 rows or
more runs on the GPU, the weight copied first), and the expected share ``1 - (1 - k/E)^T`` of
experts ``T`` tokens route to."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError

PCIE5 = 64e9 * 0.7  # RTX 5090 PCIe 5.0 x16 per direction, at the offload path's 70 % (core/serving/load.py)
HOST = 80e9  # the default host bandwidth: dual-channel DDR5-5000 (core/serving/engine_settings.py)


def _s(serving: dict[str, Any], **over: Any) -> dict[str, Any]:
    s: dict[str, Any] = {
        "model": {"preset": "qwen3-30b-a3b"},
        "framework": "llama.cpp",
        "precision": {"weights": "gguf_q4_k_m"},
        "hardware": {"gpu": "rtx-5090-32gb"},
        "workload": {"kind": "inference", "prompt_tokens": 512, "generated_tokens": 256, "batch_size": 1},
        "serving": {"max_context": 8192, **serving},
    }
    s.update(over)
    return s


def _run(serving: dict[str, Any], **over: Any) -> dict[str, Any]:
    return estimate_report(_s(serving, **over))


@pytest.fixture(scope="module")
def base() -> dict[str, Any]:
    return _run({})


@pytest.fixture(scope="module")
def all_cpu() -> dict[str, Any]:
    return _run({"cpu_moe_layers": "all"})


def test_experts_move_from_gpu_to_host(base: dict[str, Any], all_cpu: dict[str, Any]) -> None:
    # the bytes leave the GPU's weights and join the host buffer, one for one (load_tensors:
    # the override's buffer type takes the tensor; the rest of the layer stays on the GPU)
    gone = base["per_gpu"]["weights"] - all_cpu["per_gpu"]["weights"]
    added = all_cpu["serving"]["host_memory_bytes"] - base["serving"]["host_memory_bytes"]
    assert gone == pytest.approx(added, rel=1e-9)
    # Qwen3-30B-A3B's routed experts are ~96 % of its 30.5B weights: 16-17.5 GB at Q4_K_M
    assert 16e9 < gone < 17.6e9
    assert all_cpu["serving"]["gpu_layers"] == base["serving"]["gpu_layers"]  # -ngl unchanged
    assert any("routed experts of 48 layers in RAM" in a for a in all_cpu["assumptions"])


def test_first_n_layers_only(base: dict[str, Any], all_cpu: dict[str, Any]) -> None:
    # --n-cpu-moe 24 keeps the experts of blocks 0..23: half of the 48 MoE blocks
    half = _run({"cpu_moe_layers": 24})
    whole = base["per_gpu"]["weights"] - all_cpu["per_gpu"]["weights"]
    assert base["per_gpu"]["weights"] - half["per_gpu"]["weights"] == pytest.approx(whole / 2, rel=1e-9)
    # N past the layer count is every layer (the regex loop stops at n_layer)
    assert _run({"cpu_moe_layers": 500})["per_gpu"] == all_cpu["per_gpu"]


def test_prompt_batch_copies_experts_over_pcie(base: dict[str, Any], all_cpu: dict[str, Any]) -> None:
    # a 512-token prompt is one n_ubatch: ggml-cuda offloads the CPU-held MUL_MAT_ID (>= 32
    # tokens), copying every layer's experts over PCIe once; TTFT grows by that copy
    moved = all_cpu["serving"]["host_memory_bytes"] - base["serving"]["host_memory_bytes"]
    extra = all_cpu["serving"]["ttft_seconds"] - base["serving"]["ttft_seconds"]
    assert extra == pytest.approx(moved / PCIE5, rel=0.02)


def test_short_prompt_copies_only_the_experts_it_routes_to(base: dict[str, Any]) -> None:
    # ggml-backend.cpp copies "only the experts that are used": 40 tokens route to
    # 1 - (15/16)^40 = 92.4 % of Qwen3-30B-A3B's experts (8 of 128 each), 512 to all but 4e-15
    work = {"kind": "inference", "prompt_tokens": 40, "generated_tokens": 256, "batch_size": 1}
    short, short_all = _run({}, workload=work), _run({"cpu_moe_layers": "all"}, workload=work)
    moved = short_all["serving"]["host_memory_bytes"] - short["serving"]["host_memory_bytes"]
    extra = short_all["serving"]["ttft_seconds"] - short["serving"]["ttft_seconds"]
    assert extra == pytest.approx(moved * (1 - (15 / 16) ** 40) / PCIE5, rel=0.02)


def test_decode_reads_routed_experts_at_host_bandwidth(all_cpu: dict[str, Any]) -> None:
    # one token reads k/E = 8/128 of each layer's experts on the CPU: doubling the host's
    # bandwidth saves half of that read (bytes x k/E / bandwidth)
    fast = _run({"cpu_moe_layers": "all", "host_bandwidth_gb_per_s": 160})
    moved = all_cpu["serving"]["host_memory_bytes"] - _run({})["serving"]["host_memory_bytes"]
    read = moved * 8 / 128
    saved = all_cpu["serving"]["tpot_seconds"] - fast["serving"]["tpot_seconds"]
    assert saved == pytest.approx(read / HOST - read / 160e9, rel=0.02)


def test_decode_reads_only_the_routed_share(base: dict[str, Any], all_cpu: dict[str, Any]) -> None:
    # whole layers in RAM (-ngl) read every byte each step; experts in RAM only k/E of them:
    # the step costs at most the routed read more than on the GPU alone
    moved = all_cpu["serving"]["host_memory_bytes"] - base["serving"]["host_memory_bytes"]
    extra = all_cpu["serving"]["tpot_seconds"] - base["serving"]["tpot_seconds"]
    assert 0 < extra <= moved * 8 / 128 / HOST


def test_more_users_touch_more_experts() -> None:
    # four sequences route 4 x 8 picks: 1 - (1 - 1/16)^4 = 22.8 % of the experts per step,
    # not 4 x 6.25 %: the step is slower than one user's but under four times the read
    one = _run({"cpu_moe_layers": "all"})
    work = {"kind": "inference", "prompt_tokens": 512, "generated_tokens": 256, "batch_size": 4}
    four = _run({"cpu_moe_layers": "all", "max_sequences": 4}, workload=work)
    t1, t4 = one["serving"]["tpot_seconds"], four["serving"]["tpot_seconds"]
    assert t1 < t4 < 4 * t1


def test_zero_is_the_scenario_without_the_field(base: dict[str, Any]) -> None:
    # byte-identical: --n-cpu-moe 0 keeps every expert where -ngl puts it
    zero = _run({"cpu_moe_layers": 0})
    for key in ("per_gpu", "serving", "host_memory_bytes", "assumptions"):
        assert zero[key] == base[key]


def test_gpt_oss_120b_on_a_5090_fits_with_experts_in_ram() -> None:
    # the common 2025-26 local deployment (llama.cpp discussion #15396; "--n-cpu-moe 36 ...
    # everything else on the GPU, about 8GB" at -c 0): all 36 layers on a 32 GB card
    s = _s({"cpu_moe_layers": "all", "gpu_layers": 37}, model={"preset": "gpt-oss-120b"})
    s["precision"] = {"weights": "mxfp4"}
    r = estimate_report(s)
    assert r["serving"]["starts"] and r["per_gpu"]["weights"] < 4e9
    assert r["serving"]["host_memory_bytes"] > 55 * 2**30  # ~61 GB of MXFP4 experts


BAD = [
    ({"framework": "vllm", "precision": {"weights": "bf16"}}, {"cpu_moe_layers": 4}, "llama.cpp / Ollama"),
    ({"model": {"preset": "llama-3.1-8b"}}, {"cpu_moe_layers": 4}, "no routed experts"),
    ({}, {"cpu_moe_layers": -1}, ""),
    ({}, {"cpu_moe_layers": "ALL"}, '"all"'),
    ({}, {"cpu_moe_layers": "4"}, ""),
    ({}, {"cpu_moe_layers": True}, ""),
    ({}, {"cpu_moe_layers": 2.5}, ""),
    ({}, {"cpu_moe_layers": 10**9}, ""),
    ({}, {"cpu_moe_layers": [4]}, ""),
]


@pytest.mark.parametrize(("over", "serving", "says"), BAD)
def test_hostile_input_names_the_field(over: dict[str, Any], serving: dict[str, Any], says: str) -> None:
    s = _s(copy.deepcopy(serving), **over)
    with pytest.raises(ScenarioError) as err:
        estimate_report(s)
    assert err.value.field == "serving.cpu_moe_layers" and "\n" not in str(err.value)
    assert says in str(err.value)


def test_cli_exits_2_with_one_line(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    # bad input: one line naming the field, exit code 2; the stated field exits 0
    from gpusizer.cli import main

    path = tmp_path / "s.gpusizer.json"
    path.write_text(json.dumps(_s({"cpu_moe_layers": "every"})), encoding="utf-8")
    assert main(["estimate", str(path), "--json"]) == 2
    err = capsys.readouterr().err.strip()
    assert "serving.cpu_moe_layers" in err and '"all"' in err and "\n" not in err
    path.write_text(json.dumps(_s({"cpu_moe_layers": "all"})), encoding="utf-8")
    assert main(["estimate", str(path), "--json"]) == 0
