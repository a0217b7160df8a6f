"""Trains the pool's retriever on the pool, in the background, as entries come in.

The pool's prompts are the queries, and entries of the same kind of task (the scorer's label)
the positives. A new version replaces the one in use only when its first entry is of the right
kind more often, for prompts that neither has seen:
- while plain cosine is in use (it learned nothing), on every entry, by 5-fold cross-validation:
  each fifth is ranked against the rest by a model trained on the rest, and by cosine;
- after that, on the newest fifth of the entries, held back: the new version is trained on the
  rest, and both versions rank the rest for each held-back prompt (the one in use may have seen
  some of them, which only makes it harder to replace).
An accepted version is trained once more on every entry. Each training is kept on record, used
or not.
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
HELD_BACK = 0.2
FOLDS = 5
MIN_ENTRIES = 50  # fewer, over a dozen kinds of task, say nothing a test could trust


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
        labelled = await self._pool.rows.count_labelled()
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
        if len(set(entries.labels())) < 2:
            return Retraining(None, "the entries hold a single kind of task")
        stored = await self._versions.in_use()
        if stored is None:
            held = len(entries)
            score, previous = await asyncio.to_thread(self._cross_validate, entries)
        else:
            held = max(1, math.ceil(len(entries) * HELD_BACK))
            score, previous = await asyncio.to_thread(
                self._hold_back, entries, held, KindModel.from_bytes(stored[1]))
        accepted = score > previous
        new = await asyncio.to_thread(train, entries.vectors, entries.texts, entries.labels())
        assert new is not None  # two kinds at least, checked above
        trained = await self._versions.save(
            new.to_bytes(), entries=len(entries), held_back=held, score=score,
            previous_score=previous, accepted=accepted)
        note = (f"version {trained.version} on {len(entries)} entries: same kind at 1 on "
                f"{held} it did not see {score:.3f} against {previous:.3f} for the version in use; "
                + ("now in use" if accepted else "kept on record, not used"))
        log.info("Pool retriever %s", note)
        return Retraining(trained, note)

    def _cross_validate(self, entries: Entries) -> tuple[float, float]:
        """Same kind at 1 of a new version and of plain cosine, every entry a query once."""
        new = cosine = 0.0
        for fold in range(FOLDS):
            test_rows = range(fold, len(entries), FOLDS)
            test = entries.subset(test_rows)
            learn = entries.subset([i for i in range(len(entries)) if i % FOLDS != fold])
            model = train(learn.vectors, learn.texts, learn.labels())
            new += same_kind_at_1(model, test, learn, by_domain=self._by_domain) * len(test)
            cosine += same_kind_at_1(None, test, learn, by_domain=self._by_domain) * len(test)
        return new / len(entries), cosine / len(entries)

    def _hold_back(self, entries: Entries, held: int,
                   current: KindModel) -> tuple[float, float]:
        """Same kind at 1 of a new version and of the one in use, on the newest entries."""
        learn = entries.subset(range(len(entries) - held))
        test = entries.subset(range(len(entries) - held, len(entries)))
        new = train(learn.vectors, learn.texts, learn.labels())
        return (same_kind_at_1(new, test, learn, by_domain=self._by_domain),
                same_kind_at_1(current, test, learn, by_domain=self._by_domain))
