"""Topic vectors in chromadb: embedded (`PersistentClient`) or a chroma server (`HttpClient`).

Each user has a collection of their own: the collection is the hard user filter, so a query can
only ever see that user's vectors, and it stays fast. (A `where` filter on a shared collection
costs 43 ms at 10,000 records here, against 2.3 ms for a user's own collection.) Every record
still carries its `user_id`, and results are checked against it. A collection is made by its
first write: reading a user's vectors where none were ever stored finds nothing and makes
nothing (a chroma server spends 0.1 ms of CPU to say a collection is missing, 1.3-2 ms to
query an empty one).

chromadb's clients block, so every call runs in a worker thread. Vectors are always computed by
our embedder and passed in; collections still get an explicit embedding function so chromadb
never falls back to its default one (which downloads a model and fails offline).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import chromadb
import httpx
from chromadb.api import ClientAPI
from chromadb.api.client import Client
from chromadb.api.collection_configuration import HNSWConfiguration
from chromadb.api.models.Collection import Collection
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
from chromadb.config import Settings
from chromadb.errors import InternalError, NotFoundError
from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from memory.errors import VectorStoreUnavailable
from memory.protocols import Vector

log = logging.getLogger(__name__)
T = TypeVar("T")
_HASH_CHARS = 32  # of a user id's hash, in a collection's name
# chromadb keeps a collection's newest records in its write log until `sync_threshold` of them
# (1,000 by default) have come, and loading the collection again (a server keeps some hundreds
# loaded) replays that log into a new graph: for 1,500 users' collections of 60 records, 8.7 ms
# of a server's CPU a query, against 3.4 when the graph is written every 10 records and read
# back from disk. A user's collections hold tens to hundreds of records.
SYNC_THRESHOLD = 10
_HNSW: HNSWConfiguration = {"space": "cosine", "batch_size": SYNC_THRESHOLD,
                            "sync_threshold": SYNC_THRESHOLD}


# A chroma server under load sometimes fails a query inside ("Error creating hnsw segment
# reader: Nothing found on disk", chroma-core/chroma#4212) while it writes a collection's index;
# the same call a moment later succeeds.
def _again_after_internal_error() -> AsyncRetrying:
    """A new one for each call: a retrying object keeps the state of its current call."""
    return AsyncRetrying(
        retry=retry_if_exception_type(InternalError),
        stop=stop_after_attempt(4),
        wait=wait_exponential(multiplier=0.05, max=0.5),
        reraise=True,
    )


class VectorsMustBePassed(EmbeddingFunction[Documents]):
    """Stands in for chromadb's default embedding function; Companion always passes vectors."""

    def __init__(self) -> None:
        pass

    def __call__(self, input: Documents) -> Embeddings:
        raise RuntimeError("Companion passes vectors explicitly; chromadb must not embed text")

    @staticmethod
    def name() -> str:
        return "companion-explicit-vectors"

    def get_config(self) -> dict[str, Any]:
        return {}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> VectorsMustBePassed:
        return VectorsMustBePassed()


@dataclass(frozen=True, slots=True)
class VectorHit:
    id: str
    score: float  # cosine similarity
    document: str
    metadata: dict[str, Any]


def open_client(url: str, data_dir: Path) -> Client:
    """A chroma server client when `url` is set, else an embedded store in `data_dir/chroma`."""
    settings = Settings(anonymized_telemetry=False)
    if not url:
        client = chromadb.PersistentClient(path=str(data_dir / "chroma"), settings=settings)
    else:
        client = _server_client(url, settings)
    assert isinstance(client, Client)  # what both return; its type says less (no close())
    return client


def _server_client(url: str, settings: Settings) -> ClientAPI:
    parts = urlsplit(url)
    return chromadb.HttpClient(
        host=parts.hostname or "localhost",
        port=parts.port or (443 if parts.scheme == "https" else 8000),
        ssl=parts.scheme == "https",
        settings=settings,
    )


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


def drop_indexes(client: ClientAPI, names: Sequence[IndexNames]) -> int:
    """Delete every collection of these indexes (all users'); returns how many. Blocking."""
    pattern = re.compile("|".join(
        f"{re.escape(prefix)}-[0-9a-f]{{{_HASH_CHARS}}}"
        for index in names for prefix in index.prefixes()))
    doomed = [name for name in _collection_names(client) if pattern.fullmatch(name)]
    for name in doomed:
        with suppress(NotFoundError):  # another process dropped it first
            client.delete_collection(name)
    return len(doomed)


def _collection_names(client: ClientAPI, page: int = 1000) -> list[str]:
    """Every collection's name, page by page (a server may cap one answer)."""
    names: list[str] = []
    while found := client.list_collections(limit=page, offset=len(names)):
        names += [c.name for c in found]
        if len(found) < page:
            break
    return names


