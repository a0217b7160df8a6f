"""Statements run by the driver (memory/sql/prepared.py) on SQLite and the real MariaDB: the
same rows and values as SQLAlchemy's own execution, a new row's key, a duplicate told as
SQLAlchemy's IntegrityError, and a lost connection told as the database away and never used
again."""

from __future__ import annotations

from datetime import datetime

import pytest
from sqlalchemy import bindparam, insert, select, text
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from memory.sql.engine import open_engine
from memory.sql.failures import database_away
from memory.sql.prepared import PreparedRead, PreparedWrite
from memory.sql.rounds import SQLRoundStore
from memory.sql.tables import rounds, user_turns

NEWEST = PreparedRead(select(rounds).where(rounds.c.user_id == bindparam("user_id"))
                      .order_by(rounds.c.id.desc()).limit(bindparam("limit")))


async def _store_rounds(engine: AsyncEngine) -> None:
    store = SQLRoundStore(engine)
    for user, said in [("alice", "quotes ' \" ` and; DROP TABLE rounds; -- %s %(x)s {0}"),
                       ("bob", "bob's own"), ("alice", "emoji 👩‍👩‍👧‍👦 and RTL مرحبا")]:
        started = await store.start_round(user_id=user, conversation_id=user,
                                          persona="companion", text=said)
        await store.finish_round(started, f"reply to {said}")


async def test_a_prepared_read_gives_the_rows_sqlalchemy_gives(engine: AsyncEngine) -> None:
    await _store_rounds(engine)
    async with engine.connect() as conn:
        prepared = await NEWEST.rows(conn, user_id="alice", limit=5)
        executed = (await conn.execute(
            select(rounds).where(rounds.c.user_id == "alice").order_by(rounds.c.id.desc())
            .limit(5))).mappings().all()
    assert prepared == [dict(row) for row in executed]
    assert [row["user_text"][:6] for row in prepared] == ["emoji ", "quotes"]  # alice's only
    assert all(isinstance(row["created_at"], datetime) for row in prepared)


TAKE = PreparedWrite(insert(user_turns).values(
    user_id=bindparam("user_id"), holder="here",
    expires_at=bindparam("expires_at", type_=user_turns.c.expires_at.type)))


async def test_a_prepared_write_is_committed_and_a_duplicate_is_an_integrity_error(
    engine: AsyncEngine,
) -> None:
    async with engine.begin() as conn:
        written = await TAKE.run(conn, user_id="alice", expires_at=datetime(2026, 11, 29, 12))
    assert written.rowcount == 1
    with pytest.raises(IntegrityError):
        async with engine.begin() as conn:
            await TAKE.run(conn, user_id="alice", expires_at=datetime(2026, 11, 29, 13))
    async with engine.connect() as conn:
        held = (await conn.execute(select(user_turns.c.user_id, user_turns.c.expires_at))).all()
    assert [tuple(row) for row in held] == [("alice", datetime(2026, 11, 29, 12))]


async def test_a_prepared_insert_gives_the_new_rows_key(engine: AsyncEngine) -> None:
    started = await SQLRoundStore(engine).start_round(
        user_id="alice", conversation_id="alice", persona="companion", text="hi")
    async with engine.connect() as conn:
        [stored] = await NEWEST.rows(conn, user_id="alice", limit=1)
    assert stored["id"] == started.id and stored["user_text"] == "hi"


async def test_a_read_sees_what_was_committed_after_an_earlier_prepared_read(
    engine: AsyncEngine,
) -> None:
    """A MySQL read begins a transaction: one left open when its connection went back to the
    pool kept its snapshot, and the connection's next user read the past (and two bot
    processes deadlocked on reads)."""
    async with engine.connect() as conn:
        assert await NEWEST.rows(conn, user_id="alice", limit=5) == []
    other = open_engine(engine.url.render_as_string(hide_password=False))
    try:
        await _store_rounds(other)  # committed by another process's connection
    finally:
        await other.dispose()
    async with engine.connect() as conn:
        assert len(await NEWEST.rows(conn, user_id="alice", limit=5)) == 2
        newest = (await conn.execute(select(rounds.c.id).where(rounds.c.user_id == "alice")
                                     )).all()
    assert len(newest) == 2


@pytest.mark.mysql
async def test_a_lost_connection_is_the_database_away_and_is_not_used_again(
    mysql_url: str,
) -> None:
    from memory.sql.migrations import migrate

    engine = open_engine(mysql_url)
    try:
        await migrate(engine)
        async with engine.connect() as conn:
            connection_id = (await conn.execute(text("SELECT CONNECTION_ID()"))).scalar_one()
            async with engine.connect() as other:
                await other.execute(text(f"KILL {int(connection_id)}"))
            with pytest.raises(DBAPIError) as raised:
                await NEWEST.rows(conn, user_id="alice", limit=5)
        assert database_away(raised.value)
        async with engine.connect() as conn:  # the pool hands out a working connection
            assert await NEWEST.rows(conn, user_id="nobody", limit=5) == []
    finally:
        await engine.dispose()
