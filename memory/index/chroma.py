"""Vectors by user in chromadb: embedded (`memory.index.embedded`) or a chroma server
(`memory.index.server`).

Each user has a collection of their own: the collection is the hard user filter, so a query can
only ever see that user's vectors, and it stays fast. (A `where` filter on a shared collection
costs 43 ms at 10,000 records here, against 2.3 ms for a user's own collection.) Every record
still carries its `user_id`, and results are checked against it. A collection is made by its
first write: reading a user's vectors where none were ever stored finds nothing and makes
nothing (a chroma server spends 0.1 ms of CPU to say a collection is missing, 1.3-2 ms to
query an empty one).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory.errors import VectorStoreUnavailable
from memory.index.collections import Collections, QueryResult
from memory.protocols import Vector

log = logging.getLogger(__name__)
_HASH_CHARS = 32  # of a user id's hash, in a collection's name


async def open_collections(url: str, data_dir: Path) -> Collections:
    """A chroma server's collections when `url` is set (raises `VectorStoreUnavailable` when
    it does not answer), else the embedded store in `data_dir/chroma`."""
    if not url:
        from memory.index.embedded import open_embedded  # chromadb, only when embedded

        return await asyncio.to_thread(open_embedded, data_dir)
    from memory.index.server import ChromaServer

    server = ChromaServer(url)
    try:
        await server.heartbeat()
    except VectorStoreUnavailable:
        await server.close()
        raise
    return server


@dataclass(frozen=True, slots=True)
class VectorHit:
    id: str
    score: float  # cosine similarity
    document: str
    metadata: dict[str, Any]


@dataclass(frozen=True, slots=True)
class IndexNames:
    """The collection prefixes of one embedding model's indexes: vectors of different models
    never mix, and a model's whole index can be found (and dropped) by its names."""

    topics: str
    facts: str
    taught: str
    pool: str
    feedback: str

    @classmethod
    def of(cls, collection: str, embedder: str) -> IndexNames:
        return cls(topics=f"{collection}-{embedder}", facts=f"{collection}-facts-{embedder}",
                   taught=f"{collection}-taught-{embedder}",
                   pool=f"{collection}-pool-{embedder}",
                   feedback=f"{collection}-feedback-{embedder}")

    def prefixes(self) -> tuple[str, ...]:
        return (self.topics, self.facts, self.taught, self.pool, self.feedback)


async def drop_indexes(collections: Collections, names: Sequence[IndexNames]) -> int:
    """Delete every collection of these indexes (all users'); returns how many."""
    pattern = re.compile("|".join(
        f"{re.escape(prefix)}-[0-9a-f]{{{_HASH_CHARS}}}"
        for index in names for prefix in index.prefixes()))
    doomed = [name for name in await collections.names() if pattern.fullmatch(name)]
    for name in doomed:
        await collections.drop(name)  # nothing happens when another process dropped it first
    return len(doomed)


def _hits(user_id: str, result: QueryResult, i: int) -> list[VectorHit]:
    """The hits of a query's `i`th vector."""
    ids = result["ids"][i]
    documents = (result["documents"] or [[]] * (i + 1))[i]
    metadatas = (result["metadatas"] or [[]] * (i + 1))[i]
    distances = (result["distances"] or [[]] * (i + 1))[i]
    return [
        VectorHit(id=id_, score=1.0 - float(d), document=doc or "", metadata=dict(meta or {}))
        for id_, doc, meta, d in zip(ids, documents, metadatas, distances, strict=True)
        # Defence in depth: the collection is the user's; each record must say so too.
        if meta and meta.get("user_id") == user_id
    ]


class ChromaIndex:
    """Vectors by user: one collection per user, named `<prefix>-<hash of the user>`."""

    def __init__(self, collections: Collections, prefix: str) -> None:
        self._collections = collections
        self._prefix = prefix

    def collection_name(self, user_id: str) -> str:
        # User ids may hold any character; chromadb names allow few. A hash keeps them apart.
        return f"{self._prefix}-{hashlib.sha256(user_id.encode()).hexdigest()[:_HASH_CHARS]}"

    async def upsert(
        self,
        user_id: str,
        ids: Sequence[str],
        vectors: Sequence[Vector],
        documents: Sequence[str],
        metadatas: Sequence[dict[str, Any]],
    ) -> None:
        tagged = [{**meta, "user_id": user_id} for meta in metadatas]
        await self._collections.upsert(self.collection_name(user_id), {"user_id": user_id},
                                       ids, vectors, documents, tagged)

    async def query(self, user_id: str, vector: Vector, limit: int) -> list[VectorHit]:
        """The nearest records; none while the vector store cannot be reached, so that a
        reply goes on with what SQL finds (Recency, the search by words)."""
        [hits] = await self.query_many(user_id, [vector], limit)
        return hits

    async def query_many(self, user_id: str, vectors: Sequence[Vector], limit: int
                         ) -> list[list[VectorHit]]:
        """The nearest records to each vector, in one call (a round trip costs more than a
        vector's search); none while the vector store cannot be reached."""
        if limit <= 0 or not vectors:
            return [[] for _ in vectors]
        try:
            result = await self._collections.query(self.collection_name(user_id), vectors,
                                                    limit)
        except VectorStoreUnavailable as error:
            log.warning("Nothing found by meaning: %s", error)
            return [[] for _ in vectors]
        if result is None:  # nothing stored for this user yet
            return [[] for _ in vectors]
        return [_hits(user_id, result, i) for i in range(len(vectors))]

    async def vectors(self, user_id: str, ids: Sequence[str] | None = None) -> dict[str, Any]:
        """Every vector of the collection (or those of `ids` it holds), numpy arrays by id."""
        return {hit.id: vector for hit, vector in await self.records(user_id, ids)}

    async def records(self, user_id: str, ids: Sequence[str] | None = None
                      ) -> list[tuple[VectorHit, Any]]:
        """Every record of the collection (or those of `ids` it holds), each with its
        vector; a hit's score is 1 (no query)."""
        stored = await self._collections.records(self.collection_name(user_id), ids)
        if stored is None:
            return []
        return [(VectorHit(id=id_, score=1.0, document=doc, metadata=meta), vector)
                for id_, vector, doc, meta in zip(stored.ids, stored.vectors, stored.documents,
                                                  stored.metadatas, strict=True)
                # Defence in depth, as for a query's hits.
                if meta.get("user_id") == user_id]

    async def delete(self, user_id: str, ids: Sequence[str] | None = None) -> None:
        """Delete the user's records: the given ids, or the user's whole collection."""
        if ids is None:
            await self._collections.drop(self.collection_name(user_id))
        elif ids:
            await self._collections.delete(self.collection_name(user_id), ids)
