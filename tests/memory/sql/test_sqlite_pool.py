"""A SQLite engine keeps the connections a turn's concurrent reads use: a turn after the
first opens none (each one opened is a thread, the pragmas and a parsed schema)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from sqlalchemy import event, text

from memory.sql.engine import open_engine

AT_ONCE = 8  # the most statements a turn runs together


async def test_reads_run_together_again_open_no_new_connection(tmp_path: Path) -> None:
    engine = open_engine(f"sqlite+aiosqlite:///{tmp_path / 'companion.db'}")
    opened: list[Any] = []
    event.listen(engine.sync_engine, "connect", lambda connection, _record: opened.append(
        connection))

    async def read() -> None:
        async with engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
            await asyncio.sleep(0.01)  # all held at once

    try:
        await asyncio.gather(*(read() for _ in range(AT_ONCE)))
        first = len(opened)
        await asyncio.gather(*(read() for _ in range(AT_ONCE)))
    finally:
        await engine.dispose()
    assert first == AT_ONCE
    assert len(opened) == first
