"""The per-user turn lock across processes: two companions on one MariaDB database, as two bot
processes are, share nothing in memory, yet one user's messages are answered one after another,
each reply seeing the round before it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from pathlib import Path
from typing import TypeVar

import pytest

from bot.app import open_companion
from memory.types import RoundStatus
from tests.chatting import say
from tests.conftest import make_settings
from tests.fakes.openai_server import Reply, ScriptedLLM

pytestmark = pytest.mark.mysql
T = TypeVar("T")


async def _later(work: Awaitable[T]) -> T:
    await asyncio.sleep(0.1)
    return await work


async def test_a_users_messages_to_two_processes_are_answered_in_turn(
    tmp_path: Path, llm: ScriptedLLM, mysql_url: str
) -> None:
    first = make_settings(tmp_path / "a", llm, mysql_url)
    second = make_settings(tmp_path / "b", llm, mysql_url)
    async with open_companion(first) as a, open_companion(second) as b:
        llm.enqueue(Reply("One moment... done with the first.", delay=0.2),
                    Reply("And now the second."))
        replies = await asyncio.gather(
            say(a, "First: I adopted a cat named Miso.", "ana"),
            _later(say(b, "Second: what is my cat called?", "ana")),
        )
        assert all(finished is not None for _, finished in replies)
        asked = str(llm.chat_requests[1]["messages"])
        assert "Second: what is my cat called?" in asked
        assert "First: I adopted a cat named Miso." in asked  # it waited for the first turn
        assert "done with the first" in asked
        rounds = await a.rounds.recent_rounds("ana", 5)
        assert [r.user_text[:6] for r in rounds] == ["First:", "Second"]
        assert all(r.status is RoundStatus.ANSWERED for r in rounds)
