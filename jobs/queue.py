"""Durable summarize and merge jobs in SQL, claimed so that only one worker runs each.

A job's key names its work (a user's round window, or a set of topics to merge), so the same
work is never queued twice. Claims are leases: a worker that dies leaves a claim that expires,
and the next sweep takes the job over. Finishing is fenced by the claim inside the transaction
that writes the results, so a worker whose lease was taken over can never commit twice.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from memory.errors import JobConflict
from memory.sql.engine import as_utc, utcnow
from memory.sql.failures import again_after_deadlock
from memory.sql.tables import memory_jobs, memory_progress, rounds

SUMMARIZE = "summarize"
MERGE = "merge"
FACTS = "facts"  # facts for a window summarized before facts existed (see migration 3)
BELIEFS = "beliefs"  # check a user's new beliefs against the ones before them
# the belief columns of a user's facts stored before beliefs existed (see migration 5)
BELIEF_COLUMNS = "belief_columns"
SCORE = "score"  # score a reply for the shared pool
RETRAIN = "retrain"  # train the shared pool's retriever again (user_id "": the pool's own job)
POOL = ""  # the user id of the pool's own jobs
PENDING, RUNNING, DONE, FAILED = "pending", "running", "done", "failed"


class LostClaim(JobConflict):
    """Another worker took this job over; this worker's results must not be committed."""


@dataclass(frozen=True, slots=True)
class Job:
    id: int
    key: str
    kind: str
    user_id: str
    status: str
    attempts: int
    first_round_id: int | None
    last_round_id: int | None
    label_key: str | None
    topic_ids: tuple[str, ...]
    last_error: str | None
    created_at: datetime
    next_attempt_at: datetime


