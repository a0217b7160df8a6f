"""Widgets of the chat screen: messages, the memory panel, an input with history."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.widgets import Input, Static

from bot.commands.replies import describe_recall

if TYPE_CHECKING:
    from textual.timer import Timer

    from bot.core.dialogue import Recall

# Terminals disagree on how wide an emoji made of several code points is: many count the code
# points (a family joined by zero-width joiners is 6 cells, a "❤️" is 1) where textual counts
# the emoji (2). Shown apart, every terminal agrees with textual, and the side panel's border
# stays in its column.
_JOINERS = str.maketrans("", "", "\u200d\ufe0f")  # zero-width joiner, emoji presentation


def steady_width(text: str) -> str:
    """`text` as every terminal measures it alike: joined emoji shown apart, a symbol with an
    emoji variation shown as the symbol."""
    return text.translate(_JOINERS)


class SteadyText(Static):
    """Plain text (no markup) that keeps its width in every terminal, emoji or not."""

    def __init__(self, text: str = "", *, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(steady_width(text), markup=False, id=id, classes=classes)

    def show_text(self, text: str) -> None:
        self.update(steady_width(text))


class UserMessage(SteadyText):
    """What the user said."""


class Note(SteadyText):
    """A command's answer or a notice from Companion itself."""


THINKING = "thinking…"
STOPPED = " [stopped]"
# A reply that gets no new words for this long is waiting on the model again (after the note
# that opens the answer to /wrong or /correct, say): it says "thinking…" until they come. Longer
# than the pauses between the sentences of a slow model, so the line does not blink between them.
STALL_SECONDS = 2.0


class CompanionMessage(SteadyText):
    """The companion's reply, growing as it streams; "thinking…" while it waits for words (the
    demo model takes seconds), and marked when the user stopped it."""

    def __init__(self, speaker: str, *, waiting: bool = True, classes: str | None = None
                 ) -> None:
        super().__init__(f"{speaker}: {THINKING if waiting else ''}", classes=classes)
        self._speaker = speaker
        self._writing = waiting
        self._thinking = waiting
        self._mark = ""
        self._stall: Timer | None = None
        self.reply = ""

    def show(self, text: str) -> None:
        """The reply so far."""
        self.reply = text
        self._thinking = False
        self._show_reply()
        self._watch_for_stall()

    def finish(self) -> None:
        """The reply is complete: no more "thinking…"."""
        self._stop_writing()
        self._show_reply()

    def stop(self) -> None:
        """The user stopped the reply: what was said stays, marked as cut."""
        self.mark(STOPPED)

    def mark(self, mark: str) -> None:
        """Add `mark` after the reply (one cut short says so)."""
        self._mark = mark
        self.finish()

    def fail(self, message: str) -> None:
        self._stop_writing()
        self.add_class("failed")
        self.show_text(f"{self._speaker}: {self.reply}\n{message}" if self.reply else message)

    def _stop_writing(self) -> None:
        self._writing = self._thinking = False
        if self._stall is not None:
            self._stall.stop()

    def _watch_for_stall(self) -> None:
        if self._stall is not None:
            self._stall.stop()
        if self._writing:
            self._stall = self.set_timer(STALL_SECONDS, self._stalled)

    def _stalled(self) -> None:
        if self._writing:
            self._thinking = True
            self._show_reply()

    def _show_reply(self) -> None:
        if self.has_class("failed"):
            return  # the failure says what happened; it stays
        after = f"\n{THINKING}" if self._thinking else self._mark
        self.show_text(f"{self._speaker}: {self._followed_by(after)}")

    def _followed_by(self, addition: str) -> str:
        """The reply, then `addition`, which starts a line of its own without its leading
        space or newline where the reply leaves off at the start of a line."""
        if not self.reply or self.reply.endswith("\n"):
            return self.reply + addition.lstrip()
        return self.reply + addition


class MemoryPanel(SteadyText):
    """The memory behind the last reply: the memories it cited, then the others it was given."""

    def show_recall(self, recall: Recall, cited: Sequence[int] = ()) -> None:
        self.show_text("Memory behind the last reply\n\n" + describe_recall(recall, cited))

    def show_forgotten(self) -> None:
        self.show_text("Memory behind the last reply\n\n(forgotten)")


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
