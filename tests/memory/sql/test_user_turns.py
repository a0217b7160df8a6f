"""Users' turns kept in MariaDB, for bot processes that share a database: one user's turn does
not hold up another's, and the turn of a process that died runs out with its lease."""

from __future__ import annotations

import time
from contextlib import AsyncExitStack
from datetime import timedelta

import pytest

from memory.sql.engine import open_engine
from memory.sql.migrations import migrate
from memory.sql.user_turns import SQLUserTurns

pytestmark = pytest.mark.mysql


async def test_another_user_is_not_held_up_and_a_dead_processs_turn_runs_out(
    mysql_url: str
) -> None:
    engine = open_engine(mysql_url)
    await migrate(engine)
    async with AsyncExitStack() as stack:
        stack.push_async_callback(engine.dispose)
        # A process that took ana's turn and was killed: its lease is never renewed.
        dead = SQLUserTurns(engine, lease=timedelta(seconds=1), renew_seconds=3600)
        await stack.enter_async_context(dead.turn("ana"))
        alive = SQLUserTurns(engine)
        started = time.monotonic()
        async with alive.turn("ben"):
            assert time.monotonic() - started < 0.5
        async with alive.turn("ana"):
            waited = time.monotonic() - started
        assert 0.8 < waited < 5