def _hits(user_id: str, result: Any, i: int) -> list[VectorHit]:
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
    """Vectors by user: one chromadb collection per user, named `<prefix>-<hash of the user>`."""

    def __init__(self, client: ClientAPI, prefix: str) -> None:
        self._client = client
        self._prefix = prefix
        self._collections: dict[str, Collection] = {}

    def collection_name(self, user_id: str) -> str:
        # User ids may hold any character; chromadb names allow few. A hash keeps them apart.
        return f"{self._prefix}-{hashlib.sha256(user_id.encode()).hexdigest()[:_HASH_CHARS]}"

    def _read(self, user_id: str, work: Callable[[Collection], T], nothing: T) -> T:
        """`work` on the user's collection (blocking); `nothing` when there is none: nothing
        was stored yet, or another process dropped it. A read never creates a collection: a
        chroma server spends more on a query of an empty one than on finding it missing."""
        try:
            collection = self._collections.get(user_id)
            if collection is None:
                collection = self._client.get_collection(
                    self.collection_name(user_id),
                    embedding_function=VectorsMustBePassed())  # type: ignore[arg-type]
                self._collections[user_id] = collection
            return work(collection)
        except NotFoundError:
            self._collections.pop(user_id, None)
            return nothing

    def _write(self, user_id: str, work: Callable[[Collection], None]) -> None:
        """`work` on the user's collection (blocking), created first when needed, and again
        when another process dropped the one this process knew."""
        for attempt in range(2):
            try:
                return work(self._created(user_id))
            except NotFoundError:
                self._collections.pop(user_id, None)
                if attempt:
                    raise

    def _created(self, user_id: str) -> Collection:
        collection = self._collections.get(user_id)
        if collection is None:
            collection = self._client.get_or_create_collection(
                self.collection_name(user_id),
                embedding_function=VectorsMustBePassed(),  # type: ignore[arg-type]
                configuration={"hnsw": _HNSW},
                metadata={"user_id": user_id},
            )
            if (collection.configuration.get("hnsw") or {}).get("sync_threshold") != (
                    SYNC_THRESHOLD):  # made before it was set
                collection.modify(configuration={"hnsw": {
                    "batch_size": SYNC_THRESHOLD, "sync_threshold": SYNC_THRESHOLD}})
            self._collections[user_id] = collection
        return collection

    async def _call(self, work: Callable[[], T]) -> T:
        """Run a blocking chromadb call in a worker thread; a chroma server that cannot be
        reached, or keeps failing inside, raises `VectorStoreUnavailable`."""
        try:
            async for attempt in _again_after_internal_error():
                with attempt:
                    return await asyncio.to_thread(work)
        except (httpx.TransportError, ConnectionError, InternalError) as error:
            raise VectorStoreUnavailable(f"The vector store cannot be reached: {error}"
                                         ) from error
        raise AssertionError("unreachable: tenacity reraises the last error")

    async def upsert(
        self,
        user_id: str,
        ids: Sequence[str],
        vectors: Sequence[Vector],
        documents: Sequence[str],
        metadatas: Sequence[dict[str, Any]],
    ) -> None:
        tagged = [{**meta, "user_id": user_id} for meta in metadatas]
        await self._call(lambda: self._write(user_id, lambda collection: collection.upsert(
            ids=list(ids),
            embeddings=list(vectors),  # type: ignore[arg-type]
            documents=list(documents),
            metadatas=tagged,  # type: ignore[arg-type]
        )))

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
            result = await self._call(lambda: self._read(
                user_id, lambda collection: collection.query(
                    query_embeddings=list(vectors),  # type: ignore[arg-type]
                    n_results=limit,
                    include=["documents", "metadatas", "distances"],
                ), None))
        except VectorStoreUnavailable as error:
            log.warning("Nothing found by meaning: %s", error)
            return [[] for _ in vectors]
        if result is None:  # nothing stored for this user yet
            return [[] for _ in vectors]
        return [_hits(user_id, result, i) for i in range(len(vectors))]

    async def vectors(self, user_id: str) -> dict[str, Any]:
        """Every vector of the collection (numpy arrays), by id."""
        result = await self._call(lambda: self._read(
            user_id, lambda collection: collection.get(include=["embeddings"]), None))
        if result is None:
            return {}
        embeddings = result["embeddings"] if result["embeddings"] is not None else []
        return dict(zip(result["ids"], embeddings, strict=True))

    async def delete(self, user_id: str, ids: Sequence[str] | None = None) -> None:
        """Delete the user's records: the given ids, or the user's whole collection."""
        if ids is None:
            await self._call(lambda: self._drop(user_id))
        elif ids:
            await self._call(lambda: self._read(
                user_id, lambda collection: collection.delete(ids=list(ids)), None))

    def _drop(self, user_id: str) -> None:
        self._collections.pop(user_id, None)
        with suppress(NotFoundError):  # nothing was ever stored for this user
            self._client.delete_collection(self.collection_name(user_id))
