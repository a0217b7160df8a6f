"""The vectors of corrections' keys, held in memory by row id.

A message whose corrections' wording does not decide needs the cosine of its vector with each
candidate's key: a query of the vector store per collection costs 2-3 ms of CPU, the product
with vectors in memory a hundredth of that (`memory.index.exact`). A row never changes its key,
so a vector read once stays right; the candidates come from SQL every message, so one removed
since is never asked for. A key not in memory is read from the index by id (a correction made
by another process); one the index does not hold yet (the sweep indexes it) is asked for again
after `RETRY_SECONDS`.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from memory.errors import VectorStoreUnavailable
from memory.index.chroma import ChromaIndex
from memory.index.exact import unit
from memory.protocols import Vector

RETRY_SECONDS = 60.0
# 20,000 keys of 384 floats are 31 MB; the least recently used go first beyond that.
MAX_HELD = 20_000

log = logging.getLogger(__name__)


class KeyVectors:
    """Unit vectors of correction keys by row id, read from the index once."""

    def __init__(self, index: ChromaIndex, clock: Callable[[], float] = time.monotonic,
                 max_held: int = MAX_HELD) -> None:
        self._index = index
        self._clock = clock
        self._max_held = max_held
        self._held: OrderedDict[str, np.ndarray] = OrderedDict()
        self._missing: dict[str, float] = {}  # not in the index when asked, by when

    async def of(self, wanted: Mapping[str, Sequence[str]]) -> dict[str, np.ndarray]:
        """The vectors of these row ids, each read from its owner's collection (owner: ids)
        when not held; ids the index does not hold are left out."""
        for owner, ids in wanted.items():
            if unread := [i for i in ids if i not in self._held and not self._recently_missed(i)]:
                try:
                    found = await self._index.vectors(owner, unread)
                except VectorStoreUnavailable as error:
                    log.warning("Corrections compared by words only: %s", error)
                    continue
                self.put(list(found), list(found.values()))
                self._missed([i for i in unread if i not in found])
        held = {}
        for ids in wanted.values():
            for row_id in ids:
                if (vector := self._held.get(row_id)) is not None:
                    self._held.move_to_end(row_id)
                    held[row_id] = vector
        return held

    def put(self, ids: Sequence[str], vectors: Sequence[Vector]) -> None:
        """Keys this process just indexed (or read)."""
        for row_id, vector in zip(ids, vectors, strict=True):
            self._held[row_id] = unit(vector)
            self._held.move_to_end(row_id)
            self._missing.pop(row_id, None)
        while len(self._held) > self._max_held:
            self._held.popitem(last=False)

    def _missed(self, ids: Sequence[str]) -> None:
        if len(self._missing) + len(ids) > self._max_held:
            self._missing.clear()  # a rebuilt index: asked again soon anyway
        now = self._clock()
        self._missing.update((row_id, now) for row_id in ids)

    def _recently_missed(self, row_id: str) -> bool:
        missed_at = self._missing.get(row_id)
        if missed_at is None:
            return False
        if self._clock() - missed_at >= RETRY_SECONDS:
            del self._missing[row_id]
            return False
        return True
