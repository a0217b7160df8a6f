"""Messages per user and minute, counted in SQL so that several bot processes share one rate
limit. One row per user; the first message of a new minute starts its count again."""

from __future__ import annotations

import time

from sqlalchemy import Integer, bindparam, case, select
from sqlalchemy.dialects.mysql import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from memory.sql.prepared import PreparedRead, PreparedWrite
from memory.sql.tables import message_counts


class SQLMessageCounts:
    """MySQL/MariaDB only (an upsert); a SQLite file serves one process, which counts in memory."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def count(self, user_id: str) -> int:
        """Count one more message of `user_id`; returns how many it sent this minute."""
        async with self._engine.begin() as conn:  # the driver's write and read
            await _ADD_ONE.run(conn, user_id=user_id, minute=int(time.time() // 60))
            [row] = await _COUNT.rows(conn, user_id=user_id)
            return int(row["count"])


def _add_one() -> PreparedWrite:
    added = insert(message_counts).values(user_id=bindparam("user_id"),
                                          minute=bindparam("minute", type_=Integer), count=1)
    same_minute = message_counts.c.minute == added.inserted.minute
    # MySQL assigns in order: `count` must be decided before `minute` changes (a list keeps
    # the order).
    return PreparedWrite(added.on_duplicate_key_update([
        ("count", case((same_minute, message_counts.c.count + 1), else_=1)),
        ("minute", added.inserted.minute),
    ]))


_ADD_ONE = _add_one()
_COUNT = PreparedRead(select(message_counts.c.count)
                      .where(message_counts.c.user_id == bindparam("user_id")))
