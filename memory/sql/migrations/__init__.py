"""Numbered schema migrations, each applied once and recorded in `schema_migrations`.

Each migration is a module of its own (`m001_core` ...) holding the DDL of its tables as they
stood when it was written and its data steps, and importing nothing of ours outside this
package: what it does never changes with later code. A later change to a table is a new
migration. Every step is safe to run again after a crash midway (MySQL commits each DDL
statement at once): tables are created where missing, columns and indexes added where missing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from sqlalchemy import Column, Connection, Integer, MetaData, String, Table, insert, select, text
from sqlalchemy.ext.asyncio import AsyncEngine

from memory.sql.migrations import (
    m001_core,
    m002_feedback,
    m003_facts,
    m004_teaching,
    m005_beliefs,
    m006_shared_pool,
    m007_user_turns,
    m008_message_counts,
    m009_index_model,
    m010_reply_uses,
    m011_provisional_facts,
    m012_provisional_vectors,
    m013_subjects,
    m014_topics_quote_superseded,
    m015_fact_words,
    m016_retriever_cosine,
    m017_plans,
    m018_checkins,
    m019_taught_index,
    m020_fact_terms,
)
from memory.sql.migrations.frozen import MYSQL, Timestamp, now


class Migration(NamedTuple):
    version: int
    name: str
    apply: Callable[[Connection], None]


MIGRATIONS: tuple[Migration, ...] = tuple(
    Migration(version, module.NAME, module.apply)
    for version, module in enumerate(
        (m001_core, m002_feedback, m003_facts, m004_teaching, m005_beliefs, m006_shared_pool,
         m007_user_turns, m008_message_counts, m009_index_model, m010_reply_uses,
         m011_provisional_facts, m012_provisional_vectors, m013_subjects,
         m014_topics_quote_superseded, m015_fact_words, m016_retriever_cosine, m017_plans,
         m018_checkins, m019_taught_index, m020_fact_terms),
        start=1,
    )
)

_metadata = MetaData()
_schema_migrations = Table(
    "schema_migrations",
    _metadata,
    Column("version", Integer, primary_key=True, autoincrement=False),
    Column("name", String(100), nullable=False),
    Column("applied_at", Timestamp, nullable=False),
    **MYSQL,
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
        _schema_migrations.create(conn, checkfirst=True)
        done = set(conn.execute(select(_schema_migrations.c.version)).scalars())
        applied = []
        for migration in MIGRATIONS:
            if migration.version in done:
                continue
            migration.apply(conn)
            conn.execute(insert(_schema_migrations).values(
                version=migration.version, name=migration.name, applied_at=now()))
            applied.append(migration.version)
        return applied
    finally:
        if is_mysql:
            conn.execute(text("SELECT RELEASE_LOCK(:name)"), {"name": _LOCK_NAME})
