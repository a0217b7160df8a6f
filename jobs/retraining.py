"""Trains the pool's retriever on the pool, in the background, as entries come in.

The pool's prompts are the queries, and entries of the same kind of task (the scorer's label)
the positives. The newest fifth of the labelled entries is held back: the new version is trained
on the rest, and both it and the version in use rank the rest for each held-back prompt. The new
version replaces the old only when its first entry is of the right kind more often; it is then
trained once more on every entry. Each training is kept on record, used or not.
"""

from __future__ import annotations

import asyncio
import logging
import math
from dataclasses import dataclass

from memory.pool import SharedPool
from memory.reranker import Entries, KindModel, same_kind_at_1, train
from memory.sql.retriever_rows import SQLRetrieverRows, Trained

log = logging.getLogger(__name__)
HELD_BACK = 0.2
MIN_ENTRIES = 20  # fewer say nothing a held-back test could trust


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
        """The number of labelled shared entries when `every` more came in since the last
        training (the key of the job that trains on them), else None."""
        labelled = len(await self._pool.rows.shared(labelled=True))
        last = await self._versions.last_entries()
        if labelled < MIN_ENTRIES or labelled - last < every:
            return None
        return labelled

    async def trainings(self) -> list[Trained]:
        return await self._versions.trainings()

    async def retrain(self) -> Retraining:
        _, entries = await self._pool.labelled()
        if len(entries) < MIN_ENTRIES:
            return Retraining(None, f"{len(entries)} labelled entries; {MIN_ENTRIES} needed")
        held = max(1, math.ceil(len(entries) * HELD_BACK))
        learn = entries.subset(range(len(entries) - held))
        test = entries.subset(range(len(entries) - held, len(entries)))
        new = await asyncio.to_thread(train, learn.vectors, learn.texts, learn.labels())
        if new is None:
            return Retraining(None, "the entries hold a single kind of task")
        stored = await self._versions.in_use()
        current = KindModel.from_bytes(stored[1]) if stored else None
        score, previous = await asyncio.to_thread(self._compare, new, current, test, learn)
        accepted = score > previous
        if accepted:  # better: train it again on every entry, held-back ones included
            new = await asyncio.to_thread(train, entries.vectors, entries.texts,
                                          entries.labels()) or new
        trained = await self._versions.save(
            new.to_bytes(), entries=len(entries), held_back=held, score=score,
            previous_score=previous, accepted=accepted)
        note = (f"version {trained.version} on {len(entries)} entries: same kind at 1 on "
                f"{held} held back {score:.3f} against {previous:.3f} for the version in use; "
                + ("now in use" if accepted else "kept on record, not used"))
        log.info("Pool retriever %s", note)
        return Retraining(trained, note)

    def _compare(self, new: KindModel, current: KindModel | None, test: Entries,
                 learn: Entries) -> tuple[float, float]:
        return (same_kind_at_1(new, test, learn, by_domain=self._by_domain),
                same_kind_at_1(current, test, learn, by_domain=self._by_domain))
