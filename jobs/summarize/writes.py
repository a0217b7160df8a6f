"""The SQL side of memory jobs: what a job reads, and the one transaction that commits it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from jobs.queue import Job, JobQueue
from memory.errors import JobConflict
from memory.facts.rows import FORGOTTEN, REPLACED, fact_row
from memory.facts.terms import insert_facts
from memory.sql.rounds import to_round
from memory.sql.tables import facts, rounds, topics
from memory.topics.rows import ACTIVE, MERGED, to_topic, topic_row
from memory.types import Fact, Round, Topic


class StaleMerge(JobConflict):
    """The topics of a merge changed (forgotten or merged) before it could commit."""


class StaleWindow(JobConflict):
    """The rounds of a summary were forgotten (or summarized) before it could commit."""


@dataclass(frozen=True, slots=True)
class Replaced:
    """What a window's facts do to the provisional facts of its rounds (see
    `jobs.summarize.work.replacing`)."""

    taken: frozenset[str] = frozenset()  # ids a window's fact took over, or left out
    dropped: tuple[Fact, ...] = ()  # active ones no window fact says again: replaced
    forgotten: tuple[str, ...] = ()  # the ids of those the user forgot: done with


class TopicWrites:
    def __init__(self, engine: AsyncEngine, queue: JobQueue) -> None:
        self._engine = engine
        self._queue = queue

    async def rounds_of(self, job: Job) -> list[Round]:
        query = (
            select(rounds)
            .where((rounds.c.user_id == job.user_id)
                   & rounds.c.id.between(job.first_round_id, job.last_round_id))
            .order_by(rounds.c.id)
        )
        async with self._engine.connect() as conn:
            return [to_round(row) for row in (await conn.execute(query)).mappings()]

    async def commit_summary(self, job: Job, read: Sequence[Round], new_topics: Sequence[Topic],
                             keys: Sequence[str], new_facts: Sequence[Fact],
                             replaced: Replaced = Replaced()) -> None:
        """Job done, topics and facts in (in place of the provisional facts of the window),
        rounds marked summarized: all or nothing. The claim is checked first; the rounds must
        still be the ones read (not forgotten meanwhile)."""
        rows = [topic_row(t, source_job_id=job.id) | {"label_key": k}
                for t, k in zip(new_topics, keys, strict=True)]
        async with self._engine.begin() as conn:
            await self._queue.complete(conn, job)
            marked = await conn.execute(
                update(rounds)
                .where((rounds.c.user_id == job.user_id) & rounds.c.summary_job_id.is_(None)
                       & rounds.c.id.in_([r.id for r in read]))
                .values(summary_job_id=job.id)
            )
            if marked.rowcount != len(read):
                raise StaleWindow(f"the rounds of {job.key} changed while it ran")
            if rows:
                await conn.execute(insert(topics), rows)
            await _replace_provisional(conn, job.user_id, replaced)
            await self._insert_facts(conn, job, new_facts)

    async def commit_facts(self, job: Job, read: Sequence[Round],
                           new_facts: Sequence[Fact]) -> None:
        """A backfill's facts in and its job done, if its rounds are all still there."""
        async with self._engine.begin() as conn:
            await self._queue.complete(conn, job)
            still = (await conn.execute(
                select(func.count()).select_from(rounds)
                .where((rounds.c.user_id == job.user_id)
                       & rounds.c.id.in_([r.id for r in read]))
            )).scalar_one()
            if still != len(read):
                raise StaleWindow(f"the rounds of {job.key} were forgotten while it ran")
            await self._insert_facts(conn, job, new_facts)

    async def _insert_facts(self, conn: Any, job: Job, new_facts: Sequence[Fact]) -> None:
        await insert_facts(conn, [fact_row(f, source_job_id=job.id) for f in new_facts])

    async def active_topics(self, user_id: str, ids: Sequence[str]) -> list[Topic]:
        query = (
            select(topics)
            .where((topics.c.user_id == user_id) & topics.c.id.in_(list(ids))
                   & (topics.c.status == ACTIVE))
            .order_by(topics.c.created_at, topics.c.id)
        )
        return await self._topics(query)

    async def commit_merge(self, job: Job, merged: Topic, key: str,
                           sources: Sequence[Topic]) -> None:
        """The merged topic in, its sources kept as history linked to it, job done."""
        ids = [t.id for t in sources]
        async with self._engine.begin() as conn:
            await self._queue.complete(conn, job)
            await conn.execute(insert(topics), [topic_row(merged, source_job_id=job.id)
                                                | {"label_key": key}])
            retired = await conn.execute(
                update(topics)
                .where((topics.c.user_id == job.user_id) & topics.c.id.in_(ids)
                       & (topics.c.status == ACTIVE))
                .values(status=MERGED, merged_into=merged.id, indexed=False)
            )
            if retired.rowcount != len(ids):
                raise StaleMerge(f"merge {job.key}: its topics changed")

    async def undo_merge(self, user_id: str, merged_id: str) -> list[Topic]:
        """Bring a merge's sources back and drop the merged topic; returns the sources."""
        sources = (topics.c.user_id == user_id) & (topics.c.merged_into == merged_id)
        merged = (topics.c.user_id == user_id) & (topics.c.id == merged_id) & (
            topics.c.status == ACTIVE)  # a merge merged again later is part of history now
        async with self._engine.begin() as conn:
            rows = (await conn.execute(select(topics).where(sources))).mappings().all()
            if not rows or not (await conn.execute(select(topics.c.id).where(merged))).first():
                return []
            await conn.execute(update(topics).where(sources)
                               .values(status=ACTIVE, merged_into=None, indexed=False))
            await conn.execute(delete(topics).where(
                (topics.c.user_id == user_id) & (topics.c.id == merged_id)))
        return [to_topic(row) for row in rows]

    async def label_keys(self, user_id: str) -> list[str]:
        query = select(topics.c.label_key).distinct().where(
            (topics.c.user_id == user_id) & (topics.c.status == ACTIVE))
        async with self._engine.connect() as conn:
            return sorted((await conn.execute(query)).scalars())

    async def ready_to_merge(
        self, merge_at: int, user_id: str | None = None
    ) -> list[tuple[str, str, list[str]]]:
        """(user, label key, the oldest `merge_at` topic ids) for every label with enough."""
        crowded = (
            select(topics.c.user_id, topics.c.label_key)
            .where(topics.c.status == ACTIVE)
            .group_by(topics.c.user_id, topics.c.label_key)
            .having(func.count() >= merge_at)
        )
        if user_id is not None:
            crowded = crowded.where(topics.c.user_id == user_id)
        ready = []
        async with self._engine.connect() as conn:
            for user, key in (await conn.execute(crowded)).all():
                ids = (await conn.execute(
                    select(topics.c.id)
                    .where((topics.c.user_id == user) & (topics.c.label_key == key)
                           & (topics.c.status == ACTIVE))
                    .order_by(topics.c.created_at, topics.c.id).limit(merge_at)
                )).scalars()
                ready.append((user, key, list(ids)))
        return ready

    async def _topics(self, query: Any) -> list[Topic]:
        async with self._engine.connect() as conn:
            return [to_topic(row) for row in (await conn.execute(query)).mappings()]


async def _replace_provisional(conn: Any, user_id: str, replaced: Replaced) -> None:
    """Take the window's provisional facts out: those taken over or forgotten go (the window's
    fact is written in their place, and indexed once committed), the rest are marked replaced
    for any vector of theirs to leave the index."""
    mine = facts.c.user_id == user_id
    if gone := [*replaced.taken, *replaced.forgotten]:
        await conn.execute(delete(facts).where(
            mine & facts.c.id.in_(gone) & (facts.c.status.in_([ACTIVE, FORGOTTEN]))))
    if replaced.dropped:
        await conn.execute(update(facts).where(
            mine & facts.c.id.in_([f.id for f in replaced.dropped]) & (facts.c.status == ACTIVE)
        ).values(status=REPLACED, indexed=False))
