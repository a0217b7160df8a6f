"""Database faults with real parts: MariaDB behind a TCP proxy that drops every connection, and
MariaDB itself restarted. Nobody's message is lost without them being told; the bot goes on
serving; the sweep closes what a lost connection left pending."""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from bot.app import Companion, open_companion
from bot.core.dialogue import MEMORY_AWAY, MEMORY_AWAY_SAVED
from memory.sql.engine import utcnow
from memory.types import RoundStatus
from tests.chatting import say
from tests.conftest import make_settings
from tests.fakes.openai_server import Reply, ScriptedLLM
from tests.fakes.tcp_proxy import TcpProxy

pytestmark = pytest.mark.mysql
MARIADBD = "/usr/sbin/mariadbd"


@pytest.fixture
async def proxy() -> AsyncIterator[TcpProxy]:
    server = TcpProxy(3306)
    await server.start()
    try:
        yield server
    finally:
        await server.close()


@pytest.fixture
async def through_proxy(tmp_path: Path, llm: ScriptedLLM, mysql_url: str, proxy: TcpProxy
                        ) -> AsyncIterator[Companion]:
    url = make_url(mysql_url).set(port=proxy.port).render_as_string(hide_password=False)
    async with open_companion(make_settings(tmp_path, llm, url)) as companion:
        yield companion


async def _while_streaming(llm: ScriptedLLM, action: Callable[[], object]) -> None:
    """Once the model has the prompt (the reply streams), and not before: the turn's reads are
    done then, however slow the machine."""
    while not llm.chat_requests:
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.1)
    action()


async def test_connections_dropped_while_a_reply_streams_cost_nothing(
    through_proxy: Companion, llm: ScriptedLLM, proxy: TcpProxy
) -> None:
    llm.enqueue(Reply("Red tomatoes already, well done!", delay=0.08))
    (said, finished), _ = await asyncio.gather(
        say(through_proxy, "My tomatoes turned red.", "ana"), _while_streaming(llm, proxy.cut))
    assert said == "Red tomatoes already, well done!" and finished is not None
    said, finished = await say(through_proxy, "What colour are my tomatoes?", "ana")
    assert finished is not None
    assert "My tomatoes turned red." in llm.last_system_prompt
    rounds = await through_proxy.rounds.recent_rounds("ana", 5)
    assert [r.status for r in rounds] == [RoundStatus.ANSWERED] * 2


async def test_while_the_database_is_unreachable_people_are_told_and_nothing_is_lost(
    through_proxy: Companion, llm: ScriptedLLM, proxy: TcpProxy
) -> None:
    def database_goes_away() -> None:
        proxy.refusing = True
        proxy.cut()

    llm.enqueue(Reply("Tell me about the garden, I am listening.", delay=0.08))
    (said, finished), _ = await asyncio.gather(
        say(through_proxy, "I planted basil today.", "ana"),
        _while_streaming(llm, database_goes_away))
    # The reply was shown; the person learns it may not be kept, and that the message is.
    assert said.startswith("Tell me about the garden") and said.endswith(MEMORY_AWAY_SAVED)
    assert finished is None
    said, _ = await say(through_proxy, "Are you there?", "ben")
    assert said == MEMORY_AWAY  # not stored, and told so: they can send it again
    proxy.refusing = False
    started = time.monotonic()
    said, finished = await say(through_proxy, "I also planted mint.", "ana")
    assert finished is not None
    # Not after the 30 s lease: the turn the lost connection left behind is this process's.
    assert time.monotonic() - started < 10
    assert "I planted basil today." in llm.last_system_prompt
    said, finished = await say(through_proxy, "Are you there?", "ben")
    assert finished is not None
    [left] = [r for r in await through_proxy.rounds.recent_rounds("ana", 5)
              if r.status is RoundStatus.PENDING]
    assert left.user_text == "I planted basil today."
    # The sweep closes rounds pending for longer than any reply takes (10 minutes; here, now).
    assert await through_proxy.rounds.close_abandoned(utcnow() + timedelta(seconds=1)) == 1
    statuses = [r.status for r in await through_proxy.rounds.recent_rounds("ana", 5)]
    assert statuses == [RoundStatus.FAILED, RoundStatus.ANSWERED]


def _mariadb(*args: str) -> None:
    subprocess.run(["start-stop-daemon", *args, "--exec", MARIADBD], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _mariadb_alive() -> bool:
    return subprocess.run(["mariadb-admin", "--host=127.0.0.1", "--user=root",
                           "--connect-timeout=2", "ping"], capture_output=True).returncode == 0


def _wait_until(alive: bool, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while _mariadb_alive() != alive:
        if time.monotonic() > deadline:
            raise TimeoutError(f"MariaDB did not {'start' if alive else 'stop'}")
        time.sleep(0.3)


async def test_after_mariadb_restarts_the_companion_goes_on_with_its_memory(
    tmp_path: Path, llm: ScriptedLLM, mysql_url: str
) -> None:
    async with open_companion(make_settings(tmp_path, llm, mysql_url)) as companion:
        said, finished = await say(companion, "I adopted a cat named Miso.", "ana")
        assert finished is not None
        _mariadb("--stop", "--retry", "30")
        try:
            await asyncio.to_thread(_wait_until, False)
            said, finished = await say(companion, "She likes boxes.", "ana")
            assert (said, finished) == (MEMORY_AWAY, None)
        finally:
            _mariadb("--start", "--oknodo", "--background")
            await asyncio.to_thread(_wait_until, True)
        said, finished = await say(companion, "What is my cat called?", "ana")
        assert finished is not None
        assert "I adopted a cat named Miso." in llm.last_system_prompt
        rounds = await companion.rounds.recent_rounds("ana", 5)
        assert [r.user_text for r in rounds] == ["I adopted a cat named Miso.",
                                                 "What is my cat called?"]
