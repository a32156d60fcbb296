"""Undo/redo as scenario snapshots: scenarios are frozen, so a command is just (before, after)."""

from __future__ import annotations

from typing import Protocol

from PySide6.QtGui import QUndoCommand

from ..core.model.specs import Scenario


class Restorer(Protocol):
    """What a command needs of the state (a protocol: the state imports this module)."""

    def restore(self, scenario: Scenario) -> None: ...


_MERGE_ID = 0x5CE  # one id for all field edits; mergeWith compares the field path itself


class SnapshotCommand(QUndoCommand):
    """One change of the scenario. Consecutive edits of one field merge (typing ``4096`` into a
    spin box is one undo step, not four)."""

    def __init__(
        self, state: Restorer, before: Scenario, after: Scenario, key: str, merge: bool, label: str = ""
    ) -> None:
        super().__init__(label or (f"Change {key}" if key else "Change scenario"))
        self.state, self.before, self.after = state, before, after
        self.key, self.merge = key, merge
        self._applied = True  # pushed after the state already shows `after`

    def id(self) -> int:
        return _MERGE_ID if self.key else -1

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, SnapshotCommand) or not other.merge or other.key != self.key:
            return False
        self.after = other.after
        if self.after == self.before:
            self.setObsolete(True)  # edited back to where it started: nothing to undo
        return True

    def redo(self) -> None:
        if self._applied:
            self._applied = False
            return
        self.state.restore(self.after)

    def undo(self) -> None:
        self.state.restore(self.before)
