"""Topic memory: SQL rows are the record, the vector index finds them by meaning."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Collection
from datetime import UTC, datetime

from memory.index.chroma import ChromaIndex, VectorHit
from memory.protocols import Embedder, Vector
from memory.topics.rows import SQLTopicRows
from memory.types import ScoredTopic, Topic

log = logging.getLogger(__name__)


class IndexedTopicStore:
    """`TopicStore`: a topic is written to SQL first (nothing lost), then indexed.

    Search reads everything it returns from the index, so a turn costs one vector query;
    the newest topics come from SQL, which can sort by time.
    """

    def __init__(self, rows: SQLTopicRows, index: ChromaIndex, embedder: Embedder) -> None:
        self._rows = rows
        self._index = index
        self._embedder = embedder

    async def add_topic(
        self, user_id: str, label: str, description: str, *, at: datetime | None = None
    ) -> Topic:
        return (await self.add_topics(user_id, [(label, description)], at=at))[0]

    async def add_topics(
        self, user_id: str, items: list[tuple[str, str]], *, at: datetime | None = None
    ) -> list[Topic]:
        """Add several topics in one embedding call and one index write."""
        when = (at or datetime.now(UTC)).astimezone(UTC)
        added = [
            Topic(
                id=uuid.uuid4().hex,
                user_id=user_id,
                label=label.strip(),
                description=description.strip(),
                created_at=when,
                updated_at=when,
            )
            for label, description in items
        ]
        vectors = await self._embedder.embed([t.description for t in added])
        await self._rows.insert(added)
        await self.index(added, vectors)
        return added

    async def index(self, added: list[Topic], vectors: list[Vector] | None = None) -> None:
        """Put active topics of one user into the vector index and record that they are there."""
        if not added:
            return
        if vectors is None:
            vectors = await self._embedder.embed([t.description for t in added])
        await self._index.upsert(
            added[0].user_id,
            [t.id for t in added],
            vectors,
            [t.description for t in added],
            [_metadata(t) for t in added],
        )
        await self._rows.mark_indexed(added[0].user_id, [t.id for t in added], active=True)

    async def unindex(self, user_id: str, topic_ids: list[str]) -> None:
        """Take topics (merged into another) out of the vector index; their rows stay."""
        if topic_ids:
            await self._index.delete(user_id, topic_ids)
            await self._rows.mark_indexed(user_id, topic_ids, active=False)

    async def search(
        self, user_id: str, vector: Vector, *, limit: int, floor: float
    ) -> list[ScoredTopic]:
        hits = await self._index.query(user_id, vector, limit)
        return [
            ScoredTopic(_from_hit(user_id, hit), hit.score) for hit in hits if hit.score >= floor
        ]

    async def latest(self, user_id: str, limit: int) -> list[Topic]:
        return await self._rows.latest(user_id, limit) if limit > 0 else []

    async def list_topics(self, user_id: str) -> list[Topic]:
        return await self._rows.all_of(user_id)

    async def count(self, user_id: str) -> int:
        return await self._rows.count(user_id)

    async def retract(self, user_id: str, topic_id: str) -> bool:
        """Take a topic the user says is wrong out of every prompt; its row stays for audit.
        If the vector index fails now, the row stays marked and the sweep takes it out."""
        if not await self._rows.retract(user_id, topic_id):
            return False
        try:
            await self.unindex(user_id, [topic_id])
        except Exception:  # the row is retracted and marked: the sweep takes the vector out
            log.warning("Retracted topic %s is still in the vector index", topic_id[:8],
                        exc_info=True)
        return True

    async def restore(self, user_id: str, id_prefix: str) -> Topic | None:
        """Undo a retraction (the retracted topic whose id starts so): it is searched again."""
        topic = await self._rows.restore(user_id, id_prefix)
        if topic is not None:
            await self.index([topic])
        return topic

    async def mark_quoting(self, user_id: str, superseded_id: str, old: Collection[str],
                           new: Collection[str], said_before: datetime) -> int:
        """Mark the topics that quote only what a superseded belief said (`SQLTopicRows`), in
        the rows and the index; returns how many."""
        marked = await self._rows.mark_quoting(user_id, superseded_id, old, new, said_before)
        await self.index(marked)
        return len(marked)

    async def unmark_quoting(self, user_id: str, superseded_id: str) -> int:
        """The superseded belief is current again: its topics are shown as current too."""
        unmarked = await self._rows.unmark_quoting(user_id, superseded_id)
        await self.index(unmarked)
        return len(unmarked)

    async def reindex(self) -> int:
        """Bring the index in line with the rows an interrupted job or a failed write left
        behind: active topics in, merged and retracted ones out. Returns how many."""
        repaired = 0
        while stale := await self._rows.unindexed():
            for user_id in {t.user_id for t, _ in stale}:
                mine = [(t, s) for t, s in stale if t.user_id == user_id]
                await self.index([t for t, s in mine if s == "active"])
                await self.unindex(user_id, [t.id for t, s in mine if s != "active"])
            repaired += len(stale)
        return repaired

    async def forget(self, user_id: str, topic_id: str | None = None) -> int:
        deleted = await self._rows.delete(user_id, topic_id)
        # "All" drops the user's whole collection, even vectors left by an interrupted write.
        await self._index.delete(user_id, None if topic_id is None else [topic_id])
        return deleted


def _metadata(topic: Topic) -> dict[str, str | float]:
    return {
        "label": topic.label,
        "created_at": topic.created_at.timestamp(),
        "updated_at": topic.updated_at.timestamp(),
        "quotes_superseded": topic.quotes_superseded or "",
    }


def _from_hit(user_id: str, hit: VectorHit) -> Topic:
    meta = hit.metadata
    return Topic(
        id=hit.id,
        user_id=user_id,
        label=str(meta.get("label", "")),
        description=hit.document,
        created_at=datetime.fromtimestamp(float(meta.get("created_at", 0)), UTC),
        updated_at=datetime.fromtimestamp(float(meta.get("updated_at", 0)), UTC),
        quotes_superseded=str(meta.get("quotes_superseded", "")) or None,
    )
