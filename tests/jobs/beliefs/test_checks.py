"""Consistent beliefs (MemoryBank) through a whole companion: the memory worker checks new beliefs,
a newer or surer belief supersedes the one it contradicts, compatible ones stay, ties are asked
about once, and the prompt, /why, /memories, /export and /admin beliefs show it; against real
stores, the real embedder, the real job queue and the scripted model."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.app import Companion, open_companion
from jobs.queue import DONE, PENDING
from memory.types import Fact, Origin, Speaker
from tests.chatting import memory_lines, run, say
from tests.conftest import make_settings
from tests.fakes.openai_server import Reply, ScriptedLLM

MARCH = datetime(2024, 3, 2, 10, 0, tzinfo=UTC)
JUNE = datetime(2024, 6, 20, 18, 0, tzinfo=UTC)
WHERE = "Can you recommend a cafe near where I live?"
ADMIN = "telegram:1"


async def _open(tmp_path: Path, llm: ScriptedLLM, sql_url: str = "",
                **beliefs: Any) -> AsyncIterator[Companion]:
    settings = make_settings(tmp_path, llm, sql_url, memory={"retry_seconds": 0},
                             beliefs={"judge": "heuristic", **beliefs},
                             telegram={"admin_ids": [1]})
    async with open_companion(settings) as opened:
        yield opened


@pytest.fixture
async def bank(tmp_path: Path, llm: ScriptedLLM, sql_url: str) -> AsyncIterator[Companion]:
    async for opened in _open(tmp_path, llm, sql_url):
        yield opened


async def _said(companion: Companion, user: str, text: str, when: datetime, *,
                speaker: Speaker = Speaker.USER, origin: Origin = Origin.SAID) -> Fact:
    fact = Fact(uuid.uuid4().hex, user, text, speaker, when, (1,), origin,
                persona="companion" if speaker is Speaker.COMPANION else "")
    await companion.facts.add_facts([fact])
    return fact


async def _said_reply(companion: Companion, text: str, user: str = "ana", *,
                      private: bool = True) -> str:
    return (await say(companion, text, user, private=private))[0]


async def _admin(companion: Companion, text: str) -> str:
    return await run(companion, text, ADMIN)


async def _tie(companion: Companion) -> tuple[Fact, Fact]:
    """Two statements two days apart that cannot both hold: a question to ask."""
    paris = await _said(companion, "ana", "I live in Paris.", MARCH)
    lyon = await _said(companion, "ana", "I live in Lyon.", MARCH + timedelta(days=2))
    await companion.worker.check_beliefs("ana")
    return paris, lyon


async def _export(companion: Companion, user: str = "ana") -> dict[str, Any]:
    reply = await companion.commands.run(user, "/export")
    assert reply.attachment is not None
    return json.loads(reply.attachment.content)


async def test_a_move_supersedes_the_old_city_and_the_prompt_shows_only_the_new_one(
    bank: Companion, llm: ScriptedLLM
) -> None:
    paris = await _said(bank, "ana", "I live in Paris.", MARCH)
    berlin = await _said(bank, "ana", "We moved to Berlin last month!", JUNE)
    report = await bank.worker.check_beliefs("ana")
    assert (report.beliefs_checked, report.superseded) == (2, 1)

    llm.enqueue("Try a cafe in Berlin [1].")
    await _said_reply(bank, WHERE)
    lines = memory_lines(llm.last_system_prompt)
    assert any("Berlin" in line for line in lines)
    assert not any("Paris" in line for line in lines)
    why = await run(bank, "/why")
    assert f"replaces: [{paris.id[:8]}]" in why and "I live in Paris." in why
    memories = await run(bank, "/memories")
    assert "No longer true" in memories and f"/memories restore {paris.id[:8]}" in memories
    facts = {f["text"]: f for f in (await _export(bank))["facts"]}
    assert facts["I live in Paris."]["status"] == "superseded"
    assert facts["I live in Paris."]["superseded_by"] == berlin.id
    assert facts["We moved to Berlin last month!"]["status"] == "active"

    restored = await run(bank, f"/memories restore {paris.id[:8]}")
    assert restored.startswith('Restored: "I live in Paris."')
    llm.enqueue("Both?")
    await _said_reply(bank, WHERE)
    assert any("Paris" in line for line in memory_lines(llm.last_system_prompt))


async def test_compatible_statements_are_never_flipped(bank: Companion) -> None:
    for text in ("I live in Berlin.", "I love Berlin's parks.", "My sister lives in Rome.",
                 "I visited Paris for a weekend.", "I used to live in Madrid.",
                 "I might move to Oslo one day.", "Berlin has been home for years now."):
        await _said(bank, "ana", text, MARCH)
        await bank.worker.check_beliefs("ana")
    assert all(f["status"] == "active" for f in (await _export(bank))["facts"])
    assert "No longer true" not in await run(bank, "/memories")


async def test_a_tie_is_asked_about_once_and_the_users_answer_settles_it(
    bank: Companion, llm: ScriptedLLM
) -> None:
    paris, lyon = await _tie(bank)
    assert "No longer true" not in await run(bank, "/memories")  # nobody can tell which

    llm.enqueue("Which one is it now?")
    await _said_reply(bank, "How was your day?")
    prompt = llm.last_system_prompt
    assert "Something to check" in prompt
    assert '"I live in Paris"; now "I live in Lyon"' in prompt
    assert "How was your day?" not in prompt  # the question is the companion's, not the user's
    why = await run(bank, "/why")
    assert "To check with you" in why and paris.id[:8] in why and lyon.id[:8] in why
    llm.enqueue("Nice!")
    await _said_reply(bank, "I had pasta for lunch.")
    assert "Something to check" not in llm.last_system_prompt  # asked once
    [question] = (await _export(bank))["questions"]
    assert (question["earlier_fact"], question["later_fact"], question["status"]) == (
        paris.id, lyon.id, "asked")
    admin = await _admin(bank, "/admin beliefs ana")
    assert "Question (asked): [" in admin and "I live in Paris. vs [" in admin

    llm.enqueue("Noted!")
    await _said_reply(bank, "Remember that I live in Lyon now")
    await bank.worker.wait_idle()  # the teaching's check runs in the background
    statuses = {f["text"]: f["status"] for f in (await _export(bank))["facts"]}
    assert statuses["I live in Paris."] == "superseded"
    assert statuses["I live in Lyon."] == "active"
    admin = await _admin(bank, "/admin beliefs ana")
    assert "Question" not in admin
    assert f"[{paris.id[:8]}]" in admin.split("Superseded, newest first:")[1]
    assert "by: [" in admin and "you taught me: I live in Lyon now." in admin
    assert [q["status"] for q in (await _export(bank))["questions"]] == ["settled"]
    await run(bank, "/forget all yes")
    assert (await _export(bank))["questions"] == []


async def test_wrong_about_one_side_of_a_question_settles_it(
    bank: Companion, llm: ScriptedLLM
) -> None:
    await _tie(bank)
    llm.enqueue("Which one is it now?")
    await _said_reply(bank, "How are you?")
    numbered = [line for line in memory_lines(llm.last_system_prompt) if "Paris" in line]
    paris_number = numbered[-1].split("]")[0].lstrip("[")
    llm.enqueue("Lyon it is.")
    said = await _said_reply(bank, f"/wrong {paris_number} I live in Lyon")
    assert said.startswith(f'Noted: memory {paris_number} ("I live in Paris.") is wrong')
    await bank.worker.wait_idle()
    export = await _export(bank)
    assert [q["status"] for q in export["questions"]] == ["settled"]
    assert {f["text"]: f["status"] for f in export["facts"]}["I live in Paris."] == "retracted"


async def test_a_tie_is_not_asked_about_in_a_group_chat(
    bank: Companion, llm: ScriptedLLM
) -> None:
    await _tie(bank)
    llm.enqueue("Hi all!")
    await _said_reply(bank, "Hello everyone", private=False)
    assert "Something to check" not in llm.last_system_prompt
    llm.enqueue("So, which is it?")
    await _said_reply(bank, "Hi")
    assert "Something to check" in llm.last_system_prompt  # kept for the private chat


async def test_a_taught_fact_outweighs_an_extracted_one(bank: Companion, llm: ScriptedLLM) -> None:
    taught = await _said(bank, "ana", "I work as a nurse.", MARCH, origin=Origin.TAUGHT)
    said = await _said(bank, "ana", "I work as a teacher.", MARCH + timedelta(days=7))
    await bank.worker.check_beliefs("ana")
    statuses = {f["id"]: (f["status"], f["superseded_by"]) for f in (await _export(bank))["facts"]}
    assert statuses[said.id] == ("superseded", taught.id)
    assert statuses[taught.id] == ("active", None)
    llm.enqueue("A nurse [1].")
    await _said_reply(bank, "What do I do for a living?")
    lines = memory_lines(llm.last_system_prompt)
    assert any("nurse" in line for line in lines) and not any("teacher" in line for line in lines)


async def test_the_companions_own_contradiction_is_caught(bank: Companion, llm: ScriptedLLM
                                                          ) -> None:
    jazz = await _said(bank, "ana", "I love jazz.", MARCH, speaker=Speaker.COMPANION)
    later = await _said(bank, "ana", "Honestly, I can't stand jazz.", JUNE,
                        speaker=Speaker.COMPANION)
    await bank.worker.check_beliefs("ana")
    statuses = {f["id"]: (f["status"], f["superseded_by"]) for f in (await _export(bank))["facts"]}
    assert statuses[later.id] == ("superseded", jazz.id)  # it keeps its first word
    llm.enqueue("I love jazz [1]!")
    await _said_reply(bank, "Do you like jazz music?")
    lines = memory_lines(llm.last_system_prompt)
    assert any('you: "I love jazz."' in line for line in lines)
    assert not any("can't stand" in line for line in lines)
    admin = await _admin(bank, "/admin beliefs ana")
    assert f"[{later.id[:8]}]" in admin and "Question" not in admin  # never asked of the user


async def test_beliefs_are_checked_per_user(bank: Companion, llm: ScriptedLLM) -> None:
    bob_paris = await _said(bank, "bob", "I live in Paris.", MARCH)
    await bank.worker.check_beliefs("bob")
    await _said(bank, "ana", "We moved to Berlin last month!", JUNE)
    await _said(bank, "ana", "I live in Lyon.", JUNE)
    await bank.worker.check_beliefs("ana")
    bobs = await _export(bank, "bob")
    assert [f["status"] for f in bobs["facts"]] == ["active"] and bobs["questions"] == []
    anas = await _admin(bank, "/admin beliefs ana")
    assert "Question (open)" in anas and bob_paris.id[:8] not in anas and "Paris" not in anas
    llm.enqueue("Paris, Bob!")
    await _said_reply(bank, "Which city do I live in?", user="bob")
    assert "Something to check" not in llm.last_system_prompt  # ana's tie is not bob's
    lines = memory_lines(llm.last_system_prompt)
    assert any("Paris" in line for line in lines)
    assert not any("Berlin" in line or "Lyon" in line for line in lines)


@pytest.fixture
async def judged(tmp_path: Path, llm: ScriptedLLM) -> AsyncIterator[Companion]:
    async for opened in _open(tmp_path, llm, judge="model", judge_timeout_seconds=1.0):
        yield opened


@pytest.mark.parametrize("failure", [Reply("Sure! They look fine to me."),
                                     Reply("1. contradiction 0.9", delay=3.0)],
                         ids=["garbage", "timeout"])
async def test_a_judge_that_fails_leaves_every_belief_as_it_was_and_is_retried(
    judged: Companion, llm: ScriptedLLM, failure: Reply
) -> None:
    await _said(judged, "ana", "I live in Paris.", MARCH)
    await judged.worker.check_beliefs("ana")  # the first belief has nothing to be judged against
    await _said(judged, "ana", "We moved to Berlin.", JUNE)
    llm.enqueue(failure)
    report = await judged.worker.check_beliefs("ana")
    assert report.failed == 1 and report.superseded == 0
    assert all(f["status"] == "active" for f in (await _export(judged))["facts"])
    [job] = [j for j in await judged.worker.queue.jobs(user_id="ana") if j.status == PENDING]
    assert job.kind == "beliefs" and job.last_error

    llm.enqueue("1. contradiction 0.95")
    report = await judged.worker.sweep()
    assert report.superseded == 1
    judge_prompt = llm.chat_requests[-1]["messages"][0]["content"]
    assert "1. (2 March 2024) I live in Paris." in judge_prompt
    assert "New statement by the host (20 June 2024): We moved to Berlin." in judge_prompt
    statuses = {f["text"]: f["status"] for f in (await _export(judged))["facts"]}
    assert statuses == {"I live in Paris.": "superseded", "We moved to Berlin.": "active"}
    assert all(j.status == DONE for j in await judged.worker.queue.jobs(user_id="ana"))


def _by_city(body: dict[str, Any]) -> str:
    """A model judge that knows one thing: two different cities cannot both be home."""
    def cities(text: str) -> set[str]:
        return {city for city in ("Paris", "Berlin") if city in text}
    answers, new = [], ""
    for line in body["messages"][-1]["content"].splitlines():
        if line.startswith("New statement"):
            new = line
        elif (numbered := re.match(r"(\d+)\. \(", line)) is not None:
            differ = cities(line) and cities(new) and cities(line) != cities(new)
            answers.append(f"{numbered[1]}. {'contradiction 0.95' if differ else 'neutral 0.9'}")
    return "\n".join(answers)


async def test_a_windows_new_beliefs_are_judged_in_one_call_and_the_newest_wins(
    judged: Companion, llm: ScriptedLLM
) -> None:
    await _said(judged, "ana", "I live in Paris.", MARCH)
    await _said(judged, "ana", "I work at a bakery.", MARCH + timedelta(days=1))
    await _said(judged, "ana", "We moved to Berlin.", JUNE)
    llm.responder = _by_city
    asked = len(llm.chat_requests)
    report = await judged.worker.check_beliefs("ana")
    assert len(llm.chat_requests) == asked + 1
    assert report.superseded == 1
    statuses = {f["text"]: f["status"] for f in (await _export(judged))["facts"]}
    assert statuses == {"I live in Paris.": "superseded", "I work at a bakery.": "active",
                        "We moved to Berlin.": "active"}


async def test_a_window_checked_at_once_ends_as_if_checked_one_belief_at_a_time(
    bank: Companion
) -> None:
    """A window's checks commit together: each decision still sees the conflicts the ones
    before it opened (a question) and settled (a belief superseded)."""
    said = [("I live in Paris.", MARCH), ("I live in Lyon.", MARCH + timedelta(days=2)),
            ("I still live in Lyon.", MARCH + timedelta(days=30)),
            ("We moved to Berlin last month!", JUNE)]
    for user, at_once in (("ana", True), ("bob", False)):
        for text, when in said:
            await _said(bank, user, text, when)
            if not at_once:
                await bank.worker.check_beliefs(user)
        if at_once:
            report = await bank.worker.check_beliefs(user)
            assert report.beliefs_checked == len(said)
    ana, bob = await _export(bank, "ana"), await _export(bank, "bob")

    def outcome(export: dict[str, Any]) -> tuple[Any, ...]:
        text = {f["id"]: f["text"] for f in export["facts"]}
        return (sorted((f["text"], f["status"], text.get(f["superseded_by"]))
                       for f in export["facts"]),
                sorted((text[q["earlier_fact"]], text[q["later_fact"]], q["status"])
                       for q in export["questions"]))

    assert outcome(ana) == outcome(bob)
    assert {f["text"]: f["status"] for f in ana["facts"]}["We moved to Berlin last month!"] == (
        "active")
    assert ana["questions"]  # the window opened a question on the way
