"""Per-user preferences in SQL (the chosen persona)."""

from __future__ import annotations

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from memory.sql.engine import utcnow
from memory.sql.tables import profiles


class SQLProfileStore:
    """`ProfileStore` on SQLite or MySQL."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def persona_of(self, user_id: str) -> str | None:
        query = select(profiles.c.persona).where(profiles.c.user_id == user_id)
        async with self._engine.connect() as conn:
            return (await conn.execute(query)).scalar_one_or_none()

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
