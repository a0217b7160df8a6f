"""Algorithm 1 (heuristic flipping): which belief wins a contradiction, and when the user is
asked instead."""

from __future__ import annotations

from jobs.beliefs.flipping import decide
from jobs.beliefs.judge import Judgement, Verdict
from memory.beliefs.belief import BeliefSettings
from memory.types import Origin, Speaker
from tests.jobs.beliefs.premises import belief

CONTRADICTS = Judgement(Verdict.CONTRADICTION, 0.9)
SETTINGS = BeliefSettings()


def test_a_newer_statement_wins_after_a_week_and_is_asked_about_before() -> None:
    old = belief("I live in Paris.")
    later = belief("I live in Lyon.", days=8)
    assert decide(later, [old], [CONTRADICTS], SETTINGS).losers == (old.id,)
    soon = belief("I live in Lyon.", days=2)
    settled = decide(soon, [old], [CONTRADICTS], SETTINGS)
    assert (settled.losers, settled.ask) == ((), (old.id, soon.id))


def test_saying_it_changed_wins_at_once() -> None:
    old = belief("I live in Paris.")
    moved = belief("We moved to Lyon.", days=0)
    assert decide(moved, [old], [CONTRADICTS], SETTINGS).losers == (old.id,)


def test_a_taught_fact_outweighs_a_later_plain_statement_and_loses_to_a_later_teaching() -> None:
    taught = belief("I live in Paris.", origin=Origin.TAUGHT)
    said = belief("I live in Lyon.", days=30)
    assert decide(said, [taught], [CONTRADICTS], SETTINGS).losers == (said.id,)
    retaught = belief("I live in Lyon.", days=180, origin=Origin.TAUGHT)
    assert decide(retaught, [taught], [CONTRADICTS], SETTINGS).losers == (taught.id,)


def test_the_companion_keeps_its_first_word_and_is_never_asked_about() -> None:
    first = belief("I love jazz.", speaker=Speaker.COMPANION)
    later = belief("I can't stand jazz.", days=90, speaker=Speaker.COMPANION)
    settled = decide(later, [first], [CONTRADICTS], SETTINGS)
    assert (settled.losers, settled.winner, settled.ask) == ((later.id,), first.id, None)


def test_more_entailing_than_contradicting_premises_flip_nothing_unless_disputed() -> None:
    paris, lyon = belief("I live in Paris."), belief("I live in Lyon.", days=1)
    taught = belief("I live in Lyon.", days=2, origin=Origin.TAUGHT)
    votes = [CONTRADICTS, Judgement(Verdict.ENTAILMENT, 0.9)]
    assert decide(taught, [paris, lyon], votes, SETTINGS).losers == ()
    settled = decide(taught, [paris, lyon], votes, SETTINGS, disputed={paris.id, lyon.id})
    assert settled.losers == (paris.id,) and settled.repeats == 2
