"""The front desk every frontend (Telegram, Discord, the terminal) hands its messages to: access
and rate checks, commands, streamed replies, and the last word when something breaks: the one
error boundary of the frontends."""

from __future__ import annotations

import asyncio
import logging
import time
from contextlib import aclosing

from bot.commands.layer import Commands, is_command
from bot.core.access import AccessPolicy, Admission
from bot.core.dialogue import (
    Delta,
    Dialogue,
    Failed,
    Finished,
    Recall,
    Recalled,
    Refused,
)
from bot.core.inbound import Incoming
from bot.core.sharing import Sharing
from bot.frontends.disguise import undisguised
from bot.frontends.surface import StreamedReply, Surface, send_text, typing_shown

log = logging.getLogger(__name__)

NOT_ALLOWED = "Sorry, this companion is private and not open to you."
SLOW_DOWN = ("You are sending messages faster than I can keep up with (at most {n} a minute). "
             "Please wait a moment, then go on.")
BROKEN = "Sorry, something went wrong on my side. Your message is saved; please try again."
CANCELLED = "Cancelled: nothing was changed."
# What a confirm button says, by the command it sends.
CONFIRM_LABELS = {"/forget all yes": "Yes, delete everything"}


def confirm_label(command: str) -> str:
    return CONFIRM_LABELS.get(command, f"Yes: {command}")


class FrontDesk:
    """Answers one incoming message on its surface. Different users are served concurrently; one
    user's messages wait for each other (the dialogue's lock), so a flood from one user never
    delays anybody else."""

    def __init__(
        self,
        dialogue: Dialogue,
        commands: Commands,
        access: AccessPolicy,
        sharing: Sharing,
    ) -> None:
        self._dialogue = dialogue
        self._commands = commands
        self._access = access
        self._sharing = sharing
        self._warned_at: dict[str, float] = {}
        self._in_flight: set[asyncio.Task[object]] = set()
        self._closing = False

    @property
    def busy(self) -> bool:
        """True while a message is being answered."""
        return bool(self._in_flight)

    def knows_command(self, word: str) -> bool:
        return self._commands.knows(word)

    async def handle(self, incoming: Incoming, surface: Surface) -> None:
        if self._closing:  # shutting down: updates still queued are not started
            return
        task = asyncio.current_task()
        if task is not None:
            self._in_flight.add(task)
        try:
            await self._handle(incoming, surface)
        except asyncio.CancelledError:
            raise
        except Exception:  # the platform boundary: log with context, tell the user, keep going
            log.exception("Failed to answer %s in %s: %r", incoming.user_id, incoming.conversation,
                          incoming.text[:80])
            await self._try_to_say(surface, BROKEN)
        finally:
            if task is not None:
                self._in_flight.discard(task)

    async def _handle(self, incoming: Incoming, surface: Surface) -> None:
        admission = await self._access.admit(incoming.user_id)
        if admission is Admission.BLOCKED:
            return
        if admission is Admission.NOT_ALLOWED:
            await send_text(surface, NOT_ALLOWED)
            return
        if admission is Admission.TOO_FAST:
            await self._slow_down(incoming.user_id, surface)
            return
        if is_command(incoming.text):
            await self._command(incoming, surface)
        else:
            await self._reply(incoming, surface)

    async def _slow_down(self, user_id: str, surface: Surface) -> None:
        # Said once a minute at most: answering every message of a flood would be a flood too.
        now = time.monotonic()
        if now - self._warned_at.get(user_id, float("-inf")) >= 60:
            self._warned_at[user_id] = now
            await send_text(surface, SLOW_DOWN.format(n=self._access.messages_per_minute))

    async def _command(self, incoming: Incoming, surface: Surface) -> None:
        answer = await self._commands.run(incoming.user_id, incoming.text, private=incoming.private)
        if answer.attachment is not None:
            await surface.send_file(undisguised(answer.text), answer.attachment)
        elif answer.confirm:  # the text says what to type; a button does it too
            await surface.confirm(undisguised(answer.text), answer.confirm)
        else:
            await send_text(surface, answer.text)
        if answer.forgot:
            surface.show_forgotten()

    async def _reply(self, incoming: Incoming, surface: Surface) -> None:
        reply = StreamedReply(surface)
        text = ""
        recall: Recall | None = None
        async with typing_shown(surface), aclosing(self._dialogue.respond(incoming)) as events:
            async for event in events:
                match event:
                    case Recalled(recall):
                        surface.show_recall(recall)
                    case Delta(piece):
                        text += piece
                        await reply.show(text)
                    case Finished(whole, round_id, cited):
                        await reply.show(whole, final=True)
                        if recall is not None and cited:
                            surface.show_recall(recall, cited)
                        if incoming.private:  # a reaction to it may rate it (see react)
                            keys = [key for h in reply.handles if (key := surface.message_key(h))]
                            await self._sharing.remember_reply(keys, incoming.user_id, round_id)
                    case Failed(message) | Refused(message):
                        # What streamed before the failure stays; the apology follows it.
                        await reply.show(text, final=True)
                        await surface.show_problem(message)

    async def react(self, user_id: str, message_key: str, emoji: str, surface: Surface) -> None:
        """A reaction to one of our messages: a thumbs-up or down on a reply rates it (and says
        so); any other reaction, or one on another message, is left alone."""
        try:
            if await self._access.admit(user_id) is not Admission.ACCEPT:
                return
            answer = await self._sharing.vote_reaction(user_id, message_key, emoji)
            if answer:
                await send_text(surface, answer)
        except Exception:  # the platform boundary, as for messages
            log.exception("Failed to take the reaction %s of %s", emoji, user_id)

    async def _try_to_say(self, surface: Surface, text: str) -> None:
        try:
            await surface.show_problem(text)
        except Exception:  # the platform itself is failing; the log has the first error
            log.warning("Could not tell the user that something went wrong", exc_info=True)

    async def drain(self, grace_seconds: float) -> None:
        """At shutdown: let replies in progress finish for a while, then cancel them (their
        rounds are kept, marked failed). Messages arriving from now on are not answered."""
        self._closing = True
        pending = {task for task in self._in_flight if task is not asyncio.current_task()}
        if not pending:
            return
        _, late = await asyncio.wait(pending, timeout=grace_seconds)
        for task in late:
            task.cancel()
        if late:
            await asyncio.wait(late, timeout=5)
