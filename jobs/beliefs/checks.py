"""Checking new beliefs against the ones before them (MemoryBank), in the memory jobs.

Each new belief, in the order it was said, is judged against its premises: the beliefs most
similar in meaning ("relevant feedback") and the newest about the same subject ("on-topic"),
3 of each, of the same user only. Algorithm 1 (`jobs.beliefs.flipping`) then decides, and the
decision is committed with the belief marked checked, in one transaction. A judge that fails
leaves the belief unchecked and everything as it was; the job is retried.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

from jobs.beliefs.flipping import decide
from jobs.beliefs.judge import Judge
from memory.beliefs.belief import Belief, BeliefSettings
from memory.beliefs.rows import SQLBeliefRows
from memory.beliefs.subjects import Subjects
from memory.facts.store import FactStore
from memory.protocols import Embedder, Vector

log = logging.getLogger(__name__)
BATCH = 100
SIMILAR_CANDIDATES = 12  # nearest facts looked at to find the most similar beliefs


@dataclass
class CheckReport:
    checked: int = 0
    superseded: int = 0


class BeliefChecker:
    def __init__(self, rows: SQLBeliefRows, facts: FactStore, embedder: Embedder, judge: Judge,
                 settings: BeliefSettings, subjects: Subjects) -> None:
        self.rows = rows
        self._facts = facts
        self._embedder = embedder
        self._judge = judge
        self._settings = settings
        self._subjects = subjects

    async def check_user(self, user_id: str) -> CheckReport:
        """Check every unchecked belief of the user, oldest first. A belief no hand-written
        claim reads gets its subject by meaning first."""
        report = CheckReport()
        await self._subjects.load()
        while batch := await self.rows.unchecked(user_id, BATCH):
            # One embedding call for the batch: a window's facts arrive together.
            vectors = await self._embedder.embed([b.fact.text for b in batch])
            for belief, vector in zip(batch, vectors, strict=True):
                if belief.subject is None:
                    belief = replace(belief, subject=self._subjects.of_vector(
                        belief.fact.text, vector))
                await self.check(belief, report, vector)
        return report

    async def check(self, belief: Belief, report: CheckReport,
                    vector: Vector | None = None) -> None:
        """`vector`: the belief's embedding, when it is judged (made here if not given)."""
        premises = (await self.premises(belief, vector) if self._judge.can_judge(belief)
                    else [])
        judgements = await self._judge.judge(belief, premises) if premises else []
        disputed = await self.rows.disputed(belief.user_id, [p.id for p in premises])
        settlement = decide(belief, premises, judgements, self._settings, disputed)
        superseded = await self.rows.settle(belief, settlement)
        if superseded is None:  # another worker checked it meanwhile
            return
        report.checked += 1
        report.superseded += len(superseded)
        if superseded:
            log.info("Belief check for %s: %d superseded by %s", belief.user_id,
                     len(superseded), (settlement.winner or "")[:8])
            await self._facts.unindex(superseded)

    async def premises(self, belief: Belief, vector: Vector | None = None) -> list[Belief]:
        """The beliefs about the same subject, then the most similar others; 3 of each."""
        limit = self._settings.premises
        on_topic = await self.rows.on_topic(belief, limit)
        seen = {belief.id, *(p.id for p in on_topic)}
        if vector is None:
            [vector] = await self._embedder.embed([belief.fact.text])
        nearest = [
            *await self._facts.by_meaning(belief.user_id, vector, SIMILAR_CANDIDATES),
            *await self._facts.by_meaning(belief.user_id, vector, limit, taught=True),
        ]
        nearest.sort(key=lambda hit: -hit[1])
        ids = [fact.id for fact, _ in nearest if fact.id not in seen]
        found = {b.id: b for b in await self.rows.among(belief, ids)}
        similar = [found[i] for i in dict.fromkeys(ids) if i in found][:limit]
        return [*on_topic, *similar]
