"""Beliefs (MemoryBank, after BeliefBank): the facts the companion holds true about a user, and
what it said about itself, each with a confidence that decides which side loses a contradiction.

A belief is a fact with three more things: who it is about, how sure we are of it (where it came
from: taught > said by the user > said by the companion > a model's wording), and how often it
was said. When two beliefs disagree, the stronger one at the time of the newer one wins by a
margin (Algorithm 1's gamma): an older statement of the user counts for less (people move, change
jobs), one that says it changed ("we moved", "no longer") for more, and one said again and again
for more. What the companion said about itself does not age: it keeps to its first word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from memory.beliefs.claims import claim_of, says_change
from memory.beliefs.subjects import subject_of_claim
from memory.types import Fact, Origin, Speaker


class About(StrEnum):
    USER = "user"
    COMPANION = "companion"


ACTIVE, SUPERSEDED = "active", "superseded"
# Where a belief came from, and how much it is trusted.
TAUGHT_CONFIDENCE = 0.95  # the user taught it on purpose
USER_CONFIDENCE = 0.8  # the user said it, in their own words
COMPANION_CONFIDENCE = 0.6  # the companion said it about itself
INFERRED_CONFIDENCE = 0.4  # a model's wording of what was said
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|im|my|me|mine|myself)\b", re.I)


@dataclass(frozen=True, slots=True)
class BeliefSettings:
    """How contradictions are settled (see `jobs.beliefs.flipping`)."""

    margin: float = 0.1  # gamma: one side must be this much stronger to win
    flipped_confidence: float = 0.3  # the confidence a superseded belief is left with
    # What a user's statement loses a day (what they taught, a month), up to max_aging: a week
    # later, a plain newer statement outweighs an older one said the same way.
    aging_per_day: float = 0.02
    taught_aging_per_month: float = 0.025
    max_aging: float = 0.3
    change_bonus: float = 0.2  # for a statement that says it changed
    repeat_bonus: float = 0.05  # for each time it was said again, up to three
    premises: int = 3  # how many similar and how many same-subject beliefs a check reads


@dataclass(frozen=True, slots=True)
class Belief:
    fact: Fact
    about: About
    subject: str | None
    confidence: float
    repeats: int = 1
    status: str = ACTIVE
    superseded_by: str | None = None

    @property
    def id(self) -> str:
        return self.fact.id

    @property
    def user_id(self) -> str:
        return self.fact.user_id

    @property
    def persona(self) -> str:
        return self.fact.persona


def about_of(fact: Fact) -> About | None:
    """Who a fact is a belief about: the user (anything they said or taught), the companion
    (what it said about itself, in the first person), or nobody (a suggestion)."""
    if fact.speaker is Speaker.USER:
        return About.USER
    return About.COMPANION if _FIRST_PERSON.search(fact.text) else None


def base_confidence(fact: Fact) -> float:
    if fact.origin is Origin.TAUGHT:
        return TAUGHT_CONFIDENCE
    if fact.inferred:
        return INFERRED_CONFIDENCE
    return USER_CONFIDENCE if fact.speaker is Speaker.USER else COMPANION_CONFIDENCE


def belief_columns(fact: Fact) -> dict[str, Any]:
    """The belief columns of a new fact's row: a belief is stored unchecked, anything else as
    checked (there is nothing to check). A provisional fact is no belief: the window's facts
    that replace it are checked. The subject is the hand-written claim's where one reads the
    text, else the fact's own (found by meaning), else found when the belief is checked."""
    about = None if fact.provisional else about_of(fact)
    claim = claim_of(fact.text) if about is not None else None
    subject = subject_of_claim(claim) if claim else fact.subject
    return {
        "about": about.value if about else None,
        "persona": fact.persona or None,
        "subject": subject[:120] if subject else None,
        "confidence": base_confidence(fact),
        "repeats": 1,
        "checked": about is None,
        "superseded_by": None,
    }


def strength(
    belief: Belief, at: datetime, settings: BeliefSettings, *, later: bool = False
) -> float:
    """How much a belief weighs at time `at`; `later`: it was said after the one it is weighed
    against, so a change it announces counts."""
    value = belief.confidence + settings.repeat_bonus * min(belief.repeats - 1, 3)
    if belief.about is About.COMPANION:
        return value
    days = max((at - belief.fact.said_at).total_seconds(), 0.0) / 86400
    aging = (settings.taught_aging_per_month * days / 30 if belief.fact.origin is Origin.TAUGHT
             else settings.aging_per_day * days)
    value -= min(aging, settings.max_aging)
    if later and says_change(belief.fact.text):
        value += settings.change_bonus
    return value


@dataclass(frozen=True, slots=True)
class Settlement:
    """What checking a new belief decided: beliefs superseded (`losers`, by `winner`), a pair
    to ask the user about (earlier id, later id), and how often the new belief has been said."""

    losers: tuple[str, ...] = ()
    winner: str | None = None
    ask: tuple[str, str] | None = None
    repeats: int = 1
