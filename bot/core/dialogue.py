"""The dialogue core: one message in, a streamed reply out, every round stored.

Frontend-agnostic: the TUI, `companion say`, Telegram and Discord all drive `Dialogue.respond`.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import aclosing, asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime

from bot.core.citations import CitationFilter
from bot.core.corrections import Caught, Corrections, correction_command
from bot.core.fixes import NO_REPLY_YET, described, thats_wrong, wrong_command
from bot.core.inbound import Incoming, clean_message
from bot.core.prompt import PAPER_PROMPT, PromptStyle, fit_recent
from bot.core.teaching import Teaching, taught_note
from bot.errors import InputRejected, ModelUnavailable, UserFacingError
from bot.settings import ChatSettings
from memory.beliefs.rows import SQLBeliefRows
from memory.errors import EmbeddingUnavailable
from memory.feedback.store import FeedbackMemory
from memory.pool.examples import PoolExamples
from memory.protocols import (
    ChatMessage,
    ChatModel,
    Embedder,
    ProfileStore,
    RoundStore,
    TopicStore,
    Vector,
)
from memory.provenance import LastReply, ReplyUses, used_record
from memory.relevance import Relevance
from memory.retraction import Retractions
from memory.sql.failures import database_away
from memory.sql.user_turns import SQLUserTurns
from memory.types import (
    Found,
    PoolEntry,
    Recall,
    Round,
    ScoredFeedback,
    Topic,
    memory_key,
)
from personas.loader import Persona

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


@dataclass
class _Stored:
    """The round a turn stored, once it is stored."""

    round_id: int | None = None


@dataclass(frozen=True, slots=True)
class _Fix:
    """A `/wrong` that can be taken: memory `number` of the `last` reply, and what is true."""

    number: int
    truth: str
    last: LastReply


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
# Relevance, Latest_topics, clarifications and the pool's examples: what recall finds besides
# Recency.
# ... and whether the message was too little readable for its vector to choose any.
Memories = tuple[list[Found], list[Topic], list[ScoredFeedback], list[PoolEntry], bool]

MEMORY_AWAY = ("My memory (the database) is not answering right now, so I could not save your "
               "message. Please send it again in a minute.")
MEMORY_AWAY_SAVED = ("My memory (the database) stopped answering while I replied: your message "
                     "is saved, my reply may not be. Please try again in a minute.")
CORRECT_USAGE = ("Usage: /correct <what you meant>, about my last reply. "
                 "For example: /correct I wanted a synonym")
NOTHING_TO_CORRECT = "There is nothing to correct yet: /correct is about my last reply to you here."
PRIVATE_WRONG = "For your privacy, /wrong only works in a private chat with me."
WHICH_IS_WRONG = ("Which memory is wrong? My reply did not rest on just one. Say /wrong <n> "
                  "<what is true>, with n from the list /why showed.")


class Dialogue:
    """Answers messages from memory. One user's messages are answered in order (a lock per
    user); different users are answered concurrently."""

    def __init__(
        self,
        *,
        rounds: RoundStore,
        topics: TopicStore,
        relevance: Relevance,
        profiles: ProfileStore,
        embedder: Embedder,
        model: ChatModel,
        personas: dict[str, Persona],
        chat: ChatSettings,
        feedback: FeedbackMemory,
        corrections: Corrections,
        teaching: Teaching,
        retractions: Retractions,
        beliefs: SQLBeliefRows,
        uses: ReplyUses,
        examples: PoolExamples | None = None,
        turns: SQLUserTurns | None = None,
        on_round_stored: Callable[[str, int], None] | None = None,
        on_replied: Callable[[str, int], None] | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        min_readable: float = 0.5,
        prompt_style: PromptStyle = PAPER_PROMPT,
    ) -> None:
        """`on_round_stored(user_id, rounds_waiting)` runs after every stored round: the hook
        for memory upkeep, which must return at once. `on_replied(user_id, round_id)` runs
        after a reply to a message in a private chat (the shared pool may score it); it must
        return at once too. `uses` reads back what a reply used (for `/why` and `/wrong`).
        `examples` finds the shared pool's examples for a prompt. `turns`
        keeps one user's messages in order across processes (several bots on one database).
        `clock` tells the prompt today's date. `min_readable`: the share of a message the
        embedder must read for its vector to choose memories (`embeddings.min_readable`).
        `prompt_style` writes each reply's messages (the demo model gets a shorter prompt)."""
        self._rounds = rounds
        self._topics = topics
        self._relevance = relevance
        self._clock = clock
        self._min_readable = min_readable
        self._prompt = prompt_style
        self._profiles = profiles
        self._embedder = embedder
        self._model = model
        self.personas = personas
        self._chat = chat
        self._feedback = feedback
        self._corrections = corrections
        self._teaching = teaching
        self._retractions = retractions
        self._beliefs = beliefs
        self._uses = uses
        self._examples = examples
        self._turns = turns
        self._on_round_stored = on_round_stored
        self._on_replied = on_replied
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )

    async def respond(self, incoming: Incoming) -> AsyncGenerator[ReplyEvent, None]:
        """Store the message, recall memories, stream the reply, store it.

        A correction of the last exchange (`/correct ...`, or "No, I meant ...") is stored as
        feedback first, and the corrected message is answered again with it applied. When the
        database stops answering, the person is told whether their message was saved.
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
        async with self.user_lock(incoming.user_id):
            try:
                text = clean_message(incoming.text, self._chat.max_message_chars)
            except InputRejected as rejection:
                yield Refused(str(rejection))
                return
            explicit = correction_command(text)
            if explicit is not None and (problem := await self._cannot_correct(incoming, explicit)):
                yield Refused(problem)
                return
            wrong = await self._wrong_in(incoming, text)
            if isinstance(wrong, str):
                yield Refused(wrong)
                return
            persona = await self.persona_for(incoming.user_id)
            # The memories of a private message are looked up while it is stored: they do not
            # depend on it (Recency does, and is read after).
            memories = (asyncio.ensure_future(self._memories(incoming.user_id, text, persona))
                        if incoming.private and wrong is None else None)
            try:
                round_ = await self._rounds.start_round(
                    user_id=incoming.user_id,
                    conversation_id=incoming.conversation,
                    persona=persona.name,
                    text=text,
                )
                stored.round_id = round_.id
                recall, asked, opening = await self._recall_for(
                    incoming, round_, persona, explicit, memories, wrong)
            finally:
                _drop(memories)
            yield Recalled(recall, persona)
            messages = self._messages(persona, recall, asked)
            # aclosing: when the frontend stops listening, the inner generators close now, in order.
            stream = self._stream_reply(round_, messages, opening, LastReply(recall, asked))
            async with aclosing(stream) as events:
                async for event in events:
                    if isinstance(event, Finished) and memories is not None and asked == text:
                        self._replied(incoming.user_id, event.round_id)
                    yield event

    async def _wrong_in(self, incoming: Incoming, text: str) -> _Fix | str | None:
        """The memory a message says is wrong (`/wrong <n> ...`, or "No, that's wrong: ..."
        right after `/why`, in any process), a line that says why it cannot be taken, or None."""
        wrong = wrong_command(text)
        if wrong is None:
            wrong = thats_wrong(text) if incoming.private else None
            if wrong is None or not await self._uses.just_explained(incoming.user_id):
                return None
        if wrong is None or isinstance(wrong, str):
            return wrong
        if not incoming.private:
            return PRIVATE_WRONG
        last = await self._uses.last(incoming.user_id)
        if last is None:
            return NO_REPLY_YET
        numbered = last.recall.numbered()
        if wrong.number is None:  # "that's wrong": the one memory the reply relied on
            if len(last.cited) != 1:
                return WHICH_IS_WRONG
            return _Fix(last.cited[0], wrong.truth, last)
        if not 1 <= wrong.number <= len(numbered):
            return (f"There is no memory {wrong.number} under /why"
                    + (f": they go from 1 to {len(numbered)}." if numbered else
                       ": my last reply used no memories."))
        return _Fix(wrong.number, wrong.truth, last)

    async def _recall_for(
        self, incoming: Incoming, round_: Round, persona: Persona, explicit: str | None,
        memories: asyncio.Future[Memories] | None, wrong: _Fix | None,
    ) -> tuple[Recall, str, str]:
        """The memories for the stored message (or for the message a correction or a `/wrong`
        is about), what is answered, and what the reply opens with (what was noted)."""
        try:
            if wrong is not None:
                return await self._fix_belief(round_, wrong)
            if memories is None:
                return await self._shared_chat_recall(incoming, round_.id), round_.user_text, ""
            caught = await self._corrections.catch(round_, persona.name, explicit)
            if caught is not None:
                recall = await self.recall(incoming.user_id, caught.original,
                                           before_round=round_.id)
                return recall, caught.original, _noted(caught)
            taught = await self._teaching.catch(round_)
            recall = await self._with_recency(incoming.user_id, round_.id, memories, ask=True)
            return recall, round_.user_text, taught_note(taught) + "\n\n" if taught else ""
        except BaseException:  # the message stays stored; the round must not stay pending
            await asyncio.shield(self._rounds.fail_round(round_, None))
            raise

    async def _fix_belief(self, round_: Round, wrong: _Fix) -> tuple[Recall, str, str]:
        """Retract the memory the user says is wrong, keep what is true as a taught fact, and
        answer the last message again (TeachMe re-attempts the question)."""
        last = wrong.last
        memory = last.recall.numbered()[wrong.number - 1]
        retracted = await self._retractions.retract(round_.user_id, memory)
        lines = [f"Noted: memory {wrong.number} (\"{described(memory)}\") is wrong; "
                 + (f"I won't use it again (to undo: /memories restore {memory.id[:8]})."
                    if retracted else
                    "I can't take it back (it is gone, or someone else's), but I'll follow you.")]
        if wrong.truth:
            try:
                fact = await self._teaching.teach(round_.user_id, wrong.truth, round_.id)
                lines.append(taught_note(fact))
            except UserFacingError as error:
                lines.append(str(error))
        recall = await self.recall(round_.user_id, last.asked, before_round=round_.id)
        return recall, last.asked, "\n".join(lines) + " Let me answer again:\n\n"

    async def _cannot_correct(self, incoming: Incoming, feedback: str) -> str:
        """Why a `/correct` command cannot be taken, or "" when it can."""
        if not incoming.private:
            return "For your privacy, /correct only works in a private chat with me."
        if not feedback:
            return CORRECT_USAGE
        previous = await self._corrections.previous_exchange(
            incoming.user_id, incoming.conversation, None)
        return "" if previous is not None else NOTHING_TO_CORRECT

    @asynccontextmanager
    async def user_lock(self, user_id: str) -> AsyncIterator[None]:
        """Keeps one user's messages and commands in order, in every chat (the memory is the
        user's, so a reply in one chat must see the round just said in another), and, with
        `turns`, in every process."""
        async with self._locks.setdefault(user_id, asyncio.Lock()):
            if self._turns is None:
                yield
                return
            async with self._turns.turn(user_id):
                yield

    async def _stream_reply(
        self, round_: Round, messages: list[ChatMessage], opening: str, given: LastReply,
    ) -> AsyncGenerator[ReplyEvent, None]:
        """`opening` is said before the model's reply (what was noted); `given` is what the
        prompt held, kept with the round; the reply may cite its numbered memories."""
        numbered = given.recall.numbered()
        pieces: list[str] = []
        marks = CitationFilter(len(numbered))
        finished = False
        try:
            if opening:
                pieces.append(opening)
                yield Delta(opening)
            async with aclosing(self._model.stream(messages)) as stream:
                async for piece in stream:
                    if shown := marks.feed(piece):
                        pieces.append(shown)
                        yield Delta(shown)
            if rest := marks.flush():
                pieces.append(rest)
                yield Delta(rest)
            reply = "".join(pieces).strip()
            if not reply:
                raise ModelUnavailable("The language model returned an empty reply.")
            cited = tuple(marks.cited)
            keys = [memory_key(numbered[n - 1]) for n in cited]
            used = used_record(given.recall, given.asked, cited)
            self._stored(round_.user_id,
                         await self._rounds.finish_round(round_, reply, keys, used))
            finished = True
            yield Finished(reply, round_.id, cited)
        except ModelUnavailable as error:
            used = used_record(given.recall, given.asked, ())
            self._stored(round_.user_id,
                         await self._rounds.fail_round(round_, "".join(pieces), used))
            finished = True
            yield Failed(f"{error} Your message is saved; please try again.", round_.id)
        finally:
            if not finished:  # the frontend stopped listening mid-reply: keep what we have
                used = used_record(given.recall, given.asked, ())
                await asyncio.shield(self._rounds.fail_round(round_, "".join(pieces), used))

    def _replied(self, user_id: str, round_id: int) -> None:
        if self._on_replied is not None:
            self._on_replied(user_id, round_id)

    def _stored(self, user_id: str, rounds_waiting: int) -> None:
        if self._on_round_stored is not None:
            self._on_round_stored(user_id, rounds_waiting)

    async def recall(self, user_id: str, text: str, *, before_round: int | None = None) -> Recall:
        """Recency, Relevance, Latest_topics, clarifications and the shared pool's examples for
        a message, all filtered by `user_id` (clarifications may also come from feedback shared
        with everyone; the examples are the pool's, scrubbed and shared by choice)."""
        persona = await self.persona_for(user_id)
        return await self._with_recency(user_id, before_round,
                                        self._memories(user_id, text, persona))

    async def _with_recency(
        self, user_id: str, before_round: int | None, memories: Awaitable[Memories],
        *, ask: bool = False,
    ) -> Recall:
        """`ask`: a reply in a private chat, which may ask about two beliefs that disagree."""
        recent, found, to_check = await asyncio.gather(
            self._rounds.recent_rounds(user_id, self._chat.recency_rounds, before_id=before_round),
            memories,
            self._beliefs.next_question(user_id)
            if ask and not self._prompt.short else _nothing(),
        )
        relevant, latest, clarifications, examples, unread = found
        return self._prompt.shown(Recall(
            recent=fit_recent(recent, self._chat.recency_max_chars),
            relevant=tuple(relevant), latest=tuple(latest),
            clarifications=tuple(clarifications), to_check=to_check or (),
            examples=tuple(examples), words_only=unread))

    async def _memories(self, user_id: str, text: str, persona: Persona) -> Memories:
        """Relevance, Latest_topics, clarifications and the pool's examples: the reads run
        together, and the message is embedded once while they wait on SQL. A message the
        embedder cannot read (another script, emoji) gets no vector: its cosines would say
        nothing, so words alone choose."""
        unread = self._embedder.readable(text) < self._min_readable
        vector = asyncio.ensure_future(_nothing() if unread else self._vector(text))
        try:
            relevant, latest, clarifications, examples = await asyncio.gather(
                self._relevance.find(user_id, text, vector),
                self._topics.latest(user_id, self._chat.latest_topics),
                self._feedback.lookup(user_id, text, vector),
                self._pool_examples(persona, text, vector),
            )
            return relevant, latest, clarifications, examples, unread
        finally:  # a failed read must not leave the embedding running unwatched
            vector.cancel()

    async def _pool_examples(self, persona: Persona, text: str,
                             vector: Awaitable[Vector | None]) -> list[PoolEntry]:
        if self._examples is None:
            return []
        return await self._examples.find(persona.domain, text, vector)

    async def _shared_chat_recall(self, incoming: Incoming, before_round: int) -> Recall:
        """Where others read along: only the user's recent rounds in this same chat."""
        recent = await self._rounds.recent_rounds(
            incoming.user_id, self._chat.recency_rounds, before_id=before_round,
            conversation_id=incoming.conversation,
        )
        return Recall(recent=fit_recent(recent, self._chat.recency_max_chars), relevant=(),
                      latest=())

    async def _vector(self, text: str) -> Vector | None:
        if not (self._relevance.enabled or self._feedback.enabled
                or (self._examples is not None and self._examples.enabled)):
            return None
        try:
            [vector] = await self._embedder.embed([text])
        except EmbeddingUnavailable as error:
            log.warning("Relevance by words only (and feedback by wording) for this reply: %s",
                        error)
            return None
        return vector

    async def prepare(self, user_id: str, text: str) -> tuple[Recall, list[ChatMessage]]:
        """The recall and the messages a reply to `text` would use; stores nothing."""
        persona = await self.persona_for(user_id)
        recall = await self.recall(user_id, text)
        return recall, self._messages(persona, recall, text)

    def _messages(self, persona: Persona, recall: Recall, text: str) -> list[ChatMessage]:
        return self._prompt.build(
            persona,
            recall,
            text,
            user_name=self._chat.user_name,
            recency_max_chars=self._chat.recency_max_chars,
            today=self._clock().date(),
        )

    async def last_recall(self, user_id: str) -> Recall | None:
        """The memories behind the user's last reply (in any process), as they are now."""
        last = await self._uses.last(user_id)
        return last.recall if last else None

    async def explain(self, user_id: str) -> LastReply | None:
        """The user's last reply (in any process), for `/why`: the next message may then say
        "No, that's wrong: ..." about it."""
        return await self._uses.explain(user_id)

    async def persona_for(self, user_id: str) -> Persona:
        chosen = await self._profiles.persona_of(user_id)
        return self.personas.get(chosen or "", self.personas[self._chat.persona])

    async def set_persona(self, user_id: str, name: str) -> Persona:
        if name not in self.personas:
            raise UserFacingError(
                f"There is no persona called '{name}'. Try: {', '.join(sorted(self.personas))}."
            )
        await self._profiles.set_persona(user_id, name)
        return self.personas[name]


async def _nothing() -> None:
    return None


def _drop(pending: asyncio.Future[Memories] | None) -> None:
    """Stop a lookup nobody needs any more (a correction answers another message)."""
    if pending is not None and not pending.cancel() and not pending.cancelled():
        pending.exception()  # retrieved: asyncio would log it when the future is collected


def _noted(caught: Caught) -> str:
    original = caught.original if len(caught.original) <= 80 else caught.original[:79] + "…"
    return (f"Noted: \"{caught.feedback.feedback}\" (about \"{original}\"). "
            "I'll remember that. Let me answer again:\n\n")
