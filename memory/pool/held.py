"""The shared pool's vectors of each domain, held in memory and searched exactly.

Every turn in a domain that holds a shared entry asks for the entries nearest its message,
searched exactly in memory (`memory.index.exact`) for a fraction of a query's cost. The vector
store stays the record of the vectors: a domain's are read from it when first searched and
again every `REFRESH_SECONDS`, so an entry another process shared is found within that time.
What this process shares or takes out changes them at once. A domain with more than `MAX_HELD`
shared entries is left to the vector store, whose graph scales where a product does not.

Only ids and cosines come out of here: the caller reads the entries from SQL, which also keeps
out an entry another process took out of the pool since the vectors were read.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import numpy as np

from memory.index.chroma import ChromaIndex
from memory.index.exact import nearest, units
from memory.protocols import Vector

REFRESH_SECONDS = 60.0
# 20,000 vectors of 384 floats are 31 MB of a process's memory; above that the index searches.
MAX_HELD = 20_000


@dataclass(frozen=True, slots=True)
class _Domain:
    ids: tuple[str, ...]
    units: np.ndarray | None  # (entries, dimensions), unit length; None: too many to hold
    read_at: float


class HeldVectors:
    """The shared vectors of each domain, in memory."""

    def __init__(self, index: ChromaIndex, count_shared: Callable[[str], Awaitable[int]],
                 clock: Callable[[], float] = time.monotonic, max_held: int = MAX_HELD) -> None:
        """`count_shared`: how many shared entries a domain has (SQL, before its vectors are
        read); `max_held`: above this many, the domain is left to the index."""
        self._index = index
        self._count_shared = count_shared
        self._clock = clock
        self._max_held = max_held
        self._domains: dict[str, _Domain] = {}

    async def nearest(self, domain: str, vector: Vector, limit: int
                      ) -> list[tuple[str, float]] | None:
        """The ids of the domain's shared entries nearest to `vector` with their cosines,
        nearest first; None when the domain has too many to hold (ask the index)."""
        held = await self._held(domain)
        if held.units is None:
            return None
        return [(held.ids[i], cosine) for i, cosine in nearest(held.units, vector, limit)]

    def put(self, domain: str, ids: Sequence[str], vectors: Sequence[Vector]) -> None:
        """Entries this process just indexed (new, or with new vectors)."""
        held = self._domains.get(domain)
        if held is None or held.units is None:
            return  # read whole at the next search
        self.drop(domain, ids)
        held = self._domains[domain]
        assert held.units is not None
        added = units(vectors)
        joined = added if not held.ids else np.vstack([held.units, added])
        self._domains[domain] = _Domain(held.ids + tuple(ids), joined, held.read_at)

    def drop(self, domain: str, ids: Sequence[str]) -> None:
        """Entries this process took out of the index."""
        held = self._domains.get(domain)
        if held is None or held.units is None:
            return
        gone = set(ids)
        kept = [i for i, entry in enumerate(held.ids) if entry not in gone]
        if len(kept) < len(held.ids):
            self._domains[domain] = _Domain(tuple(held.ids[i] for i in kept),
                                            held.units[kept], held.read_at)

    async def _held(self, domain: str) -> _Domain:
        held = self._domains.get(domain)
        if held is None or self._clock() - held.read_at >= REFRESH_SECONDS:
            held = self._domains[domain] = await self._read(domain)
        return held

    async def _read(self, domain: str) -> _Domain:
        read_at = self._clock()
        if await self._count_shared(domain) > self._max_held:
            return _Domain((), None, read_at)
        vectors = await self._index.vectors(domain)
        ids = tuple(vectors)
        return _Domain(ids, units(list(vectors.values())), read_at)
