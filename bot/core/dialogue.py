"""The dialogue core: one message in, a streamed reply out, every round stored.

A turn: the user's lock, the message stored (before the model is called), the memories recalled
(`memory.recall`), the prompt built, the reply streamed, the reply stored with what it used.
Frontend-agnostic: the TUI, `companion say`, Telegram and Discord all drive `Dialogue.respond`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import aclosing, asynccontextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from bot.core.citations import CitationFilter
from bot.core.fixes import Answer, Fix, Fixes, Retract
from bot.core.follow_ups import follow_up_question
from bot.core.inbound import Incoming, clean_message
from bot.core.memory_note import MemoryNotes, ShownMemory
from bot.core.persona_choice import PersonaChoice
from bot.core.prompt import PromptStyle
from bot.core.teaching import Teaching, taught_note
from bot.core.turn_lock import TurnLock
from bot.core.upkeep import Upkeep
from bot.errors import InputRejected, ModelUnavailable
from bot.settings import ChatSettings
from memory.facts.provisional import ProvisionalFacts
from memory.plans.plans import Plans
from memory.protocols import ChatMessage, ChatModel, RoundStore
from memory.provenance import used_record
from memory.recall import Lookup, Recaller
from memory.sql.failures import database_away
from memory.types import Plan, Recall, Round, memory_key
from personas.loader import Persona

# `Recall` is part of what a turn tells its frontend (`Recalled`).
__all__ = ["Delta", "Dialogue", "Failed", "Finished", "Recall", "Recalled", "Refused",
           "ReplyEvent"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Recalled:
    """The memories behind the reply that follows, and the persona answering."""

    recall: Recall
    persona: Persona


@dataclass(frozen=True, slots=True)
class Delta:
    """A piece of the reply as the model produces it."""

    text: str


@dataclass(frozen=True, slots=True)
class Finished:
    """The reply as the user read it (citation marks taken out), and the numbers of the
    memories it cited (see `Recall.numbered`)."""

    reply: str
    round_id: int
    cited: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Failed:
    """The model could not answer; the user's message is stored (`round_id`)."""

    message: str
    round_id: int


@dataclass(frozen=True, slots=True)
class Refused:
    """The message was not accepted and nothing was stored."""

    message: str


ReplyEvent = Recalled | Delta | Finished | Failed | Refused

MEMORY_AWAY = ("My memory (the database) is not answering right now, so I could not save your "
               "message. Please send it again in a minute.")
MEMORY_AWAY_SAVED = ("My memory (the database) stopped answering while I replied: your message "
                     "is saved, my reply may not be. Please try again in a minute.")


@dataclass
class _Stored:
    """The round a turn stored, once it is stored."""

    round_id: int | None = None


