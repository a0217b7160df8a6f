"""Per-user preferences in SQL (the chosen persona)."""

from __future__ import annotations

import time
from collections.abc import Callable

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from memory.sql.engine import utcnow
from memory.sql.prepared import PreparedRead
from memory.sql.tables import profiles

MAX_KEPT = 10_000  # users whose choice is kept in memory


class SQLProfileStore:
    """`ProfileStore` on SQLite or MySQL.

    The persona is read for every message and changes rarely, so a choice read or made here is
    kept for `keep_seconds`: another process's change is seen within that time.
    """

    def __init__(
        self, engine: AsyncEngine, keep_seconds: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._engine = engine
        self._keep = keep_seconds
        self._clock = clock
        self._known: dict[str, tuple[float, str | None]] = {}

    async def persona_of(self, user_id: str) -> str | None:
        known = self._known.get(user_id)
        if known is not None and self._clock() - known[0] < self._keep:
            return known[1]
        async with self._engine.connect() as conn:  # the driver's read
            found = await _PERSONA.rows(conn, user_id=user_id)
        persona = found[0]["persona"] if found else None
        self._remember(user_id, persona)
        return persona

    def _remember(self, user_id: str, persona: str | None) -> None:
        if len(self._known) >= MAX_KEPT:
            self._known.clear()
        self._known[user_id] = (self._clock(), persona)

    async def set_persona(self, user_id: str, persona: str) -> None:
        # Update first, insert if absent: portable across SQLite and MySQL without upsert dialects.
        async with self._engine.begin() as conn:
            changed = await conn.execute(
                update(profiles)
                .where(profiles.c.user_id == user_id)
                .values(persona=persona, updated_at=utcnow())
            )
            if changed.rowcount == 0:
                await conn.execute(
                    insert(profiles).values(user_id=user_id, persona=persona, updated_at=utcnow())
                )
        self._remember(user_id, persona)


_PERSONA = PreparedRead(select(profiles.c.persona)
                        .where(profiles.c.user_id == bindparam("user_id")))
