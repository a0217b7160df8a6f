"""Check-ins (bot/core/checkins.py): one message when a plan is over and the person has not
written, only for those who asked, within their waking hours, once per plan across processes.
The platform is a list that keeps what was sent; the Telegram and Discord tests send through
their real libraries."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.app import Companion, open_companion
from bot.errors import ConfigError
from bot.settings import load_settings
from tests.chatting import run, say
from tests.conftest import make_settings
from tests.fakes.openai_server import ScriptedLLM

ANN, BEN = "telegram:42", "telegram:43"
QUESTION = "On 9 March 2026 you said: \u201cmy exam is on Friday\u201d. How did it go?"


@dataclass
class Clock:
    now: datetime = datetime(2026, 3, 9, 10, tzinfo=UTC)  # a Monday

    def __call__(self) -> datetime:
        return self.now

    def at(self, day: int, hour: int) -> None:
        self.now = datetime(2026, 3, day, hour, tzinfo=UTC)


@dataclass
class Telegram:
    """Stands in for the platform: keeps what it was asked to send, or fails."""

    sent: list[tuple[str, str]] = field(default_factory=list)
    down: bool = False

    async def send(self, user_id: str, text: str) -> None:
        if self.down:
            raise ConnectionError("Telegram is not reachable")
        self.sent.append((user_id, text))


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def companion(tmp_path: Path, llm: ScriptedLLM, clock: Clock, sql_url: str
                    ) -> AsyncIterator[Companion]:
    async with open_companion(make_settings(tmp_path, llm, sql_url), clock=clock) as opened:
        yield opened


async def _planned(companion: Companion, user: str = ANN, *, checkins: bool = True) -> None:
    if checkins:
        assert "Check-ins are on" in await run(companion, "/checkins on", user)
    await say(companion, "my exam is on Friday", user)


async def _due(companion: Companion, telegram: Telegram) -> list[tuple[str, str]]:
    await companion.checkins.send_due({"telegram": telegram.send})
    return telegram.sent


async def test_a_plan_over_gets_one_message_in_waking_hours_stored_as_a_round(
        companion: Companion, clock: Clock) -> None:
    await _planned(companion)
    await _planned(companion, BEN, checkins=False)  # never asked for them
    telegram = Telegram()
    clock.at(13, 15)  # Friday: not over yet
    assert await _due(companion, telegram) == []
    clock.at(14, 6)  # Saturday, 6:00: asleep
    assert await _due(companion, telegram) == []
    clock.at(14, 10)
    assert await _due(companion, telegram) == [(ANN, QUESTION)]
    assert await _due(companion, telegram) == [(ANN, QUESTION)]  # never twice
    [round_] = [r for r in await companion.rounds.recent_rounds(ANN, 5) if not r.user_text]
    assert round_.reply_text == QUESTION
    why = await run(companion, "/why", ANN)
    assert "Asked how a plan went:" in why and "my exam is on Friday" in why


async def test_the_persons_time_zone_sets_their_waking_hours(
        companion: Companion, clock: Clock) -> None:
    await _planned(companion)
    assert "Asia/Tokyo" in await run(companion, "/timezone Asia/Tokyo", ANN)
    assert "do not know" in await run(companion, "/timezone Mars/Olympus", ANN)
    telegram = Telegram()
    clock.at(14, 14)  # 23:00 in Tokyo
    assert await _due(companion, telegram) == []
    clock.at(15, 1)  # 10:00 in Tokyo
    assert await _due(companion, telegram) == [(ANN, QUESTION)]


async def test_checkins_off_or_any_forget_stops_them(
        companion: Companion, clock: Clock) -> None:
    await _planned(companion)
    assert "Check-ins are off" in await run(companion, "/checkins off", ANN)
    clock.at(14, 10)
    assert await _due(companion, Telegram()) == []
    await run(companion, "/checkins on", ANN)
    [fact] = await companion.facts.newest(ANN, 1)
    await run(companion, f"/forget {fact.id[:8]}", ANN)
    assert "Check-ins are off" in await run(companion, "/checkins", ANN)
    assert await _due(companion, Telegram()) == []


async def test_a_reply_that_asked_already_leaves_nothing_to_send(
        companion: Companion, clock: Clock, llm: ScriptedLLM) -> None:
    await _planned(companion)
    clock.at(14, 8)
    await say(companion, "good morning", ANN)  # the reply asks
    assert "Something to follow up" in llm.last_system_prompt
    clock.at(14, 10)
    assert await _due(companion, Telegram()) == []


async def test_a_message_that_could_not_go_is_sent_at_the_next_try(
        companion: Companion, clock: Clock) -> None:
    await _planned(companion)
    clock.at(14, 10)
    assert await _due(companion, Telegram(down=True)) == []
    assert await _due(companion, Telegram()) == [(ANN, QUESTION)]


async def test_at_most_the_weekly_number(companion: Companion, clock: Clock) -> None:
    await run(companion, "/checkins on", ANN)
    for text in ("my exam is on Tuesday", "the dentist appointment is on Wednesday",
                 "my driving test is on Thursday"):
        await say(companion, text, ANN)
    telegram = Telegram()
    for day in (11, 12, 13):  # each the day after one of them
        clock.at(day, 10)
        await _due(companion, telegram)
    assert len(telegram.sent) == 2  # checkins.per_week


async def test_two_processes_send_it_once(
        tmp_path: Path, llm: ScriptedLLM, clock: Clock, sql_url: str) -> None:
    settings = make_settings(tmp_path, llm, sql_url)
    async with open_companion(settings, clock=clock) as one, \
            open_companion(settings, clock=clock) as two:
        await _planned(one)
        clock.at(14, 10)
        telegram = Telegram()
        await asyncio.gather(one.checkins.send_due({"telegram": telegram.send}),
                             two.checkins.send_due({"telegram": telegram.send}))
    assert telegram.sent == [(ANN, QUESTION)]


def test_settings_refuse_an_unknown_zone_and_an_empty_day() -> None:
    with pytest.raises(ConfigError, match=r"checkins\.timezone"):
        load_settings(None, checkins={"timezone": "Mars/Olympus"})
    with pytest.raises(ConfigError, match="waking_from"):
        load_settings(None, checkins={"waking_from": 22, "waking_until": 7})
