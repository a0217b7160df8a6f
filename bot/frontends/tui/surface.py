"""The terminal as a surface of the front desk, like a Telegram or Discord chat: a reply grows in
its bubble, a command's answer is a note, and the memory panel shows what a reply rests on."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from bot.commands.replies import Attachment, save_attachment
from bot.core.dialogue import Recall
from bot.frontends.tui.widgets import CompanionMessage, MemoryPanel, Note

# The terminal takes a message of any length, and shows every change at once.
NO_LIMIT = 1_000_000

Mount = Callable[[Note], Awaitable[None]]


class TerminalSurface:
    """One message's answer in the terminal: a reply in `bubble` (made before the desk starts,
    so it can say "thinking…"), or for a command, notes mounted in the chat."""

    limit = NO_LIMIT
    edit_interval = 0.0

    def __init__(self, mount: Mount, panel: MemoryPanel, exports: Path, *,
                 bubble: CompanionMessage | None = None,
                 scrolled: Callable[[], None] = lambda: None) -> None:
        """`mount` adds a note to the chat; `exports` is where a command's file is saved (the
        person's own machine); `scrolled` keeps the chat at its newest line as a reply grows."""
        self._mount = mount
        self._panel = panel
        self._exports = exports
        self._bubble = bubble
        self._scrolled = scrolled

    async def send(self, text: str) -> int:
        if self._bubble is None:
            await self._mount(Note(text))
        else:
            self._bubble.show(text)
            self._scrolled()
        return 0

    async def edit(self, handle: int, text: str) -> int:
        return await self.send(text)

    async def send_file(self, text: str, attachment: Attachment) -> None:
        path = await asyncio.to_thread(save_attachment, attachment, self._exports)
        await self.send(f"{text}\nSaved to {path}")

    async def confirm(self, text: str, command: str) -> None:
        await self.send(text)  # the text says which command confirms: no buttons here

    async def typing(self) -> None:
        pass  # the bubble says "thinking…" until the first words

    def message_key(self, handle: int) -> str:
        return ""  # nothing reacts to a message in the terminal

    async def show_problem(self, text: str) -> None:
        if self._bubble is None:
            await self.send(text)
        else:
            self._bubble.fail(text)

    def show_recall(self, recall: Recall, cited: Sequence[int] = ()) -> None:
        self._panel.show_recall(recall, cited)

    def show_forgotten(self) -> None:
        self._panel.show_forgotten()
