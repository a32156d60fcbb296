"""``rl.framework`` / ``rl.framework_version``: each release's defaults as read at its tag, an
explicit knob winning, the release picked as the serving engines' are, and the published
replays stated as a framework giving the knob replays' answer (docs/scenario-format.md
"RL frameworks"; core/registry/rl_framework_releases.py names each file and tag)."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.cli import main
from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline import scenario as scenario_module
from gpusizer.core.pipeline.scenario import clear_cache, parse_scenario
from gpusizer.core.registry.rl_framework_releases import RLDefault, RLRelease
from gpusizer.core.registry.rl_frameworks import RL_FRAMEWORKS, RLFramework, register
from gpusizer.core.registry.table import DuplicateId

from .rl_figures import FIGURES
from .rl_figures_v07 import V07_ON

BASE: dict[str, Any] = {
    "model": {"preset": "qwen2.5-0.5b"},
    "workload": {"kind": "rl"},
    "hardware": {"gpu": "h100-sxm-80gb"},
}

TAG = re.compile(r"\(v\d+\.\d+\.\d+(\.post\d+)?\)$")  # the tag read, at the source's end
FILE = re.compile(r"/|\b(setup\.py|pyproject\.toml)\b")  # a path, or the repository's own setup file
# (framework, version asked, knob under rl, value): each read at the tag named beside it
DEFAULTS = [
    # NeMo RL v0.3.1 examples/configs/grpo_math_1B.yaml: vllm_cfg.gpu_memory_utilization 0.6,
    # enforce_eager False, async_engine false; nemo_rl/models/generation/vllm.py logprobs=0
    ("nemo_rl", "0.3.1", "rollout.memory_fraction", 0.6),
    ("nemo_rl", "0.3.1", "rollout.cuda_graphs", True),
    ("nemo_rl", "0.3.1", "rollout.copies_logprobs", True),
    ("nemo_rl", "0.3.1", "rollout.returns_logprobs", True),
    ("nemo_rl", "0.3.1", "sync_transport", None),  # no packed_broadcast_producer at v0.3.1
    ("nemo_rl", "0.3.1", "offload_memory", "pageable"),  # megatron_policy_worker.py v.to("cpu")
    ("nemo_rl", "0.3.1", "reference.offload", True),  # use_reference_model swaps it in
    # v0.4.0 vllm_worker.py: skip_tokenizer_init=False forced for vllm 0.10.0
    ("nemo_rl", "0.4.0", "rollout.detokenize_in_step", True),
    ("nemo_rl", "0.4.0", "sync_transport", "collective"),  # packed_broadcast_producer
    ("nemo_rl", "0.4.0", "policy.fp32_logprobs", True),  # defer_fp32_logits False
    ("nemo_rl", "0.4.0", "policy.moe_permute_fusion", False),
    ("nemo_rl", "0.4.0", "policy.expert_routing", "router"),  # load balancing "none", router frozen
    ("nemo_rl", "0.7.0", "rollout.sleep_level", 1),  # vllm_worker.py self.llm.sleep(level=1)
    # v0.5.0: skip_tokenizer_init from the config again; bias_activation_fusion True
    ("nemo_rl", "0.5.0", "rollout.detokenize_in_step", False),
    ("nemo_rl", "0.5.0", "policy.bias_activation_fusion", True),
    # v0.6.0: v0.5.0's knobs (and its own vLLM pin); v0.7.0 grpo_math_1B.yaml moe_permute_fusion true,
    # force_on_policy_ratio false (the policy's prev_logprobs forward runs)
    ("nemo_rl", "0.6.0", "policy.moe_permute_fusion", False),
    ("nemo_rl", "0.7.0", "policy.moe_permute_fusion", True),
    ("nemo_rl", "0.7.0", "policy.old_logprobs", True),
    # verl v0.3.0.post1 ppo_trainer.yaml: gpu_memory_utilization 0.5, enforce_eager True,
    # max_num_seqs 1024, max_num_batched_tokens 8192, use_remove_padding False, param_offload and
    # optimizer_offload False; fsdp_workers.py forward_prefetch=False
    ("verl", "0.3.0", "rollout.memory_fraction", 0.5),
    ("verl", "0.3.0", "rollout.cuda_graphs", False),
    ("verl", "0.3.0", "rollout.max_sequences", 1024),
    ("verl", "0.3.0", "rollout.max_batched_tokens", 8192),
    ("verl", "0.3.0", "policy.sequence_packing", False),
    ("verl", "0.3.0", "offload_states", False),
    ("verl", "0.3.0", "policy.offload_per_call", True),
    ("verl", "0.3.0", "policy.prefetch_gathers", False),
    ("verl", "0.3.0", "policy.micro_batch_unit", "response"),
    ("verl", "0.3.0", "broadcast_per_tensor", False),  # no split recipe yet: the field's default
    # v0.5.0 recipe/one_step_off_policy: collective.broadcast tensor by tensor
    ("verl", "0.5.0", "broadcast_per_tensor", True),
    # v0.6.0 rollout.yaml enforce_eager False; third_party/vllm VLLM_SLEEP_LEVEL 2 (vllm >= 0.8.5)
    ("verl", "0.6.0", "rollout.cuda_graphs", True),
    ("verl", "0.6.0", "rollout.sleep_level", 2),
    # v0.7.0 model/hf_model.yaml use_remove_padding True
    ("verl", "0.7.0", "policy.sequence_packing", True),
    # actor.use_dynamic_bsz False at every tag (ppo_trainer.yaml v0.3.0.post1-v0.4.1,
    # actor/actor.yaml v0.5.0-v0.7.0): dp_actor.py splits micro-batches of whole responses
    ("verl", "0.3.0", "policy.balanced_micro_batches", False),
    ("verl", "0.7.0", "policy.balanced_micro_batches", False),
    # OpenRLHF v0.7.0 train_ppo_ray.py: --vllm_gpu_memory_utilization 0.95, --packing_samples
    # False, --deepspeed_enable_sleep False; ppo_actor.py broadcasts parameter by parameter
    ("openrlhf", "0.7.0", "rollout.memory_fraction", 0.95),
    ("openrlhf", "0.7.0", "policy.sequence_packing", False),
    ("openrlhf", "0.7.0", "offload_states", False),
    ("openrlhf", "0.7.0", "broadcast_per_tensor", True),
    # --micro_train_batch_size samples a micro-batch; --use_dynamic_batch (v0.9.0 on) default False
    ("openrlhf", "0.7.0", "policy.balanced_micro_batches", False),
    ("openrlhf", "0.11.0", "policy.balanced_micro_batches", False),
    # NeMo RL packs rows of train_mb_tokens (micro_batch_unit "row"): the field's default, unread
    ("nemo_rl", "0.7.0", "policy.balanced_micro_batches", True),
    # the vLLM each tag installs: NeMo RL pyproject.toml's vllm extra and uv.lock (v0.3.1 vllm==0.9.0,
    # v0.4.0 0.10.0, v0.5.0 0.11.2, v0.6.0 0.17.1, v0.7.0 the 0.20.0 wheel); OpenRLHF setup.py
    # extras_require "vllm" (v0.7.0 vllm==0.8.3, v0.8.5 0.9.1, v0.11.0 0.27.1); a tag between two
    # keeps the older's (OpenRLHF v0.9.2: v0.9.1's 0.13.0). verl pins none (setup.py's vllm extra
    # is a range, vllm<=0.8.2 at v0.3.0.post1 to vllm>=0.18.0 at v0.9.0): the field's null
    ("nemo_rl", "0.3.1", "rollout.engine_version", "0.9.0"),
    ("nemo_rl", "0.4.0", "rollout.engine_version", "0.10.0"),
    ("nemo_rl", "0.5.0", "rollout.engine_version", "0.11.2"),
    ("nemo_rl", "0.6.0", "rollout.engine_version", "0.17.1"),
    ("nemo_rl", "0.7.0", "rollout.engine_version", "0.20.0"),
    ("openrlhf", "0.7.0", "rollout.engine_version", "0.8.3"),
    ("openrlhf", "0.8.5", "rollout.engine_version", "0.9.1"),
    ("openrlhf", "0.9.2", "rollout.engine_version", "0.13.0"),
    ("openrlhf", "0.11.0", "rollout.engine_version", "0.27.1"),
    ("verl", "0.7.0", "rollout.engine_version", None),
    # env.math.num_workers in grpo_math_1B.yaml (v0.3.1 through v0.7.0); verl prices none
    ("nemo_rl", "0.3.1", "reward.verify_workers", 8),
    ("nemo_rl", "0.7.0", "reward.verify_workers", 8),
    ("verl", "0.6.0", "reward.verify_workers", None),
]


def _get(obj: Any, path: str) -> Any:
    for part in path.split("."):
        obj = obj[part] if isinstance(obj, dict) else getattr(obj, part)
    return obj


def _with(s: dict[str, Any], **rl: Any) -> dict[str, Any]:
    out = copy.deepcopy(s)
    out["rl"] = {**out.get("rl", {}), **rl}
    return out


@pytest.mark.parametrize(("fw", "version", "path", "value"), DEFAULTS)
def test_each_release_default_as_read_at_its_tag(fw: str, version: str, path: str, value: object) -> None:
    s = parse_scenario(_with(BASE, framework=fw, framework_version=version))
    assert _get(s.rl, path) == value


def test_every_default_names_its_file_and_tag() -> None:
    for fw in RL_FRAMEWORKS.values():
        for rel in fw.releases:
            for d in rel.defaults:
                assert TAG.search(d.source) and FILE.search(d.source), (fw.id, rel.version, d.path)


def test_an_explicit_knob_wins_and_the_report_says_so() -> None:
    s = _with(BASE, framework="verl", framework_version="0.6.0")
    s["rl"]["rollout"] = {"memory_fraction": 0.3}
    rep = estimate_report(s)
    assert rep["scenario"]["rl"]["rollout"]["memory_fraction"] == 0.3
    fw = rep["rl"]["framework"]
    assert fw["release"] == "0.6.0" and fw["as_set"] == ["rl.rollout.memory_fraction"]
    assert fw["defaults"]["rl.rollout.cuda_graphs"] is True
    note = next(a for a in rep["assumptions"] if a.startswith("verl 0.6.0 defaults"))
    assert "rl.rollout.sleep_level 2" in note and note.endswith("as set: rl.rollout.memory_fraction")


def test_a_version_between_two_takes_the_older_and_says_so() -> None:
    # (0.6.0, its own release since it carries its vLLM pin, stood here before)
    rep = estimate_report(_with(BASE, framework="nemo_rl", framework_version="0.5.1"))
    assert rep["rl"]["framework"]["release"] == "0.5.0"
    assert any(
        a.startswith("NeMo RL 0.5.1: the defaults of release 0.5.0 (2026-01)") for a in rep["assumptions"]
    )
    # null: the newest modelled release
    assert estimate_report(_with(BASE, framework="nemo_rl"))["rl"]["framework"]["release"] == "0.7.0"


@pytest.mark.parametrize(
    ("rl", "field"),
    [
        ({"framework": "nemo"}, "rl.framework"),
        ({"framework": 3}, "rl.framework"),
        ({"framework": "verl", "framework_version": "0.1"}, "rl.framework_version"),
        ({"framework": "verl", "framework_version": "new"}, "rl.framework_version"),
        ({"framework_version": "0.6.0"}, "rl.framework_version"),
    ],
)
def test_bad_framework_or_version_names_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rl: dict[str, Any], field: str
) -> None:
    with pytest.raises(ScenarioError) as err:
        parse_scenario(_with(BASE, **rl))
    assert err.value.field == field
    assert "nemo_rl" in err.value.message or "0.3.0" in err.value.message  # the allowed values
    path = tmp_path / "s.json"
    path.write_text(json.dumps(_with(BASE, **rl)), encoding="utf-8")
    assert main(["estimate", str(path)]) == 2
    out = capsys.readouterr()
    assert out.out == "" and len(out.err.strip().splitlines()) == 1 and field in out.err


def test_the_registry_refuses_a_taken_id_or_a_version_twice() -> None:
    rel = RLRelease("1.0", "2026-01", (RLDefault("steps", 1, "x (v1.0)"),))
    with pytest.raises(DuplicateId):
        register(RLFramework("verl", "verl again", (rel,)))
    with pytest.raises(DuplicateId):
        register(RLFramework("new_rl", "New RL", (rel, rel)))
    assert "new_rl" not in RL_FRAMEWORKS


def _replays() -> list[dict[str, Any]]:
    """A few published RL replays as knobs: NeMo RL v0.6 and v0.7 rows, a verl GRPO-LoRA log."""
    return [FIGURES[2].scenario(), V07_ON[4].scenario(), _verl_knobs()]


def _verl_knobs() -> dict[str, Any]:
    """The verl GRPO-LoRA 0.5B log as knobs alone: its record without ``rl.framework`` (which it
    states since verl's default micro-batches came from the release) and the ranks' wait set by
    hand as the release fills it."""
    records = json.loads((Path(__file__).parent / "data" / "rl-memory.json").read_text(encoding="utf-8"))
    out = copy.deepcopy(records[0]["scenario"])
    del out["rl"]["framework"], out["rl"]["framework_version"]
    out["rl"]["policy"]["balanced_micro_batches"] = False
    return out


def test_unset_framework_answers_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """rl.framework null fills nothing: each replay's report is the one it gives with the fill
    taken out of validation and with the field left out, with no ``framework`` block and no
    framework line (the figures were also compared with the pre-change code's dumps of five RL
    replays: byte-identical but the echo's two new null fields)."""
    reports = [estimate_report(_with(s, framework=None)) for s in _replays()]
    assert reports == [estimate_report(s) for s in _replays()]
    clear_cache()
    monkeypatch.setattr(scenario_module, "fill_rl_framework", lambda data: data)
    try:
        assert reports == [estimate_report(s) for s in _replays()]
    finally:
        clear_cache()
    for rep in reports:
        assert "framework" not in rep["rl"]
        assert (
            rep["scenario"]["rl"]["framework"] is None and rep["scenario"]["rl"]["framework_version"] is None
        )
        labels = tuple(f"{fw.label} " for fw in RL_FRAMEWORKS.values())
        assert not any(a.startswith(labels) for a in rep["assumptions"])


def _stated_as(knobs: dict[str, Any], fw: str, version: str) -> tuple[dict[str, Any], list[str]]:
    """The knob replay with every knob at the release's default taken out and the framework
    named instead: (scenario, the paths taken out)."""
    s = copy.deepcopy(knobs)
    rel = RL_FRAMEWORKS[fw].release(version)
    gone = []
    for d in rel.defaults:
        *blocks, leaf = d.path.split(".")
        blk = s["rl"]
        for b in blocks:
            blk = blk.get(b, {})
        if leaf in blk and blk[leaf] == d.value:
            del blk[leaf]
            gone.append(d.path)
    s["rl"].update(framework=fw, framework_version=version)
    return s, gone


def _answer(rep: dict[str, Any]) -> dict[str, Any]:
    """The figures: the ``rl`` block but its ``framework`` and the per-GPU memory."""
    return {"rl": {k: v for k, v in rep["rl"].items() if k != "framework"}, "per_gpu": rep["per_gpu"]}


def _echo_changes(stated: dict[str, Any], knobs: dict[str, Any]) -> set[str]:
    """Knobs (under ``rl``) the two echoes state differently: those the framework filled where
    the knob replay left the field's own default."""
    a, b = stated["scenario"]["rl"], knobs["scenario"]["rl"]

    def flat(d: dict[str, Any], pre: str = "") -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in d.items():
            out.update(flat(v, f"{pre}{k}.") if isinstance(v, dict) else {f"{pre}{k}": v})
        return out

    fa, fb = flat(a), flat(b)
    return {k for k in fa if fa[k] != fb.get(k)} - {"framework", "framework_version"}


def test_nemo_rl_replay_stated_as_the_framework() -> None:
    # the v0.6 Qwen3-30B-A3B row (docs/evidence/rl.md; tests/core/rl_figures.py), NeMo RL 0.6.0
    knobs = next(f for f in FIGURES if f.name == "v0.6 Qwen3-30B-A3B, 32 H100").scenario()
    stated, gone = _stated_as(knobs, "nemo_rl", "0.6.0")
    # memory fraction, log-prob copies, FP32 log-probs, pageable..., the vLLM pin (9 before the
    # replays stated it), the refit gather "shard" (10 before the release set it: rl.md section 43),
    # the math environment's 8 verify workers (11 before: core/pipeline/rl_verify.py), the unfused
    # gradient accumulation (12 before: rl.md section 108)
    assert len(gone) == 13, gone
    rep, base = estimate_report(stated), estimate_report(knobs)
    assert _answer(rep) == _answer(base)
    # filled where the replay left the field's default, with no effect here: the collective
    # refit (colocated: no refit over the network) and CUDA graphs (the vLLM release's default)
    assert _echo_changes(rep, base) == {"sync_transport", "rollout.cuda_graphs"}


def test_verl_replay_stated_as_the_framework() -> None:
    # verl main_ppo of June 2025 (v0.4.x: release 0.3.0's rules), the GRPO-LoRA 0.5B log
    knobs = _verl_knobs()
    stated, gone = _stated_as(knobs, "verl", "0.4.0")
    assert {"rollout.cuda_graphs", "policy.offload_per_call", "policy.micro_batch_unit"} <= set(gone)
    assert "policy.balanced_micro_batches" in gone
    rep = estimate_report(stated)
    assert rep["rl"]["framework"]["release"] == "0.3.0"
    # the script's own settings stay the user's: gpu_memory_utilization 0.1, max_num_seqs 512...
    assert "rl.rollout.memory_fraction" in rep["rl"]["framework"]["as_set"]
    base = estimate_report(knobs)
    # filled where the knob replay left the field's default: the reference's copies per
    # micro-batch, with no effect here (a LoRA policy's reference is its own base:
    # core/pipeline/rl_reference_copy.py), and the Hugging Face layers' host ops
    # (core/speed/train_host_hf.py), the answer the knob set by hand gives
    changes = {"reference.offload_per_forward", "policy.hf_layer_ops"}
    assert _echo_changes(rep, base) == changes
    by_hand = copy.deepcopy(knobs)
    by_hand["rl"]["policy"]["hf_layer_ops"] = "hf-fsdp1"
    assert _answer(rep) == _answer(estimate_report(by_hand))


def test_openrlhf_stated_as_the_framework() -> None:
    # no published OpenRLHF step is replayed: its defaults against the same knobs set by hand
    knobs = _with(
        BASE,
        offload_states=False,
        broadcast_per_tensor=True,
        policy={"sequence_packing": False, "balanced_micro_batches": False},
        rollout={"memory_fraction": 0.95, "cuda_graphs": True, "engine_version": "0.22.1"},
    )
    stated, gone = _stated_as(knobs, "openrlhf", "0.10.5")
    assert len(gone) == 7  # 5 before its vLLM pins were read, 6 before its micro-batches
    rep, base = estimate_report(stated), estimate_report(knobs)
    assert _answer(rep) == _answer(base) and _echo_changes(rep, base) == set()
    # 0.10.5: the newest modelled not newer (0.7.0's knobs, 0.10.4's vllm==0.22.1)
    assert rep["rl"]["framework"]["release"] == "0.10.4"


def test_the_echo_loads_back_the_same_answer() -> None:
    # the echo states every knob the release filled; loaded back, they read as its defaults
    s = _with(BASE, framework="nemo_rl", framework_version="0.6.0", rollout={"memory_fraction": 0.8})
    rep = estimate_report(s)
    again = estimate_report(rep["scenario"])
    assert again["rl"] == rep["rl"] and again["assumptions"] == rep["assumptions"]
    assert rep["rl"]["framework"]["as_set"] == ["rl.rollout.memory_fraction"]
