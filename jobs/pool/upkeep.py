"""The shared pool's background work: scoring replies of people who opted in, and training the
retriever again as the pool grows. Both run as durable jobs (see jobs.queue): a job run twice,
or in two processes, stores one entry and one training."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

from jobs.pool.retraining import Retrainer, Retraining
from jobs.pool.scoring import PoolScorer
from memory.pool.retriever_rows import Trained
from memory.pool.store import SharedPool, entry_id, from_round
from memory.sql.rounds import SQLRoundStore
from memory.types import PoolEntry, PoolStatus, RoundStatus
from personas.loader import Persona, Rubric

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class PoolRules:
    mode: str = "review"  # "review": an admin shares candidates; "auto": a good score does
    threshold: int = 70  # the score (0-100) a reply needs to become a candidate
    retrain_every: int = 25  # new labelled entries that call for a new training


class PoolUpkeep:
    def __init__(
        self, *, pool: SharedPool, rounds: SQLRoundStore, personas: dict[str, Persona],
        rubrics: dict[str, Rubric], scorer: PoolScorer | None, retrainer: Retrainer,
        rules: PoolRules,
    ) -> None:
        """`scorer` None: no model scores (the bundled demo model); reactions still count."""
        self.pool = pool
        self._rounds = rounds
        self._personas = personas
        self._rubrics = rubrics
        self._scorer = scorer
        self._retrainer = retrainer
        self.rules = rules

    async def wants_score(self, user_id: str, *, admitted: bool = False) -> bool:
        """Whether a reply to this user is scored: a model scores, and they opted in (or the
        round is in the pool already, `admitted`: an admin shared it)."""
        return self._scorer is not None and (admitted or await self.pool.rows.opted_in(user_id))

    async def score_round(self, user_id: str, round_id: int) -> str:
        """Score one reply; a good one becomes a candidate (shared at once in "auto" mode).
        Returns what happened, for the job's record."""
        round_ = await self._rounds.get_round(user_id, round_id)
        if round_ is None or round_.status is not RoundStatus.ANSWERED:
            return "the round is gone or has no reply"
        stored = await self.pool.rows.by_round(round_id)
        if self._scorer is None:
            return "not scored: no model scores"
        if stored is None and not await self.pool.rows.opted_in(user_id):
            return "not scored: its user does not share"  # (an entry was admitted already)
        if stored is not None and stored.kind is not None:
            return "scored already"
        persona = self._personas.get(round_.persona)
        rubric = self._rubrics.get(persona.domain) if persona else None
        if persona is None or rubric is None:
            return f"no rubric for the persona {round_.persona!r}"
        scrubbed = stored or await self.pool.scrubbed(
            from_round(round_, persona.domain, PoolStatus.CANDIDATE, "chat"))
        score = await self._scorer.score(rubric, scrubbed.prompt, scrubbed.answer)
        if stored is not None:  # a thumbs-up (or down) made it already: keep its status
            stored = await self.pool.scored(stored, score.score, score.kind, score.rubric_version)
            if stored.status is PoolStatus.CANDIDATE and self._auto_shares(score.score):
                await self.pool.set_status(stored, PoolStatus.SHARED)
            return f"scored {score.score} ({score.kind})"
        if score.score < self.rules.threshold:
            return f"scored {score.score}: below {self.rules.threshold}, not kept"
        status = PoolStatus.SHARED if self._auto_shares(score.score) else PoolStatus.CANDIDATE
        await self.pool.add(replace(scrubbed, status=status, score=score.score, kind=score.kind,
                                    rubric_version=score.rubric_version), scrub=False)
        return f"scored {score.score} ({score.kind}): {status.value}"

    def _auto_shares(self, score: int) -> bool:
        return self.rules.mode == "auto" and score >= self.rules.threshold

    async def retrain_due(self) -> int | None:
        return await self._retrainer.due(self.rules.retrain_every)

    async def retrain(self) -> Retraining:
        return await self._retrainer.retrain()

    async def trainings(self) -> list[Trained]:
        return await self._retrainer.trainings()

    async def training_in_use(self) -> Trained | None:
        return await self._retrainer.training_in_use()

    async def add_examples(self) -> int:
        """The personas' hand-written examples, shared (a person wrote them for this); adding
        them again stores nothing new. Returns how many were new."""
        return await self.pool.add_written([
            PoolEntry(id=entry_id("example", persona.name, number, example.prompt),
                      prompt=example.prompt, answer=example.answer, persona=persona.name,
                      domain=persona.domain, kind=example.kind, status=PoolStatus.SHARED,
                      source="example")
            for persona in self._personas.values()
            for number, example in enumerate(persona.examples)])
