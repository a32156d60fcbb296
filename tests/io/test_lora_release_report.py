"""The report's assumptions say the release or names that change a MoE's expert adapters
(core/memory/lora_expert_report.py), and say nothing new where no such field is set."""

from __future__ import annotations

from typing import Any

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.io.report import report_facts

ALL = ["q", "k", "v", "o", "gate", "up", "down"]


def _assumptions(framework: str, preset: str, kind: str = "qlora", **w: Any) -> tuple[str, ...]:
    sc = {
        "framework": framework,
        "model": {"preset": preset},
        "workload": {"kind": kind, "lora_rank": 8, "lora_targets": ALL, **w},
    }
    return report_facts(estimate(sc)).assumptions


def test_unsloth_release_line() -> None:
    assert not any("Unsloth 2026" in a for a in _assumptions("unsloth", "gpt-oss-20b"))
    line = [
        a for a in _assumptions("unsloth", "gpt-oss-20b", unsloth_version="2026.7.2") if "Unsloth 2026" in a
    ]
    assert line == ["Unsloth 2026.7.2: expert adapters on every per-expert Linear4bit of every MoE layer"]
    # before PR #6936 a 4-bit base gets no expert adapter: the release changes nothing, no line
    assert not any(
        "Unsloth 2026" in a for a in _assumptions("unsloth", "gpt-oss-20b", unsloth_version="2026.7.1")
    )
    lora = _assumptions("unsloth", "gpt-oss-20b", "lora", unsloth_version="2026.2.1")
    assert any("3-D expert parameters" in a for a in lora)


def test_transformers_and_target_parameters_lines() -> None:
    fused = _assumptions("huggingface", "qwen3-30b-a3b", "lora", transformers_version="5.1.0")
    assert any(a.startswith("transformers 5.1.0: routed experts fused") for a in fused)
    assert not any(a.startswith("transformers") for a in _assumptions("huggingface", "qwen3-30b-a3b", "lora"))
    named = _assumptions(
        "huggingface", "gpt-oss-20b", "lora", lora_target_parameters=["7.mlp.experts.down_proj"]
    )
    assert any("expert target_parameters 7.mlp.experts.down_proj" in a for a in named)
