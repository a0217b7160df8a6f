"""Makes oldest_release.sqlite.sql and oldest_release.mysql.sql: a database as the oldest
release (commit e98952c) left it, made by that release's own code.

Run it with that commit's code first on the path, from a worktree outside this checkout:

    git worktree add /tmp/oldest e98952c
    PYTHONPATH=/tmp/oldest .venv/bin/python tests/memory/sql/data/make_oldest_release.py
    git worktree remove /tmp/oldest

It needs the MariaDB server of the tests (root, no password, 127.0.0.1:3306) and mariadb-dump.
"""

# The old release's modules (memory.sql.topic_rows ...) are not in this checkout: isort cannot
# tell them from third-party ones.
from __future__ import annotations  # noqa: I001

import asyncio
import sqlite3
import subprocess
import sys
import tempfile
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pymysql
from sqlalchemy import insert, update

# That release's modules, from the worktree on PYTHONPATH (checked below).
import memory.sql.migrations as release_migrations
from memory.sql.engine import open_engine, utcnow
from memory.sql.migrations import migrate
from memory.sql.profiles import SQLProfileStore
from memory.sql.rounds import SQLRoundStore
from memory.sql.tables import memory_jobs, memory_progress, rounds, topics
from memory.sql.topic_rows import SQLTopicRows, topic_row
from memory.types import Topic

COMMIT = "e98952c"
HERE = Path(__file__).parent
SAID = [("I adopted a cat named Miso last week.", "A cat! Tell me about Miso."),
        ("She sleeps on my keyboard 🐈 — every night.", "Sounds like she loves you."),
        ("I work night shifts as a nurse.", "That is demanding work.")]
TOPIC = "The user adopted a cat named Miso, who sleeps on the keyboard."


def main() -> None:
    if "/work/main/" in str(release_migrations.__file__):
        sys.exit("run with the old release first on PYTHONPATH (see the docstring)")
    made = datetime.now(UTC).strftime("%Y-%m-%d")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "oldest.db"
        asyncio.run(_fill(f"sqlite+aiosqlite:///{path}"))
        with sqlite3.connect(path) as conn:
            dump = "\n".join(conn.iterdump())
    _write("sqlite", f"{made} with SQLite {sqlite3.sqlite_version}", dump)
    name = f"companion_oldest_{uuid.uuid4().hex[:8]}"
    with pymysql.connect(host="127.0.0.1", user="root", autocommit=True) as admin:
        admin.cursor().execute(
            f"CREATE DATABASE {name} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
        try:
            asyncio.run(_fill(f"mysql+aiomysql://root@127.0.0.1:3306/{name}"))
            dump = subprocess.run(
                ["mariadb-dump", "-h127.0.0.1", "-uroot", "--compact", "--complete-insert",
                 "--skip-extended-insert", "--default-character-set=utf8mb4", name],
                check=True, capture_output=True, text=True).stdout
            server = admin.get_server_info().removeprefix("5.5.5-").split("-")[0]
        finally:
            admin.cursor().execute(f"DROP DATABASE {name}")
    # The sandbox marker is for the mariadb client, which the test does not use.
    dump = "\n".join(line for line in dump.splitlines() if "enable the sandbox mode" not in line)
    _write("mysql", f"{made} with MariaDB {server}", dump)


async def _fill(url: str) -> None:
    """Migration 1 as that release ran it, and what its stores wrote: rounds of one user (the
    per-user round counter bumped by each) and a profile; then a summarize job that took those
    rounds (moving the counter on, as a job does) and its topic."""
    engine = open_engine(url)
    try:
        assert await migrate(engine) == [1]
        store = SQLRoundStore(engine)
        for message, reply in SAID:
            started = await store.start_round(user_id="ana", conversation_id="ana",
                                              persona="coach", text=message)
            await store.finish_round(started.id, reply)
        await SQLProfileStore(engine).set_persona("ana", "coach")
        now = utcnow()
        async with engine.begin() as conn:
            job = await conn.execute(insert(memory_jobs).values(
                job_key="summarize:ana:1-3", kind="summarize", user_id="ana",
                first_round_id=1, last_round_id=3, status="done", attempts=1,
                next_attempt_at=now, created_at=now, finished_at=now))
            job_id = job.inserted_primary_key[0]
            await conn.execute(update(rounds).values(summary_job_id=job_id))
            await conn.execute(update(memory_progress).values(pending_rounds=0,
                                                              scheduled_through=3))
            topic = Topic(id="a" * 32, user_id="ana", label="Pets", description=TOPIC,
                          created_at=now.replace(tzinfo=UTC), updated_at=now.replace(tzinfo=UTC))
            await conn.execute(insert(topics).values(**topic_row(topic, source_job_id=job_id)))
        await SQLTopicRows(engine).mark_indexed([topic.id])
    finally:
        await engine.dispose()


def _write(dialect: str, made: str, dump: str) -> None:
    header = (
        f"-- A database as the oldest release (commit {COMMIT}) left it: its migration 1, 3\n"
        "-- rounds of user 'ana' and her profile written by its stores, and a done summarize\n"
        "-- job of those rounds with its topic 'Pets' (written with its table definitions:\n"
        "-- that release defined the job table, the next one had the code that fills it).\n"
        f"-- Made on {made} by tests/memory/sql/data/make_oldest_release.py,\n"
        f"-- run with the code of {COMMIT} first on PYTHONPATH (a git worktree of that commit).\n"
    )
    (HERE / f"oldest_release.{dialect}.sql").write_text(header + dump.rstrip() + "\n")


if __name__ == "__main__":
    main()
