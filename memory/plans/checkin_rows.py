"""Who wants check-ins, and in which time zone (SQLite or MySQL)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from memory.sql.engine import utcnow
from memory.sql.tables import checkins


@dataclass(frozen=True, slots=True)
class CheckinChoice:
    """A person's check-in choice: on or off (off unless they said on), and their time zone
    (None: the settings' default)."""

    enabled: bool = False
    timezone: str | None = None


class SQLCheckinRows:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def of(self, user_id: str) -> CheckinChoice:
        query = select(checkins.c.enabled, checkins.c.timezone).where(
            checkins.c.user_id == user_id)
        async with self._engine.connect() as conn:
            row = (await conn.execute(query)).first()
        return CheckinChoice() if row is None else CheckinChoice(bool(row[0]), row[1])

    async def choose(self, user_id: str, *, enabled: bool | None = None,
                     timezone: str | None = None) -> CheckinChoice:
        """Change what is given (check-ins on or off, the time zone); returns the choice."""
        values = {k: v for k, v in (("enabled", enabled), ("timezone", timezone))
                  if v is not None}
        async with self._engine.begin() as conn:
            changed = await conn.execute(update(checkins).where(checkins.c.user_id == user_id)
                                         .values(**values, updated_at=utcnow()))
            if changed.rowcount == 0:
                await conn.execute(insert(checkins).values(
                    user_id=user_id, enabled=bool(enabled), timezone=timezone,
                    updated_at=utcnow()))
        return await self.of(user_id)

    async def stop(self, user_id: str) -> None:
        """Check-ins off (the time zone stays)."""
        async with self._engine.begin() as conn:
            await conn.execute(update(checkins).where(checkins.c.user_id == user_id)
                               .values(enabled=False, updated_at=utcnow()))

    async def forget(self, user_id: str) -> None:
        async with self._engine.begin() as conn:
            await conn.execute(delete(checkins).where(checkins.c.user_id == user_id))
