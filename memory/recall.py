"""One recall step: everything a reply is given from memory, for one user and one message.

Recency (the user's last rounds, within a character budget), Relevance (topics and facts by
words and meaning, within a token budget, taught facts first), Latest_topics (those Relevance
does not already hold, in what it left of the budget), the corrections that apply
(clarifications), the shared pool's examples for the persona's domain, and, for a private
reply, a question about two beliefs that disagree. The message is embedded once, and every
read filters on the user (the pool's examples are shared on purpose, scrubbed).

Recency depends on the round being stored; nothing else does. `looking_up` starts the rest at
once, so a turn finds its memories while its message is written to SQL.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

from memory.beliefs.rows import SQLBeliefRows
from memory.errors import EmbeddingUnavailable
from memory.feedback.store import FeedbackMemory
from memory.pool.examples import PoolExamples
from memory.protocols import Embedder, RoundStore, TopicStore, Vector
from memory.relevance import Relevance
from memory.types import Fact, Found, PoolEntry, Recall, Round, ScoredFeedback, Topic

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RecallSettings:
    """What a recall holds (the `chat.*` and `embeddings.min_readable` settings)."""

    recency_rounds: int = 20
    recency_max_chars: int = 16_000
    latest_topics: int = 5
    # The share of a message the embedder must read for its vector to choose memories.
    min_readable: float = 0.5
    # The demo model's short prompt holds no Latest_topics, examples or belief question: they
    # are not looked up, so `/why` lists only what the model was shown.
    short_prompt: bool = False


@dataclass(frozen=True, slots=True)
class _Found:
    """What a lookup finds besides Recency."""

    relevant: list[Found]
    latest: list[Topic]
    clarifications: list[ScoredFeedback]
    examples: list[PoolEntry]
    words_only: bool  # the embedder could not read the message: words alone chose


class Recaller:
    """The recall step. Testable without a chat model: it only reads the stores and embeds."""

    def __init__(
        self,
        *,
        rounds: RoundStore,
        topics: TopicStore,
        relevance: Relevance,
        feedback: FeedbackMemory,
        examples: PoolExamples | None,
        beliefs: SQLBeliefRows,
        embedder: Embedder,
        settings: RecallSettings,
    ) -> None:
        self._rounds = rounds
        self._topics = topics
        self._relevance = relevance
        self._feedback = feedback
        self._examples = examples
        self._beliefs = beliefs
        self._embedder = embedder
        self.settings = settings

    async def recall(
        self, user_id: str, text: str, *, domain: str, before_round: int | None = None,
        ask: bool = False,
    ) -> Recall:
        """Everything a reply to `text` is given. `domain`: the persona's, for the pool's
        examples. `before_round`: Recency ends before it (the message's own round). `ask`: a
        private reply, which may ask about two beliefs that disagree."""
        async with self.looking_up(user_id, text, domain=domain) as lookup:
            return await self.finish(lookup, before_round=before_round, ask=ask)

    @asynccontextmanager
    async def looking_up(self, user_id: str, text: str, *, domain: str
                         ) -> AsyncIterator[Lookup]:
        """Start finding everything but Recency now; `finish` adds Recency. A lookup nobody
        finished is stopped when the block ends."""
        found = asyncio.ensure_future(self._find(user_id, text, domain))
        try:
            yield Lookup(user_id, found)
        finally:
            _drop(found)

    async def finish(self, lookup: Lookup, *, before_round: int | None, ask: bool = False
                     ) -> Recall:
        """The lookup's memories with Recency, read before `before_round` (the message's own
        round); `ask`: a private reply, which may ask about two beliefs that disagree."""
        recent, found, to_check = await asyncio.gather(
            self._rounds.recent_rounds(lookup.user_id, self.settings.recency_rounds,
                                       before_id=before_round),
            lookup.found,
            self._question(lookup.user_id, ask),
        )
        return Recall(
            recent=fit_recent(recent, self.settings.recency_max_chars),
            relevant=tuple(found.relevant), latest=tuple(found.latest),
            clarifications=tuple(found.clarifications), to_check=to_check or (),
            examples=tuple(found.examples), words_only=found.words_only,
            short_prompt=self.settings.short_prompt)

    async def in_chat(self, user_id: str, conversation_id: str, *, before_round: int) -> Recall:
        """Where others read along (a group chat): only the user's recent rounds in that chat,
        never their private memories."""
        recent = await self._rounds.recent_rounds(
            user_id, self.settings.recency_rounds, before_id=before_round,
            conversation_id=conversation_id)
        return Recall(recent=fit_recent(recent, self.settings.recency_max_chars), relevant=(),
                      latest=())

    async def _find(self, user_id: str, text: str, domain: str) -> _Found:
        """The reads run together, and the message is embedded once while they wait on SQL. A
        message the embedder cannot read (another script, emoji) gets no vector: its cosines
        would say nothing, so words alone choose."""
        unread = self._embedder.readable(text) < self.settings.min_readable
        vector = asyncio.ensure_future(_nothing() if unread else self._vector(text))
        short = self.settings.short_prompt
        latest_read = 0 if short else self.settings.latest_topics
        latest_found = asyncio.ensure_future(self._topics.latest(user_id, latest_read))
        try:  # Relevance searches no topic by meaning for a person Latest_topics finds none of
            relevant, latest, clarifications, examples = await asyncio.gather(
                self._relevance.find(user_id, text, vector,
                                     latest_found if latest_read > 0 else None),
                latest_found,
                self._feedback.lookup(user_id, text, vector),
                _empty() if short else self._pool_examples(domain, text, vector),
            )
        finally:  # a failed read must not leave the embedding running unwatched
            vector.cancel()
            latest_found.cancel()
        latest = self._relevance.after(relevant, latest)
        return _Found(relevant, latest, clarifications, examples, unread)

    async def _pool_examples(self, domain: str, text: str,
                             vector: Awaitable[Vector | None]) -> list[PoolEntry]:
        if self._examples is None:
            return []
        return await self._examples.find(domain, text, vector)

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

    async def _question(self, user_id: str, ask: bool) -> tuple[Fact, Fact] | None:
        if not ask or self.settings.short_prompt:
            return None
        return await self._beliefs.next_question(user_id)


@dataclass(frozen=True, slots=True)
class Lookup:
    """The memories of one user's message, being found (see `Recaller.looking_up`)."""

    user_id: str
    found: asyncio.Future[_Found]


def fit_recent(rounds: Sequence[Round], max_chars: int) -> tuple[Round, ...]:
    """The newest rounds whose texts fit in `max_chars` (always the newest one), oldest first.

    A few pasted walls of text must not push the prompt past a small model's context window.
    """
    kept: list[Round] = []
    used = 0
    for round_ in reversed(rounds):
        size = len(round_.user_text) + len(round_.reply_text or "")
        if kept and used + size > max_chars:
            break
        kept.append(round_)
        used += size
    return tuple(reversed(kept))


async def _nothing() -> None:
    return None


async def _empty() -> list[PoolEntry]:
    return []


def _drop(pending: asyncio.Future[_Found]) -> None:
    """Stop a lookup nobody needs any more (a correction answers another message)."""
    if not pending.cancel() and not pending.cancelled():
        pending.exception()  # retrieved: asyncio would log it when the future is collected
