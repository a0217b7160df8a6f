"""Checking new beliefs against the ones before them (MemoryBank), in the memory jobs.

Each new belief is judged against its premises: the beliefs most similar in meaning ("relevant
feedback") and the newest about the same subject ("on-topic"), 3 of each, of the same user only.
A window's new beliefs are judged together (one call of a model judge): the premises of each are
the checked beliefs before it and the earlier new beliefs of its batch. Algorithm 1
(`jobs.beliefs.flipping`) then decides for each in the order they were said, and the batch's
decisions are committed with its beliefs marked checked, in one transaction (a window's checks
cost one commit and one read of its conflicts, not one of each a belief). A judge that fails
leaves every belief of the batch unchecked and everything as it was; the job is retried. The
topics that quote only what a superseded belief said are then marked, to be shown as earlier
(`memory.beliefs.outdated`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from jobs.beliefs.flipping import decide
from jobs.beliefs.judge import Case, Judge, Judgement
from memory.beliefs.belief import Belief, BeliefSettings, Settlement
from memory.beliefs.claims import claim_of
from memory.beliefs.outdated import change_of
from memory.beliefs.rows import SQLBeliefRows, may_be_premise
from memory.beliefs.subjects import Subjects
from memory.beliefs.values import ValueReader
from memory.errors import EmbeddingUnavailable, VectorStoreUnavailable
from memory.facts.store import FactStore
from memory.protocols import Embedder, Vector
from memory.sql.failures import again_after_deadlock
from memory.topics.store import IndexedTopicStore
from memory.types import Fact

log = logging.getLogger(__name__)
BATCH = 100
SIMILAR_CANDIDATES = 12  # nearest facts looked at to find the most similar beliefs


@dataclass
class CheckReport:
    checked: int = 0
    superseded: int = 0


@dataclass(frozen=True, slots=True)
class _New:
    """A belief of the batch being checked, with its embedding."""

    belief: Belief
    vector: Vector


class BeliefChecker:
    def __init__(self, rows: SQLBeliefRows, facts: FactStore, embedder: Embedder, judge: Judge,
                 settings: BeliefSettings, subjects: Subjects, *,
                 topics: IndexedTopicStore | None = None, values: ValueReader | None = None
                 ) -> None:
        """`topics` and `values`: to mark the topics a superseded belief leaves out of date
        (None: topics are left as they are)."""
        self.rows = rows
        self._facts = facts
        self._embedder = embedder
        self._judge = judge
        self._settings = settings
        self._subjects = subjects
        self._topics = topics
        self._values = values

    async def check_user(self, user_id: str) -> CheckReport:
        """Check every unchecked belief of the user, oldest first, a batch at a time. A belief
        no hand-written claim reads gets its subject by meaning first."""
        report = CheckReport()
        await self._subjects.load()
        while batch := await self.rows.unchecked(user_id, BATCH):
            # One embedding call for the batch: a window's facts arrive together.
            vectors = await self._embedder.embed([b.fact.text for b in batch])
            news = [_New(b if b.subject is not None else replace(
                b, subject=self._subjects.of_vector(b.fact.text, v)), v)
                for b, v in zip(batch, vectors, strict=True)]
            await self._check_batch(await self._own_lives_only(news), report)
        return report

    async def _own_lives_only(self, news: list[_New]) -> list[_New]:
        """A subject found by meaning is dropped from a statement about someone else's life
        ("my buddy Ray switched to Android" is about no phone of the speaker's); a claim's
        subject stays (the claims read whose it is themselves)."""
        if self._values is None:
            return news
        by_meaning = [new for new in news
                      if new.belief.subject is not None and claim_of(new.belief.fact.text) is None]
        read = await self._values.read([new.belief.fact.text for new in by_meaning])
        others = {new.belief.id for new, values in zip(by_meaning, read, strict=True)
                  if values.someone_else}
        return [replace(new, belief=replace(new.belief, subject=None))
                if new.belief.id in others else new for new in news]

    async def _check_batch(self, news: Sequence[_New], report: CheckReport) -> None:
        vectors = np.asarray([new.vector for new in news], dtype=np.float32)
        similarity = vectors @ vectors.T  # cosines: the embedder's vectors are unit
        premises = await self._premises(news, similarity)
        cases = [Case(new.belief, found) for new, found in zip(news, premises, strict=True)]
        judged = await self._judge.judge(cases)  # all or nothing: before anything is settled
        for case, settlement, superseded in await self._settle_all(cases, judged):
            belief = case.new
            report.checked += 1
            report.superseded += len(superseded)
            if superseded:
                log.info("Belief check for %s: %d superseded by %s", belief.user_id,
                         len(superseded), (settlement.winner or "")[:8])
                await self._facts.unindex(superseded)
                winner = next(b.fact for b in (belief, *case.premises)
                              if b.id == settlement.winner)
                await self._outdate_topics(superseded, winner)

    @again_after_deadlock  # two windows' checks of one user can meet on the same rows
    async def _settle_all(self, cases: Sequence[Case], judged: Sequence[Sequence[Judgement]]
                          ) -> list[tuple[Case, Settlement, list[Fact]]]:
        """Decide the batch's beliefs in the order they were said and commit them together
        (one transaction, the conflicts read once); those another worker checked first are
        left out. Each decision sees the ones before it: a premise superseded is gone, one
        checked counts as checked."""
        settled: dict[str, Belief] = {}  # this batch's beliefs as checked so far
        gone: set[str] = set()  # beliefs superseded by this batch's checks
        done: list[tuple[Case, Settlement, list[Fact]]] = []
        if not cases:
            return done
        ids = sorted({b.id for case in cases for b in (case.new, *case.premises)})
        async with self.rows.settling(cases[0].new.user_id, ids) as settling:
            for case, judgements in zip(cases, judged, strict=True):
                live = [(settled.get(p.id, p), j) for p, j in zip(
                    case.premises, judgements, strict=True) if p.id not in gone]
                premises = [p for p, _ in live]
                settlement = decide(case.new, premises, [j for _, j in live], self._settings,
                                    settling.disputed([p.id for p in premises]))
                superseded = await settling.settle(case.new, settlement)
                if superseded is None:  # another worker checked it meanwhile
                    continue
                gone.update(f.id for f in superseded)
                settled[case.new.id] = replace(case.new, repeats=settlement.repeats)
                done.append((case, settlement, superseded))
        return done

    async def _outdate_topics(self, superseded: Sequence[Fact], winner: Fact) -> None:
        """Mark the topics that quote only what the superseded beliefs said (shown as earlier).
        The check is done whatever happens here: an index that fails is repaired by the
        sweep."""
        if self._topics is None or self._values is None:
            return
        for fact in superseded:
            change = await change_of(fact, winner, self._values)
            try:
                marked = await self._topics.mark_quoting(
                    fact.user_id, fact.id, change.old, change.new, winner.said_at)
            except (EmbeddingUnavailable, VectorStoreUnavailable) as error:
                log.warning("Topics quoting %s: indexing left to the sweep: %s", fact.id[:8],
                            error)
                continue
            if marked:
                log.info("Belief check for %s: %d topics quote only %s", fact.user_id, marked,
                         fact.id[:8])

    async def _premises(self, news: Sequence[_New], similarity: np.ndarray
                        ) -> list[list[Belief]]:
        """For each new belief the judge can judge, the beliefs about the same subject, then
        the most similar others; 3 of each. Among them the checked beliefs and the earlier new
        beliefs of the batch, whose cosines `similarity` holds. A window's beliefs arrive
        together, so each kind of premise is read once for the batch (one query of each
        index, two SQL reads), not once a belief."""
        judged = [new for new in news if self._judge.can_judge(new.belief)]
        if not judged:
            return [[] for _ in news]
        user_id, limit = judged[0].belief.user_id, self._settings.premises
        beliefs, vectors = [new.belief for new in judged], [new.vector for new in judged]
        on_topic, said, taught = await asyncio.gather(
            self.rows.on_topic_of(beliefs, limit),
            self._facts.by_meaning_many(user_id, vectors, SIMILAR_CANDIDATES),
            self._facts.by_meaning_many(user_id, vectors, limit, taught=True))
        nearest = {new.belief.id: [*mine, *theirs_taught]
                   for new, mine, theirs_taught in zip(judged, said, taught, strict=True)}
        checked = await self.rows.among(
            beliefs, sorted({fact.id for hits in nearest.values() for fact, _ in hits}))
        return [self._premises_of(new, news[:i], similarity[i], on_topic[new.belief.id],
                                  nearest[new.belief.id], checked[new.belief.id])
                if new.belief.id in nearest else [] for i, new in enumerate(news)]

    def _premises_of(self, new: _New, before: Sequence[_New], similarity: Sequence[float],
                     on_topic: Sequence[Belief], nearest: Sequence[tuple[Fact, float]],
                     checked: Sequence[Belief]) -> list[Belief]:
        """One new belief's premises, from what was read for its batch: the checked beliefs
        about its subject (`on_topic`), and those of `checked` found near it (`nearest`);
        beside them the earlier new beliefs of the batch (`before`)."""
        belief, limit = new.belief, self._settings.premises
        earlier = [(b.belief, float(similarity[i])) for i, b in enumerate(before)
                   if may_be_premise(b.belief, belief)]
        topical = sorted(
            [*on_topic, *(b for b, _ in earlier if belief.subject and b.subject == belief.subject)],
            key=lambda p: p.fact.said_at, reverse=True)[:limit]
        seen = {belief.id, *(p.id for p in topical)}
        found = {b.id: b for b in checked}
        candidates = [(found[fact.id], score) for fact, score in nearest
                      if fact.id in found and fact.id not in seen]
        candidates += [(b, score) for b, score in earlier if b.id not in seen]
        similar: dict[str, Belief] = {}
        for premise, _ in sorted(candidates, key=lambda hit: -hit[1]):
            similar.setdefault(premise.id, premise)
        return [*topical, *list(similar.values())[:limit]]
