"""The offline judge's knowledge: what a statement claims, and which two claims disagree."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from jobs.beliefs.flipping import decide
from jobs.beliefs.judge import HeuristicJudge, Judgement, Verdict
from memory.beliefs.belief import About, Belief, BeliefSettings, belief_columns
from memory.beliefs.claims import Claim, claim_of
from memory.types import Fact, Origin, Speaker

CHANGES = [  # an earlier statement, and a later one that cannot hold with it
    ("I live in Paris.", "We moved to Berlin last month!"),
    ("Berlin is where I live.", "Finally made the move to Glasgow."),
    ("I work at Google.", "Accenture pays my bills now."),
    ("I'm a nurse.", "After years of the old job, I'm working as a pilot now."),
    ("I'm 34.", "Just turned 35!"),
    ("We've got two kids.", "3 kids now, the baby arrived early."),
    ("I eat meat.", "I don't eat meat anymore."),
    ("I'm vegetarian.", "I've gone vegan."),
    ("My dog's name is Max.", "Bruno is my dog, a very silly spaniel."),
    ("I have a dog.", "We don't have the dog anymore."),
    ("I'm single.", "We got married in June!"),
    ("I smoke.", "Gave up smoking in January."),
    ("I smoke.", "Still smoke-free!"),
    ("My favourite colour is blue.", "Green is my colour now."),
    ("I love jazz.", "Honestly, I can't stand jazz."),
    ("I'm a cat person.", "I'm not much of a cat person after all."),
]
COMPATIBLE = [  # never a contradiction, whatever else they share
    ("I live in Berlin.", "I love Berlin's parks."),
    ("I live in Paris.", "My sister lives in Rome."),
    ("I live in Paris.", "I used to live in Madrid."),
    ("I live in Paris.", "I might move to Oslo one day."),
    ("I live in Paris.", "If I lived in Tokyo I'd eat ramen daily."),
    ("I live in New York City.", "I live in New York."),
    ("I work at Google.", "My roommate works for Aldi."),
    ("I'm vegetarian.", "My brother just went vegetarian."),
    ("I'm vegetarian.", "Made a vegan curry last night."),
    ("I'm 34.", "My boyfriend is 35."),
    ("I'm 34.", "Mo just turned fifty-three."),
    ("We have two kids.", "My brother has 6 kids."),
    ("I'm a non-smoker.", "Since my dad quit smoking he runs every day."),
    ("I like it.", "I don't like it."),
    ("I'm single.", "Dating apps are wild, my roommate is on three of them."),
    ("Been with Liam for ages now.", "I work at Google."),
    ("I'm a software engineer.", "I work as an engineer."),
]


async def _verdict(earlier: str, later: str) -> Verdict:
    [judged] = await HeuristicJudge().judge(_belief(later), [_belief(earlier)])
    return judged.verdict


@pytest.mark.parametrize(("earlier", "later"), CHANGES)
async def test_a_change_of_value_is_a_contradiction(earlier: str, later: str) -> None:
    assert await _verdict(earlier, later) is Verdict.CONTRADICTION


@pytest.mark.parametrize(("earlier", "later"), COMPATIBLE)
async def test_compatible_statements_are_never_a_contradiction(earlier: str, later: str) -> None:
    assert await _verdict(earlier, later) is not Verdict.CONTRADICTION


async def test_the_same_value_said_again_is_an_entailment() -> None:
    assert await _verdict("I live in Berlin.", "Berlin is home now.") is Verdict.ENTAILMENT


def test_a_question_or_two_claims_at_once_claim_nothing() -> None:
    assert claim_of("Do I live in Paris?") is None
    assert claim_of("I live in Paris. I work at Google.") is None
    assert claim_of("I live in Paris.") == Claim("home", "paris")


def _belief(text: str, *, days: int = 0, origin: Origin = Origin.SAID,
            speaker: Speaker = Speaker.USER, repeats: int = 1) -> Belief:
    fact = Fact(uuid.uuid4().hex, "ana", text, speaker,
                datetime(2024, 3, 1, tzinfo=UTC) + timedelta(days=days), (), origin)
    columns = belief_columns(fact)
    return Belief(fact, About(columns["about"]), columns["subject"], columns["confidence"],
                  repeats)


CONTRADICTS = Judgement(Verdict.CONTRADICTION, 0.9)
SETTINGS = BeliefSettings()


def test_a_newer_statement_wins_after_a_week_and_is_asked_about_before() -> None:
    old = _belief("I live in Paris.")
    later = _belief("I live in Lyon.", days=8)
    assert decide(later, [old], [CONTRADICTS], SETTINGS).losers == (old.id,)
    soon = _belief("I live in Lyon.", days=2)
    settled = decide(soon, [old], [CONTRADICTS], SETTINGS)
    assert (settled.losers, settled.ask) == ((), (old.id, soon.id))


def test_saying_it_changed_wins_at_once() -> None:
    old = _belief("I live in Paris.")
    moved = _belief("We moved to Lyon.", days=0)
    assert decide(moved, [old], [CONTRADICTS], SETTINGS).losers == (old.id,)


def test_a_taught_fact_outweighs_a_later_plain_statement_and_loses_to_a_later_teaching() -> None:
    taught = _belief("I live in Paris.", origin=Origin.TAUGHT)
    said = _belief("I live in Lyon.", days=30)
    assert decide(said, [taught], [CONTRADICTS], SETTINGS).losers == (said.id,)
    retaught = _belief("I live in Lyon.", days=180, origin=Origin.TAUGHT)
    assert decide(retaught, [taught], [CONTRADICTS], SETTINGS).losers == (taught.id,)


def test_the_companion_keeps_its_first_word_and_is_never_asked_about() -> None:
    first = _belief("I love jazz.", speaker=Speaker.COMPANION)
    later = _belief("I can't stand jazz.", days=90, speaker=Speaker.COMPANION)
    settled = decide(later, [first], [CONTRADICTS], SETTINGS)
    assert (settled.losers, settled.winner, settled.ask) == ((later.id,), first.id, None)


def test_more_entailing_than_contradicting_premises_flip_nothing_unless_disputed() -> None:
    paris, lyon = _belief("I live in Paris."), _belief("I live in Lyon.", days=1)
    taught = _belief("I live in Lyon.", days=2, origin=Origin.TAUGHT)
    votes = [CONTRADICTS, Judgement(Verdict.ENTAILMENT, 0.9)]
    assert decide(taught, [paris, lyon], votes, SETTINGS).losers == ()
    settled = decide(taught, [paris, lyon], votes, SETTINGS, disputed={paris.id, lyon.id})
    assert settled.losers == (paris.id,) and settled.repeats == 2
