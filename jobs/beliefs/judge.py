"""The judge of a new belief (MemoryBank's natural-language-inference model): for each premise,
whether it entails the new belief, contradicts it, or neither, with a probability.

Two judges keep this contract: a capable model (`jobs.beliefs.model_judge`) and, offline, where no
NLI model is packaged, `HeuristicJudge`, which says "contradiction" only when it is sure: both
statements claim a value for the same subject (a city, a job, a name, a number, a diet...) and
the values cannot both hold, which covers an explicit negation ("I have a dog" / "we don't have
the dog anymore"). Anything else is neutral.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from memory.beliefs.belief import Belief
from memory.beliefs.claims import Claim, agree, claim_of
from memory.beliefs.values import NONE, ValueReader, Values
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


@dataclass(frozen=True, slots=True)
class Case:
    """A new belief and the premises it is judged against."""

    new: Belief
    premises: Sequence[Belief]


class Judge(Protocol):
    def can_judge(self, new: Belief) -> bool:
        """False when every judgement of `new` would be neutral: its premises need not be
        looked up."""
        ...

    async def judge(self, cases: Sequence[Case]) -> list[list[Judgement]]:
        """For each case, one judgement per premise, in order; a window's new beliefs are
        judged together. Raises `JudgeUnusable` or `ModelUnavailable` when it cannot judge
        them all."""
        ...


class HeuristicJudge:
    """Offline: the hand-written claims first (`memory.beliefs.claims`): contradiction for the
    same claimed subject with values that cannot both hold, entailment for the same value. Where
    they read nothing, two beliefs on one subject found by meaning (`memory.beliefs.subjects`)
    are compared by the values their entities give (`memory.beliefs.values`): contradiction when
    the newer says an older value is over ("not in Rome any more"), or gives other values and
    says something changed ("new", "now", "moved"); entailment when they share a value; neutral
    otherwise."""

    def __init__(self, values: ValueReader | None = None) -> None:
        """`values`: reads entities (None: the hand-written claims alone)."""
        self._values = values

    def can_judge(self, new: Belief) -> bool:
        return new.subject is not None  # a subject of its claim, or found by meaning

    async def judge(self, cases: Sequence[Case]) -> list[list[Judgement]]:
        # Entities are read only for the pairs no claim decides (spaCy costs milliseconds),
        # all of the cases' at once.
        unclaimed = [b for case in cases for b in _values_to_read(case)]
        values = await self._values_of(unclaimed) if unclaimed else {}
        return [self._judge_one(case.new, case.premises, values) for case in cases]

    def _judge_one(self, new: Belief, premises: Sequence[Belief],
                   values: dict[str, Values]) -> list[Judgement]:
        claim = claim_of(new.fact.text)
        judged = []
        for premise in premises:
            other = claim_of(premise.fact.text)
            if claim is not None and other is not None:
                judged.append(_by_claims(claim, other))
            elif new.subject is not None and premise.subject == new.subject:
                judged.append(_compare_values(new, values.get(new.fact.text, NONE), premise,
                                              values.get(premise.fact.text, NONE)))
            else:
                judged.append(NEUTRAL)
        return judged

    async def _values_of(self, beliefs: Sequence[Belief]) -> dict[str, Values]:
        if self._values is None:
            return {}
        texts = [b.fact.text for b in beliefs]
        return dict(zip(texts, await self._values.read(texts), strict=True))


def _by_claims(claim: Claim, other: Claim) -> Judgement:
    if other.subject != claim.subject:
        return NEUTRAL
    if agree(claim.subject, other.value, claim.value):
        return Judgement(Verdict.ENTAILMENT, 0.9)
    return Judgement(Verdict.CONTRADICTION, 0.9)


def _values_to_read(case: Case) -> list[Belief]:
    """The beliefs of a case whose values are compared: the new one and the premises on its
    subject, where no hand-written claim reads both."""
    new = case.new
    claimed = claim_of(new.fact.text) is not None
    premises = [p for p in case.premises if new.subject is not None and p.subject == new.subject
                and not (claimed and claim_of(p.fact.text) is not None)]
    return [new, *premises] if premises else []


def _compare_values(new: Belief, said: Values, premise: Belief, was: Values) -> Judgement:
    """Two beliefs on one subject, by their values; the newer one speaks for now."""
    if said.someone_else or was.someone_else:
        return NEUTRAL  # another person's life: "my buddy switched to Android"
    newer, older = ((said, was) if new.fact.said_at >= premise.fact.said_at else (was, said))
    newer_text = (new if newer is said else premise).fact.text
    if newer.ends(older) or (newer.differs(older) and _CHANGED.search(newer_text)):
        return Judgement(Verdict.CONTRADICTION, 0.8)
    if newer.agrees(older):
        return Judgement(Verdict.ENTAILMENT, 0.8)
    return NEUTRAL


# What says a subject changed, for two statements that only their meaning and entities compare
# (stricter than `says_change`, which also weighs statements the claims read: "just", "since"
# and "again" come with too many other things).
_CHANGED = re.compile(
    r"\b(?:moved|relocated|no longer|any ?more|switched|changed|new|now|quit|left|started|"
    r"joined|broke up|split up|finally|these days|nowadays|instead|actually|i meant|sorry|"
    r"correction|scratch that)\b", re.I)
