"""Create the async engine for a URL: SQLite (aiosqlite) or MySQL/MariaDB (asyncmy)."""

from __future__ import annotations

import math
import sqlite3
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import event, exc
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

# A pooled MySQL connection unused for this long is pinged before it is used again.
IDLE_PING_SECONDS = 30.0


def open_engine(url: str) -> AsyncEngine:
    """An engine tuned for its backend. SQLite's folder is created if missing."""
    return _open(url, autocommit=False)


def open_autocommit_engine(url: str) -> AsyncEngine | None:
    """A second engine, for statements that need no transaction of their own (reads, and a
    write that is one statement), each committed as it runs: no ROLLBACK follows a read (on
    MySQL a SELECT opens a transaction whose snapshot must be ended before the connection is
    used again) and no COMMIT a single write. None for in-memory SQLite, where each connection
    is a database of its own."""
    if make_url(url).database in {None, "", ":memory:"}:
        return None
    return _open(url, autocommit=True)


def _open(url: str, *, autocommit: bool) -> AsyncEngine:
    # No ROLLBACK when the pool takes a connection back: a connection always ends its own
    # transaction (commits, or rolls back on close), so the pool's was a second round trip
    # after every write (and one an async pool never needs: a connection lost to the garbage
    # collector is closed, not reused). skip_autocommit_rollback: SQLAlchemy otherwise still
    # sends the ROLLBACK a connection in autocommit does not need, when a read ends.
    options: dict[str, Any] = {"pool_reset_on_return": None}
    if autocommit:
        options |= {"isolation_level": "AUTOCOMMIT", "skip_autocommit_rollback": True}
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        engine = _sqlite_engine(url, parsed.database, options)
    elif parsed.get_backend_name() in {"mysql", "mariadb"}:
        # asyncmy whatever driver the URL names (mysql://, mysql+aiomysql:// of older
        # settings): its protocol is compiled (a read of 20 rounds, 0.32 ms of CPU against
        # aiomysql's 0.57).
        parsed = parsed.set(drivername=f"{parsed.get_backend_name()}+asyncmy")
        parsed = parsed.update_query_dict({"charset": "utf8mb4"})
        # Connections idle past MySQL's wait_timeout are dropped by the server: recycled, and
        # checked when taken from the pool (`_check_on_checkout`). A busy bot process has a
        # hundred turns and jobs at once; 20 connections serve them (benchmarks/load), 10 for
        # transactions and 10 in autocommit, and 7 processes stay under MariaDB's default 151.
        engine = create_async_engine(parsed, pool_recycle=1800, pool_size=6, max_overflow=4,
                                     **options)
        _check_on_checkout(engine)
    else:
        engine = create_async_engine(url, **options)
    if autocommit:
        _skip_autocommit_commit(engine)
    return engine


def _skip_autocommit_commit(engine: AsyncEngine) -> None:
    """`skip_autocommit_rollback`'s counterpart, which SQLAlchemy lacks: a write that is one
    statement (`async with engine.begin()`) was committed as it ran, and the driver would
    still send a COMMIT for it."""
    dialect = engine.sync_engine.dialect
    commit = dialect.do_commit

    def do_commit(dbapi_connection: Any) -> None:
        if not dialect.detect_autocommit_setting(dbapi_connection):
            commit(dbapi_connection)

    dialect.do_commit = do_commit  # type: ignore[method-assign]


def _check_on_checkout(engine: AsyncEngine) -> None:
    """A connection the server closed (a restart, a dropped network) is replaced before it is
    used, as `pool_pre_ping` would, without its round trip on every checkout (14 a turn): the
    socket already says so when the server closed it, and only a connection idle for
    `IDLE_PING_SECONDS` is pinged."""

    @event.listens_for(engine.sync_engine, "checkin")
    def _last_used(_dbapi_connection: Any, record: Any) -> None:
        record.info["last_used"] = time.monotonic()

    @event.listens_for(engine.sync_engine, "checkout")
    def _check(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        last_used = record.info.get("last_used")
        if last_used is None:  # new: just connected
            return
        if _closed_by_server(dbapi_connection):
            raise exc.DisconnectionError("the server closed the connection")
        if time.monotonic() - last_used > IDLE_PING_SECONDS:
            try:
                dbapi_connection.ping()
            except Exception as error:
                raise exc.DisconnectionError(f"the connection did not answer: {error}"
                                             ) from error


def _closed_by_server(dbapi_connection: Any) -> bool:
    """An idle MySQL connection is sent nothing: a stream that has ended since (the server's
    goodbye) means the server is done with it. asyncmy says so without a round trip."""
    driver = getattr(dbapi_connection, "_connection", None)
    return driver is None or bool(getattr(driver, "_stream_broken", True))


def _sqlite_engine(url: str, database: str | None, options: dict[str, Any]) -> AsyncEngine:
    if database and database != ":memory:":
        Path(database).parent.mkdir(parents=True, exist_ok=True)
        # A turn runs up to eight statements at once, and upkeep more: 10 pooled connections
        # keep them (each a thread and a parsed schema) where 5 opened and closed one a turn.
        options |= {"pool_size": 10}
    engine = create_async_engine(url, connect_args={"timeout": 30}, **options)

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
