"""Beliefs on phrasing no hand-written rule reads (BeliefBank's consistency, by meaning and
entities), through a whole companion: the worker's belief check and the prompt of the next
reply, against real stores, the packaged embedder, spaCy's packaged model and the scripted
model."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.app import Companion, open_companion
from memory.types import Fact, Speaker
from tests.chatting import memory_lines, run, say
from tests.conftest import make_settings
from tests.fakes.openai_server import ScriptedLLM

MARCH = datetime(2024, 3, 2, 10, 0, tzinfo=UTC)
LATER = MARCH + timedelta(days=40)
# Things said between, on other subjects, so the searches have more than the two to choose from.
OTHER = ("I made a huge pot of lentil soup", "my sister's wedding was lovely",
         "work has been hectic this month", "watched a documentary about octopuses",
         "my knee hurts after the run", "we booked a week in Crete for August")


@pytest.fixture
async def bank(tmp_path: Path, llm: ScriptedLLM, sql_url: str) -> AsyncIterator[Companion]:
    settings = make_settings(tmp_path, llm, sql_url, memory={"retry_seconds": 0},
                             beliefs={"judge": "heuristic"})
    async with open_companion(settings) as opened:
        yield opened


async def _said(companion: Companion, text: str, when: datetime, user: str = "ana") -> Fact:
    # Each statement from a round of its own: two sentences of one round never outdate each other.
    fact = Fact(uuid.uuid4().hex, user, text, Speaker.USER, when, (next(_ROUNDS),))
    await companion.facts.add_facts([fact])
    return fact


_ROUNDS = itertools.count(1)


async def _timeline(companion: Companion, old: str, new: str, user: str = "ana"
                    ) -> tuple[Fact, Fact]:
    first = await _said(companion, old, MARCH, user)
    for day, text in enumerate(OTHER, start=1):
        await _said(companion, text, MARCH + timedelta(days=day), user)
    second = await _said(companion, new, LATER, user)
    await companion.worker.check_beliefs(user)
    return first, second


async def _prompt_lines(companion: Companion, llm: ScriptedLLM, question: str,
                        user: str = "ana") -> list[str]:
    llm.enqueue("Let me think.")
    await say(companion, question, user)
    return memory_lines(llm.last_system_prompt)


async def _status(companion: Companion, fact: Fact, user: str = "ana") -> str:
    [belief] = await companion.beliefs.beliefs(user, [fact.id])
    return belief.status


def _shown_as_now(lines: list[str], word: str) -> bool:
    """A memory line holds the word and is not marked earlier."""
    return any(word in line and "earlier" not in line for line in lines)


def _never_as_now(lines: list[str], word: str) -> bool:
    """Every memory line holding the word (if any) is marked earlier."""
    return all("earlier" in line for line in lines if word in line)


async def test_a_move_said_without_live_supersedes_the_old_city(
    bank: Companion, llm: ScriptedLLM
) -> None:
    rome, vienna = await _timeline(bank, "our place in Rome is tiny but the light is lovely",
                                   "we're not in Rome any more, it's Vienna now")
    assert await _status(bank, rome) == "superseded"
    assert await _status(bank, vienna) == "active"
    lines = await _prompt_lines(bank, llm, "Which city do I live in?")
    assert any("Vienna" in line for line in lines)
    assert not any("tiny" in line for line in lines)


async def test_an_implied_move_is_the_newest_on_its_subject_in_the_prompt(
    bank: Companion, llm: ScriptedLLM
) -> None:
    await _timeline(bank, "our flat in Leeds has a cracked window",
                    "finally hung the pictures in our new flat in Turin")
    lines = await _prompt_lines(bank, llm, "Which city do I live in?")
    assert _shown_as_now(lines, "Turin")
    # The old city is either gone or shown as earlier, never as how things are now.
    assert _never_as_now(lines, "Leeds")


async def test_a_new_partners_name_is_not_taken_for_the_old_one(
    bank: Companion, llm: ScriptedLLM
) -> None:
    kim, _ = await _timeline(bank, "Kim and I got engaged in June",
                             "I'm seeing someone called Sam now")
    lines = await _prompt_lines(bank, llm, "Who am I dating?")
    assert _shown_as_now(lines, "Sam")
    assert await _status(bank, kim) == "superseded" or _never_as_now(lines, "Kim")


async def test_a_subject_no_rule_reads_gets_its_newest_statement(
    bank: Companion, llm: ScriptedLLM
) -> None:
    await _timeline(bank, "my trusty old Fiesta failed its MOT again",
                    "just picked up the keys to my new Tesla")
    lines = await _prompt_lines(bank, llm, "What am I driving these days?")
    assert _shown_as_now(lines, "Tesla")
    assert _never_as_now(lines, "Fiesta")


async def test_compatible_statements_on_a_subject_survive(bank: Companion) -> None:
    said = [await _said(bank, text, MARCH + timedelta(days=day)) for day, text in enumerate((
        "we're in Vienna now", "I love Vienna's cafés", "off to Lisbon for a week",
        "my brother moved to Oslo", "I might move to Graz one day",
        "Vienna winters are brutal"))]
    await bank.worker.check_beliefs("ana")
    assert [await _status(bank, fact) for fact in said] == ["active"] * len(said)


async def test_someone_elses_move_never_replaces_the_users_home(
    bank: Companion, llm: ScriptedLLM
) -> None:
    leeds, york = await _timeline(bank, "our flat in Leeds has a cracked window",
                                  "Betty next door finally moved into a new flat in York")
    assert [await _status(bank, leeds), await _status(bank, york)] == ["active", "active"]
    lines = await _prompt_lines(bank, llm, "Which city do I live in?")
    assert _shown_as_now(lines, "Leeds")


async def test_another_users_newer_statement_is_never_shown_or_a_premise(
    bank: Companion, llm: ScriptedLLM
) -> None:
    rome = await _said(bank, "our place in Rome is tiny", MARCH, user="ana")
    await _said(bank, "we're not in Rome any more, it's Vienna now", LATER, user="ben")
    await bank.worker.check_beliefs("ana")
    await bank.worker.check_beliefs("ben")
    assert await _status(bank, rome) == "active"
    lines = await _prompt_lines(bank, llm, "Which city do I live in?")
    assert any("Rome" in line and "earlier" not in line for line in lines)
    assert not any("Vienna" in line for line in lines)


async def test_why_says_which_memory_is_earlier_and_which_came_in_as_the_newest(
    bank: Companion, llm: ScriptedLLM
) -> None:
    await _timeline(bank, "Kim and I got engaged in June", "I'm seeing someone called Sam")
    lines = await _prompt_lines(bank, llm, "Should I get Kim a present?")
    assert any("Kim" in line and "earlier" in line for line in lines)
    assert any("Sam" in line and "earlier" not in line for line in lines)
    why = await run(bank, "/why")
    assert "shown as earlier: you said something newer on it" in why
