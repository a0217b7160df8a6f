"""Collections on a chroma server, over its HTTP API (v2) with aiohttp on the event loop.

chromadb's own client blocks (each call in a worker thread) and checks every vector in Python:
a query of a user's collection cost the bot 1.8-2.2 ms of CPU through it, 0.5-0.8 ms this
way (`docs/pages/performance.md`). The requests are the ones chromadb's client sends
(`chromadb/api/fastapi.py`), and collections are made with the configuration it would give
them, so either client reads what the other wrote.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from typing import Any
from urllib.parse import quote

import aiohttp
import numpy as np
import orjson

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

# What chromadb's `create_collection_configuration_to_json` makes of `{"hnsw": HNSW}` and
# `VectorsMustBePassed` (a test holds them equal).
CONFIGURATION: dict[str, Any] = {
    "hnsw": HNSW, "spann": None,
    "embedding_function": {"name": EMBEDDING_FUNCTION, "type": "known", "config": {}},
}
_TIMEOUT = aiohttp.ClientTimeout(total=60, connect=5)
_JSON = {"Content-Type": "application/json"}
_PAGE = 1000  # collections listed in one answer


class _Missing(Exception):
    """The server has no such collection."""


class _FailedInside(Exception):
    """The server failed a call inside (its InternalError); the same call may succeed again."""


class ChromaServer:
    """The collections of one chroma server's default tenant and database."""

    def __init__(self, url: str, tenant: str = "default_tenant",
                 database: str = "default_database") -> None:
        self._api = f"{url.rstrip('/')}/api/v2"
        self._collections = f"{self._api}/tenants/{tenant}/databases/{database}/collections"
        self._ids: dict[str, str] = {}  # a collection's id, by name
        self._session: aiohttp.ClientSession | None = None

    async def heartbeat(self) -> None:
        """Raises `VectorStoreUnavailable` when the server does not answer."""
        await self._request("GET", f"{self._api}/heartbeat")

    async def query(self, name: str, vectors: Sequence[Vector], limit: int
                    ) -> QueryResult | None:
        body = {"ids": None, "query_embeddings": list(vectors), "n_results": limit,
                "where": None, "where_document": None, "include": INCLUDED}
        result: QueryResult | None = await self._read(name, "query", body)
        return result

    async def upsert(self, name: str, owner: dict[str, Any], ids: Sequence[str],
                     vectors: Sequence[Vector], documents: Sequence[str],
                     metadatas: Sequence[dict[str, Any]]) -> None:
        body = {"ids": list(ids), "embeddings": list(vectors), "metadatas": list(metadatas),
                "documents": list(documents), "uris": None}
        for attempt in range(2):
            collection = self._ids.get(name) or await self._created(name, owner)
            try:
                await self._request("POST", f"{self._collections}/{collection}/upsert", body)
                return
            except _Missing:  # something else dropped it: make it again
                self._ids.pop(name, None)
                if attempt:
                    raise VectorStoreUnavailable(f"The collection {name} keeps vanishing"
                                                 ) from None

    async def records(self, name: str, ids: Sequence[str] | None = None) -> Records | None:
        body = {"ids": None if ids is None else list(ids), "where": None, "limit": None,
                "offset": None, "where_document": None, "include": STORED}
        result = await self._read(name, "get", body)
        if result is None:
            return None
        return Records(ids=list(result["ids"]),
                       vectors=[np.asarray(v, dtype=np.float32)
                                for v in result.get("embeddings") or []],
                       documents=[d or "" for d in result.get("documents") or []],
                       metadatas=[dict(m or {}) for m in result.get("metadatas") or []])

    async def delete(self, name: str, ids: Sequence[str]) -> None:
        await self._read(name, "delete", {"ids": list(ids), "where": None,
                                          "where_document": None})

    async def drop(self, name: str) -> None:
        self._ids.pop(name, None)
        with suppress(_Missing):  # nothing was ever stored in it
            await self._request("DELETE", f"{self._collections}/{quote(name)}")

    async def names(self) -> list[str]:
        names: list[str] = []
        while found := await self._request(
                "GET", f"{self._collections}?limit={_PAGE}&offset={len(names)}"):
            names += [collection["name"] for collection in found]
            if len(found) < _PAGE:
                break
        return names

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def _read(self, name: str, action: str, body: dict[str, Any]) -> Any:
        """`action` on the collection; None when there is none. A read never creates one.
        An id this process knew may be of a collection dropped since (and maybe made
        again): its name is looked up once more."""
        for attempt in range(2):
            collection = self._ids.get(name)
            if collection is None:
                try:
                    found = await self._request("GET", f"{self._collections}/{quote(name)}")
                except _Missing:
                    return None
                collection = self._ids[name] = found["id"]
            try:
                return await self._request(
                    "POST", f"{self._collections}/{collection}/{action}", body)
            except _Missing:
                self._ids.pop(name, None)
                if attempt:
                    return None
        return None

    async def _created(self, name: str, owner: dict[str, Any]) -> str:
        made = await self._request("POST", self._collections, {
            "name": name, "metadata": owner, "configuration": CONFIGURATION, "schema": None,
            "get_or_create": True})
        hnsw = (made.get("configuration_json") or {}).get("hnsw") or {}
        if hnsw.get("sync_threshold") != SYNC_THRESHOLD:  # made before it was set
            await self._request("PUT", f"{self._collections}/{made['id']}", {
                "new_metadata": None, "new_name": None,
                "new_configuration": {"hnsw": HNSW_UPDATE, "spann": None,
                                      "embedding_function": None}})
        collection: str = made["id"]
        self._ids[name] = collection
        return collection

    async def _request(self, method: str, url: str, body: dict[str, Any] | None = None) -> Any:
        """The server's answer, parsed; retried while the server fails inside."""
        data = None if body is None else orjson.dumps(body, option=orjson.OPT_SERIALIZE_NUMPY)
        try:
            async for attempt in again_after(_FailedInside):
                with attempt:
                    return await self._send(method, url, data)
        except (TimeoutError, _FailedInside, aiohttp.ClientError, OSError) as error:
            raise VectorStoreUnavailable(
                f"The vector store cannot be reached: {error or type(error).__name__}"
            ) from error
        raise AssertionError("unreachable: tenacity reraises the last error")

    async def _send(self, method: str, url: str, data: bytes | None) -> Any:
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=_TIMEOUT)
        async with self._session.request(method, url, data=data, headers=_JSON) as response:
            payload = await response.read()
        try:
            answer = orjson.loads(payload) if payload else None
        except orjson.JSONDecodeError:  # not chroma speaking (a proxy's page)
            answer = None
        if response.status < 400:
            return answer
        error = answer.get("error", "") if isinstance(answer, dict) else ""
        message = (answer.get("message", "") if isinstance(answer, dict)
                   else payload.decode(errors="replace"))
        if error == "NotFoundError" or response.status == 404:
            raise _Missing(message)
        if error == "InternalError" or response.status >= 500:
            raise _FailedInside(message)
        raise ValueError(f"The chroma server refused a request ({response.status} {error}): "
                         f"{message}")