class Dialogue:
    """Answers messages from memory. One user's messages are answered in order (their turn
    lock); different users are answered concurrently."""

    def __init__(
        self,
        *,
        rounds: RoundStore,
        recall: Recaller,
        personas: PersonaChoice,
        model: ChatModel,
        prompt: PromptStyle,
        fixes: Fixes,
        teaching: Teaching,
        chat: ChatSettings,
        turns: TurnLock,
        provisional: ProvisionalFacts | None = None,
        upkeep: Upkeep | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        notes: MemoryNotes | None = None,
        plans: Plans | None = None,
    ) -> None:
        """`prompt` writes each reply's messages (the demo model gets a shorter prompt).
        `provisional` keeps what a private message tells as facts while it is answered.
        `upkeep` is told of every stored round and finished private reply (the memory jobs
        start from there). `clock` tells the prompt today's date. `notes`: a reply to a question
        about the person shows the memory that answers it (`bot.core.memory_note`; None: never).
        `plans` keeps the plans a private message tells of, and brings one up once it is over
        (None: never)."""
        self._rounds = rounds
        self._recall = recall
        self._personas = personas
        self._model = model
        self._prompt = prompt
        self._fixes = fixes
        self._teaching = teaching
        self._chat = chat
        self._turns = turns
        self._provisional = provisional
        self._upkeep = upkeep
        self._clock = clock
        self._notes = notes
        self._plans = plans

    async def respond(self, incoming: Incoming) -> AsyncGenerator[ReplyEvent, None]:
        """Store the message, recall memories, stream the reply, store it.

        A fix of the last exchange (`/correct`, `/wrong`, "No, I meant ...") is taken first,
        and the message it is about is answered again. When the database stops answering, the
        person is told whether their message was saved.
        """
        stored = _Stored()
        try:
            async with aclosing(self._respond(incoming, stored)) as events:
                async for event in events:
                    yield event
        except Exception as error:
            if not database_away(error):
                raise
            log.warning("The database stopped answering the turn of %s: %r", incoming.user_id,
                        error)
            if stored.round_id is None:
                yield Refused(MEMORY_AWAY)
            else:
                yield Failed(MEMORY_AWAY_SAVED, stored.round_id)

    async def _respond(self, incoming: Incoming, stored: _Stored
                       ) -> AsyncGenerator[ReplyEvent, None]:
        async with self._turns.turn(incoming.user_id):
            try:
                text = clean_message(incoming.text, self._chat.max_message_chars)
            except InputRejected as rejection:
                yield Refused(str(rejection))
                return
            fix = await self._fixes.read(incoming, text)
            if isinstance(fix, str):
                yield Refused(fix)
                return
            persona = await self._personas.of(incoming.user_id)
            async with self._looking_up(incoming, text, persona, fix) as lookup:
                round_ = await self._rounds.start_round(
                    user_id=incoming.user_id, conversation_id=incoming.conversation,
                    persona=persona.name, text=text)
                stored.round_id = round_.id
                answer = await self._answer(incoming, round_, persona, fix, lookup)
            answered = lookup is not None and answer.asked == text
            keeping = self._keep(round_, answered and not answer.opening)
            yield Recalled(answer.recall, persona)
            # aclosing: when the frontend stops listening, the inner generators close now.
            stream = self._stream_reply(round_, self._messages(persona, answer), answer,
                                        keeping)
            async with aclosing(stream) as events:
                async for event in events:
                    if isinstance(event, Finished) and answered:
                        self._exchange_finished(incoming.user_id, event.round_id)
                    yield event

    @asynccontextmanager
    async def _looking_up(self, incoming: Incoming, text: str, persona: Persona,
                          fix: Fix | None) -> AsyncIterator[Lookup | None]:
        """The memories of a private message are looked up while it is stored: only Recency
        depends on its round. None where the message itself is not what is answered (a
        `/wrong`) or others read along (a group chat)."""
        if not incoming.private or isinstance(fix, Retract):
            yield None
            return
        async with self._recall.looking_up(incoming.user_id, text,
                                           domain=persona.domain) as lookup:
            yield lookup

    async def _answer(self, incoming: Incoming, round_: Round, persona: Persona,
                      fix: Fix | None, lookup: Lookup | None) -> Answer:
        """What the stored message gets: a fix taken and the message it is about answered
        again, or the message itself with its memories (and a note of what it taught)."""
        try:
            if not incoming.private:
                recall = await self._recall.in_chat(
                    incoming.user_id, incoming.conversation, before_round=round_.id)
                return Answer(recall, round_.user_text)
            fixed = await self._fixes.take(round_, fix, persona)
            if fixed is not None:
                return fixed
            assert lookup is not None  # private, and no /wrong: looked up
            taught = await self._teaching.catch(round_)
            # The plan to follow up is read beside the memories: one indexed read, no wait.
            recall, follow_up = await asyncio.gather(
                self._recall.finish(lookup, before_round=round_.id, ask=True),
                self._follow_up(incoming.user_id))
            recall = replace(recall, follow_up=follow_up)
            return Answer(recall, round_.user_text, taught_note(taught) + "\n\n" if taught else "")
        except BaseException:  # the message stays stored; the round must not stay pending
            await asyncio.shield(self._rounds.fail_round(round_, None))
            raise

    async def _follow_up(self, user_id: str) -> Plan | None:
        if self._plans is None:
            return None
        try:
            return await self._plans.due(user_id, self._clock())
        except Exception:  # a follow-up is extra: the reply goes on without one
            log.exception("No follow-up read for this turn")
            return None

    def _keep(self, round_: Round, tells: bool) -> asyncio.Future[Any]:
        """Keep what the message tells (a private message answered as itself, that taught
        nothing) as provisional facts and plans, while the reply streams."""
        if not tells:
            return _done()
        keeping: list[Awaitable[Any]] = []
        if self._provisional is not None:
            keeping.append(self._provisional.keep([round_]))
        if self._plans is not None:
            keeping.append(self._keep_plans(round_))
        return asyncio.ensure_future(asyncio.gather(*keeping)) if keeping else _done()

    async def _keep_plans(self, round_: Round) -> None:
        assert self._plans is not None
        try:
            await self._plans.keep(round_, self._clock())
        except Exception:  # losing a plan loses only the follow-up, never the round
            log.warning("The plans of a round were not kept", exc_info=True)

    async def _stream_reply(
        self, round_: Round, messages: list[ChatMessage], answer: Answer,
        keeping: asyncio.Future[Any],
    ) -> AsyncGenerator[ReplyEvent, None]:
        """The answer's opening (what was noted), then the model's reply; what the prompt held
        is kept with the round, and the reply may cite its numbered memories. The round is
        closed (and so counted for its window's summary) once `keeping` is done."""
        numbered = answer.recall.numbered()
        pieces: list[str] = []
        marks = CitationFilter(len(numbered))
        finished = False
        try:
            if answer.opening:
                pieces.append(answer.opening)
                yield Delta(answer.opening)
            async with aclosing(self._model.stream(messages)) as stream:
                async for piece in stream:
                    if shown := marks.feed(piece):
                        pieces.append(shown)
                        yield Delta(shown)
            if rest := marks.flush():
                pieces.append(rest)
                yield Delta(rest)
            if (plan := answer.recall.follow_up) is not None and self._prompt.short:
                # The demo model cannot be trusted to ask: the question is built from the plan.
                asking = "\n\n" + follow_up_question(plan)
                pieces.append(asking)
                yield Delta(asking)
            reply = "".join(pieces).strip()
            if not reply:
                raise ModelUnavailable("The language model returned an empty reply.")
            cited = tuple(marks.cited)
            memory = await self._shown(answer)
            if memory is not None:  # shown under the reply: neither its words nor its citation
                yield Delta(memory.note())
            keys = [memory_key(numbered[n - 1]) for n in cited]
            used = used_record(answer.recall, answer.asked, cited)
            await _kept(keeping)
            self._round_stored(round_.user_id,
                               await self._rounds.finish_round(round_, reply, keys, used))
            finished = True
            await self._asked(answer.recall.follow_up)
            read = reply + memory.note() if memory is not None else reply
            yield Finished(read, round_.id, cited)
        except ModelUnavailable as error:
            used = used_record(answer.recall, answer.asked, ())
            await _kept(keeping)
            self._round_stored(round_.user_id,
                               await self._rounds.fail_round(round_, "".join(pieces), used))
            finished = True
            yield Failed(f"{error} Your message is saved; please try again.", round_.id)
        finally:
            if not finished:  # the frontend stopped listening mid-reply: keep what we have
                used = used_record(answer.recall, answer.asked, ())
                await asyncio.shield(_kept(keeping))
                await asyncio.shield(self._rounds.fail_round(round_, "".join(pieces), used))

    async def _asked(self, plan: Plan | None) -> None:
        if plan is None or self._plans is None:
            return
        try:
            await self._plans.asked(plan)
        except Exception:  # at worst it is asked about once more
            log.warning("A follow-up was not marked asked", exc_info=True)

    async def _shown(self, answer: Answer) -> ShownMemory | None:
        if self._notes is None:
            return None
        try:
            return await self._notes.to_show(answer.recall, answer.asked)
        except Exception:  # the note is extra: the reply was said, and is stored without it
            log.exception("No memory shown under this reply")
            return None

    def _exchange_finished(self, user_id: str, round_id: int) -> None:
        if self._upkeep is not None:
            self._upkeep.exchange_finished(user_id, round_id)

    def _round_stored(self, user_id: str, rounds_waiting: int) -> None:
        if self._upkeep is not None:
            self._upkeep.round_stored(user_id, rounds_waiting)

    async def prepare(self, user_id: str, text: str) -> tuple[Recall, list[ChatMessage]]:
        """The recall and the messages a reply to `text` would use; stores nothing."""
        persona = await self._personas.of(user_id)
        recall = await self._recall.recall(user_id, text, domain=persona.domain)
        return recall, self._messages(persona, Answer(recall, text))

    def _messages(self, persona: Persona, answer: Answer) -> list[ChatMessage]:
        return self._prompt.build(
            persona,
            answer.recall,
            answer.asked,
            user_name=self._chat.user_name,
            recency_max_chars=self._chat.recency_max_chars,
            today=self._clock().date(),
        )


def _done() -> asyncio.Future[Any]:
    done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    done.set_result(None)
    return done


async def _kept(keeping: asyncio.Future[Any]) -> None:
    """Wait for the provisional facts; a failure loses only them (the window's summary keeps
    the statements later), never the round."""
    try:
        await keeping
    except Exception:
        log.warning("The statements of a round were not kept as provisional facts",
                    exc_info=True)
