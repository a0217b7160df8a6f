"""The work of the summary jobs: a window of rounds into topic descriptions and facts, a label's
descriptions merged into one, facts found for a window summarized before facts existed.

Each job reads what it needs, asks the summarizer, and commits what it wrote in one transaction
(`TopicWrites`); ids come from the job, so a rerun can never duplicate anything. Indexing comes
after the commit: a row the index missed stays marked and the sweep repairs it.
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime

from jobs.queue import Job, JobQueue
from jobs.summarize.drafts import FactDraft, Summarizer, Voices, WindowDrafts
from jobs.summarize.labels import LabelResolver
from jobs.summarize.writes import Replaced, StaleMerge, TopicWrites
from memory.errors import EmbeddingUnavailable, VectorStoreUnavailable
from memory.facts.provisional import provisional_id, statement_ids
from memory.facts.rows import FORGOTTEN
from memory.facts.store import FactStore
from memory.sql.retracted import ACTIVE
from memory.topics.store import IndexedTopicStore
from memory.types import Fact, Round, Speaker, Topic
from personas.loader import Persona

log = logging.getLogger(__name__)
MERGES_PER_CALL = 8  # labels merged in one model call
MERGED_KEPT = 1_000  # descriptions merged ahead and kept for their jobs


class SummaryWork:
    """Runs summarize, merge and facts-backfill jobs; each returns the facts it wrote (new
    beliefs to check)."""

    def __init__(
        self,
        *,
        queue: JobQueue,
        writes: TopicWrites,
        topics: IndexedTopicStore,
        facts: FactStore,
        summarizer: Summarizer,
        labels: LabelResolver,
        personas: dict[str, Persona],
        default_persona: str,
        user_name: str,
        merge_at: int,
    ) -> None:
        """`merge_at`: a label is merged once it has this many descriptions."""
        self._queue = queue
        self._writes = writes
        self._topics = topics
        self._facts = facts
        self._summarizer = summarizer
        self._labels = labels
        self._personas = personas
        self._default_persona = personas[default_persona]
        self._user_name = user_name
        self._merge_at = merge_at
        # Descriptions merged ahead, in another label's call: (user, topic ids) -> description.
        self._merged: dict[tuple[str, tuple[str, ...]], str] = {}

    async def summarize(self, job: Job) -> list[Fact]:
        rounds = await self._writes.rounds_of(job)
        found = (await self._summarizer.window(rounds, self._voices(rounds)) if rounds
                 else WindowDrafts([], []))
        drafts = found.topics
        kept = await self._facts.rows.provisional_of(job.user_id, [r.id for r in rounds])
        new_facts, replaced = replacing(self._facts_of(job, rounds, found.facts), kept, rounds)
        existing = await self._writes.label_keys(job.user_id)
        keys = await self._labels.keys_for([d.label for d in drafts], existing)
        first, last = (rounds[0].created_at, rounds[-1].created_at) if rounds else (
            datetime.now(UTC), datetime.now(UTC))
        # A topic spans the days its sentences were said, and is dated by the last of them.
        new_topics = [
            Topic(id=_stable_id(job.key, i), user_id=job.user_id, label=d.label,
                  description=d.description, created_at=d.said_from or first,
                  updated_at=d.said_until or last)
            for i, d in enumerate(drafts)
        ]
        await self._writes.commit_summary(job, rounds, new_topics, keys, new_facts, replaced)
        await self._after_commit(job, new_topics, [], new_facts, replaced)
        return new_facts

    async def backfill_facts(self, job: Job) -> list[Fact]:
        """Facts for a window summarized before facts existed; its topics stay as they are."""
        rounds = await self._writes.rounds_of(job)
        new_facts = await self._find_facts(job, rounds)
        await self._writes.commit_facts(job, rounds, new_facts)
        await self._after_commit(job, [], [], new_facts)
        return new_facts

    async def merge(self, job: Job) -> list[Fact]:
        sources = await self._writes.active_topics(job.user_id, job.topic_ids)
        if len(sources) != len(job.topic_ids):
            raise StaleMerge(f"some topics of {job.key} were forgotten or merged already")
        voices = Voices(user=self._user_name, companion=self._default_persona.display_name)
        description = (self._merged.pop((job.user_id, tuple(sorted(job.topic_ids))), None)
                       or await self._merge_with_others(job, sources, voices))
        merged = Topic(
            id=_stable_id(job.key, 0), user_id=job.user_id, label=sources[-1].label,
            description=description, created_at=sources[0].created_at,
            updated_at=max(t.updated_at for t in sources),
        )
        await self._writes.commit_merge(job, merged, job.label_key or "", sources)
        await self._after_commit(job, [merged], [t.id for t in sources], [])
        return []

    async def _merge_with_others(self, job: Job, sources: Sequence[Topic], voices: Voices
                                 ) -> str:
        """The job's merged description. The user's other labels ready to merge are merged in
        the same call, and kept for their own jobs (which this process usually runs next; a
        job whose topics changed, or run elsewhere, asks again)."""
        mine = tuple(sorted(job.topic_ids))
        groups: list[tuple[tuple[str, ...], Sequence[Topic]]] = [(mine, sources)]
        for _, _, ids in await self._writes.ready_to_merge(self._merge_at, job.user_id):
            other = tuple(sorted(ids))
            if other != mine and len(groups) < MERGES_PER_CALL:
                found = await self._writes.active_topics(job.user_id, list(other))
                if len(found) == len(other):
                    groups.append((other, found))
        merged: list[str | None] = [None]
        if len(groups) > 1:
            merged = await self._summarizer.merge_many(
                [(g[-1].label, [t.description for t in g]) for _, g in groups], voices)
        if len(self._merged) > MERGED_KEPT:
            self._merged.clear()
        for (merged_ids, _), description in zip(groups[1:], merged[1:], strict=True):
            if description is not None:
                self._merged[(job.user_id, merged_ids)] = description
        return merged[0] or await self._summarizer.merge(
            sources[-1].label, [t.description for t in sources], voices)

    async def undo_merge(self, user_id: str, merged_id: str) -> int:
        """Replace a merged topic by the descriptions it was made of (an admin's undo)."""
        sources = await self._writes.undo_merge(user_id, merged_id)
        if sources:
            await self._topics.unindex(user_id, [merged_id])
            await self._topics.index(sources)
        return len(sources)

    async def enqueue_merges(self, user_id: str | None) -> None:
        """Queue a merge for every label (of the user, or of everyone) that has enough
        descriptions."""
        for user, key, ids in await self._writes.ready_to_merge(self._merge_at, user_id):
            await self._queue.enqueue_merge(user, key, ids)

    async def _find_facts(self, job: Job, rounds: Sequence[Round]) -> list[Fact]:
        drafts = await self._summarizer.facts(rounds, self._voices(rounds)) if rounds else []
        return self._facts_of(job, rounds, drafts)

    @staticmethod
    def _facts_of(job: Job, rounds: Sequence[Round], drafts: Sequence[FactDraft]) -> list[Fact]:
        by_id = {r.id: r for r in rounds}
        return [_fact(job, i, d, [by_id[n] for n in d.round_ids if n in by_id])
                for i, d in enumerate(drafts)]

    async def _after_commit(self, job: Job, added: list[Topic], retired: list[str],
                            new_facts: list[Fact], replaced: Replaced | None = None) -> None:
        """Index what a committed job wrote. The job is done whatever happens here: rows that
        could not be indexed stay marked, and the next sweep repairs them."""
        try:
            await self._topics.index(added)
            await self._topics.unindex(job.user_id, retired)
            await self._facts.index(new_facts)
        except (EmbeddingUnavailable, VectorStoreUnavailable) as error:
            log.warning("Memory job %s: indexing left to the next sweep: %s", job.key, error)
        if replaced:
            await self._facts.drop_replaced(replaced.dropped)
        await self.enqueue_merges(job.user_id)

    def _voices(self, rounds: Sequence[Round]) -> Voices:
        persona = self._personas.get(rounds[-1].persona) if rounds else None
        name = (persona or self._default_persona).display_name
        return Voices(user=self._user_name, companion=name)


def replacing(new_facts: Sequence[Fact], kept: Sequence[tuple[Fact, str]],
              rounds: Sequence[Round]) -> tuple[list[Fact], Replaced]:
    """The window's facts, and what they do to the provisional facts of its rounds (`kept`,
    with their status). A fact in the same words from the same round as a provisional one
    takes its id; one the user retracted or forgot as a provisional fact
    is not written again; every other provisional fact is replaced."""
    statuses = {fact.id: status for fact, status in kept}
    ids = statement_ids(rounds)
    written: list[Fact] = []
    taken: set[str] = set()
    for fact in new_facts:
        match = provisional_id(fact, ids)
        if match is None or match not in statuses or match in taken:
            written.append(fact)
            continue
        taken.add(match)
        if statuses[match] == ACTIVE:
            written.append(replace(fact, id=match))
    return written, Replaced(
        taken=frozenset(taken),
        dropped=tuple(f for f, status in kept if status == ACTIVE and f.id not in taken),
        forgotten=tuple(f.id for f, status in kept if status == FORGOTTEN))


def _fact(job: Job, index: int, draft: FactDraft, sources: Sequence[Round]) -> Fact:
    """Like topic ids, fact ids come from the job: a rerun can never duplicate a fact. A fact
    is `inferred` when its words are not the speaker's own (a model wrote it)."""
    said = " ".join((r.user_text if draft.speaker is Speaker.USER else r.reply_text or "")
                    for r in sources).casefold()
    return Fact(id=_stable_id(f"{job.key}/fact", index), user_id=job.user_id, text=draft.text,
                speaker=draft.speaker, said_at=draft.said_at, round_ids=draft.round_ids,
                persona=sources[0].persona if sources else "",
                inferred=draft.text.casefold().rstrip(".!") not in said)


def _stable_id(job_key: str, index: int) -> str:
    """The same job always writes the same topic ids: a rerun can never duplicate a topic."""
    digest = hashlib.sha256(f"{job_key}#{index}".encode()).digest()
    return uuid.UUID(bytes=digest[:16]).hex
