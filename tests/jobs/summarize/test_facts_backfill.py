"""Upgrading in place: a database summarized before facts existed gets facts for those rounds
from the sweep, once, without re-summarizing or touching its topics."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sqlalchemy import Connection, func, insert, select, update

from bot.app import open_companion
from memory.sql.engine import open_engine, utcnow
from memory.sql.rounds import SQLRoundStore
from memory.sql.tables import memory_jobs, rounds, topics
from memory.types import Exchange
from tests.conftest import make_settings
from tests.fakes.openai_server import ScriptedLLM
from tests.old_schema import apply_first

SAID = ["I adopted a cat named Miso last week.", "I work night shifts as a nurse.",
        "haha ok", "I am learning to paint with watercolors."]
TOPIC = "The host and I talked about pets, and the host said: I adopted a cat named Miso."


async def _a_database_of_release_0_2(sql_url: str) -> None:
    """Migrations 1 and 2, and one window summarized by the code of that release."""
    engine = open_engine(sql_url)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(_apply_until_facts)
        await SQLRoundStore(engine).import_rounds(
            "ana", "companion", [Exchange(text, "Tell me more!") for text in SAID])
        now = utcnow()
        async with engine.begin() as conn:
            job = await conn.execute(insert(memory_jobs).values(
                job_key="summarize:old:1-4", kind="summarize", user_id="ana", first_round_id=1,
                last_round_id=4, status="done", attempts=1, next_attempt_at=now,
                created_at=now, finished_at=now))
            job_id = job.inserted_primary_key[0]
            await conn.execute(update(rounds).values(summary_job_id=job_id))
            await conn.execute(insert(topics).values(
                id="a" * 32, user_id="ana", label="pets", label_key="pet", description=TOPIC,
                status="active", merged_into=None, source_job_id=job_id, indexed=True,
                created_at=now, updated_at=now))
    finally:
        await engine.dispose()


def _apply_until_facts(conn: Connection) -> None:
    apply_first(conn, 2)


async def test_the_backfill_runs_once_and_is_safe_to_run_twice(
    tmp_path: Path, llm: ScriptedLLM, sql_url: str
) -> None:
    await _a_database_of_release_0_2(sql_url)
    settings = make_settings(tmp_path, llm, sql_url, memory={"summarizer": "extractive"})
    async with open_companion(settings) as first, open_companion(settings) as second:
        reports = await asyncio.gather(first.worker.sweep(), second.worker.sweep())
        assert sum(r.backfilled for r in reports) == 1  # one window, by one of the two
        assert sum(r.summarized for r in reports) == 0  # nothing summarized again
        facts = await first.facts.newest("ana", 100)
        assert sorted(f.text for f in facts) == sorted(s for s in SAID if s != "haha ok")
        assert [t.description for t in await first.topics.list_topics("ana")] == [TOPIC]
        again = await first.worker.sweep()
        assert again.backfilled == 0
        assert len(await first.facts.newest("ana", 100)) == 3
        [found] = await first.facts.by_words("ana", "watercolors", 5)
        assert found[0].round_ids == (4,)
        async with first.rounds._engine.connect() as conn:
            kinds = (await conn.execute(select(memory_jobs.c.kind, func.count())
                                        .group_by(memory_jobs.c.kind))).all()
        # The backfilled facts are beliefs too: a check of them is queued after the backfill.
        assert dict(kinds) | {"beliefs": 1} == {"summarize": 1, "facts": 1, "beliefs": 1}
