"""Trains the pool's retriever on the pool, in the background, as entries come in.

The pool's prompts are the queries, and entries of the same kind of task (the scorer's label)
the positives. Every entry is judged, by 5-fold cross-validation: each fifth is ranked against
the rest by a model trained on the rest, by plain cosine, and by the version in use (which may
have seen some of them, which only makes it harder to replace). A new version is put in use
when its first entry is of the right kind more often than cosine's, and at least as often as
the version in use's: trained on more entries, it takes over on a tie. (Judged on the newest
fifth alone, versions mostly tied at 10-15 entries and the first one stayed in use.) An accepted
version is trained once more on every entry. Each training is kept on record, used or not, with
the three scores.

Trainings follow the pool's growth: the first at 50 labelled entries, then after every
`retrain_every` new ones or a tenth of the pool, whichever is more (a training of 10,000 entries
takes 20-30 s of CPU, and 25 new ones among them would teach it little).
"""

from __future__ import annotations

import asyncio
import logging
import math
from dataclasses import dataclass

from memory.pool.reranker import Entries, KindModel, same_kind_at_1, train
from memory.pool.retriever_rows import SQLRetrieverRows, Trained
from memory.pool.store import SharedPool

log = logging.getLogger(__name__)
FOLDS = 5
MIN_ENTRIES = 50  # fewer, over a dozen kinds of task, say nothing a test could trust
GROWTH = 0.1  # the share of the pool that must be new before a large pool trains again


@dataclass(frozen=True, slots=True)
class Retraining:
    trained: Trained | None  # None: nothing was trained
    note: str


class Retrainer:
    def __init__(self, pool: SharedPool, versions: SQLRetrieverRows, *, by_domain: bool) -> None:
        """`by_domain`: the pool is searched by domain (`sharing.scope = "domain"`), so the
        held-back test ranks each prompt against its own domain only."""
        self._pool = pool
        self._versions = versions
        self._by_domain = by_domain

    async def due(self, every: int) -> int | None:
        """The number of labelled shared entries when the pool has grown enough since the last
        training (`due_after`), the key of the job that trains on them; else None."""
        labelled = await self._pool.rows.count_labelled()
        last = await self._versions.last_entries()
        return labelled if labelled >= due_after(last, every) else None

    async def trainings(self) -> list[Trained]:
        return await self._versions.trainings()

    async def training_in_use(self) -> Trained | None:
        return await self._versions.training_in_use()

    async def retrain(self) -> Retraining:
        _, entries = await self._pool.labelled()
        if len(entries) < MIN_ENTRIES:
            return Retraining(None, f"{len(entries)} labelled entries; {MIN_ENTRIES} needed")
        if len(set(entries.labels())) < 2:
            return Retraining(None, "the entries hold a single kind of task")
        stored = await self._versions.in_use()
        current = None if stored is None else KindModel.from_bytes(stored[1])
        judged = await asyncio.to_thread(self._cross_validate, entries, current)
        more = stored is None or len(entries) > await self._entries_of_version_in_use()
        accepted = judged.new > judged.cosine and (
            current is None or judged.new > judged.current
            or (judged.new == judged.current and more))
        new = await asyncio.to_thread(train, entries.vectors, entries.texts, entries.labels())
        assert new is not None  # two kinds at least, checked above
        previous = judged.cosine if current is None else judged.current
        trained = await self._versions.save(
            new.to_bytes(), entries=len(entries), held_back=len(entries), score=judged.new,
            previous_score=previous, accepted=accepted, cosine_score=judged.cosine)
        before = "plain cosine" if stored is None else f"version {stored[0]}"
        note = (f"version {trained.version} on {len(entries)} entries: same kind at 1, each "
                f"entry unseen, {judged.new:.3f} against {judged.cosine:.3f} for plain cosine "
                f"and {previous:.3f} for {before} in use; "
                + ("now in use" if accepted else "kept on record, not used"))
        log.info("Pool retriever %s", note)
        return Retraining(trained, note)

    async def _entries_of_version_in_use(self) -> int:
        used = await self._versions.training_in_use()
        return used.entries if used else 0

    def _cross_validate(self, entries: Entries, current: KindModel | None) -> _Judged:
        """Same kind at 1 of a new version, of plain cosine and of the version in use, every
        entry a query once, ranked against the other folds."""
        new = cosine = in_use = 0.0
        for fold in range(FOLDS):
            test = entries.subset(range(fold, len(entries), FOLDS))
            learn = entries.subset([i for i in range(len(entries)) if i % FOLDS != fold])
            model = train(learn.vectors, learn.texts, learn.labels())
            new += self._hits(model, test, learn)
            cosine += self._hits(None, test, learn)
            if current is not None:
                in_use += self._hits(current, test, learn)
        return _Judged(new / len(entries), cosine / len(entries), in_use / len(entries))

    def _hits(self, model: KindModel | None, test: Entries, learn: Entries) -> float:
        return same_kind_at_1(model, test, learn, by_domain=self._by_domain) * len(test)


def due_after(last: int, every: int) -> int:
    """How many labelled entries call for the next training, after one on `last` entries (0:
    none yet): `every` more, or a tenth more in a large pool."""
    return max(MIN_ENTRIES, last + max(every, math.ceil(last * GROWTH)))


@dataclass(frozen=True, slots=True)
class _Judged:
    """Same kind at 1 over every entry, unseen by what ranked it (the version in use aside)."""

    new: float
    cosine: float
    current: float
