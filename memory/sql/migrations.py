"""Numbered schema migrations, each applied once and recorded in `schema_migrations`.

A migration never changes once released: a later change to a table is a new migration.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection, insert, select, text
from sqlalchemy.ext.asyncio import AsyncEngine

from memory.sql import tables
from memory.sql.engine import utcnow

Step = Callable[[Connection], None]


def _create_core_tables(conn: Connection) -> None:
    core = (tables.rounds, tables.profiles, tables.topics, tables.memory_progress,
            tables.memory_jobs)
    for table in core:
        table.create(conn, checkfirst=True)


def _create_feedback_table(conn: Connection) -> None:
    tables.feedback.create(conn, checkfirst=True)


MIGRATIONS: tuple[tuple[int, str, Step], ...] = (
    (1, "rounds, profiles, topics and memory jobs", _create_core_tables),
    (2, "feedback memories", _create_feedback_table),
)

_LOCK_NAME = "companion_migrations"


async def migrate(engine: AsyncEngine) -> list[int]:
    """Apply the migrations this database lacks; returns the versions applied now."""
    async with engine.begin() as conn:
        return await conn.run_sync(_apply_missing)


def _apply_missing(conn: Connection) -> list[int]:
    is_mysql = conn.dialect.name in {"mysql", "mariadb"}
    if is_mysql:  # two processes starting at once must not both run a migration
        conn.execute(text("SELECT GET_LOCK(:name, 60)"), {"name": _LOCK_NAME})
    try:
        tables.schema_migrations.create(conn, checkfirst=True)
        done = set(conn.execute(select(tables.schema_migrations.c.version)).scalars())
        applied = []
        for version, name, step in MIGRATIONS:
            if version in done:
                continue
            step(conn)
            conn.execute(
                insert(tables.schema_migrations).values(
                    version=version, name=name, applied_at=utcnow()
                )
            )
            applied.append(version)
        return applied
    finally:
        if is_mysql:
            conn.execute(text("SELECT RELEASE_LOCK(:name)"), {"name": _LOCK_NAME})
