"""Relevance: the topics and facts most related to a message, within a token budget.

Two searches rank the user's memories: by meaning (cosine similarity of the embeddings, topics
and facts in one list) and by words (the lexical index over facts: names and rare words, which
embeddings match worst). Their ranks are fused by reciprocal rank fusion (Cormack et al. 2009,
k = 60), and memories are taken best first until the budget is spent, leaving out what repeats
a memory already taken. What the user taught on purpose comes first: the few taught facts
closest to the message (TeachMe retrieves r = 5), by both searches over taught facts alone.
The user's newest statement on the subjects the message and the facts taken are about (see
`memory.beliefs.subjects`) is brought in even when no search found it, and what they said on
a subject before it is marked as earlier: "we're in Vienna now" wins over "our place in Rome".
Latest_topics shares the budget: it gets what Relevance leaves (`after`), since on the
development conversations each token of Relevance recalled more than one of Latest_topics.
`mode = "topics"` keeps the paper's layout: the few topics most similar by meaning, and
Latest_topics beside them.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol

from memory.answers import Answers
from memory.beliefs.subjects import Subjects
from memory.days import undated
from memory.facts.rows import HeldFacts
from memory.facts.store import FactStore
from memory.protocols import TopicStore, Vector
from memory.questions import is_question, may_ask_about_the_speaker
from memory.tokens import TokenCounter
from memory.types import Fact, Found, ScoredTopic, Speaker, Topic, memory_key
from memory.words import words

RRF_K = 60
FACT_CANDIDATES = 16  # per search: more than the default budget holds (same recall as 30)
TOPIC_CANDIDATES = 4
TAUGHT = 5  # taught facts retrieved per message, as TeachMe's r
# Subjects whose newest statement is read: the message's first, then the facts'. Each brought
# statement takes a line of the budget: 4 cost recall_eval 0.016 of its hits, 2 none; but 2
# show the newest value less often (consistency_eval's clean, docs/pages/beliefs.md).
SUBJECTS_LOOKED_UP = 2
MESSAGE_SUBJECTS = 2  # subjects a message may be about
MESSAGE_FLOOR = 0.3  # the cosine a message needs with a subject's sentence (a question is far)
NEAR_DUPLICATE = 0.8  # share of words two memories have in common (Jaccard) to count as one
SHORTEST_LINE = 12  # tokens of the shortest memory line: below this, the budget is spent
MAX_COUNTED = 50_000  # token counts and wordings kept (a memory never changes, nor do they)
_TOPIC_HEAD = re.compile(r"^[^:]*?talked about [^:]*?\bsaid\b(?: that)?:?\s*", re.IGNORECASE)

Relevant = Topic | Fact  # what the Relevance slot holds


@dataclass(frozen=True, slots=True)
class RelevancePlan:
    """How Relevance is filled (the `chat.relevance*` settings)."""

    mode: Literal["budget", "topics"]
    tokens: int  # the budget (mode "budget")
    topics: int  # how many topics (mode "topics")
    floor: float  # the cosine a memory needs to be found by meaning
    by_words: bool = True  # the lexical search (off only to measure what it adds)
    by_meaning: bool = True  # the search by meaning (off only to measure what it adds)
    facts: bool = True  # facts as well as topics (off only to measure what they add)


class MemoryLine(Protocol):
    """Renders a memory as the prompt shows it; `earlier`: marked as said before a newer one."""

    def __call__(self, memory: Relevant, *, earlier: bool = False) -> str: ...


class Relevance:
    """Finds the Relevance slot's memories. Every search filters on the user."""

    def __init__(
        self,
        topics: TopicStore,
        facts: FactStore,
        counter: TokenCounter,
        line: MemoryLine,
        plan: RelevancePlan,
        subjects: Subjects | None = None,
        answers: Answers | None = None,
    ) -> None:
        """`line` renders a memory as the prompt shows it: that is what the budget counts.
        `subjects`: finds what a message is about, to bring the newest statement on it (None:
        the searches alone choose). `answers`: brings, for a question about the person, the
        statement of theirs that answers it best (None: the searches alone choose)."""
        self._topics = topics
        self._facts = facts
        self._counter = counter
        self._line = line
        self.plan = plan
        self._subjects = subjects
        self._answers = answers
        self._costs: dict[tuple[str, bool], int] = {}
        self._wordings: dict[str, _Wording] = {}

    @property
    def enabled(self) -> bool:
        """False when the slot is switched off (no tokens, or no topics in "topics" mode)."""
        return (self.plan.topics if self.plan.mode == "topics" else self.plan.tokens) > 0

    async def find(
        self, user_id: str, text: str, vector: Awaitable[Vector | None],
        latest: Awaitable[Sequence[Topic]] | None = None,
    ) -> list[Found]:
        """The memories for `text`, best first. `vector` is the message's embedding (None when
        the embedder is down: words alone). `latest`: the turn's read of Latest_topics, if it
        makes one; a person it finds no topic for has none to search by meaning."""
        if not self.enabled:
            return []
        if self.plan.mode == "topics":
            return await self._paper_topics(user_id, await vector)
        held = asyncio.ensure_future(self._held(user_id))
        try:  # the newest statements on what the message is about are read beside the searches
            taught, by_words, by_meaning, newest, answer = await asyncio.gather(
                self._taught(user_id, text, vector, held), self._by_words(user_id, text),
                self._by_meaning(user_id, vector, held, latest),
                self._newest_asked(user_id, vector), self._answering(user_id, text, vector))
        finally:
            held.cancel()  # when a search failed before it was read
        ranked = taught + answer + fuse(by_meaning, by_words)
        return await self._with_newest(user_id, ranked, newest)

    async def _held(self, user_id: str) -> HeldFacts:
        if not self.plan.facts:
            return HeldFacts(taught=False, said=False)
        return await self._facts.rows.held(user_id)

    async def _answering(self, user_id: str, text: str, pending: Awaitable[Vector | None]
                         ) -> list[Found]:
        """For a question about the person, the statement of theirs not yet summarized that
        answers it best (`memory.answers`), if one does: said in passing ("Gothenburg is so
        windy today", "night shifts on the ward again"), it can sit below the floor of the
        search by meaning and share no word with the question."""
        if self._answers is None or not self.plan.facts or not may_ask_about_the_speaker(text):
            return []
        vector = await pending
        if vector is None or not self._answers.asks_about_them(text, vector):
            return []
        theirs = [(fact, unit) for fact, unit in await self._facts.rows.provisional(user_id)
                  if fact.speaker is Speaker.USER and not is_question(fact.text)]
        best = await self._answers.best(text, vector, theirs)
        return [] if best is None else [Found(best[0], best[1])]

    async def _newest_asked(self, user_id: str, pending: Awaitable[Vector | None]
                            ) -> _Newest:
        """The subjects the message is about (its closest by meaning, at most
        `SUBJECTS_LOOKED_UP`) and the user's newest statement on each."""
        if self._subjects is None or not self.plan.facts:
            return _Newest([], {})
        vector = await pending
        if vector is None:
            return _Newest([], {})
        await self._subjects.load()
        asked = self._subjects.closest(vector, MESSAGE_SUBJECTS, MESSAGE_FLOOR)
        asked = asked[:SUBJECTS_LOOKED_UP]
        return _Newest(asked, await self._facts.rows.newest_on(user_id, asked))

    async def _with_newest(self, user_id: str, ranked: list[Found],
                           asked: _Newest) -> list[Found]:
        """The budget filled with the best of `ranked`, and with the user's newest statement on
        the subjects the message is about (`asked`) and, up to `SUBJECTS_LOOKED_UP` subjects
        in all, on those of the facts taken; what the user said before it on its subject is
        marked as earlier. Newer words win even where the searches did not find them ("we're
        in Vienna now" for "which city am I in?")."""
        kept = self._fill(ranked)
        if self._subjects is None or not self.plan.facts:
            return kept
        subject_of = {f.memory.id: f.memory.subject for f in kept
                      if isinstance(f.memory, Fact) and f.memory.speaker is Speaker.USER
                      and f.memory.subject}
        more = [s for s in dict.fromkeys(subject_of.values()) if s not in asked.subjects]
        more = more[:SUBJECTS_LOOKED_UP - len(asked.subjects)]
        newest = asked.statements
        if more:  # a second read only when the message names fewer subjects than may be read
            newest = {**newest, **await self._facts.rows.newest_on(user_id, more)}
        held = {memory_key(found.memory) for found in kept}
        brought = [Found(fact, 0.0, newest_on=subject) for subject, fact in newest.items()
                   if memory_key(fact) not in held]
        if brought:
            kept = self._fill(brought + ranked)
        shown = {fact.id for fact in newest.values()} & {
            found.memory.id for found in kept if isinstance(found.memory, Fact)}
        return self._within_budget(
            [_as_earlier(found, subject_of, newest, shown) for found in kept])

    def _within_budget(self, kept: list[Found]) -> list[Found]:
        """`kept`, best first, costed as shown: a line marked as earlier is longer, so the
        lowest ranked go when the marks no longer fit the budget."""
        costed = [replace(found, tokens=self._cost(found.memory, earlier=found.earlier))
                  for found in kept]
        while sum(found.tokens for found in costed) > self.plan.tokens:
            costed.pop()
        return costed

    async def _taught(
        self, user_id: str, text: str, pending: Awaitable[Vector | None],
        held: Awaitable[HeldFacts],
    ) -> list[Found]:
        """The taught facts closest to `text`, by words and by meaning, best first. Most
        people never teach: one indexed read saves their turns both searches."""
        facts_held = await held
        if not facts_held.taught:
            return []
        by_words = (self._facts.by_words(user_id, text, TAUGHT, taught=True)
                    if self.plan.by_words else _nothing())
        by_words_found, vector = await asyncio.gather(by_words, pending)
        by_meaning: list[tuple[Relevant, float]] = []
        if vector is not None and self.plan.by_meaning:
            hits = await self._facts.by_meaning(user_id, vector, TAUGHT, taught=True,
                                                taught_version=facts_held.taught_version)
            by_meaning = await self._with_subjects(
                user_id, [(fact, score) for fact, score in hits if score >= self.plan.floor])
        return fuse(by_meaning, list(by_words_found))[:TAUGHT]

    async def _paper_topics(self, user_id: str, vector: Vector | None) -> list[Found]:
        if vector is None or self.plan.topics == 0:
            return []
        hits = await self._topics.search(
            user_id, vector, limit=self.plan.topics, floor=self.plan.floor)
        return [Found(h.topic, h.score, similarity=h.score, tokens=self._cost(h.topic))
                for h in hits]

    async def _by_words(self, user_id: str, text: str) -> list[tuple[Relevant, float]]:
        if not (self.plan.by_words and self.plan.facts):
            return []
        return list(await self._facts.by_words(user_id, text, FACT_CANDIDATES))

    async def _by_meaning(
        self, user_id: str, pending: Awaitable[Vector | None], held: Awaitable[HeldFacts],
        latest: Awaitable[Sequence[Topic]] | None,
    ) -> list[tuple[Relevant, float]]:
        """Topics and facts by meaning. Until a person's first summary they have no topic and
        the index none of their facts: asking the vector store for them would be a round trip
        for nothing on every turn."""
        vector = await pending
        if vector is None or not self.plan.by_meaning:
            return []
        no_topics = latest is not None and not await latest
        topic_hits, fact_hits = await asyncio.gather(
            _no_topics() if no_topics else self._topics.search(
                user_id, vector, limit=TOPIC_CANDIDATES, floor=self.plan.floor),
            self._facts.by_meaning(user_id, vector, FACT_CANDIDATES,
                                   in_index=(await held).said) if self.plan.facts
            else _nothing(),
        )
        found: list[tuple[Relevant, float]] = [(h.topic, h.score) for h in topic_hits]
        facts = await self._with_subjects(
            user_id, [(fact, score) for fact, score in fact_hits if score >= self.plan.floor])
        return sorted(found + facts, key=lambda pair: -pair[1])

    async def _with_subjects(self, user_id: str, hits: list[tuple[Fact, float]]
                             ) -> list[tuple[Relevant, float]]:
        """Facts found in the index, with the subjects SQL holds (the index does not keep
        them: a belief check sets them later)."""
        if self._subjects is None:
            return list(hits)
        subjects = await self._facts.rows.subjects_of(
            user_id, [fact.id for fact, _ in hits if fact.subject is None])
        return [(replace(fact, subject=subjects.get(fact.id, fact.subject)), score)
                for fact, score in hits]

    def _fill(self, ranked: list[Found]) -> list[Found]:
        """The best memories that fit the budget together, none repeating another."""
        seen: list[_Wording] = []
        kept: list[Found] = []
        used = 0
        for found in ranked:
            if self.plan.tokens - used < SHORTEST_LINE:
                break
            cost = self._cost(found.memory)
            if used + cost > self.plan.tokens:
                continue
            wording = self._wording(found.memory)
            if not wording.words or any(wording.repeats(other) for other in seen):
                continue
            kept.append(replace(found, tokens=cost))
            seen.append(wording)
            used += cost
        return kept

    def after(self, relevant: Sequence[Found], topics: Sequence[Topic]) -> list[Topic]:
        """Latest_topics: those of `topics` (the latest, newest first) that say something
        `relevant` does not already hold and fit in what it left of the budget (the two slots
        share it, Relevance first). The paper's layout (`mode = "topics"`) gives them their own
        slot."""
        held = {memory_key(found.memory) for found in relevant}
        wordings = [self._wording(found.memory) for found in relevant]
        fresh = [topic for topic in topics if memory_key(topic) not in held
                 and not any(self._wording(topic).repeats(other) for other in wordings)]
        if self.plan.mode == "topics":
            return fresh
        left = self.plan.tokens - sum(self._cost(found.memory, earlier=found.earlier)
                                      for found in relevant)
        kept = []
        for topic in fresh:
            cost = self._cost(topic)
            if cost <= left:
                kept.append(topic)
                left -= cost
        return kept

    def _wording(self, memory: Relevant) -> _Wording:
        """What the memory says, as words; each memory's is found once."""
        key = memory_key(memory)
        wording = self._wordings.get(key)
        if wording is None:
            if len(self._wordings) >= MAX_COUNTED:
                self._wordings.clear()
            wording = self._wordings[key] = _Wording.of(_said(memory))
        return wording

    def _cost(self, memory: Relevant, *, earlier: bool = False) -> int:
        """Tokens of the memory's line; a memory never changes, so each is counted once."""
        key = (memory_key(memory), earlier)
        cost = self._costs.get(key)
        if cost is None:
            if len(self._costs) >= MAX_COUNTED:
                self._costs.clear()
            cost = self._costs[key] = self._counter.count(self._line(memory, earlier=earlier))
        return cost


