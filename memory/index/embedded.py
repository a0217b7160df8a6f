"""Collections in an embedded chromadb (`PersistentClient`) in the data folder. chromadb's
client blocks, so every call runs in a worker thread."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any, TypeVar

import chromadb
from chromadb.api import ClientAPI
from chromadb.api.models.Collection import Collection
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
from chromadb.config import Settings
from chromadb.errors import InternalError, NotFoundError

from memory.errors import VectorStoreUnavailable
from memory.index.collections import (
    EMBEDDING_FUNCTION,
    HNSW,
    HNSW_UPDATE,
    INCLUDED,
    STORED,
    SYNC_THRESHOLD,
    QueryResult,
    Records,
    again_after,
)
from memory.protocols import Vector

T = TypeVar("T")


class VectorsMustBePassed(EmbeddingFunction[Documents]):
    """Stands in for chromadb's default embedding function; Companion always passes vectors."""

    def __init__(self) -> None:
        pass

    def __call__(self, input: Documents) -> Embeddings:
        raise RuntimeError("Companion passes vectors explicitly; chromadb must not embed text")

    @staticmethod
    def name() -> str:
        return EMBEDDING_FUNCTION

    def get_config(self) -> dict[str, Any]:
        return {}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> VectorsMustBePassed:
        return VectorsMustBePassed()


def open_embedded(data_dir: Path) -> EmbeddedCollections:
    """The embedded store in `data_dir/chroma` (blocking)."""
    client = chromadb.PersistentClient(path=str(data_dir / "chroma"),
                                       settings=Settings(anonymized_telemetry=False))
    return EmbeddedCollections(client)


class EmbeddedCollections:
    """Collections of one chromadb client, each call in a worker thread."""

    def __init__(self, client: ClientAPI) -> None:
        self._client = client
        self._open: dict[str, Collection] = {}

    async def query(self, name: str, vectors: Sequence[Vector], limit: int
                    ) -> QueryResult | None:
        result = await self._call(lambda: self._read(name, lambda collection: collection.query(
            query_embeddings=list(vectors),  # type: ignore[arg-type]
            n_results=limit,
            include=INCLUDED,  # type: ignore[arg-type]
        )))
        return dict(result) if result is not None else None

    async def upsert(self, name: str, owner: dict[str, Any], ids: Sequence[str],
                     vectors: Sequence[Vector], documents: Sequence[str],
                     metadatas: Sequence[dict[str, Any]]) -> None:
        await self._call(lambda: self._write(name, owner, lambda collection: collection.upsert(
            ids=list(ids),
            embeddings=list(vectors),  # type: ignore[arg-type]
            documents=list(documents),
            metadatas=list(metadatas),
        )))

    async def records(self, name: str, ids: Sequence[str] | None = None) -> Records | None:
        result = await self._call(lambda: self._read(name, lambda collection: collection.get(
            ids=None if ids is None else list(ids),
            include=STORED,  # type: ignore[arg-type]
        )))
        if result is None:
            return None
        return Records(ids=list(result["ids"]), vectors=list(_listed(result["embeddings"])),
                       documents=[d or "" for d in _listed(result["documents"])],
                       metadatas=[dict(m or {}) for m in _listed(result["metadatas"])])

    async def delete(self, name: str, ids: Sequence[str]) -> None:
        await self._call(lambda: self._read(
            name, lambda collection: collection.delete(ids=list(ids))))

    async def drop(self, name: str) -> None:
        def drop() -> None:
            self._open.pop(name, None)
            with suppress(NotFoundError):  # nothing was ever stored in it
                self._client.delete_collection(name)
        await self._call(drop)

    async def names(self) -> list[str]:
        return await self._call(lambda: [c.name for c in self._client.list_collections()])

    async def close(self) -> None:
        close = getattr(self._client, "close", None)  # chromadb's Client has one
        if close is not None:
            await asyncio.to_thread(close)

    def _read(self, name: str, work: Callable[[Collection], T]) -> T | None:
        """`work` on the collection (blocking); None when there is none. A read never
        creates a collection."""
        try:
            collection = self._open.get(name)
            if collection is None:
                collection = self._client.get_collection(
                    name, embedding_function=VectorsMustBePassed())  # type: ignore[arg-type]
                self._open[name] = collection
            return work(collection)
        except NotFoundError:
            self._open.pop(name, None)
            return None

    def _write(self, name: str, owner: dict[str, Any],
               work: Callable[[Collection], None]) -> None:
        """`work` on the collection (blocking), created first when needed, and again when
        something else dropped the one this client knew."""
        for attempt in range(2):
            try:
                return work(self._created(name, owner))
            except NotFoundError:
                self._open.pop(name, None)
                if attempt:
                    raise

    def _created(self, name: str, owner: dict[str, Any]) -> Collection:
        collection = self._open.get(name)
        if collection is None:
            collection = self._client.get_or_create_collection(
                name,
                embedding_function=VectorsMustBePassed(),  # type: ignore[arg-type]
                configuration={"hnsw": HNSW},  # type: ignore[arg-type]
                metadata=owner,
            )
            if (collection.configuration.get("hnsw") or {}).get("sync_threshold") != (
                    SYNC_THRESHOLD):  # made before it was set
                collection.modify(configuration={"hnsw": HNSW_UPDATE})  # type: ignore[arg-type]
            self._open[name] = collection
        return collection

    async def _call(self, work: Callable[[], T]) -> T:
        try:
            async for attempt in again_after(InternalError):
                with attempt:
                    return await asyncio.to_thread(work)
        except InternalError as error:
            raise VectorStoreUnavailable(f"The vector store keeps failing: {error}") from error
        raise AssertionError("unreachable: tenacity reraises the last error")


def _listed(values: Any) -> Any:
    """chromadb gives None for a field of no records (and an array for vectors)."""
    return values if values is not None else []
