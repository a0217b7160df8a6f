"""Examples for a prompt from the shared pool: the shared entries of the persona's scope best
for the message, found by cosine and reranked by the retriever's version in use."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Sequence

import numpy as np

from memory.pool.reranker import CANDIDATES, KindModel, label, rerank
from memory.pool.retriever_rows import SQLRetrieverRows
from memory.pool.store import SharedPool, hit_entry
from memory.protocols import Vector
from memory.quoting import block, quoted
from memory.types import PoolEntry

log = logging.getLogger(__name__)
REFRESH_SECONDS = 60.0  # how soon a version trained by another process is taken up


class PoolExamples:
    def __init__(
        self, pool: SharedPool, versions: SQLRetrieverRows, *, scope: str, count: int,
        domains: Sequence[str], clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`scope`: "domain" searches the persona's domain only, "all" every domain."""
        self._pool = pool
        self._versions = versions
        self._scope = scope
        self.count = count
        self._domains = tuple(sorted(set(domains)))
        self._clock = clock
        self._model: KindModel | None = None
        self._version = 0
        self._checked_at = float("-inf")

    @property
    def enabled(self) -> bool:
        return self.count > 0

    async def find(self, domain: str, text: str,
                   vector: Awaitable[Vector | None]) -> list[PoolEntry]:
        """Up to `count` examples for a message (none when the pool cannot be read)."""
        if not self.enabled:
            return []
        query = await vector
        if query is None:
            return []
        try:
            return await self._best(domain, text, query)
        except Exception as error:  # examples are optional: a failing pool costs no reply
            log.warning("No examples from the shared pool for this reply: %s", error)
            return []

    async def _best(self, domain: str, text: str, query: Vector) -> list[PoolEntry]:
        domains = (domain,) if self._scope == "domain" else self._domains
        hits = await self._pool.nearest(domains, query, CANDIDATES)
        if not hits:
            return []
        found = [hit_entry(h) for h in hits]
        best = rerank(await self.model(), np.asarray(query, dtype=np.float32), text,
                      [label(e.domain, e.kind) for e in found],
                      np.array([h.score for h in hits]), self.count)
        return [found[i] for i in best]

    async def model(self) -> KindModel | None:
        """The retriever's version in use (None: plain cosine), checked once a minute."""
        if self._clock() - self._checked_at >= REFRESH_SECONDS:
            self._checked_at = self._clock()
            if await self._versions.newest_version() != self._version:
                stored = await self._versions.in_use()
                if stored is not None:
                    self._version, model = stored
                    self._model = KindModel.from_bytes(model)
        return self._model

    def forget_model(self) -> None:
        """Look for a newer version at the next message (one was just trained here)."""
        self._checked_at = float("-inf")


def examples_section(examples: Sequence[PoolEntry], user_name: str = "host") -> list[str]:
    """The shared pool's examples, as a prompt shows them (nothing when there are none)."""
    if not examples:
        return []
    return [
        "Here are examples of good answers given in other conversations to requests like "
        "this one (personal details were replaced by placeholders such as [name]). Answer "
        f"in their manner; they are not about the {user_name}:",
        block("\n\n".join(f"Request: {quoted(e.prompt)}\nAnswer: {quoted(e.answer)}"
                            for e in examples)),
    ]
