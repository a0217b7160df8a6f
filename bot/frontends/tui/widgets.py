"""Widgets of the chat screen: messages, the memory panel, an input with history."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.widgets import Input, Static

from bot.commands.replies import describe_recall

if TYPE_CHECKING:
    from bot.core.dialogue import Recall


class UserMessage(Static):
    """What the user said."""


class Note(Static):
    """A command's answer or a notice from Companion itself."""


THINKING = "thinking…"


class CompanionMessage(Static):
    """The companion's reply, growing as it streams; "thinking…" until its first words (the
    demo model takes seconds)."""

    def __init__(self, speaker: str, *, waiting: bool = True) -> None:
        super().__init__(f"{speaker}: {THINKING if waiting else ''}", markup=False)
        self._speaker = speaker
        self.reply = ""

    def show(self, text: str) -> None:
        """The reply so far."""
        self.reply = text
        self.update(f"{self._speaker}: {self.reply}")

    def fail(self, message: str) -> None:
        self.add_class("failed")
        self.update(f"{self._speaker}: {self.reply}\n{message}" if self.reply else message)


class MemoryPanel(Static):
    """The memory behind the last reply: the memories it cited, then the others it was given."""

    def show_recall(self, recall: Recall, cited: Sequence[int] = ()) -> None:
        self.update("Memory behind the last reply\n\n" + describe_recall(recall, cited))

    def show_forgotten(self) -> None:
        self.update("Memory behind the last reply\n\n(forgotten)")


class HistoryInput(Input):
    """An input that recalls earlier messages with the up and down keys."""

    BINDINGS = [  # noqa: RUF012 - textual's declared type
        Binding("up", "older", "Previous message", show=False),
        Binding("down", "newer", "Next message", show=False),
    ]

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._history: list[str] = []
        self._position = 0

    def remember(self, text: str) -> None:
        if text and (not self._history or self._history[-1] != text):
            self._history.append(text)
        self._position = len(self._history)

    def action_older(self) -> None:
        if self._position > 0:
            self._position -= 1
            self._show(self._history[self._position])

    def action_newer(self) -> None:
        if self._position < len(self._history):
            self._position += 1
            self._show(self._history[self._position] if self._position < len(self._history) else "")

    def _show(self, text: str) -> None:
        self.value = text
        self.cursor_position = len(text)
