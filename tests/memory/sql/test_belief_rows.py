"""The premises a window's new beliefs are checked against, read for the whole window at once
(SQLite and the real MariaDB): each belief still gets only its own user's checked beliefs, the
newest few on its subject, and the companion's only of its persona."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncEngine

from memory.beliefs.belief import About, Belief
from memory.beliefs.rows import SQLBeliefRows
from memory.facts.rows import SQLFactRows
from memory.sql.tables import facts
from memory.types import Fact, Origin, Speaker

START = datetime(2024, 3, 1, tzinfo=UTC)


def _fact(text: str, day: int, subject: str, *, user: str = "ana",
          speaker: Speaker = Speaker.USER, persona: str = "") -> Fact:
    return Fact(uuid.uuid4().hex, user, text, speaker, START + timedelta(days=day), (),
                Origin.SAID, persona=persona, subject=subject)


def _new(fact: Fact, about: About = About.USER) -> Belief:
    return Belief(fact, about, fact.subject, 0.5)


async def _checked(engine: AsyncEngine, *said: Fact) -> None:
    await SQLFactRows(engine).insert(said)
    async with engine.begin() as conn:
        await conn.execute(update(facts).where(facts.c.id.in_([f.id for f in said]))
                           .values(checked=True))


async def test_each_new_belief_gets_the_newest_of_its_own_subject(engine: AsyncEngine) -> None:
    homes = [_fact(f"I live in city {n}", day=n, subject="home") for n in range(5)]
    dog = _fact("Rex chewed my slippers again", day=1, subject="pet")
    bob = _fact("I live in Oslo", day=9, subject="home", user="bob")
    await _checked(engine, *homes, dog, bob)
    rows = SQLBeliefRows(engine, flipped_confidence=0.3)
    moved = _new(_fact("we moved to Lyon", day=10, subject="home"))
    puppy = _new(_fact("got a new puppy, Nala", day=10, subject="pet"))
    job = _new(_fact("I quit my job", day=10, subject="work"))

    found = await rows.on_topic_of([moved, puppy, job], 3)

    assert [b.fact.text for b in found[moved.id]] == [
        "I live in city 4", "I live in city 3", "I live in city 2"]
    assert [b.fact.text for b in found[puppy.id]] == ["Rex chewed my slippers again"]
    assert found[job.id] == []


async def test_the_companions_premises_are_of_its_own_persona(engine: AsyncEngine) -> None:
    ada = _fact("I live in a lighthouse", day=1, subject="home", speaker=Speaker.COMPANION,
                persona="ada")
    max_ = _fact("I live on a boat", day=2, subject="home", speaker=Speaker.COMPANION,
                 persona="max")
    users = _fact("I live in Rome", day=3, subject="home")
    await _checked(engine, ada, max_, users)
    rows = SQLBeliefRows(engine, flipped_confidence=0.3)
    new = _new(_fact("I live in a castle", day=4, subject="home", speaker=Speaker.COMPANION,
                     persona="ada"), About.COMPANION)

    assert [b.id for b in (await rows.on_topic_of([new], 3))[new.id]] == [ada.id]
    among = await rows.among([new], [ada.id, max_.id, users.id])
    assert [b.id for b in among[new.id]] == [ada.id]


async def test_another_users_facts_are_never_premises(engine: AsyncEngine) -> None:
    mine = _fact("I play the cello", day=1, subject="hobby")
    bobs = _fact("I play the drums", day=2, subject="hobby", user="bob")
    await _checked(engine, mine, bobs)
    rows = SQLBeliefRows(engine, flipped_confidence=0.3)
    new = _new(_fact("I took up the violin", day=3, subject="hobby"))

    among = await rows.among([new], [mine.id, bobs.id])
    assert [b.id for b in among[new.id]] == [mine.id]
    try:
        await rows.among([new, _new(bobs)], [mine.id])
    except ValueError:
        pass
    else:
        raise AssertionError("beliefs of two users were read together")
