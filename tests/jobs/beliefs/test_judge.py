"""The offline judge (HeuristicJudge): which two statements contradict each other, which say the
same again, and which can both hold."""

from __future__ import annotations

import pytest

from jobs.beliefs.judge import Case, HeuristicJudge, Verdict
from tests.jobs.beliefs.premises import belief

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
    [[judged]] = await HeuristicJudge().judge([Case(belief(later), [belief(earlier)])])
    return judged.verdict


@pytest.mark.parametrize(("earlier", "later"), CHANGES)
async def test_a_change_of_value_is_a_contradiction(earlier: str, later: str) -> None:
    assert await _verdict(earlier, later) is Verdict.CONTRADICTION


@pytest.mark.parametrize(("earlier", "later"), COMPATIBLE)
async def test_compatible_statements_are_never_a_contradiction(earlier: str, later: str) -> None:
    assert await _verdict(earlier, later) is not Verdict.CONTRADICTION


async def test_the_same_value_said_again_is_an_entailment() -> None:
    assert await _verdict("I live in Berlin.", "Berlin is home now.") is Verdict.ENTAILMENT
