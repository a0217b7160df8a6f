"""The migrations: frozen (each imports nothing of ours outside its package), and a database made
by the oldest release migrates to the same schema as a fresh one, which is the schema the row
code uses (memory.sql.tables)."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import sqlite3
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pymysql
import pytest
from pymysql.constants import CLIENT
from sqlalchemy import Connection, inspect, make_url, text
from sqlalchemy.ext.asyncio import AsyncEngine

import memory.sql.migrations
from jobs.queue import DONE, FACTS, PENDING, SUMMARIZE, JobQueue
from memory.sql.engine import open_engine
from memory.sql.migrations import MIGRATIONS, migrate
from memory.sql.profiles import SQLProfileStore
from memory.sql.rounds import SQLRoundStore
from memory.sql.tables import metadata
from memory.topics.rows import SQLTopicRows
from memory.types import RoundStatus
from tests.conftest import MYSQL

DATA = Path(__file__).parent / "data"
PACKAGE = "memory.sql.migrations"
OUR_PACKAGES = {"bot", "memory", "jobs", "personas", "tests", "benchmarks"}


def _imports(module_name: str) -> set[str]:
    """The absolute names a module imports (relative imports resolved against its package)."""
    module = importlib.import_module(module_name)
    assert module.__file__ is not None
    tree = ast.parse(Path(module.__file__).read_text())
    package = module.__package__ or ""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0]
                names.add(f"{base}.{node.module}" if node.module else base)
            else:
                assert node.module is not None
                names.add(node.module)
    return names


def test_no_migration_imports_our_code_outside_its_package() -> None:
    modules = [PACKAGE] + [f"{PACKAGE}.{info.name}"
                           for info in pkgutil.iter_modules(memory.sql.migrations.__path__)]
    assert len(modules) > len(MIGRATIONS)  # each migration's module, and what they share
    for module in modules:
        ours = {name for name in _imports(module) if name.split(".")[0] in OUR_PACKAGES}
        outside = {name for name in ours
                   if name != PACKAGE and not name.startswith(f"{PACKAGE}.")}
        assert outside == set(), f"{module} imports {sorted(outside)}"


@pytest.fixture
def another_database(sql_url: str, tmp_path: Path) -> Iterator[Callable[[str], str]]:
    """Makes empty databases beside the one of `sql_url` (a file, or a database on the same
    server), dropped afterwards."""
    made: list[str] = []

    def make(suffix: str) -> str:
        url = make_url(sql_url)
        if url.get_backend_name() == "sqlite":
            return url.set(database=str(tmp_path / f"{suffix}.db")).render_as_string(False)
        name = f"{url.database}_{suffix}"
        with pymysql.connect(**MYSQL, autocommit=True) as admin, admin.cursor() as cursor:
            cursor.execute(f"CREATE DATABASE {name} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
        made.append(name)
        return url.set(database=name).render_as_string(False)

    yield make
    with pymysql.connect(**MYSQL, autocommit=True) as admin, admin.cursor() as cursor:
        for name in made:
            cursor.execute(f"DROP DATABASE IF EXISTS {name}")


async def test_the_oldest_releases_database_migrates_to_the_schema_of_a_fresh_one(
    sql_url: str, another_database: Callable[[str], str]
) -> None:
    _load_oldest_release(sql_url)
    old, fresh, shaped = (open_engine(url) for url in (
        sql_url, another_database("fresh"), another_database("shaped")))
    try:
        assert await migrate(old) == [version for version, _, _ in MIGRATIONS[1:]]
        assert await migrate(fresh) == [version for version, _, _ in MIGRATIONS]
        async with shaped.begin() as conn:  # today's shape, as the row code sees it
            await conn.run_sync(metadata.create_all)
        upgraded = await _schema(old)
        assert upgraded == await _schema(fresh)
        assert _unordered(upgraded) == _unordered(await _schema(shaped))
        if make_url(sql_url).get_backend_name() == "sqlite":
            assert await _lexical_index(old) == await _lexical_index(fresh)
            assert {name for _, name, _ in await _lexical_index(fresh)} == {
                "facts_fts", "facts_fts_insert", "facts_fts_delete",
                "taught_fts", "taught_fts_insert", "taught_fts_delete"}
        await _the_old_rows_are_read_by_todays_stores(old)
    finally:
        for engine in (old, fresh, shaped):
            await engine.dispose()


async def test_migrations_run_again_after_a_crash_find_their_ddl_done(sql_url: str) -> None:
    """MySQL commits each DDL statement at once: a crash midway leaves a migration's tables,
    columns and indexes without its record (and without its rows, rolled back)."""
    engine = open_engine(sql_url)
    try:
        await migrate(engine)
        migrated = await _schema(engine)
        async with engine.begin() as conn:
            await conn.execute(text("DELETE FROM schema_migrations WHERE version > 1"))
            await conn.execute(text("DELETE FROM index_model"))
        assert await migrate(engine) == [version for version, _, _ in MIGRATIONS[1:]]
        assert await _schema(engine) == migrated
    finally:
        await engine.dispose()


async def _the_old_rows_are_read_by_todays_stores(engine: AsyncEngine) -> None:
    rounds = await SQLRoundStore(engine).recent_rounds("ana", 10)
    assert [(r.user_text, r.status) for r in rounds] == [
        ("I adopted a cat named Miso last week.", RoundStatus.ANSWERED),
        ("She sleeps on my keyboard 🐈 — every night.", RoundStatus.ANSWERED),
        ("I work night shifts as a nurse.", RoundStatus.ANSWERED)]
    assert await SQLProfileStore(engine).persona_of("ana") == "coach"
    [topic] = await SQLTopicRows(engine).all_of("ana")
    assert topic.label == "Pets"
    queue = JobQueue(engine, worker_id="test", lease=timedelta(minutes=5), max_attempts=3,
                     retry_base=timedelta(seconds=1))
    jobs = await queue.jobs(user_id="ana")
    # The summarized window gets its facts from the backfill that migration 3 queued.
    assert [(j.kind, j.status, j.first_round_id, j.last_round_id) for j in jobs] == [
        (SUMMARIZE, DONE, 1, 3), (FACTS, PENDING, 1, 3)]


def _load_oldest_release(sql_url: str) -> None:
    url = make_url(sql_url)
    if url.get_backend_name() == "sqlite":
        script = (DATA / "oldest_release.sqlite.sql").read_text()
        with sqlite3.connect(str(url.database)) as conn:
            conn.executescript(script)
        return
    script = (DATA / "oldest_release.mysql.sql").read_text()
    with pymysql.connect(**MYSQL, database=url.database, charset="utf8mb4", autocommit=True,
                         client_flag=CLIENT.MULTI_STATEMENTS) as conn, conn.cursor() as cursor:
        cursor.execute(script)
        while cursor.nextset():
            pass


async def _schema(engine: AsyncEngine) -> dict[str, dict[str, Any]]:
    async with engine.connect() as conn:
        return await conn.run_sync(_reflect)


def _reflect(conn: Connection) -> dict[str, dict[str, Any]]:
    """Every table (but SQLite's FTS5 tables) as the database reports it: its columns in order
    (name, type, nullable, default, autoincrement), primary key, indexes and unique
    constraints."""
    inspector = inspect(conn)
    lexical = _fts5_tables(conn)
    shape = {}
    for table in inspector.get_table_names():
        if any(table == name or table.startswith(f"{name}_") for name in lexical):
            continue
        shape[table] = {
            "columns": [(c["name"], c["type"].compile(dialect=conn.dialect), c["nullable"],
                         c["default"], c.get("autoincrement"))
                        for c in inspector.get_columns(table)],
            "primary key": inspector.get_pk_constraint(table)["constrained_columns"],
            "indexes": sorted((i["name"], tuple(i["column_names"]), bool(i["unique"]),
                               tuple(sorted(i.get("dialect_options", {}).items())))
                              for i in inspector.get_indexes(table)),
            "unique": sorted(tuple(u["column_names"])
                             for u in inspector.get_unique_constraints(table)),
        }
    return shape


def _fts5_tables(conn: Connection) -> set[str]:
    if conn.dialect.name != "sqlite":
        return set()
    return set(conn.execute(text(
        "SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE%'")).scalars())


def _unordered(shape: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The shape without column order, and with defaults unquoted: a column added by a
    migration comes last, and its DDL says DEFAULT 0 where SQLAlchemy writes DEFAULT '0'."""
    return {table: {**parts, "columns": {
        name: (kind, nullable, default.strip("'") if default else default, autoincrement)
        for name, kind, nullable, default, autoincrement in parts["columns"]}}
        for table, parts in shape.items()}


async def _lexical_index(engine: AsyncEngine) -> list[tuple[str, str, str]]:
    """SQLite's FTS5 tables of facts and the triggers that keep them in step."""
    async with engine.connect() as conn:
        rows = await conn.execute(text(
            "SELECT type, name, sql FROM sqlite_master WHERE type = 'trigger' "
            "OR sql LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name"))
        return [(kind, name, sql) for kind, name, sql in rows]
