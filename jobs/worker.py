"""Memory upkeep: the jobs that turn rounds into topics and facts, merge a label's topics, check
new beliefs, and score and learn from the shared pool.

Work is triggered after a stored round (never blocking the reply) and by a periodic sweep that
picks up whatever a crash, a restart or a failed model call left behind. Every job is claimed
before it runs and committed in one transaction, so running it twice, or in two processes,
changes nothing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Protocol, TypeVar

from jobs.beliefs.checks import BeliefChecker
from jobs.pool.upkeep import PoolUpkeep
from jobs.queue import (
    BELIEF_COLUMNS,
    BELIEFS,
    FACTS,
    MERGE,
    POOL,
    RETRAIN,
    SCORE,
    SUMMARIZE,
    Job,
    JobQueue,
    LostClaim,
)
from jobs.summarize.work import SummaryWork
from jobs.summarize.writes import StaleMerge, StaleWindow
from memory.errors import ProviderError, StorageError
from memory.sql.engine import utcnow
from memory.sql.rounds import SQLRoundStore

log = logging.getLogger(__name__)
T = TypeVar("T")
# What a later attempt may well get past: the model or the embedder is down or talks nonsense,
# a store is away.
RETRYABLE = (ProviderError, StorageError)
# Background upkeep tasks running at once in one process (benchmarks/load).
BACKGROUND_AT_ONCE = 4
# A round still pending after this long lost its reply (replies take a minute at most).
ABANDONED_AFTER = timedelta(minutes=10)
# The job's rounds or topics changed under it: there is nothing left for it to do.
OBSOLETE = (StaleWindow, StaleMerge)


@dataclass(frozen=True)
class Cadence:
    summarize_every: int = 50
    merge_at: int = 5


@dataclass
class SweepReport:
    summarized: int = 0
    merged: int = 0
    backfilled: int = 0  # windows of before facts existed that got their facts
    beliefs_checked: int = 0
    superseded: int = 0  # beliefs a newer or stronger one replaced
    scored: int = 0  # replies scored for the shared pool
    retrained: int = 0  # trainings of the pool's retriever
    failed: int = 0
    reindexed: int = 0
    abandoned_rounds: int = 0  # messages whose reply never came (a crash, the database away)
    # One user's upkeep: their rounds no window covers yet, and how many a window takes.
    waiting_rounds: int = 0
    window: int = 0
    jobs: list[str] = field(default_factory=list)


class Reindexable(Protocol):
    """A memory whose vector index can fall behind its SQL rows."""

    async def reindex(self) -> int:
        """Repair what the index misses or still holds; returns how many rows."""
        ...


class MemoryWorker:
    """Queues and runs the memory jobs (summaries, merges, belief checks, the shared pool's
    scoring and retraining) for the users whose memory needs upkeep, in the background or in
    the periodic sweep."""

    def __init__(
        self,
        *,
        queue: JobQueue,
        summaries: SummaryWork,
        beliefs: BeliefChecker,
        indexes: Sequence[Reindexable],
        cadence: Cadence,
        pool: PoolUpkeep | None = None,
        rounds: SQLRoundStore | None = None,
    ) -> None:
        """`indexes`: the memories whose vector index the sweep repairs. `pool`: the shared
        pool's upkeep (None: no pool, as in tools that only summarize). `rounds`: where the
        sweep finds rounds whose reply never came."""
        self.queue = queue
        self.pool = pool
        self._rounds = rounds
        self._summaries = summaries
        self._beliefs = beliefs
        self._indexes = indexes
        self.cadence = cadence
        self._tasks: set[asyncio.Task[SweepReport | None]] = set()
        self._background_slots = asyncio.Semaphore(BACKGROUND_AT_ONCE)
        self._busy: dict[str, int] = {}

    def is_busy(self, user_id: str) -> bool:
        """True while this process is summarizing or merging the user's memories."""
        return self._busy.get(user_id, 0) > 0

    def round_stored(self, user_id: str, pending: int) -> None:
        """Called after each stored round: start upkeep in the background when it is due."""
        if pending >= self.cadence.summarize_every:
            self._track(asyncio.get_running_loop().create_task(self._queue_then_run(user_id)))

    async def _queue_then_run(self, user_id: str) -> None:
        """Queue the user's full windows at once (a few statements), so they are in SQL
        whatever happens to this process; run them when a background slot is free. Queued
        only once a slot was free, a window waiting behind hundreds of users was lost from the
        queue when the process stopped, and waited for a sweep to find it again."""
        queued = self.queue.enqueue_summaries(user_id, self.cadence.summarize_every)
        if await _logging_failure(queued) is not None:
            self._in_background(self.upkeep(user_id))

    def beliefs_added(self, user_id: str) -> None:
        """Called after a fact is taught: check it against the user's beliefs, in the
        background (never on the reply's path)."""
        self._in_background(self.check_beliefs(user_id))

    def exchange_finished(self, user_id: str, round_id: int) -> None:
        """Called after a reply in a private chat: score it for the shared pool, in the
        background, when its user shares and a model scores."""
        self._in_background(self._score(user_id, round_id))

    def entry_added(self, user_id: str, round_id: int) -> None:
        """Called when a round entered the pool unscored (a thumbs-up, an admin's share):
        score it in the background to learn its kind, whether or not its user shares."""
        self._in_background(self._score(user_id, round_id, admitted=True))

    def pool_grew(self) -> None:
        """Called when entries were shared: train the retriever again if enough came in."""
        self._in_background(self.retrain_if_due())

    async def _score(self, user_id: str, round_id: int, *, admitted: bool = False
                     ) -> SweepReport:
        if self.pool is None or not await self.pool.wants_score(user_id, admitted=admitted):
            return SweepReport()
        await self.queue.enqueue_score(user_id, round_id)
        return await self._run_due(user_id)

    async def retrain_if_due(self) -> SweepReport:
        """Queue and run a training of the pool's retriever when enough entries came in."""
        if self.pool is not None and (labelled := await self.pool.retrain_due()) is not None:
            await self.queue.enqueue_retrain(labelled)
        return await self._run_due(POOL)

    def _in_background(self, work: Coroutine[Any, Any, SweepReport]) -> None:
        self._track(asyncio.get_running_loop().create_task(self._when_free(work)))

    def _track(self, task: asyncio.Task[Any]) -> None:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _when_free(self, work: Coroutine[Any, Any, SweepReport]) -> SweepReport | None:
        """Run background upkeep a few at a time: a busy process has hundreds of users whose
        windows fill together, and upkeep for all of them at once would take every database
        connection from the replies. Summaries are queued in SQL before they wait here (see
        round_stored)."""
        try:
            async with self._background_slots:
                return await _logging_failure(work)
        finally:
            work.close()  # never started (cancelled while waiting): nothing left to close

    async def check_beliefs(self, user_id: str) -> SweepReport:
        """Queue and run the check of the user's unchecked beliefs (and whatever else is due)."""
        await self._enqueue_beliefs(user_id)
        return await self._run_due(user_id)

    async def upkeep(self, user_id: str) -> SweepReport:
        """Queue and run everything due for one user."""
        self._busy[user_id] = self._busy.get(user_id, 0) + 1
        try:
            await self.queue.enqueue_summaries(user_id, self.cadence.summarize_every)
            report = await self._run_due(user_id)
            if self._rounds is not None:
                report.waiting_rounds = await self._rounds.count_unsummarized(user_id)
                report.window = self.cadence.summarize_every
            return report
        finally:
            self._busy[user_id] -= 1

    async def merge_now(self, user_id: str) -> SweepReport:
        """Merge every label of the user that has enough descriptions."""
        await self._summaries.enqueue_merges(user_id)
        return await self._run_due(user_id)

    async def undo_merge(self, user_id: str, merged_id: str) -> int:
        """Replace a merged topic by the descriptions it was made of (an admin's undo)."""
        return await self._summaries.undo_merge(user_id, merged_id)

    async def sweep(self) -> SweepReport:
        """Everything due for every user, and the index repaired where a crash left it behind."""
        for user_id in await self.queue.users_with_pending(self.cadence.summarize_every):
            await self.queue.enqueue_summaries(user_id, self.cadence.summarize_every)
        await self._summaries.enqueue_merges(None)
        for user_id in await self._beliefs.rows.users_with_unchecked():
            await self._enqueue_beliefs(user_id)
        if self.pool is not None and (labelled := await self.pool.retrain_due()) is not None:
            await self.queue.enqueue_retrain(labelled)
        report = await self._run_due(None)
        report.reindexed = await self.reindex()
        if self._rounds is not None:
            # Older than any reply can take (the model's timeout and retries): abandoned.
            report.abandoned_rounds = await self._rounds.close_abandoned(
                utcnow() - ABANDONED_AFTER)
            if report.abandoned_rounds:
                log.warning("Marked %d rounds failed whose reply never came",
                            report.abandoned_rounds)
        return report

    async def _run_due(self, user_id: str | None) -> SweepReport:
        report = SweepReport()
        tried: set[int] = set()
        while job := await self.queue.claim_next(user_id, skip=tried):
            tried.add(job.id)
            await self._run(job, report)
        return report

    async def _run(self, job: Job, report: SweepReport) -> None:
        self._busy[job.user_id] = self._busy.get(job.user_id, 0) + 1
        try:
            if job.kind in (SUMMARIZE, MERGE, FACTS):
                await self._summary(job, report)
            elif job.kind == SCORE and self.pool is not None:
                note = await self.pool.score_round(job.user_id, job.first_round_id or 0)
                await self.queue.finish(job, note)
                report.scored += 1
                self.pool_grew()
            elif job.kind == RETRAIN and self.pool is not None:
                retraining = await self.pool.retrain()
                await self.queue.finish(job, retraining.note)
                report.retrained += 1
            elif job.kind == BELIEFS:
                checked = await self._beliefs.check_user(job.user_id)
                await self.queue.finish(job)
                report.beliefs_checked += checked.checked
                report.superseded += checked.superseded
            elif job.kind == BELIEF_COLUMNS:
                filled = await self._beliefs.rows.fill_belief_columns(job.user_id)
                await self.queue.finish(job, f"belief columns of {filled} facts filled")
            report.jobs.append(job.key)
        except LostClaim as error:  # another worker has it now; nothing of ours was committed
            log.warning("Memory job %s: %s", job.key, error)
        except OBSOLETE as error:
            await self.queue.close_obsolete(job, str(error))
            await self._summaries.enqueue_merges(job.user_id)
        except asyncio.CancelledError:  # shutting down: hand the job back at once
            await asyncio.shield(self.queue.release(job))
            raise
        except Exception as error:  # the job runner's boundary: record, retry, end as failed
            if not isinstance(error, RETRYABLE):
                log.exception("Memory job %s failed unexpectedly", job.key)
            outcome = await self.queue.fail(job, f"{type(error).__name__}: {error}")
            log.warning("Memory job %s: %s (now %s)", job.key, error, outcome)
            report.failed += 1
        finally:
            self._busy[job.user_id] -= 1

    async def _summary(self, job: Job, report: SweepReport) -> None:
        """A summary job: new facts it wrote are beliefs to check."""
        if job.kind == SUMMARIZE:
            new_facts = await self._summaries.summarize(job)
            report.summarized += 1
        elif job.kind == MERGE:
            new_facts = await self._summaries.merge(job)
            report.merged += 1
        else:
            new_facts = await self._summaries.backfill_facts(job)
            report.backfilled += 1
        if new_facts:
            await self._enqueue_beliefs(job.user_id)

    async def _enqueue_beliefs(self, user_id: str) -> None:
        through = await self._beliefs.rows.newest_unchecked(user_id)
        if through is not None:
            await self.queue.enqueue_beliefs(user_id, through)

    async def reindex(self) -> int:
        """Bring the vector indexes in line with SQL where a crash, an outage or a failed write
        left them behind; returns how many rows were repaired."""
        return sum([await index.reindex() for index in self._indexes])

    async def wait_idle(self) -> None:
        """Wait for the upkeep started in the background by stored rounds."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def aclose(self, grace_seconds: float = 10.0) -> None:
        """Let background upkeep finish for a moment, then stop it; what is left is handed back
        to the queue for the next sweep."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=grace_seconds)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


async def _logging_failure(work: Coroutine[Any, Any, T]) -> T | None:
    """Background upkeep that fails (the database away, say) is logged; its jobs stay queued
    and the sweep runs them later."""
    try:
        return await work
    except Exception as error:
        log.warning("Background memory work failed; the sweep will retry it: %r", error)
        return None