def _as_earlier(found: Found, subject_of: dict[str, str], newest: dict[str, Fact],
                shown: set[str]) -> Found:
    """`found`, marked as earlier when it is the user's and a newer statement of theirs on its
    subject, from another round, is shown too: two sentences of one message ("My favourite
    book is Anne of Green Gables. I reread it every winter.") say one thing together."""
    memory = found.memory
    if not isinstance(memory, Fact) or memory.speaker is not Speaker.USER:
        return found
    latest = newest.get(subject_of.get(memory.id) or found.newest_on or "")
    if latest is None or latest.id == memory.id or latest.id not in shown:
        return found
    same_round = bool(set(latest.round_ids) & set(memory.round_ids))
    return replace(found, earlier=latest.said_at >= memory.said_at and not same_round)


def fuse(
    by_meaning: Sequence[tuple[Relevant, float]], by_words: Sequence[tuple[Relevant, float]]
) -> list[Found]:
    """Reciprocal rank fusion of the two rankings, best first; each `Found` keeps the scores
    it was found with."""
    scores: dict[str, float] = {}
    similarity: dict[str, float] = {}
    words: dict[str, float] = {}
    memories: dict[str, Relevant] = {}
    for ranking, scored in ((by_meaning, similarity), (by_words, words)):
        for rank, (memory, score) in enumerate(ranking, start=1):
            key = memory_key(memory)
            if key in scored:
                continue
            memories[key] = memory
            scored[key] = score
            scores[key] = scores.get(key, 0.0) + 1.0 / (RRF_K + rank)
    order = sorted(scores, key=lambda k: (-scores[k], -similarity.get(k, -1.0)))
    return [Found(memories[k], scores[k], similarity=similarity.get(k), words=words.get(k))
            for k in order]


