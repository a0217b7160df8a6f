"""The judge of a new belief (MemoryBank's natural-language-inference model): for each premise,
whether it entails the new belief, contradicts it, or neither, with a probability.

Two judges keep this contract: a capable model (`jobs.beliefs.model_judge`) and, offline, where no
NLI model is packaged, `HeuristicJudge`, which says "contradiction" only when it is sure: both
statements claim a value for the same subject (a city, a job, a name, a number, a diet...) and
the values cannot both hold, which covers an explicit negation ("I have a dog" / "we don't have
the dog anymore"). Anything else is neutral.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from memory.beliefs.belief import Belief
from memory.beliefs.claims import agree, claim_of
from memory.errors import UnusableAnswer


class Verdict(StrEnum):
    ENTAILMENT = "entailment"
    NEUTRAL = "neutral"
    CONTRADICTION = "contradiction"


@dataclass(frozen=True, slots=True)
class Judgement:
    verdict: Verdict
    probability: float


NEUTRAL = Judgement(Verdict.NEUTRAL, 1.0)


class JudgeUnusable(UnusableAnswer):
    """The judge's answer could not be read; nothing is decided, the check is retried."""


class Judge(Protocol):
    def can_judge(self, new: Belief) -> bool:
        """False when every judgement of `new` would be neutral: its premises need not be
        looked up."""
        ...

    async def judge(self, new: Belief, premises: Sequence[Belief]) -> list[Judgement]:
        """One judgement per premise, in order. Raises `JudgeUnusable` or `ModelUnavailable`
        when it cannot judge."""
        ...


class HeuristicJudge:
    """Contradiction only for the same subject with values that cannot both hold (see
    `memory.beliefs.claims`); entailment for the same value; neutral otherwise."""

    def can_judge(self, new: Belief) -> bool:
        return new.subject is not None  # the subject of its claim, found when it was stored

    async def judge(self, new: Belief, premises: Sequence[Belief]) -> list[Judgement]:
        claim = claim_of(new.fact.text)
        if claim is None:
            return [NEUTRAL] * len(premises)
        judged = []
        for premise in premises:
            other = claim_of(premise.fact.text)
            if other is None or other.subject != claim.subject:
                judged.append(NEUTRAL)
            elif agree(claim.subject, other.value, claim.value):
                judged.append(Judgement(Verdict.ENTAILMENT, 0.9))
            else:
                judged.append(Judgement(Verdict.CONTRADICTION, 0.9))
        return judged
