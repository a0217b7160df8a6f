"""Which embedding model the vector indexes were built with, recorded in SQL.

The `indexed` flags of topics, facts, corrections and pool entries say "the vector index holds
this row", but each model has its own collections: after a switch, the new model's collections
miss every row the flags call indexed. Adopting a new model resets every flag in the same
transaction that records it, so the rows are indexed again (by the caller at once, or by the
next sweep) and nothing is lost. Several processes starting at once reset the flags once.
"""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from memory.sql.engine import utcnow
from memory.sql.tables import facts, feedback, index_model, pool_entries, topics

_ROW = "vectors"
INDEXED_TABLES = (topics, facts, feedback, pool_entries)


class SQLIndexModel:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def adopt(self, embedder: str) -> str | None:
        """Record `embedder` as the indexes' model. Returns the model recorded before when it
        was another one (every row is then marked not indexed), else None."""
        async with self._engine.begin() as conn:
            recorded = (await conn.execute(
                select(index_model.c.embedder).where(index_model.c.name == _ROW)
                .with_for_update()  # a second process waits here, then sees the new model
            )).scalar_one()
            if recorded == embedder:
                return None
            await conn.execute(update(index_model).where(index_model.c.name == _ROW)
                               .values(embedder=embedder, changed_at=utcnow()))
            if recorded is None:  # a database from before this record: its indexes are taken
                return None       # to be the configured model's, as they were
            for table in INDEXED_TABLES:
                await conn.execute(update(table).where(table.c.indexed.is_(True))
                                   .values(indexed=False))
            return str(recorded)
