"""The jobs part: memory jobs still pending, and those that failed for good."""

from __future__ import annotations

import asyncio

from bot.cli.doctor.check import Check
from bot.cli.doctor.paths import sqlite_file
from bot.cli.doctor.timeouts import SQL_TIMEOUT
from bot.settings import Settings


async def check_jobs(settings: Settings, *, sql_ok: bool) -> Check:
    """Pending and failed memory jobs. Failed ones are a warning: the chat works without them."""
    from sqlalchemy import func, inspect, select
    from sqlalchemy.engine import make_url

    from jobs.queue import FAILED, PENDING, RUNNING
    from memory.sql.engine import open_engine
    from memory.sql.tables import memory_jobs

    if not sql_ok:
        return Check("jobs", None, "not checked: the database cannot be opened (see sql)",
                     needed_for_chat=False)
    path = sqlite_file(make_url(settings.sql_url))
    if path is not None and not path.exists():
        return Check("jobs", True, "0 pending, 0 failed (no database yet)", needed_for_chat=False)
    engine = open_engine(settings.sql_url)
    try:
        async with asyncio.timeout(SQL_TIMEOUT), engine.connect() as conn:
            if not await conn.run_sync(lambda c: inspect(c).has_table(memory_jobs.name)):
                return Check("jobs", True, "0 pending, 0 failed (no jobs table yet)",
                             needed_for_chat=False)
            rows = await conn.execute(select(memory_jobs.c.status, func.count())
                                      .group_by(memory_jobs.c.status))
            counts = {status: int(count) for status, count in rows}
    finally:
        await engine.dispose()
    running = f", {counts[RUNNING]} running" if counts.get(RUNNING) else ""
    detail = f"{counts.get(PENDING, 0)} pending{running}, {counts.get(FAILED, 0)} failed"
    if counts.get(FAILED):
        return Check("jobs", False, detail,
                     "companion memory jobs shows why (those rounds wait for their memories; "
                     "the chat works)", needed_for_chat=False)
    return Check("jobs", True, detail, needed_for_chat=False)
