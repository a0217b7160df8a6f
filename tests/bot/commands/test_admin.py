"""`/admin ...`: refused to everyone but the configured admins, who can see and act on any
user's memory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.app import Companion, open_companion
from bot.commands.admin import ADMIN_HELP
from bot.commands.layer import REFUSAL
from bot.core.inbound import Incoming
from memory.types import Exchange
from tests.conftest import make_settings
from tests.fakes.openai_server import ScriptedLLM

ADMIN = "telegram:1"
ADMIN_COMMANDS = [
    "/admin stats",
    "/admin topics telegram:7",
    "/admin facts telegram:7",
    "/admin beliefs telegram:7",
    "/admin turns telegram:7 5",
    "/admin jobs",
    "/admin summarize telegram:7",
    "/admin merge telegram:7",
    "/admin forget telegram:7 all",
    "/admin",
]


@pytest.fixture
async def companion(tmp_path: Path, llm: ScriptedLLM) -> AsyncIterator[Companion]:
    settings = make_settings(
        tmp_path, llm, telegram={"admin_ids": [1]}, discord={"admin_ids": [2]},
        memory={"summarize_every": 2, "summarizer": "extractive"},
    )
    async with open_companion(settings) as opened:
        yield opened


async def _run(companion: Companion, user: str, text: str) -> str:
    return (await companion.commands.run(user, text)).text


async def _chat(companion: Companion, user: str, text: str) -> None:
    async for _ in companion.dialogue.respond(Incoming(user, text)):
        pass


@pytest.mark.parametrize("command", ADMIN_COMMANDS)
async def test_every_admin_command_is_refused_to_a_non_admin_who_learns_nothing(
    companion: Companion, llm: ScriptedLLM, command: str, caplog: pytest.LogCaptureFixture
) -> None:
    await companion.add_topic("telegram:7", "work", "The host is a baker.")
    # The same numeric id on another platform, or the admin's id as a terminal name, is no admin.
    for stranger in ("telegram:7", "discord:1", "1"):
        assert await _run(companion, stranger, command) == REFUSAL
    assert await companion.topics.count("telegram:7") == 1
    assert "Refused /admin" in caplog.text and "discord:1" in caplog.text


async def test_an_admin_sees_stats_topics_and_turns_of_any_user(
    companion: Companion, llm: ScriptedLLM
) -> None:
    topic = await companion.add_topic("telegram:7", "work", "The host is a baker.")
    llm.enqueue("Fresh bread, lovely!")
    await _chat(companion, "telegram:7", "I baked bread today")
    stats = await _run(companion, ADMIN, "/admin stats")
    assert "Users: 1" in stats and "Rounds: 1 (0 failed)" in stats
    assert "Active topics: 1" in stats
    topics = await _run(companion, "discord:2", "/admin topics telegram:7")
    assert f"[{topic.id[:8]}] work: The host is a baker." in topics
    turns = await _run(companion, ADMIN, "/admin turns telegram:7 5")
    assert "user: I baked bread today" in turns and "reply: Fresh bread, lovely!" in turns
    assert "no rounds" in await _run(companion, ADMIN, "/admin turns telegram:8")


async def test_an_admin_runs_upkeep_and_forgets_for_a_user(
    companion: Companion, llm: ScriptedLLM
) -> None:
    said = ["I bake sourdough bread every morning.", "I work at a bakery in Lyon."]
    # Imported rounds wait for upkeep (chatting would start it by itself at 2 rounds).
    await companion.rounds.import_rounds(
        "telegram:7", "companion", [Exchange(text, "Nice!") for text in said]
    )
    assert "telegram:7" not in await _run(companion, ADMIN, "/admin jobs")
    summarized = await _run(companion, ADMIN, "/admin summarize telegram:7")
    assert summarized.startswith("telegram:7: summarized 1 window,")
    assert await companion.topics.count("telegram:7") >= 1
    facts = await _run(companion, ADMIN, "/admin facts telegram:7")
    assert "you said: I work at a bakery in Lyon." in facts
    assert "Facts: 2" in await _run(companion, ADMIN, "/admin stats")
    assert "merged 0 labels" in await _run(companion, ADMIN, "/admin merge telegram:7")
    forgotten = await _run(companion, ADMIN, "/admin forget telegram:7 all")
    assert forgotten.startswith("telegram:7: Forgotten: 2 rounds")
    assert "2 facts" in forgotten
    assert await companion.topics.count("telegram:7") == 0
    assert await companion.facts.count("telegram:7") == 0
    assert await companion.search_topics("telegram:7", "bread") == []


async def test_help_shows_admin_commands_to_admins_only(companion: Companion) -> None:
    assert ADMIN_HELP not in await _run(companion, "telegram:7", "/help")
    assert ADMIN_HELP in await _run(companion, ADMIN, "/help")
    assert await _run(companion, ADMIN, "/admin dance") == ADMIN_HELP
