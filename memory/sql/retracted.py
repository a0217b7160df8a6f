"""Retracting (`/wrong`) and restoring a memory: one of the user's rows leaves `active` and comes
back, found by id or id prefix. Topics, facts and corrections share the `status` and `indexed`
columns used here; `indexed = False` tells the sweep the vector index may not match yet."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

ACTIVE = "active"
RETRACTED = "retracted"
_HEX = frozenset("0123456789abcdef")


async def retract_row(engine: AsyncEngine, table: Table, user_id: str, row_id: str) -> Any | None:
    """Mark one of the user's active rows retracted (kept for audit and undo); the row as it
    was, or None when the user has no such active row."""
    where = (table.c.user_id == user_id) & (table.c.id == row_id) & (table.c.status == ACTIVE)
    async with engine.begin() as conn:
        row = (await conn.execute(select(table).where(where))).mappings().first()
        if row is not None:
            await conn.execute(update(table).where(where).values(status=RETRACTED, indexed=False))
    return row


async def restore_retracted(
    engine: AsyncEngine, table: Table, user_id: str, prefix: str, *, status: str = RETRACTED,
    **values: Any,
) -> Any | None:
    """The row made active again (marked for indexing, with `values` set), or None unless
    exactly one row of the user in `status` has an id starting with `prefix`."""
    prefix = prefix.lower()
    if not prefix or not set(prefix) <= _HEX:
        return None
    where = ((table.c.user_id == user_id) & (table.c.status == status)
             & table.c.id.startswith(prefix))
    async with engine.begin() as conn:
        rows = (await conn.execute(select(table).where(where).limit(2))).mappings().all()
        if len(rows) != 1:
            return None
        await conn.execute(update(table).where(where & (table.c.id == rows[0]["id"]))
                           .values(status=ACTIVE, indexed=False, **values))
    return rows[0]
