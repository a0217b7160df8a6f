"""The SQL stores, run against SQLite and the real MariaDB with the same tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection, inspect, select, text, update
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.app import open_companion
from jobs.queue import BELIEF_COLUMNS
from memory.beliefs.belief import About
from memory.beliefs.rows import SQLBeliefRows
from memory.facts.rows import SQLFactRows
from memory.sql.engine import open_engine, utcnow
from memory.sql.migrations import MIGRATIONS, migrate
from memory.sql.profiles import SQLProfileStore
from memory.sql.rounds import SQLRoundStore
from memory.sql.tables import facts, memory_jobs, schema_migrations
from memory.types import Exchange, Fact, Origin, RoundStatus, Speaker
from tests.conftest import make_settings
from tests.fakes.openai_server import ScriptedLLM
from tests.old_schema import apply_first

TRICKY_TEXTS = [
    "emoji 👩‍👩‍👧‍👦 and 🏓",
    "RTL: مرحبا بك \u200f and עברית",
    "CJK: 你好，世界 こんにちは 안녕하세요",
    "combining: e\u0301 a\u0308 n\u0303 and zalgo z\u0336\u0317a\u0334",
    "quotes ' \" ` and; DROP TABLE rounds; -- \\ %s %(x)s {0}",
    "newlines\nand\ttabs",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 outside the BMP 𐍈",
]


@pytest.fixture
async def engine(sql_url: str) -> AsyncIterator[AsyncEngine]:
    engine = open_engine(sql_url)
    await migrate(engine)
    yield engine
    await engine.dispose()


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
        assert await migrate(engine) == [2, 3, 4, 5, 6, 7, 8, 9, 10]
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
        assert await migrate(engine) == [4, 5, 6, 7, 8, 9, 10]
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
        assert await migrate(engine) == [5, 6, 7, 8, 9, 10]
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
        [old] = await beliefs.on_topic(new, 3)
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
            ("bo", "I work as a nurse.", "user", "job", 0.8, True),
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


async def test_round_is_stored_pending_then_answered(engine: AsyncEngine) -> None:
    store = SQLRoundStore(engine)
    started = await store.start_round(
        user_id="alice", conversation_id="alice", persona="companion", text="hi there"
    )
    [pending] = await store.recent_rounds("alice", 5)
    assert (pending.user_text, pending.status, pending.reply_text) == (
        "hi there", RoundStatus.PENDING, None,
    )
    await store.finish_round(started, "hello!")
    [answered] = await store.recent_rounds("alice", 5)
    assert (answered.status, answered.reply_text) == (RoundStatus.ANSWERED, "hello!")


async def test_failed_round_keeps_the_message_and_partial_reply(engine: AsyncEngine) -> None:
    store = SQLRoundStore(engine)
    started = await store.start_round(
        user_id="alice", conversation_id="alice", persona="companion", text="are you there?"
    )
    await store.fail_round(started, "I was say")
    [failed] = await store.recent_rounds("alice", 5)
    assert (failed.user_text, failed.reply_text, failed.status) == (
        "are you there?", "I was say", RoundStatus.FAILED,
    )


async def test_recent_rounds_are_the_users_latest_oldest_first(engine: AsyncEngine) -> None:
    store = SQLRoundStore(engine)
    for i in range(30):
        for user in ("alice", "bob"):
            await store.start_round(
                user_id=user, conversation_id=user, persona="companion", text=f"{user} {i}"
            )
    recent = await store.recent_rounds("alice", 20)
    assert [r.user_text for r in recent] == [f"alice {i}" for i in range(10, 30)]
    before = await store.recent_rounds("alice", 3, before_id=recent[-1].id)
    assert [r.user_text for r in before] == ["alice 26", "alice 27", "alice 28"]
    assert await store.count_rounds("alice") == 30
    assert await store.recent_rounds("alice", 0) == []


@pytest.mark.parametrize("text", TRICKY_TEXTS)
async def test_any_unicode_round_trips_exactly(engine: AsyncEngine, text: str) -> None:
    store = SQLRoundStore(engine)
    started = await store.start_round(
        user_id="üser-ñ", conversation_id="üser-ñ", persona="companion", text=text
    )
    await store.finish_round(started, text[::-1])
    [stored] = await store.recent_rounds("üser-ñ", 1)
    assert stored.user_text == text
    assert stored.reply_text == text[::-1]


async def test_forget_rounds_deletes_only_that_user(engine: AsyncEngine) -> None:
    store = SQLRoundStore(engine)
    for user in ("alice", "bob", "Alice"):
        await store.start_round(user_id=user, conversation_id=user, persona="c", text="x")
    assert await store.forget_rounds("alice") == 1
    assert await store.count_rounds("alice") == 0
    assert await store.count_rounds("bob") == 1
    assert await store.count_rounds("Alice") == 1  # user ids are exact, case included


async def test_imported_rounds_are_found_again_by_their_time_and_text_for_their_user_only(
    engine: AsyncEngine
) -> None:
    store = SQLRoundStore(engine)
    at = datetime(2024, 3, 1, 10, 0, 0, 123456, tzinfo=UTC)
    said = [Exchange("I adopted a cat", "What is her name?", at),
            Exchange("", "Good morning!", at + timedelta(minutes=1)),
            Exchange("untimed", "ok", None)]
    await store.import_rounds("ana", "c", said)
    assert await store.imported_already("ana", said) == {
        (at.replace(tzinfo=None), "I adopted a cat", "What is her name?"),
        ((at + timedelta(minutes=1)).replace(tzinfo=None), "", "Good morning!")}
    assert await store.imported_already("bo", said) == set()


async def test_persona_choice_is_remembered_per_user(engine: AsyncEngine) -> None:
    profiles = SQLProfileStore(engine)
    assert await profiles.persona_of("alice") is None
    await profiles.set_persona("alice", "coach")
    await profiles.set_persona("alice", "coach")  # same value again: still one row, no error
    await profiles.set_persona("bob", "companion")
    assert await profiles.persona_of("alice") == "coach"
    assert await SQLProfileStore(engine).persona_of("bob") == "companion"


async def test_a_persona_chosen_in_another_process_is_seen_within_a_minute(
    engine: AsyncEngine,
) -> None:
    now = [0.0]
    here = SQLProfileStore(engine, keep_seconds=60, clock=lambda: now[0])
    elsewhere = SQLProfileStore(engine)
    await here.set_persona("alice", "coach")
    assert await here.persona_of("alice") == "coach"
    await elsewhere.set_persona("alice", "tutor")
    now[0] = 59.0
    assert await here.persona_of("alice") == "coach"  # kept: read for every message
    now[0] = 61.0
    assert await here.persona_of("alice") == "tutor"
    await here.set_persona("alice", "companion")  # a change made here is seen at once
    assert await here.persona_of("alice") == "companion"

