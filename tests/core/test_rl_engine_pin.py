"""A framework release's rollout engine pin (``rl.rollout.engine_version`` filled from
``rl.framework`` / ``rl.framework_version``; core/registry/rl_framework_releases.py ``vllm_pin``)
and the NeMo RL replays stating the release each tag ran (tests/core/rl_figures.py
``NEMO_RL_VLLM``; docs/evidence/rl.md, the pinned releases' section)."""

from __future__ import annotations

import copy
from typing import Any

from gpusizer import estimate_report
from gpusizer.core.pipeline.scenario import parse_scenario, scenario_dict
from gpusizer.core.registry.engines import release
from gpusizer.core.registry.frameworks import FRAMEWORKS
from gpusizer.core.registry.rl_frameworks import RL_FRAMEWORKS

from .rl_figures import FIGURES, NEMO_RL_VLLM, OFF_POLICY, PHASED
from .rl_figures_v05 import V05_OFF, V05_ON
from .rl_figures_v07 import V07_OFF, V07_ON
from .rl_phase_logs import LOGS

BASE: dict[str, Any] = {
    "model": {"preset": "qwen2.5-0.5b"},
    "workload": {"kind": "rl"},
    "hardware": {"gpu": "h100-sxm-80gb"},
}
NEMO_RL = [*FIGURES, *OFF_POLICY, *V05_ON, *V05_OFF, *V07_ON, *V07_OFF, *(f for f, _ in PHASED)]
NEMO_RL += [f for f, _, _ in LOGS]


def _rl(**rl: Any) -> dict[str, Any]:
    return {**copy.deepcopy(BASE), "rl": rl}


def test_the_pin_fills_the_rollout_release_and_the_report_lists_it() -> None:
    # NeMo RL v0.6.0 pyproject.toml: vllm==0.17.1; 0.17.1 is not modelled: 0.11.1's rules
    rep = estimate_report(_rl(framework="nemo_rl", framework_version="0.6.0"))
    assert rep["scenario"]["rl"]["rollout"]["engine_version"] == "0.17.1"
    assert rep["rl"]["framework"]["defaults"]["rl.rollout.engine_version"] == "0.17.1"
    note = next(a for a in rep["assumptions"] if a.startswith("NeMo RL 0.6.0 defaults"))
    assert "rl.rollout.engine_version 0.17.1" in note


def test_an_explicit_release_wins() -> None:
    rep = estimate_report(
        _rl(framework="nemo_rl", framework_version="0.6.0", rollout={"engine_version": "0.20.0"})
    )
    assert rep["scenario"]["rl"]["rollout"]["engine_version"] == "0.20.0"
    assert "rl.rollout.engine_version" in rep["rl"]["framework"]["as_set"]


def test_a_vllm_pin_is_no_default_of_an_sglang_rollout() -> None:
    s = parse_scenario(_rl(framework="nemo_rl", framework_version="0.6.0", rollout={"engine": "sglang"}))
    assert s.rl is not None and s.rl.rollout.engine_version is None
    rep = estimate_report(_rl(framework="nemo_rl", rollout={"engine": "sglang"}))
    fw = rep["rl"]["framework"]
    assert (
        "rl.rollout.engine_version" not in fw["defaults"] and "rl.rollout.engine_version" not in fw["as_set"]
    )


def test_verl_pins_no_release() -> None:
    # verl setup.py's vllm extra is a range at every tag (vllm<=0.8.2 at v0.3.0.post1 ...
    # vllm>=0.18.0 at v0.9.0), its requirements.txt's line commented out: nothing filled
    for rel in RL_FRAMEWORKS["verl"].releases:
        assert all(d.path != "rollout.engine_version" for d in rel.defaults), rel.version


def test_each_nemo_rl_pin_lands_on_a_modelled_vllm_release() -> None:
    # 0.9.0 and 0.20.0 are modelled; 0.10.0 takes 0.9.2's rules (the row that splits 0.9.1's
    # where the chat route stops parsing the template per request, chat_template_parse.py; the
    # rollouts, with no API server, answer as on 0.9.1), 0.11.2 and 0.17.1 0.11.1's
    # (core/registry/engines.py ``release``: the newest modelled not newer)
    vllm = FRAMEWORKS["vllm"].releases
    landed = {
        r.version: release(vllm, str(r.value("rollout.engine_version"))).version
        for r in RL_FRAMEWORKS["nemo_rl"].releases
    }
    assert landed == {
        "0.3.1": "0.9.0",
        "0.4.0": "0.9.2",
        "0.5.0": "0.11.1",
        "0.6.0": "0.11.1",
        "0.7.0": "0.20.0",
    }


def test_an_unmodelled_pin_is_said_in_the_rollouts_notes() -> None:
    # the rollout engine's own line, as a serving estimate words it
    from gpusizer.core.pipeline.rl_roles import per_replica, rollout_scenario

    s = parse_scenario(_rl(framework="nemo_rl", framework_version="0.4.0"))
    rs = rollout_scenario(s, per_replica(s))
    rep = estimate_report(scenario_dict(rs))
    assert any(
        a.startswith("vLLM 0.10.0: the defaults of release 0.9.2 (2025-07)") for a in rep["assumptions"]
    )


def test_every_nemo_rl_replay_states_its_tags_pin() -> None:
    # each replay runs the vLLM its table's tag pins, the same the framework's release fills
    fw = RL_FRAMEWORKS["nemo_rl"]
    tags = {"v0.3": "0.3.1", "v0.4": "0.4.0", "v0.5": "0.5.0", "v0.6": "0.6.0", "v0.7": "0.7.0"}
    assert {t: fw.release(v).value("rollout.engine_version") for t, v in tags.items()} == NEMO_RL_VLLM
    assert len(NEMO_RL) == 79
    for f in NEMO_RL:
        assert f.scenario()["rl"]["rollout"]["engine_version"] == f.engine_version, f.name
        assert f.engine_version == NEMO_RL_VLLM["v0.3" if f.name.startswith("#959") else f.name[:4]], f.name
