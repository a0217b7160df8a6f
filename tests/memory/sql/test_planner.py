"""SQLite's planner looks a user's rows up by their ids, however many rows the user has: it
reads the statistics `open_database` writes (memory/sql/planner.py)."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.util.concurrency import await_

from bot.database import open_database
from bot.settings import load_settings
from memory.facts.rows import SQLFactRows
from memory.topics.rows import SQLTopicRows

USER = "ana"
IDS = [f"{i:032x}" for i in range(16)]


@pytest.fixture
async def database(tmp_path: Path) -> AsyncIterator[AsyncEngine]:
    async with AsyncExitStack() as stack:
        yield await open_database(load_settings(None, data_dir=tmp_path), stack)


async def test_a_users_rows_are_read_by_their_ids_not_through_the_users_whole_history(
    database: AsyncEngine,
) -> None:
    statements: list[str] = []

    @event.listens_for(database.sync_engine, "connect")
    def _record(dbapi_connection: Any, _record: Any) -> None:
        # What SQLite runs, values in place, however it was sent: some reads bypass SQLAlchemy
        # (memory/sql/prepared.py).
        await_(dbapi_connection.driver_connection.set_trace_callback(statements.append))

    await database.dispose()  # the connections made from now on record
    facts, topics = SQLFactRows(database), SQLTopicRows(database)
    await facts.subjects_of(USER, IDS)
    await facts.active_by_ids(USER, IDS)
    await facts.active_ids(USER, IDS)
    await topics.active_by_ids(USER, IDS)
    event.remove(database.sync_engine, "connect", _record)
    reads = [s for s in statements if s.lstrip().upper().startswith("SELECT")]

    assert len(reads) == 4
    for statement in reads:
        async with database.connect() as conn:
            plan = (await conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}")).all()
        details = " / ".join(row[3] for row in plan)
        assert "USING INDEX sqlite_autoindex_" in details and "(id=?)" in details, (
            statement, details)


async def test_every_index_of_a_table_of_users_has_its_statistics(
    database: AsyncEngine, tmp_path: Path,
) -> None:
    await database.dispose()
    with sqlite3.connect(tmp_path / "companion.db") as conn:
        tables = [name for (name,) in conn.execute(
            "SELECT name FROM sqlite_schema WHERE type = 'table'")
            if any(column[1] == "user_id"
                   for column in conn.execute(f"PRAGMA table_info('{name}')"))]
        indexes = {(table, index[1]) for table in tables
                   for index in conn.execute(f"PRAGMA index_list('{table}')")}
        stats = dict(((table, index), stat) for table, index, stat in
                     conn.execute("SELECT tbl, idx, stat FROM sqlite_stat1"))
    assert ("facts", "ix_facts_user_status_said") in indexes
    assert indexes <= stats.keys()
    # A user's rows are many; an id is one row.
    assert int(stats["facts", "ix_facts_user_status_said"].split()[1]) >= 1_000
    assert stats["facts", "sqlite_autoindex_facts_1"].split()[1] == "1"


async def test_opening_again_keeps_the_statistics_and_writes_nothing(
    database: AsyncEngine, tmp_path: Path,
) -> None:
    """A cheap command opening the record beside a running bot takes no write lock."""
    path = tmp_path / "companion.db"
    with sqlite3.connect(path) as conn:
        first = sorted(conn.execute("SELECT tbl, idx, stat FROM sqlite_stat1"))
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # another process in the middle of a write
    try:
        async with AsyncExitStack() as stack:
            await asyncio.wait_for(
                open_database(load_settings(None, data_dir=tmp_path), stack), timeout=10)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    with sqlite3.connect(path) as conn:
        assert sorted(conn.execute("SELECT tbl, idx, stat FROM sqlite_stat1")) == first
