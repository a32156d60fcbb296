"""The searchable list of model presets, grouped by family, with each model's size."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTreeWidget,
    QTreeWidgetItem,
    QWidget,
)

from ...core.model.params import count_parameters
from ...core.model.presets import model_presets
from ...core.pipeline.scenario import model_spec

_FAMILY_NAMES = (
    ("deepseek", "DeepSeek"),
    ("gpt", "GPT"),
    ("olmo", "OLMo"),
    ("mixtral", "Mistral"),
    ("qwen", "Qwen"),
    ("phi", "Phi"),
    ("glm", "GLM"),
    ("kimi", "Kimi"),
    ("nemotron", "Nemotron"),
    ("minimax", "MiniMax"),
    ("ernie", "ERNIE"),
    ("granite", "Granite"),
)
_ID = Qt.ItemDataRole.UserRole


def family_title(family: str) -> str:
    """``qwen3_moe`` -> ``Qwen``: one group per maker's family, whatever the version."""
    stem = re.match(r"[a-z]+", family.lower())
    key = stem.group(0) if stem else family
    return next((title for prefix, title in _FAMILY_NAMES if key.startswith(prefix)), key.title())


def group_title(preset_id: str, family: str) -> str:
    """The tree's group of a preset: the maker its id leads with where that is a listed maker
    (``kimi-k2.5`` under Kimi, though its text model's ``family`` is ``deepseek_v3``: Kimi
    K2.5's config.json names DeepSeek-V3's architecture), else :func:`family_title`."""
    stem = re.match(r"[a-z]+", preset_id.lower())
    key = stem.group(0) if stem else ""
    listed = next((title for prefix, title in _FAMILY_NAMES if key and key.startswith(prefix)), None)
    return listed or family_title(family)


def _size(preset_id: str) -> tuple[int, int]:
    """(total, active) parameters of the preset's model (its model block alone: no scenario is
    validated for each of ~50 presets before the window's first frame)."""
    counts = count_parameters(model_spec({"preset": preset_id}))
    return counts.total, counts.active


def _fmt_params(n: int) -> str:
    return f"{n / 1e9:,.1f} B" if n >= 1e9 else f"{n / 1e6:,.0f} M"


class PresetTree(QTreeWidget):
    """Presets by family; ``value()`` is the selected preset id (None when none)."""

    valueChanged = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setColumnCount(2)
        self.setHeaderLabels(["Model", "Parameters"])
        self.setRootIsDecorated(True)
        self.setUniformRowHeights(True)
        self.setAlternatingRowColors(True)
        header = self.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(False)
        self._items: dict[str, QTreeWidgetItem] = {}
        self._fill()
        self.currentItemChanged.connect(lambda cur, _prev: self._emit(cur))
        self.itemClicked.connect(lambda item, _col: self._emit(item))

    def _fill(self) -> None:
        groups: dict[str, QTreeWidgetItem] = {}
        for pid, data in sorted(model_presets().items(), key=lambda kv: kv[0]):
            title = group_title(pid, str(data.get("family", "other")))
            if title not in groups:
                group = QTreeWidgetItem([title])
                group.setFlags(Qt.ItemFlag.ItemIsEnabled)
                font = group.font(0)
                font.setBold(True)
                group.setFont(0, font)
                groups[title] = group
            total, active = _size(pid)
            size = _fmt_params(total) + (f" ({_fmt_params(active)} active)" if active != total else "")
            item = QTreeWidgetItem(groups[title], [str(data.get("name", pid)), size])
            item.setData(0, _ID, pid)
            item.setToolTip(0, f"{pid}\n{data.get('source_url', '')}".strip())
            item.setTextAlignment(1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self._items[pid] = item
        self.addTopLevelItems([groups[t] for t in sorted(groups)])
        self.expandAll()

    def _emit(self, item: QTreeWidgetItem | None) -> None:
        pid = item.data(0, _ID) if item is not None else None
        if pid:
            self.valueChanged.emit(pid)

    def value(self) -> str | None:
        item = self.currentItem()
        return item.data(0, _ID) if item is not None else None

    def setValue(self, pid: str | None) -> None:
        item = self._items.get(pid or "")
        if item is None:
            self.setCurrentItem(None)  # type: ignore[call-overload]  # None clears: Qt API
            self.clearSelection()
            return
        if item is self.currentItem() and item.isSelected():
            return  # a click that loaded it: scrolling now would move another row under
            # the pointer before the button is released, and highlight that one
        self.setCurrentItem(item)
        self.scrollToItem(item, QAbstractItemView.ScrollHint.EnsureVisible)

    def first_visible(self) -> str | None:
        """The first preset the search leaves visible (Enter in the search loads it)."""
        for i in range(self.topLevelItemCount()):
            group = self.topLevelItem(i)
            if group is None or group.isHidden():
                continue
            for j in range(group.childCount()):
                child = group.child(j)
                if child is not None and not child.isHidden():
                    return str(child.data(0, _ID))
        return None

    def filter(self, text: str) -> None:
        """Show presets whose id, name or family contains every word of ``text``."""
        words = text.lower().split()
        groups = [self.topLevelItem(i) for i in range(self.topLevelItemCount())]
        for group in filter(None, groups):
            shown = 0
            for child in filter(None, (group.child(j) for j in range(group.childCount()))):
                hay = " ".join((child.text(0), str(child.data(0, _ID)), group.text(0))).lower()
                visible = all(w in hay for w in words)
                child.setHidden(not visible)
                shown += visible
            group.setHidden(shown == 0)
        self.expandAll()
