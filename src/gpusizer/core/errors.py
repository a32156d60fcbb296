"""The one error type users see for bad input."""

from __future__ import annotations


class ScenarioError(ValueError):
    """Bad input, naming the field and what is allowed.

    ``field`` is the dotted path of the offending field (``"parallelism.tensor"``),
    ``str(err)`` is one line: ``"parallelism.tensor: must divide attention_heads (32); got 3"``.
    """

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}" if field else message)
