"""Named collections of vectors: what `ChromaIndex` needs of chromadb, embedded
(`memory.index.embedded`) or on a chroma server (`memory.index.server`).

A query's result holds chromadb's lists, one per query vector: `ids`, `documents`, `metadatas`,
`distances` (cosine distances). Both backends raise `VectorStoreUnavailable` when the store
cannot be reached or keeps failing inside.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from memory.protocols import Vector

QueryResult = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Records:
    """Stored records, in one order: vectors are numpy arrays."""

    ids: list[str]
    vectors: list[Any]
    documents: list[str]
    metadatas: list[dict[str, Any]]

SYNC_THRESHOLD = 10
# chromadb keeps a collection's newest records in its write log until `sync_threshold` of them
# (1,000 by default) have come, and loading the collection again (a server keeps some hundreds
# loaded) replays that log into a new graph: for 1,500 users' collections of 60 records, 8.7 ms
# of a server's CPU a query, against 3.4 when the graph is written every 10 records and read
# back from disk. A user's collections hold tens to hundreds of records.
HNSW: dict[str, Any] = {"space": "cosine", "batch_size": SYNC_THRESHOLD,
                        "sync_threshold": SYNC_THRESHOLD}
HNSW_UPDATE: dict[str, Any] = {"batch_size": SYNC_THRESHOLD, "sync_threshold": SYNC_THRESHOLD}
# Vectors are always computed by our embedder and passed in; collections still name an
# embedding function (`VectorsMustBePassed`) so chromadb never falls back to its default one
# (which downloads a model and fails offline).
EMBEDDING_FUNCTION = "companion-explicit-vectors"
INCLUDED = ["documents", "metadatas", "distances"]
STORED = ["embeddings", "documents", "metadatas"]


class Collections(Protocol):
    """Collections by name. A read of a collection that does not exist finds nothing (None)
    and makes nothing; a write makes it."""

    async def query(self, name: str, vectors: Sequence[Vector], limit: int
                    ) -> QueryResult | None: ...

    async def upsert(self, name: str, owner: dict[str, Any], ids: Sequence[str],
                     vectors: Sequence[Vector], documents: Sequence[str],
                     metadatas: Sequence[dict[str, Any]]) -> None:
        """`owner`: the collection's own metadata, when this write makes it."""

    async def records(self, name: str, ids: Sequence[str] | None = None) -> Records | None:
        """Every record (or those of `ids` that are stored); None when there is no such
        collection."""

    async def delete(self, name: str, ids: Sequence[str]) -> None: ...

    async def drop(self, name: str) -> None:
        """Delete the collection; nothing happens when there is none."""

    async def names(self) -> list[str]:
        """Every collection's name."""

    async def close(self) -> None: ...


def again_after(errors: type[Exception] | tuple[type[Exception], ...]) -> AsyncRetrying:
    """Retries for a chroma server that sometimes fails a query inside under load ("Error
    creating hnsw segment reader: Nothing found on disk", chroma-core/chroma#4212) while it
    writes a collection's index: the same call a moment later succeeds. A new one for each
    call: a retrying object keeps the state of its current call."""
    return AsyncRetrying(
        retry=retry_if_exception_type(errors),
        stop=stop_after_attempt(4),
        wait=wait_exponential(multiplier=0.05, max=0.5),
        reraise=True,
    )
