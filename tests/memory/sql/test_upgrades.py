"""Databases left by earlier releases, upgraded in place on SQLite and the real MariaDB: every
migration runs once, the rows stay readable, and the facts of release 0.4 become premises
through the belief_columns job the memory worker runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Connection, inspect, select, text, update
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.app import open_companion
from jobs.queue import BELIEF_COLUMNS
from memory.beliefs.belief import About
from memory.beliefs.rows import SQLBeliefRows
from memory.facts.rows import SQLFactRows
from memory.sql.engine import open_engine, utcnow
from memory.sql.migrations import MIGRATIONS, migrate
from memory.sql.rounds import SQLRoundStore
from memory.sql.tables import facts, memory_jobs, schema_migrations
from memory.types import Fact, Origin, Speaker
from tests.conftest import make_settings
from tests.fakes.openai_server import ScriptedLLM
from tests.old_schema import apply_first


async def test_migrations_are_recorded_and_run_once(engine: AsyncEngine) -> None:
    assert await migrate(engine) == []  # already applied by the fixture
    async with engine.connect() as conn:
        versions = (await conn.execute(select(schema_migrations.c.version))).scalars().all()
    assert sorted(versions) == [version for version, _, _ in MIGRATIONS]


async def test_a_database_of_release_0_1_gains_the_feedback_table_and_keeps_its_rounds(
    sql_url: str,
) -> None:
    engine = open_engine(sql_url)
    try:
        async with engine.begin() as conn:  # what release 0.1 left: migration 1 only
            await conn.run_sync(_apply_only_the_first)
        store = SQLRoundStore(engine)
        await store.start_round(user_id="ana", conversation_id="ana", persona="companion",
                                text="from 0.1")
        assert await migrate(engine) == list(range(2, len(MIGRATIONS) + 1))
        async with engine.connect() as conn:
            names = await conn.run_sync(lambda sync: inspect(sync).get_table_names())
        assert "feedback" in names
        [kept] = await store.recent_rounds("ana", 5)
        assert kept.user_text == "from 0.1"
    finally:
        await engine.dispose()


async def test_a_database_of_release_0_3_gains_taught_facts_and_keeps_its_facts(
    sql_url: str,
) -> None:
    engine = open_engine(sql_url)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(_apply_until_teaching)
        store = SQLRoundStore(engine)
        started = await store.start_round(user_id="ana", conversation_id="ana",
                                          persona="companion", text="hi")
        assert await migrate(engine) == list(range(4, len(MIGRATIONS) + 1))
        await store.finish_round(started, "hello", ["fact:abc"])
        rows = SQLFactRows(engine)
        [(fact, _)] = await rows.by_words("ana", ["watercolors"], 5)
        assert (fact.text, fact.origin) == ("I paint watercolors.", Origin.SAID)
        taught = Fact("b" * 32, "ana", "I paint watercolors on Sundays.", Speaker.USER,
                      utcnow(), (), Origin.TAUGHT)
        await rows.insert([taught])
        [(found, _)] = await rows.by_words("ana", ["watercolors"], 5, taught=True)
        assert found.id == taught.id
    finally:
        await engine.dispose()


async def test_a_database_of_release_0_4_gains_beliefs_and_its_facts_become_premises(
    sql_url: str, tmp_path: Path, llm: ScriptedLLM
) -> None:
    engine = open_engine(sql_url)
    try:
        async with engine.begin() as conn:  # facts as migration 4 left them: no belief columns
            await conn.run_sync(_apply_until_beliefs)
        assert await migrate(engine) == list(range(5, len(MIGRATIONS) + 1))
        # The old facts get their belief columns from the job migration 5 queued, run by the
        # memory worker with today's claim rules.
        async with open_companion(make_settings(tmp_path, llm, sql_url)) as companion:
            report = await companion.worker.sweep()
        assert sorted(key.split(":")[0] for key in report.jobs) == [BELIEF_COLUMNS] * 2
        beliefs = SQLBeliefRows(engine, flipped_confidence=0.3)
        assert await beliefs.unchecked("ana", 10) == []  # stored before: not checked again
        moved = Fact("c" * 32, "ana", "We moved to Berlin.", Speaker.USER, utcnow(), ())
        await SQLFactRows(engine).insert([moved])
        [new] = await beliefs.unchecked("ana", 10)
        assert (new.subject, new.confidence) == ("home", 0.8)
        [old] = (await beliefs.on_topic_of([new], 3))[new.id]
        assert (old.fact.text, old.about, old.subject, old.confidence) == (
            "I live in Paris.", About.USER, "home", 0.8)
    finally:
        await engine.dispose()


async def test_the_belief_columns_job_run_again_changes_nothing(
    sql_url: str, tmp_path: Path, llm: ScriptedLLM
) -> None:
    engine = open_engine(sql_url)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(_apply_until_beliefs)
        await migrate(engine)
        async with open_companion(make_settings(tmp_path, llm, sql_url)) as companion:
            await companion.worker.sweep()
            filled = await _belief_columns(engine)
            # A worker that died after filling, before finishing the job: the job runs again.
            async with engine.begin() as conn:
                await conn.execute(update(memory_jobs).where(memory_jobs.c.kind == BELIEF_COLUMNS)
                                   .values(status="pending"))
            again = await companion.worker.sweep()
        assert sorted(key.split(":")[0] for key in again.jobs) == [BELIEF_COLUMNS] * 2
        assert await _belief_columns(engine) == filled
        assert filled == [
            ("ana", "I live in Paris.", "user", "home", 0.8, True),
            ("ana", "My name is Sol.", "companion", "name", 0.6, True),
            ("ana", "You could try painting.", None, None, 0.6, True),
            ("bo", "I work as a nurse.", "user", "work", 0.8, True),
        ]
        beliefs = SQLBeliefRows(engine, flipped_confidence=0.3)
        assert await beliefs.fill_belief_columns("ana") == 0
        assert await _belief_columns(engine) == filled
    finally:
        await engine.dispose()


async def _belief_columns(engine: AsyncEngine) -> list[tuple[Any, ...]]:
    async with engine.connect() as conn:
        rows = await conn.execute(
            select(facts.c.user_id, facts.c.text, facts.c.about, facts.c.subject,
                   facts.c.confidence, facts.c.checked).order_by(facts.c.seq))
        return [(*row[:4], round(float(row[4]), 3), bool(row[5])) for row in rows]


# Facts as release 0.4 stored them: no belief columns.
OLD_FACTS = [("ana", "I live in Paris.", "user"), ("ana", "My name is Sol.", "companion"),
             ("ana", "You could try painting.", "companion"), ("bo", "I work as a nurse.", "user")]


def _apply_until_beliefs(conn: Connection) -> None:
    apply_first(conn, 4)
    for n, (user, said, speaker) in enumerate(OLD_FACTS):
        conn.execute(text(
            "INSERT INTO facts (id, user_id, text, speaker, said_at, round_ids, status, origin, "
            "indexed, created_at) VALUES (:id, :user, :said, :speaker, :at, '', 'active', "
            "'said', 0, :at)"),
            {"id": f"{n:032d}", "user": user, "said": said, "speaker": speaker, "at": utcnow()})


def _apply_until_teaching(conn: Connection) -> None:
    apply_first(conn, 3)  # facts as migration 3 made them: no origin
    conn.execute(text(
        "INSERT INTO facts (id, user_id, text, speaker, said_at, round_ids, status, indexed, "
        "created_at) VALUES (:id, 'ana', 'I paint watercolors.', 'user', :at, '', 'active', "
        "0, :at)"), {"id": "a" * 32, "at": utcnow()})


def _apply_only_the_first(conn: Connection) -> None:
    apply_first(conn, 1)
