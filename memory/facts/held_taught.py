"""Each user's taught facts with their vectors, held in memory and searched exactly.

A person who teaches has every message searched against their taught facts; a query of the
vector store costs 2-3 ms of CPU, the product with a thousand vectors in memory a tenth of
that (`memory.index.exact`). The turn's first SQL read (`SQLFactRows.held`) already tells how
many active taught facts the index holds and the sum of their keys, a version that changes
whenever one is taught, indexed, retracted, superseded, restored or forgotten, in any process:
the held facts are read again from the index when it does. The least recently searched users
go first beyond `MAX_HELD` vectors; a user with more than that is left to the index.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from memory.errors import VectorStoreUnavailable
from memory.facts.hits import fact_of
from memory.index.chroma import ChromaIndex
from memory.index.exact import nearest, units
from memory.protocols import Vector
from memory.types import Fact, Origin

# 20,000 vectors of 384 floats are 31 MB of a process's memory.
MAX_HELD = 20_000

log = logging.getLogger(__name__)

TaughtVersion = tuple[int, int]  # active indexed taught facts: how many, the sum of their keys


@dataclass(frozen=True, slots=True)
class _Held:
    version: TaughtVersion
    facts: tuple[Fact, ...]
    units: np.ndarray


class HeldTaught:
    """The taught facts of the users searched lately, in memory."""

    def __init__(self, index: ChromaIndex, max_held: int = MAX_HELD) -> None:
        self._index = index
        self._max_held = max_held
        self._users: OrderedDict[str, _Held] = OrderedDict()
        self._count = 0  # vectors held, over all users

    async def nearest(self, user_id: str, version: TaughtVersion, vectors: Sequence[Vector],
                      limit: int) -> list[list[tuple[Fact, float]]] | None:
        """The user's taught facts nearest to each vector with their cosines, nearest first;
        None when the user has too many to hold (ask the index)."""
        if version[0] > self._max_held:
            return None
        held = self._users.get(user_id)
        if held is None or held.version != version:
            try:
                held = await self._read(user_id, version)
            except VectorStoreUnavailable as error:
                log.warning("Taught facts found by words only: %s", error)
                return [[] for _ in vectors]
        self._users.move_to_end(user_id)
        return [[(held.facts[i], cosine) for i, cosine in nearest(held.units, vector, limit)]
                for vector in vectors]

    async def _read(self, user_id: str, version: TaughtVersion) -> _Held:
        records = await self._index.records(user_id)
        held = _Held(version, tuple(fact_of(user_id, hit, Origin.TAUGHT) for hit, _ in records),
                     units([vector for _, vector in records]))
        self._forget(user_id)
        self._users[user_id] = held
        self._count += len(held.facts)
        while self._count > self._max_held and len(self._users) > 1:
            self._forget(next(iter(self._users)))
        return held

    def _forget(self, user_id: str) -> None:
        if (gone := self._users.pop(user_id, None)) is not None:
            self._count -= len(gone.facts)