class JobQueue:
    """The job table, seen by one worker (`worker_id`)."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        worker_id: str,
        lease: timedelta,
        max_attempts: int,
        retry_base: timedelta,
    ) -> None:
        self._engine = engine
        self.worker_id = worker_id
        self._lease = lease
        self._max_attempts = max_attempts
        self._retry_base = retry_base

    async def enqueue_summaries(self, user_id: str, window: int) -> list[Job]:
        """Queue one job per full window of the user's unsummarized rounds."""
        queued = []
        while (job := await self._enqueue_one_window(user_id, window)) is not None:
            queued.append(job)
        return queued

    @again_after_deadlock
    async def _enqueue_one_window(self, user_id: str, window: int) -> Job | None:
        async with self._engine.begin() as conn:
            progress = (
                await conn.execute(
                    select(memory_progress).where(memory_progress.c.user_id == user_id)
                )
            ).mappings().one_or_none()
            if progress is None or progress["pending_rounds"] < window:
                return None
            ids, counted = await self._closed_window(conn, user_id, progress, window)
            if len(ids) < window:
                return None
            # The one UPDATE that only one worker can win: it moves the window forward.
            won = await conn.execute(
                update(memory_progress)
                .where((memory_progress.c.user_id == user_id)
                       & (memory_progress.c.scheduled_through == progress["scheduled_through"]))
                .values(pending_rounds=memory_progress.c.pending_rounds - counted,
                        scheduled_through=ids[-1])
            )
            if won.rowcount != 1:
                return None
            key = f"summarize:{_digest(user_id)}:{ids[0]}-{ids[-1]}"
            return await self._insert(conn, key, SUMMARIZE, user_id,
                                      first_round_id=ids[0], last_round_id=ids[-1])

    async def _closed_window(
        self, conn: AsyncConnection, user_id: str, progress: Any, window: int
    ) -> tuple[list[int], int]:
        """The next `window` rounds, stopping at one whose reply is still being written.

        A round left pending by a crash (older than the lease) counts as closed: its message
        is worth keeping. Returns the ids, and how many of them the counter had counted.
        """
        listed = (await conn.execute(
            select(rounds.c.id, rounds.c.status, rounds.c.created_at)
            .where((rounds.c.user_id == user_id)
                   & (rounds.c.id > progress["scheduled_through"]))
            .order_by(rounds.c.id)
            .limit(window)
        )).all()
        abandoned_before = utcnow() - self._lease
        ids, counted = [], 0
        for round_id, status, created_at in listed:
            if status == "pending" and created_at >= abandoned_before:
                break
            ids.append(round_id)
            counted += status != "pending"
        return ids, counted

    @again_after_deadlock
    async def enqueue_merge(
        self, user_id: str, label_key: str, topic_ids: list[str]
    ) -> Job | None:
        """Queue a merge of these topics; None when the same merge is already queued."""
        key = f"merge:{_digest(user_id)}:{_digest(label_key, *sorted(topic_ids))}"
        try:
            async with self._engine.begin() as conn:
                return await self._insert(conn, key, MERGE, user_id, label_key=label_key,
                                          topic_ids=json.dumps(sorted(topic_ids)))
        except IntegrityError:
            return None

    @again_after_deadlock
    async def enqueue_beliefs(self, user_id: str, through: int) -> Job | None:
        """Queue a check of the user's unchecked beliefs, up to row `through`; None when that
        check is queued (or done) already."""
        key = f"beliefs:{_digest(user_id)}:{through}"
        try:
            async with self._engine.begin() as conn:
                return await self._insert(conn, key, BELIEFS, user_id)
        except IntegrityError:
            return None

    async def enqueue_score(self, user_id: str, round_id: int) -> Job | None:
        """Queue the scoring of a reply for the shared pool; None when it is queued already."""
        return await self._insert_once(f"score:{round_id}", SCORE, user_id,
                                       first_round_id=round_id)

    async def enqueue_retrain(self, labelled: int) -> Job | None:
        """Queue a training of the pool's retriever on its first `labelled` labelled entries;
        None when that training is queued (or done) already, here or in another process."""
        return await self._insert_once(f"retrain:{labelled}", RETRAIN, POOL)

    @again_after_deadlock
    async def _insert_once(self, key: str, kind: str, user_id: str, **values: Any) -> Job | None:
        try:
            async with self._engine.begin() as conn:
                return await self._insert(conn, key, kind, user_id, **values)
        except IntegrityError:
            return None

    @again_after_deadlock
    async def finish(self, job: Job, note: str | None = None) -> None:
        """Done: a job whose results were committed as it went (a belief check); `note` says
        what it did."""
        async with self._engine.begin() as conn:
            await self.complete(conn, job, note)

    async def _insert(self, conn: AsyncConnection, key: str, kind: str, user_id: str,
                      **values: Any) -> Job:
        now = utcnow()
        row = {"job_key": key, "kind": kind, "user_id": user_id, "status": PENDING,
               "attempts": 0, "next_attempt_at": now, "created_at": now, **values}
        result = await conn.execute(insert(memory_jobs).values(**row))
        [job_id] = result.inserted_primary_key or (None,)
        return _to_job({"id": job_id, "topic_ids": None,
                        "first_round_id": None, "last_round_id": None, "label_key": None,
                        "last_error": None, **row})

    async def users_with_pending(self, window: int) -> list[str]:
        query = select(memory_progress.c.user_id).where(
            memory_progress.c.pending_rounds >= window)
        async with self._engine.connect() as conn:
            return list((await conn.execute(query)).scalars())

    @again_after_deadlock
    async def claim_next(
        self, user_id: str | None = None, *, skip: set[int] | None = None
    ) -> Job | None:
        """Claim the oldest due job (pending and due, or running with an expired lease).

        One at a time: a claim is a lease, and a job waiting behind others must not let its
        lease run out. `skip`: jobs this run already tried; a failure waits for a later run.
        """
        now = utcnow()
        if user_id is None:  # a sweep: one statement over every job, not one per turn
            await self._give_up_on_abandoned(now)
        due = or_(
            and_(memory_jobs.c.status == PENDING, memory_jobs.c.next_attempt_at <= now),
            and_(memory_jobs.c.status == RUNNING, memory_jobs.c.claimed_at < now - self._lease,
                 memory_jobs.c.attempts < self._max_attempts),
        )
        query = select(memory_jobs.c.id).where(due).order_by(memory_jobs.c.id).limit(20)
        if user_id is not None:
            query = query.where(memory_jobs.c.user_id == user_id)
        if skip:
            query = query.where(memory_jobs.c.id.notin_(skip))
        async with self._engine.begin() as conn:
            for job_id in (await conn.execute(query)).scalars():
                won = await conn.execute(
                    update(memory_jobs).where((memory_jobs.c.id == job_id) & due)
                    .values(status=RUNNING, claimed_by=self.worker_id, claimed_at=now,
                            attempts=memory_jobs.c.attempts + 1)
                )
                if won.rowcount == 1:
                    break
            else:
                return None
        return (await self.jobs(ids=[job_id]))[0]

    @again_after_deadlock
    async def _give_up_on_abandoned(self, now: Any) -> None:
        """A job whose workers kept dying mid-run ends failed instead of being retried forever."""
        async with self._engine.begin() as conn:
            await conn.execute(
                update(memory_jobs)
                .where((memory_jobs.c.status == RUNNING)
                       & (memory_jobs.c.claimed_at < now - self._lease)
                       & (memory_jobs.c.attempts >= self._max_attempts))
                .values(status=FAILED, claimed_by=None, claimed_at=None,
                        last_error="its workers stopped answering mid-job, every attempt")
            )

    def _ours(self, job: Job) -> Any:
        """This claim of the job, still running: the fence every write of a job goes through."""
        return ((memory_jobs.c.id == job.id) & (memory_jobs.c.status == RUNNING)
                & (memory_jobs.c.claimed_by == self.worker_id)
                & (memory_jobs.c.attempts == job.attempts))

    async def complete(self, conn: AsyncConnection, job: Job, note: str | None = None) -> None:
        """Mark the job done inside the caller's transaction, before its results are written;
        raises LostClaim if the claim is no longer ours (nothing of this run is committed)."""
        done = await conn.execute(
            update(memory_jobs).where(self._ours(job))
            .values(status=DONE, finished_at=utcnow(), last_error=note)
        )
        if done.rowcount != 1:
            raise LostClaim(f"job {job.id} was taken over by another worker")

    @again_after_deadlock
    async def close_obsolete(self, job: Job, reason: str) -> None:
        """Done without results: its rounds or topics changed under it (forgotten, merged)."""
        async with self._engine.begin() as conn:
            await self.complete(conn, job, note=f"obsolete: {reason}")

    @again_after_deadlock
    async def fail(self, job: Job, error: str) -> str:
        """Give the job back for a later retry with backoff, or mark it failed for good."""
        final = job.attempts >= self._max_attempts
        delay = self._retry_base * (2 ** max(job.attempts - 1, 0))
        async with self._engine.begin() as conn:
            await conn.execute(
                update(memory_jobs).where(self._ours(job))
                .values(status=FAILED if final else PENDING, claimed_by=None, claimed_at=None,
                        next_attempt_at=utcnow() + delay, last_error=error[:2000])
            )
        return FAILED if final else PENDING

    @again_after_deadlock
    async def release(self, job: Job) -> None:
        """Hand a claimed job back untouched (this worker is stopping)."""
        async with self._engine.begin() as conn:
            await conn.execute(
                update(memory_jobs).where(self._ours(job))
                .values(status=PENDING, claimed_by=None, claimed_at=None)
            )

    async def jobs(
        self, *, ids: list[int] | None = None, statuses: tuple[str, ...] | None = None,
        user_id: str | None = None,
    ) -> list[Job]:
        return await list_jobs(self._engine, ids=ids, statuses=statuses, user_id=user_id)


