"""Undoing a retraction (`/wrong`): one of the user's retracted rows, found by id prefix, made
active again. Topics, facts and corrections share the `status` and `indexed` columns it uses."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

ACTIVE = "active"
RETRACTED = "retracted"
_HEX = frozenset("0123456789abcdef")


async def restore_retracted(
    engine: AsyncEngine, table: Table, user_id: str, prefix: str
) -> Any | None:
    """The row made active again (marked for indexing), or None unless exactly one retracted
    row of the user has an id starting with `prefix`."""
    prefix = prefix.lower()
    if not prefix or not set(prefix) <= _HEX:
        return None
    where = ((table.c.user_id == user_id) & (table.c.status == RETRACTED)
             & table.c.id.startswith(prefix))
    async with engine.begin() as conn:
        rows = (await conn.execute(select(table).where(where).limit(2))).mappings().all()
        if len(rows) != 1:
            return None
        await conn.execute(update(table).where(where & (table.c.id == rows[0]["id"]))
                           .values(status=ACTIVE, indexed=False))
    return rows[0]
