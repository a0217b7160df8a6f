"""Every training of the pool's retriever, kept: the newest accepted version is the one in use,
and a version that did no better than it stays on record, unused."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import RowMapping, func, insert, select
from sqlalchemy.ext.asyncio import AsyncEngine

from memory.sql.engine import as_utc, utcnow
from memory.sql.tables import pool_retrievers


@dataclass(frozen=True, slots=True)
class Trained:
    version: int
    trained_at: datetime
    entries: int
    held_back: int
    score: float  # same kind at 1 on the entries it was judged on (not trained on)
    previous_score: float  # the version in use then, on the same entries
    accepted: bool
    cosine_score: float | None = None  # plain cosine, on the same entries (None: not kept)


class SQLRetrieverRows:
    def __init__(self, engine: AsyncEngine, autocommit: AsyncEngine | None = None) -> None:
        """`autocommit`: an engine for statements that need no transaction
        (`open_autocommit_engine`)."""
        self._engine = engine
        self._autocommit = autocommit or engine

    async def save(self, model: bytes, *, entries: int, held_back: int, score: float,
                   previous_score: float, accepted: bool,
                   cosine_score: float | None = None) -> Trained:
        """Record a training; returns it with its version."""
        now = utcnow()
        async with self._engine.begin() as conn:
            result = await conn.execute(insert(pool_retrievers).values(
                trained_at=now, entries=entries, held_back=held_back, score=score,
                previous_score=previous_score, accepted=accepted, model=model,
                cosine_score=cosine_score))
        [version] = result.inserted_primary_key or (0,)
        return Trained(int(version), as_utc(now), entries, held_back,
                       score, previous_score, accepted, cosine_score)

    async def in_use(self) -> tuple[int, bytes] | None:
        """The newest accepted version and its model."""
        query = (select(pool_retrievers.c.version, pool_retrievers.c.model)
                 .where(pool_retrievers.c.accepted.is_(True))
                 .order_by(pool_retrievers.c.version.desc()).limit(1))
        async with self._autocommit.connect() as conn:
            row = (await conn.execute(query)).first()
        return (int(row[0]), bytes(row[1])) if row else None

    async def training_in_use(self) -> Trained | None:
        """The record of the version in use (the newest accepted), however old."""
        query = (select(pool_retrievers).where(pool_retrievers.c.accepted.is_(True))
                 .order_by(pool_retrievers.c.version.desc()).limit(1))
        async with self._autocommit.connect() as conn:
            rows = [_trained(r) for r in (await conn.execute(query)).mappings()]
        return rows[0] if rows else None

    async def newest_version(self) -> int:
        """The newest accepted version (0: none yet, plain cosine)."""
        query = select(func.max(pool_retrievers.c.version)).where(
            pool_retrievers.c.accepted.is_(True))
        async with self._autocommit.connect() as conn:
            return int((await conn.execute(query)).scalar() or 0)

    async def trainings(self, limit: int = 20) -> list[Trained]:
        query = (select(pool_retrievers).order_by(pool_retrievers.c.version.desc())
                 .limit(limit))
        async with self._autocommit.connect() as conn:
            return [_trained(r) for r in (await conn.execute(query)).mappings()]

    async def last_entries(self) -> int:
        """How many labelled entries the latest training saw (0: never trained)."""
        query = select(pool_retrievers.c.entries).order_by(
            pool_retrievers.c.version.desc()).limit(1)
        async with self._autocommit.connect() as conn:
            return int((await conn.execute(query)).scalar() or 0)


def _trained(r: RowMapping) -> Trained:
    return Trained(int(r["version"]), as_utc(r["trained_at"]), int(r["entries"]),
                   int(r["held_back"]), float(r["score"]), float(r["previous_score"]),
                   bool(r["accepted"]),
                   None if r["cosine_score"] is None else float(r["cosine_score"]))