def _said(memory: Relevant) -> str:
    """What a memory says: a topic without its "The host and I talked about X, and the host
    said:" (the label alone repeats nothing) and the days of its sentences."""
    if isinstance(memory, Fact):
        return memory.text
    return undated(_TOPIC_HEAD.sub("", memory.description, count=1))


@dataclass(frozen=True, slots=True)
class _Newest:
    """Subjects a message is about, and the user's newest statement on each that has one."""

    subjects: list[str]
    statements: dict[str, Fact]


@dataclass(frozen=True, slots=True)
class _Wording:
    spaced: str  # the words, lowercased, between spaces
    words: frozenset[str]

    @classmethod
    def of(cls, text: str) -> _Wording:
        found = words(text)
        return cls(f" {' '.join(found)} ", frozenset(found))

    def repeats(self, other: _Wording) -> bool:
        """Whether this says nothing that `other` does not: it is quoted in it, or they share
        almost all their words."""
        if self.spaced in other.spaced:
            return True
        # Sets this far apart in size cannot share that much (checked first: it is cheap).
        mine, theirs = len(self.words), len(other.words)
        if mine < NEAR_DUPLICATE * theirs or theirs < NEAR_DUPLICATE * mine:
            return False
        return len(self.words & other.words) >= NEAR_DUPLICATE * len(self.words | other.words)


async def _nothing() -> list[tuple[Fact, float]]:
    return []


async def _no_topics() -> list[ScoredTopic]:
    return []
