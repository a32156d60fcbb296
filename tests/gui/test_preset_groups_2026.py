"""The window's preset tree groups the 2026 presets under their makers (gui/panels/preset_tree.py
``group_title``): Kimi K2.5, whose config.json names DeepSeek-V3's architecture (family
``deepseek_v3``), under Kimi; MiniMax, ERNIE, Granite and Hunyuan as their makers spell them."""

from __future__ import annotations

from gpusizer.core.model.presets import model_presets
from gpusizer.gui.panels.preset_tree import PresetTree, family_title, group_title

EXPECTED = {
    "qwen3.5-27b": "Qwen",
    "qwen3.5-397b-a17b": "Qwen",
    "glm-5": "GLM",
    "kimi-k2.5": "Kimi",
    "minimax-m2": "MiniMax",
    "deepseek-v3.2": "DeepSeek",
    "ernie-4.5-300b-a47b": "ERNIE",
    "hunyuan-a13b": "Hunyuan",
    "granite-4.0-h-small": "Granite",
    "nemotron-3-nano-30b-a3b": "Nemotron",
}


def test_group_titles() -> None:
    for pid, title in EXPECTED.items():
        assert group_title(pid, model_presets()[pid]["family"]) == title, pid


def test_the_older_presets_keep_their_family_groups() -> None:
    # the id's maker and the family's agree for every preset before 2026
    for pid, data in model_presets().items():
        if pid not in EXPECTED and not pid.startswith(("qwen3.5", "kimi-k2.5")):
            assert group_title(pid, data["family"]) == family_title(data["family"]), pid


def test_tree_shows_every_preset_once(qtbot) -> None:
    tree = PresetTree()
    qtbot.addWidget(tree)
    shown: dict[str, str] = {}
    for i in range(tree.topLevelItemCount()):
        group = tree.topLevelItem(i)
        assert group is not None
        for j in range(group.childCount()):
            child = group.child(j)
            assert child is not None
            shown[str(child.data(0, 256))] = group.text(0)
    assert set(shown) == set(model_presets())
    assert all(shown[pid] == title for pid, title in EXPECTED.items())
    tree.filter("kimi")
    assert tree.first_visible() == "kimi-k2"
