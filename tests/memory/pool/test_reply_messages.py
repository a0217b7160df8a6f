"""Which platform message showed which reply (a reaction to it rates that reply), on SQLite and
the real MariaDB, with many replies stored at once as a busy bot stores them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from memory.pool.rows import SQLPoolRows
from memory.sql.engine import open_engine
from memory.sql.migrations import migrate


@pytest.fixture
async def rows(sql_url: str) -> AsyncIterator[SQLPoolRows]:
    engine: AsyncEngine = open_engine(sql_url)
    await migrate(engine)
    yield SQLPoolRows(engine)
    await engine.dispose()


async def test_a_hundred_replies_stored_at_once_each_find_their_round(rows: SQLPoolRows) -> None:
    # Each reply's messages are new keys: on MariaDB, deleting keys not stored yet before
    # inserting them took gap locks that deadlocked two replies.
    await asyncio.gather(*(rows.remember_reply([f"chat:{u}:1", f"chat:{u}:2"], f"user{u}", u)
                           for u in range(100)))
    for u in range(100):
        assert await rows.round_of_reply(f"chat:{u}:2", f"user{u}") == u
    assert await rows.round_of_reply("chat:5:1", "user6") is None  # not their reply


async def test_a_message_edited_to_show_a_later_reply_names_that_reply(rows: SQLPoolRows) -> None:
    await rows.remember_reply(["chat:1:7"], "ana", 10)
    await rows.remember_reply(["chat:1:7", "chat:1:8"], "ana", 11)
    assert await rows.round_of_reply("chat:1:7", "ana") == 11
    assert await rows.round_of_reply("chat:1:8", "ana") == 11