async def list_jobs(
    engine: AsyncEngine, *, ids: list[int] | None = None, statuses: tuple[str, ...] | None = None,
    user_id: str | None = None,
) -> list[Job]:
    """The jobs asked for, oldest first; reading them needs no worker."""
    query = select(memory_jobs).order_by(memory_jobs.c.id)
    if ids is not None:
        query = query.where(memory_jobs.c.id.in_(ids))
    if statuses is not None:
        query = query.where(memory_jobs.c.status.in_(statuses))
    if user_id is not None:
        query = query.where(memory_jobs.c.user_id == user_id)
    async with engine.connect() as conn:
        return [_to_job(row) for row in (await conn.execute(query)).mappings()]


def _digest(*parts: str) -> str:
    """A short, fixed-length stand-in for any text in a job key (user ids can be long)."""
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:20]


def _to_job(row: Any) -> Job:
    return Job(
        id=int(row["id"]),
        key=row["job_key"],
        kind=row["kind"],
        user_id=row["user_id"],
        status=row["status"],
        attempts=int(row["attempts"]),
        first_round_id=row["first_round_id"],
        last_round_id=row["last_round_id"],
        label_key=row["label_key"],
        topic_ids=tuple(json.loads(row["topic_ids"])) if row["topic_ids"] else (),
        last_error=row["last_error"],
        created_at=as_utc(row["created_at"]),
        next_attempt_at=as_utc(row["next_attempt_at"]),
    )
