"""One chat on one platform (or the terminal), as the front desk sees it, and a reply streamed
into it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any, Protocol

from bot.commands.replies import Attachment
from bot.core.dialogue import Recall
from bot.frontends.disguise import undisguised
from bot.frontends.split import split_message

TYPING_EVERY_SECONDS = 4.0  # Telegram shows "typing…" for 5 s, Discord for 10 s


class Surface(Protocol):
    """What a platform can do in one chat. Sends and edits retry network errors themselves."""

    limit: int  # the longest message the platform accepts
    edit_interval: float  # seconds between edits of a streaming reply

    async def send(self, text: str) -> Any:
        """Send a message; returns the handle `edit` needs."""
        ...

    async def edit(self, handle: Any, text: str) -> Any:
        """Replace the text of a sent message; returns the handle for the next edit."""
        ...

    async def send_file(self, text: str, attachment: Attachment) -> None: ...

    async def confirm(self, text: str, command: str) -> None:
        """Send `text` with a button that sends `command` as whoever presses it, and one that
        cancels; the buttons go once one is pressed."""
        ...

    async def typing(self) -> None:
        """Show "typing…" for a few seconds."""
        ...

    def message_key(self, handle: Any) -> str:
        """The sent message as a reaction to it names it ("telegram:<chat>:<message>"); ""
        where nothing can react to it."""
        ...

    async def show_problem(self, text: str) -> None:
        """Why a message got no reply, or no whole one (an outage, a refusal), after what was
        shown of it."""
        ...

    def show_recall(self, recall: Recall, cited: Sequence[int] = ()) -> None:
        """The memories behind the reply being written (the ones it cited, once it is done)."""
        ...

    def show_forgotten(self) -> None:
        """Memories were forgotten: what was shown of them may be gone."""
        ...


class MessagesOnly:
    """What a chat platform does with what it has no place for: a problem is one more message,
    and the memories behind a reply are not shown (`/why` shows them on request)."""

    limit: int

    async def send(self, text: str) -> Any:
        raise NotImplementedError

    async def show_problem(self, text: str) -> None:
        await send_text(self, text)

    def show_recall(self, recall: Recall, cited: Sequence[int] = ()) -> None:
        pass

    def show_forgotten(self) -> None:
        pass


class StreamedReply:
    """Shows a growing reply: the first words at once, then at most one edit per
    `surface.edit_interval` seconds, then the whole reply. Past the platform's limit it goes on
    in a new message."""

    def __init__(self, surface: Surface, clock: Callable[[], float] = time.monotonic) -> None:
        self._surface = surface
        self._interval = surface.edit_interval
        self._clock = clock
        self._handles: list[Any] = []
        self._shown: list[str] = []
        self._last_shown = float("-inf")

    async def show(self, text: str, *, final: bool = False) -> None:
        if not text.strip():
            return
        if not final and self._clock() - self._last_shown < self._interval:
            return
        for index, piece in enumerate(split_message(undisguised(text), self._surface.limit)):
            if index >= len(self._handles):
                self._handles.append(await self._surface.send(piece))
                self._shown.append(piece)
            elif self._shown[index] != piece:
                self._handles[index] = await self._surface.edit(self._handles[index], piece)
                self._shown[index] = piece
        self._last_shown = self._clock()

    @property
    def handles(self) -> list[Any]:
        """The messages that show the reply so far."""
        return list(self._handles)


class _Sends(Protocol):
    limit: int

    async def send(self, text: str) -> Any: ...


async def send_text(surface: _Sends, text: str) -> None:
    """A whole message, in as many pieces as the platform needs."""
    for piece in split_message(undisguised(text), surface.limit):
        await surface.send(piece)


@asynccontextmanager
async def typing_shown(surface: Surface) -> AsyncIterator[None]:
    """Keep "typing…" up while the block runs (the platforms drop it after a few seconds)."""

    async def keep_typing() -> None:
        while True:
            await surface.typing()
            await asyncio.sleep(TYPING_EVERY_SECONDS)

    task = asyncio.create_task(keep_typing())
    try:
        yield
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
