"""Topic vectors in chromadb: embedded (`PersistentClient`) or a chroma server (`HttpClient`).

chromadb's clients block, so every call runs in a worker thread. Vectors are always computed by
our embedder and passed in; the collection still gets an explicit embedding function so chromadb
never falls back to its default one (which downloads a model and fails offline).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import chromadb
from chromadb.api import ClientAPI
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings

from memory.protocols import Vector


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


def open_client(url: str, data_dir: Path) -> ClientAPI:
    """A chroma server client when `url` is set, else an embedded store in `data_dir/chroma`."""
    settings = chromadb.Settings(anonymized_telemetry=False)
    if not url:
        return chromadb.PersistentClient(path=str(data_dir / "chroma"), settings=settings)
    parts = urlsplit(url)
    return chromadb.HttpClient(
        host=parts.hostname or "localhost",
        port=parts.port or (443 if parts.scheme == "https" else 8000),
        ssl=parts.scheme == "https",
        settings=settings,
    )


class ChromaIndex:
    """One chromadb collection whose records all carry a `user_id`; every read filters on it."""

    def __init__(self, client: ClientAPI, collection_name: str) -> None:
        self._collection = client.get_or_create_collection(
            collection_name,
            embedding_function=VectorsMustBePassed(),  # type: ignore[arg-type]
            configuration={"hnsw": {"space": "cosine"}},
        )

    async def upsert(
        self,
        user_id: str,
        ids: Sequence[str],
        vectors: Sequence[Vector],
        documents: Sequence[str],
        metadatas: Sequence[dict[str, Any]],
    ) -> None:
        tagged = [{**meta, "user_id": user_id} for meta in metadatas]
        await asyncio.to_thread(
            self._collection.upsert,
            ids=list(ids),
            embeddings=list(vectors),  # type: ignore[arg-type]
            documents=list(documents),
            metadatas=tagged,  # type: ignore[arg-type]
        )

    async def query(self, user_id: str, vector: Vector, limit: int) -> list[VectorHit]:
        if limit <= 0:
            return []
        result = await asyncio.to_thread(
            self._collection.query,
            query_embeddings=[vector],  # type: ignore[arg-type]
            n_results=limit,
            where={"user_id": user_id},
            include=["documents", "metadatas", "distances"],  # type: ignore[list-item]
        )
        ids = result["ids"][0]
        documents = (result["documents"] or [[]])[0]
        metadatas = (result["metadatas"] or [[]])[0]
        distances = (result["distances"] or [[]])[0]
        return [
            VectorHit(id=i, score=1.0 - float(d), document=doc or "", metadata=dict(meta or {}))
            for i, doc, meta, d in zip(ids, documents, metadatas, distances, strict=True)
            # Defence in depth: the filter is in the query, and checked again here.
            if meta and meta.get("user_id") == user_id
        ]

    async def delete(self, user_id: str, ids: Sequence[str] | None = None) -> None:
        """Delete the user's records (the given ids, or all)."""
        if ids is not None and not ids:
            return
        await asyncio.to_thread(
            self._collection.delete,
            ids=list(ids) if ids is not None else None,
            where={"user_id": user_id},
        )

    async def count(self) -> int:
        return await asyncio.to_thread(self._collection.count)
