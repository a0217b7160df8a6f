"""Create the async engine for a URL: SQLite (aiosqlite) or MySQL/MariaDB (aiomysql)."""

from __future__ import annotations

import math
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine


def open_engine(url: str) -> AsyncEngine:
    """An engine tuned for its backend. SQLite's folder is created if missing."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_engine(url, parsed.database)
    if parsed.get_backend_name() in {"mysql", "mariadb"}:
        parsed = parsed.update_query_dict({"charset": "utf8mb4"})
        # Connections idle past MySQL's wait_timeout are dropped by the server: check and recycle.
        # A busy bot process has a hundred turns and jobs at once; 20 connections serve them
        # (benchmarks/load), and 7 processes stay under MariaDB's default 151.
        return create_async_engine(parsed, pool_pre_ping=True, pool_recycle=1800,
                                   pool_size=10, max_overflow=10)
    return create_async_engine(url)


def _sqlite_engine(url: str, database: str | None) -> AsyncEngine:
    if database and database != ":memory:":
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_async_engine(url, connect_args={"timeout": 30})

    @event.listens_for(engine.sync_engine, "connect")
    def _tune(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        # WAL lets readers and the writer proceed together; NORMAL syncs at checkpoints only,
        # which keeps a commit well under a millisecond and is still safe against app crashes.
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA busy_timeout=30000")
        try:  # the search by words ranks with ln(); some SQLite builds lack math functions
            cursor.execute("SELECT ln(1)")
        except sqlite3.OperationalError:
            dbapi_connection.create_function("ln", 1, math.log, deterministic=True)
        cursor.close()

    return engine


def utcnow() -> datetime:
    """Now in UTC without tzinfo, as stored in SQL."""
    return datetime.now(UTC).replace(tzinfo=None)


def as_utc(value: datetime) -> datetime:
    """A stored (naive UTC) timestamp as an aware one."""
    return value.replace(tzinfo=UTC)
