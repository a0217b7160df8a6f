"""Fact memory: SQL rows are the record (with their lexical index); a vector index per user finds
them by meaning."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from memory.lexical import query_terms
from memory.protocols import Embedder, Vector
from memory.sql.fact_rows import SQLFactRows
from memory.types import Fact, Speaker
from memory.vectors import ChromaIndex, VectorHit


class FactStore:
    """Facts of each user. Rows are written first (by the memory jobs, in the transaction that
    finishes a summary), then indexed; a row the index missed is repaired by the sweep."""

    def __init__(self, rows: SQLFactRows, index: ChromaIndex, embedder: Embedder) -> None:
        self.rows = rows
        self._index = index
        self._embedder = embedder

    async def add_facts(self, new_facts: Sequence[Fact]) -> None:
        """Store and index facts of one user (the Python API; jobs write rows themselves)."""
        await self.rows.insert(new_facts)
        await self.index(new_facts)

    async def index(self, facts: Sequence[Fact]) -> None:
        """Put facts of one user into the vector index and record that they are there."""
        if not facts:
            return
        user_id = facts[0].user_id
        vectors = await self._embedder.embed([f.text for f in facts])
        await self._index.upsert(
            user_id, [f.id for f in facts], vectors, [f.text for f in facts],
            [_metadata(f) for f in facts],
        )
        await self.rows.mark_indexed(user_id, [f.id for f in facts])

    async def by_meaning(
        self, user_id: str, vector: Vector, limit: int
    ) -> list[tuple[Fact, float]]:
        """The user's facts closest in meaning, with their cosine similarity."""
        hits = await self._index.query(user_id, vector, limit)
        return [(_from_hit(user_id, hit), hit.score) for hit in hits]

    async def by_words(self, user_id: str, text: str, limit: int) -> list[tuple[Fact, float]]:
        """The user's facts that share words with `text`, with their lexical score."""
        return await self.rows.by_words(user_id, query_terms(text), limit)

    async def newest(self, user_id: str, limit: int, offset: int = 0) -> list[Fact]:
        return await self.rows.newest(user_id, limit, offset)

    async def count(self, user_id: str) -> int:
        return await self.rows.count(user_id)

    async def find(self, user_id: str, id_prefix: str) -> list[Fact]:
        """The user's facts whose id starts with `id_prefix` (at most two: enough to tell)."""
        return await self.rows.with_id_prefix(user_id, id_prefix.lower())

    async def forget(self, user_id: str, fact_id: str | None = None) -> int:
        """Forget one fact of the user, or all of them; returns how many."""
        deleted = await self.rows.delete(user_id, fact_id)
        # "All" drops the user's whole collection, even vectors left by an interrupted write.
        await self._index.delete(user_id, None if fact_id is None else [fact_id])
        return deleted

    async def reindex(self) -> int:
        """Index the facts a crash or an embedder outage left out; returns how many."""
        repaired = 0
        while stale := await self.rows.unindexed():
            for user_id in dict.fromkeys(f.user_id for f in stale):
                await self.index([f for f in stale if f.user_id == user_id])
            repaired += len(stale)
        return repaired


def _metadata(fact: Fact) -> dict[str, str | float]:
    return {
        "speaker": fact.speaker.value,
        "said_at": fact.said_at.timestamp(),
        "round_ids": " ".join(str(i) for i in fact.round_ids),
    }


def _from_hit(user_id: str, hit: VectorHit) -> Fact:
    meta = hit.metadata
    return Fact(
        id=hit.id,
        user_id=user_id,
        text=hit.document,
        speaker=Speaker(str(meta.get("speaker", "user"))),
        said_at=datetime.fromtimestamp(float(meta.get("said_at", 0)), UTC),
        round_ids=tuple(int(i) for i in str(meta.get("round_ids", "")).split()),
    )
