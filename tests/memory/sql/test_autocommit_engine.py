"""Reads on their own engine (autocommit, no ROLLBACK after each) see every write as soon as it
is committed, by this process or another, and leave no transaction open behind them."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pymysql
import pytest
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from memory.sql.engine import open_autocommit_engine, open_engine
from memory.sql.rounds import SQLRoundStore
from tests.conftest import MYSQL


@pytest.fixture
async def reads(sql_url: str, engine: AsyncEngine) -> AsyncIterator[AsyncEngine]:
    opened = open_autocommit_engine(sql_url)
    assert opened is not None  # a file or a server: reads get an engine of their own
    yield opened
    await opened.dispose()


async def test_a_read_sees_what_another_process_committed_after_it(
    sql_url: str, engine: AsyncEngine, reads: AsyncEngine
) -> None:
    # A pooled connection that kept the snapshot of its last read would show "hello" again.
    here = SQLRoundStore(engine, reads)
    said = await here.start_round(user_id="ana", conversation_id="ana", persona="companion",
                                  text="hello")
    assert [r.user_text for r in await here.recent_rounds("ana", 5)] == ["hello"]
    other_process = open_engine(sql_url)
    try:
        there = SQLRoundStore(other_process)
        await there.finish_round(said, "hi Ana!")
        await there.start_round(user_id="ana", conversation_id="ana", persona="companion",
                                text="how are you?")
    finally:
        await other_process.dispose()
    newest_first = await here.recent_rounds("ana", 5)
    assert [(r.user_text, r.reply_text) for r in newest_first] == [
        ("hello", "hi Ana!"), ("how are you?", None)]


@pytest.mark.parametrize("sql_url", [pytest.param("mysql", marks=pytest.mark.mysql)],
                         indirect=True)
async def test_reads_leave_no_transaction_open_on_mariadb(
    sql_url: str, reads: AsyncEngine, engine: AsyncEngine
) -> None:
    # An open transaction on an idle pooled connection keeps its tables locked against a
    # migration from another process, and its snapshot from being purged.
    store = SQLRoundStore(engine, reads)
    await store.start_round(user_id="ana", conversation_id="ana", persona="companion",
                            text="hello")
    for _ in range(3):
        await store.recent_rounds("ana", 5)
        await store.count_rounds("ana")
    database = make_url(sql_url).database
    with pymysql.connect(**MYSQL) as admin, admin.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM information_schema.processlist WHERE db = %s",
                       (database,))
        assert cursor.fetchone()[0] >= 1  # the pooled connections are there, idle
        cursor.execute(
            "SELECT trx_mysql_thread_id FROM information_schema.innodb_trx t JOIN "
            "information_schema.processlist p ON p.id = t.trx_mysql_thread_id WHERE p.db = %s",
            (database,))
        assert cursor.fetchall() == ()


def test_an_in_memory_sqlite_database_reads_on_its_one_engine() -> None:
    # Each connection to ":memory:" is a database of its own: a second engine would see none
    # of the first's tables.
    assert open_autocommit_engine("sqlite+aiosqlite://") is None
    assert open_autocommit_engine("sqlite+aiosqlite:///:memory:") is None
