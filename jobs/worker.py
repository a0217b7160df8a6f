"""Memory upkeep: turns windows of rounds into topics and merges a label's descriptions.

Work is triggered after a stored round (never blocking the reply) and by a periodic sweep that
picks up whatever a crash, a restart or a failed model call left behind. Every job is claimed
before it runs and committed in one transaction, so running it twice, or in two processes,
changes nothing.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import uuid
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from jobs.beliefs.checks import BeliefChecker
from jobs.beliefs.judge import JudgeUnusable
from jobs.pool.scoring import ScoreUnusable
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
from jobs.summarize.drafts import FactDraft, NothingUsable, Summarizer, Voices
from jobs.summarize.labels import LabelResolver
from jobs.summarize.writes import StaleMerge, StaleWindow, TopicWrites
from memory.errors import EmbeddingUnavailable, ModelUnavailable, VectorStoreUnavailable
from memory.facts.store import FactStore
from memory.sql.engine import utcnow
from memory.sql.rounds import SQLRoundStore
from memory.topics.store import IndexedTopicStore
from memory.types import Fact, Round, Speaker, Topic
from personas.loader import Persona

log = logging.getLogger(__name__)
T = TypeVar("T")
# What a later attempt may well get past (the model or the embedder is down or talks nonsense).
RETRYABLE = (ModelUnavailable, NothingUsable, EmbeddingUnavailable, JudgeUnusable,
             ScoreUnusable, VectorStoreUnavailable)
# Background upkeep tasks running at once in one process (benchmarks/load.py).
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
    jobs: list[str] = field(default_factory=list)


class MemoryWorker:
    """Runs summarize and merge jobs (and the backfill of facts) for the users whose memory
    needs upkeep."""

    def __init__(
        self,
        *,
        queue: JobQueue,
        writes: TopicWrites,
        topics: IndexedTopicStore,
        facts: FactStore,
        beliefs: BeliefChecker,
        summarizer: Summarizer,
        labels: LabelResolver,
        personas: dict[str, Persona],
        default_persona: str,
        user_name: str,
        cadence: Cadence,
        pool: PoolUpkeep | None = None,
        rounds: SQLRoundStore | None = None,
    ) -> None:
        """`pool`: the shared pool's upkeep (None: no pool, as in tools that only summarize).
        `rounds`: where the sweep finds rounds whose reply never came."""
        self.queue = queue
        self.pool = pool
        self._rounds = rounds
        self._writes = writes
        self._topics = topics
        self._facts = facts
        self._beliefs = beliefs
        self._summarizer = summarizer
        self._labels = labels
        self._personas = personas
        self._user_name = user_name
        self._default_persona = personas[default_persona]
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
            return await self._run_due(user_id)
        finally:
            self._busy[user_id] -= 1

    async def merge_now(self, user_id: str) -> SweepReport:
        """Merge every label of the user that has enough descriptions."""
        await self._enqueue_merges(user_id)
        return await self._run_due(user_id)

    async def undo_merge(self, user_id: str, merged_id: str) -> int:
        """Replace a merged topic by the descriptions it was made of (an admin's undo)."""
        sources = await self._writes.undo_merge(user_id, merged_id)
        if sources:
            await self._topics.unindex(user_id, [merged_id])
            await self._topics.index(sources)
        return len(sources)

    async def sweep(self) -> SweepReport:
        """Everything due for every user, and the index repaired where a crash left it behind."""
        for user_id in await self.queue.users_with_pending(self.cadence.summarize_every):
            await self.queue.enqueue_summaries(user_id, self.cadence.summarize_every)
        await self._enqueue_merges(None)
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
            if job.kind == SUMMARIZE:
                await self._summarize(job)
                report.summarized += 1
            elif job.kind == MERGE:
                await self._merge(job)
                report.merged += 1
            elif job.kind == FACTS:
                await self._backfill_facts(job)
                report.backfilled += 1
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
            await self._enqueue_merges(job.user_id)
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

    async def _summarize(self, job: Job) -> None:
        rounds = await self._writes.rounds_of(job)
        drafts = await self._summarizer.summarize(rounds, self._voices(rounds)) if rounds else []
        new_facts = await self._find_facts(job, rounds)
        existing = await self._writes.label_keys(job.user_id)
        keys = await self._labels.keys_for([d.label for d in drafts], existing)
        when = rounds[-1].created_at if rounds else datetime.now(UTC)
        new_topics = [
            Topic(id=_stable_id(job.key, i), user_id=job.user_id, label=d.label,
                  description=d.description, created_at=when, updated_at=when)
            for i, d in enumerate(drafts)
        ]
        await self._writes.commit_summary(job, rounds, new_topics, keys, new_facts)
        await self._after_commit(job, new_topics, [], new_facts)

    async def _backfill_facts(self, job: Job) -> None:
        """Facts for a window summarized before facts existed; its topics stay as they are."""
        rounds = await self._writes.rounds_of(job)
        new_facts = await self._find_facts(job, rounds)
        await self._writes.commit_facts(job, rounds, new_facts)
        await self._after_commit(job, [], [], new_facts)

    async def _find_facts(self, job: Job, rounds: Sequence[Round]) -> list[Fact]:
        drafts = await self._summarizer.facts(rounds, self._voices(rounds)) if rounds else []
        by_id = {r.id: r for r in rounds}
        return [_fact(job, i, d, [by_id[n] for n in d.round_ids if n in by_id])
                for i, d in enumerate(drafts)]

    async def _merge(self, job: Job) -> None:
        sources = await self._writes.active_topics(job.user_id, job.topic_ids)
        if len(sources) != len(job.topic_ids):
            raise StaleMerge(f"some topics of {job.key} were forgotten or merged already")
        voices = Voices(user=self._user_name, companion=self._default_companion())
        description = await self._summarizer.merge(
            sources[-1].label, [t.description for t in sources], voices)
        merged = Topic(
            id=_stable_id(job.key, 0), user_id=job.user_id, label=sources[-1].label,
            description=description, created_at=sources[0].created_at,
            updated_at=max(t.updated_at for t in sources),
        )
        await self._writes.commit_merge(job, merged, job.label_key or "", sources)
        await self._after_commit(job, [merged], [t.id for t in sources], [])

    async def _after_commit(self, job: Job, added: list[Topic], retired: list[str],
                            new_facts: list[Fact]) -> None:
        """Index what a committed job wrote. The job is done whatever happens here: rows that
        could not be indexed stay marked, and the next sweep repairs them."""
        try:
            await self._topics.index(added)
            await self._topics.unindex(job.user_id, retired)
            await self._facts.index(new_facts)
        except (EmbeddingUnavailable, VectorStoreUnavailable) as error:
            log.warning("Memory job %s: indexing left to the next sweep: %s", job.key, error)
        await self._enqueue_merges(job.user_id)
        if new_facts:
            await self._enqueue_beliefs(job.user_id)

    async def _enqueue_beliefs(self, user_id: str) -> None:
        through = await self._beliefs.rows.newest_unchecked(user_id)
        if through is not None:
            await self.queue.enqueue_beliefs(user_id, through)

    async def _enqueue_merges(self, user_id: str | None) -> None:
        for user, key, ids in await self._writes.ready_to_merge(self.cadence.merge_at, user_id):
            await self.queue.enqueue_merge(user, key, ids)

    async def reindex(self) -> int:
        """Bring the vector indexes in line with SQL where an interrupted job left them behind."""
        repaired = await self._facts.reindex()
        if self.pool is not None:
            repaired += await self.pool.pool.reindex()
        while stale := await self._writes.unindexed():
            for user_id in {t.user_id for t, _ in stale}:
                mine = [(t, s) for t, s in stale if t.user_id == user_id]
                await self._topics.index([t for t, s in mine if s == "active"])
                await self._topics.unindex(user_id, [t.id for t, s in mine if s != "active"])
            repaired += len(stale)
        return repaired

    def _voices(self, rounds: Sequence[Round]) -> Voices:
        persona = self._personas.get(rounds[-1].persona) if rounds else None
        name = persona.display_name if persona else self._default_companion()
        return Voices(user=self._user_name, companion=name)

    def _default_companion(self) -> str:
        return self._default_persona.display_name

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


async def _logging_failure(work: Coroutine[Any, Any, T]) -> T | None:
    """Background upkeep that fails (the database away, say) is logged; its jobs stay queued
    and the sweep runs them later."""
    try:
        return await work
    except Exception as error:
        log.warning("Background memory work failed; the sweep will retry it: %r", error)
        return None
