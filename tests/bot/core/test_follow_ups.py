"""A plan the person told of is asked about once, in their first conversation after its day
(bot/core/dialogue.py, memory/plans), with a clock the test controls."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.app import Companion, open_companion
from bot.settings import load_settings
from tests.chatting import run, say
from tests.conftest import make_settings
from tests.fakes.openai_server import ScriptedLLM

FOLLOW_UP = "Something to follow up"


@dataclass
class Clock:
    now: datetime

    def __call__(self) -> datetime:
        return self.now

    def on(self, day: int) -> None:
        """March 2026: Monday the 9th, Friday the 13th, Saturday the 14th."""
        self.now = datetime(2026, 3, day, 10, tzinfo=UTC)


@pytest.fixture
def clock() -> Clock:
    return Clock(datetime(2026, 3, 9, 10, tzinfo=UTC))


@pytest.fixture
async def companion(tmp_path: Path, llm: ScriptedLLM, clock: Clock
                    ) -> AsyncIterator[Companion]:
    async with open_companion(make_settings(tmp_path, llm), clock=clock) as opened:
        yield opened


async def _prompt_after(companion: Companion, llm: ScriptedLLM, text: str, user: str = "ana",
                        *, private: bool = True) -> str:
    await say(companion, text, user, private=private)
    return llm.last_system_prompt


async def test_a_plan_said_on_monday_for_friday_is_asked_about_on_saturday_once(
        companion: Companion, llm: ScriptedLLM, clock: Clock) -> None:
    await say(companion, "my job interview is on Friday, wish me luck")
    clock.on(12)  # Thursday: not over yet
    assert FOLLOW_UP not in await _prompt_after(companion, llm, "what a day")
    clock.on(14)
    prompt = await _prompt_after(companion, llm, "morning!")
    assert FOLLOW_UP in prompt and "my job interview is on Friday" in prompt
    assert FOLLOW_UP not in await _prompt_after(companion, llm, "I slept well")


async def test_a_moved_plan_is_asked_about_after_its_new_day(
        companion: Companion, llm: ScriptedLLM, clock: Clock) -> None:
    await say(companion, "the dentist appointment is on Wednesday")
    clock.on(10)
    await say(companion, "the dentist appointment moved to Friday")
    clock.on(12)  # Wednesday is over, but the plan moved
    assert FOLLOW_UP not in await _prompt_after(companion, llm, "hello again")
    clock.on(14)
    prompt = await _prompt_after(companion, llm, "hi")
    assert "moved to Friday" in prompt.split(FOLLOW_UP)[1]


async def test_days_are_the_persons_own_where_they_live(
        companion: Companion, llm: ScriptedLLM, clock: Clock) -> None:
    await run(companion, "/timezone America/Los_Angeles")
    clock.now = datetime(2026, 3, 9, 6, tzinfo=UTC)  # 23:00 on Sunday in Los Angeles
    await say(companion, "my exam is tomorrow, so nervous")
    listed = await run(companion, "/memories")
    assert "my exam is tomorrow, so nervous (9 March 2026)" in listed  # their Monday
    clock.now = datetime(2026, 3, 10, 5, tzinfo=UTC)  # 22:00 on Monday there: not over yet
    assert FOLLOW_UP not in await _prompt_after(companion, llm, "long day")
    clock.now = datetime(2026, 3, 10, 16, tzinfo=UTC)  # 09:00 on Tuesday there
    assert FOLLOW_UP in await _prompt_after(companion, llm, "morning")


async def test_never_in_a_group_chat_never_another_users_plan(
        companion: Companion, llm: ScriptedLLM, clock: Clock) -> None:
    await say(companion, "my exam is on Friday")
    clock.on(14)
    assert FOLLOW_UP not in await _prompt_after(companion, llm, "hi all", private=False)
    assert FOLLOW_UP not in await _prompt_after(companion, llm, "hi", user="ben")
    assert FOLLOW_UP in await _prompt_after(companion, llm, "hi")


async def test_forget_all_takes_the_plans_too(
        companion: Companion, llm: ScriptedLLM, clock: Clock) -> None:
    await say(companion, "my exam is on Friday")
    assert "1 plan" in await run(companion, "/forget all")
    assert "1 plan" in await run(companion, "/forget all yes")
    clock.on(14)
    assert FOLLOW_UP not in await _prompt_after(companion, llm, "hi")


async def test_export_holds_the_plan_with_its_days(
        companion: Companion, clock: Clock) -> None:
    await say(companion, "we fly to Lisbon next week!")
    reply = await companion.commands.run("ana", "/export")
    assert reply.attachment is not None
    await run(companion, "/timezone Europe/Lisbon")
    exported = json.loads((await companion.commands.run("ana", "/export")).attachment.content)
    assert exported["checkins"] == {"on": False, "timezone": "Europe/Lisbon"}
    [plan] = json.loads(reply.attachment.content)["plans"]
    assert (plan["first_day"], plan["last_day"], plan["status"]) == (
        "2026-03-16", "2026-03-22", "open")


@pytest.mark.real_model
async def test_the_demo_models_reply_ends_with_a_plain_question_about_the_plan(
        tmp_path: Path, clock: Clock) -> None:
    settings = load_settings(None, data_dir=str(tmp_path / "data"))  # the defaults, offline
    async with open_companion(settings, clock=clock) as companion:
        await say(companion, "my job interview is on Friday, wish me luck")
        clock.on(14)
        said, finished = await say(companion, "morning!")
        again, _ = await say(companion, "what's new?")
    assert finished is not None
    assert said.endswith("On 9 March 2026 you said: \u201cmy job interview is on Friday, wish me "
                         "luck\u201d. How did it go?")
    assert "How did it go?" not in again


async def test_memories_lists_a_plan_why_names_it_once_asked_and_it_can_be_forgotten(
        companion: Companion, llm: ScriptedLLM, clock: Clock) -> None:
    await say(companion, "my exam is on Friday")
    listed = await run(companion, "/memories")
    plans = listed.split("Plans (once one's day has passed, I ask how it went):\n")[1]
    [line] = plans.splitlines()
    assert "my exam is on Friday (13 March 2026)" in line
    clock.on(14)
    await say(companion, "hi")
    why = await run(companion, "/why")
    assert "Asked how a plan went:" in why and "my exam is on Friday" in why
    plan_id = line.split("]")[0].lstrip("[")
    assert "Forgotten:" in await run(companion, f"/forget {plan_id}")
    assert "Plans" not in await run(companion, "/memories")
