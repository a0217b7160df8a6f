"""The shared pool of good exchanges (Memory Sharing): SQL is the record, and the shared
entries' vectors live in one chroma collection per domain (the paper's domain pools; with
`sharing.scope = "all"` every domain's collection is searched, one single pool).

Nothing gets in unscrubbed: `add` takes personal details out of the prompt and the answer
before either is stored. Only shared entries are indexed, so only they can ever be found.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from memory.errors import EmbeddingUnavailable, VectorStoreUnavailable
from memory.index.chroma import ChromaIndex, VectorHit
from memory.pool.held import REFRESH_SECONDS, HeldVectors
from memory.pool.reranker import Entries
from memory.pool.rows import SQLPoolRows
from memory.pool.scrub import Scrubber
from memory.protocols import Embedder, Vector
from memory.types import PoolEntry, PoolStatus, Round

log = logging.getLogger(__name__)


def entry_id(*parts: object) -> str:
    """Ids come from where an entry came from: adding it twice stores it once."""
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()[:32]


class SharedPool:
    def __init__(self, rows: SQLPoolRows, index: ChromaIndex, embedder: Embedder,
                 scrubber: Scrubber, clock: Callable[[], float] = time.monotonic,
                 held: HeldVectors | None = None) -> None:
        """`held`: the domains' vectors in memory (by default, those of `index`)."""
        self.rows = rows
        self._index = index
        self._embedder = embedder
        self._scrubber = scrubber
        self._clock = clock
        # The domains that hold a shared entry, read at most every REFRESH_SECONDS: a domain
        # without one is not searched (most messages of a bot nobody shares with).
        self._holding: set[str] = set()
        self._holding_read_at = float("-inf")
        self._held = held or HeldVectors(index, rows.count_shared, clock)

    async def add(self, entry: PoolEntry, *, scrub: bool = True) -> PoolEntry:
        """Store an entry, its prompt and answer scrubbed first (`scrub=False` only for text a
        person wrote as an example); a shared one is indexed at once. Returns what is stored
        (the earlier entry when this one was stored before)."""
        if scrub:
            entry = await self.scrubbed(entry)
        stored = await self.rows.insert(entry)
        if stored.status is PoolStatus.SHARED:
            await self._index_quietly([stored])
        return stored

    async def add_written(self, entries: Sequence[PoolEntry]) -> int:
        """Store entries a person wrote as examples (not scrubbed), indexing the new ones in
        one go; entries stored before are left as they are. Returns how many were new."""
        new = [e for e in entries if await self.rows.insert(e) is e]
        await self._index_quietly([e for e in new if e.status is PoolStatus.SHARED])
        return len(new)

    async def scrubbed(self, entry: PoolEntry) -> PoolEntry:
        """The entry with the personal details of its prompt and answer taken out."""
        prompt, answer = await self._scrubber.scrub([entry.prompt, entry.answer])
        return replace(entry, prompt=prompt, answer=answer)

    async def set_status(self, entry: PoolEntry, status: PoolStatus,
                         reviewed_by: str | None = None) -> PoolEntry:
        await self.rows.set_status(entry.id, status, reviewed_by)
        changed = replace(entry, status=status)
        await self._index_quietly([changed])
        return changed

    async def scored(self, entry: PoolEntry, score: int, kind: str, version: int) -> PoolEntry:
        await self.rows.scored(entry.id, score, kind, version)
        changed = replace(entry, score=score, kind=kind, rubric_version=version)
        await self._index_quietly([changed])
        return changed

    async def forget_user(self, user_id: str) -> int:
        """Delete every entry from the user's chats, from SQL and the index."""
        gone = await self.rows.delete_of_user(user_id)
        for domain in {e.domain for e in gone}:
            await self._index.delete(domain, [e.id for e in gone if e.domain == domain])
            self._held.drop(domain, [e.id for e in gone if e.domain == domain])
        return len(gone)

    async def _index_quietly(self, entries: Sequence[PoolEntry]) -> None:
        """Bring the index in line with these rows; when the embedder is down, the rows stay
        marked and the sweep repairs them."""
        try:
            await self._sync_index(entries)
        except (EmbeddingUnavailable, VectorStoreUnavailable) as error:
            log.warning("Pool entries left for the sweep to index: %s", error)

    async def _sync_index(self, entries: Sequence[PoolEntry]) -> None:
        shared = [e for e in entries if e.status is PoolStatus.SHARED]
        if shared:
            vectors = await self._embedder.embed([e.prompt for e in shared])
            for domain in {e.domain for e in shared}:
                mine = [(e, v) for e, v in zip(shared, vectors, strict=True)
                        if e.domain == domain]
                await self._index.upsert(
                    domain, [e.id for e, _ in mine], [v for _, v in mine],
                    [e.prompt for e, _ in mine], [_metadata(e) for e, _ in mine])
                self._held.put(domain, [e.id for e, _ in mine], [v for _, v in mine])
                self._holding.add(domain)  # searched at once in this process
        for entry in entries:
            if entry.status is not PoolStatus.SHARED:
                await self._index.delete(entry.domain, [entry.id])
                self._held.drop(entry.domain, [entry.id])
        await self.rows.mark_indexed([e.id for e in entries])

    async def reindex(self) -> int:
        """Index what an interrupted write left behind; returns how many rows it repaired."""
        repaired = 0
        while stale := await self.rows.unindexed():
            await self._sync_index(stale)
            repaired += len(stale)
        return repaired

    async def nearest(self, domains: Sequence[str], vector: Vector,
                      limit: int) -> list[VectorHit]:
        """The shared entries of these domains nearest to `vector`, nearest first."""
        hits: list[VectorHit] = []
        holding = await self._domains_holding()
        for domain in [d for d in domains if d in holding]:
            hits += await self._nearest_in(domain, vector, limit)
        return sorted(hits, key=lambda h: -h.score)[:limit]

    async def _nearest_in(self, domain: str, vector: Vector, limit: int) -> list[VectorHit]:
        nearest = await self._held.nearest(domain, vector, limit)
        if nearest is None:  # too large to hold in memory
            return await self._index.query(domain, vector, limit)
        found = await self._shared_hits(nearest)
        if len(found) < len(nearest):  # another process took some out since they were read
            self._held.drop(domain, [i for i, _ in nearest if i not in {h.id for h in found}])
            found = await self._shared_hits(await self._held.nearest(domain, vector, limit)
                                            or [])
        return found

    async def _shared_hits(self, found: list[tuple[str, float]]) -> list[VectorHit]:
        """Entries found in memory, as the index would give them; only those still shared."""
        entries = {e.id: e for e in await self.rows.shared_by_ids([i for i, _ in found])}
        return [VectorHit(id=i, score=score, document=entries[i].prompt,
                          metadata=_metadata(entries[i]))
                for i, score in found if i in entries]

    async def _domains_holding(self) -> set[str]:
        if self._clock() - self._holding_read_at >= REFRESH_SECONDS:
            self._holding_read_at = self._clock()
            self._holding = await self.rows.shared_domains()
        return self._holding

    async def labelled(self) -> tuple[list[PoolEntry], Entries]:
        """The shared entries that have a kind and a vector, oldest first, for training."""
        entries = await self.rows.shared(labelled=True)
        vectors: dict[str, np.ndarray] = {}
        for domain in {e.domain for e in entries}:
            vectors.update(await self._index.vectors(domain))
        kept = [e for e in entries if e.id in vectors]
        return kept, Entries(
            np.array([vectors[e.id] for e in kept], dtype=np.float32).reshape(len(kept), -1),
            tuple(e.prompt for e in kept), tuple(e.domain for e in kept),
            tuple(e.kind for e in kept))


def _metadata(entry: PoolEntry) -> dict[str, str | int]:
    """What a prompt needs of an entry, so a turn reads no SQL for its examples."""
    return {"answer": entry.answer, "kind": entry.kind or "", "persona": entry.persona,
            "domain": entry.domain}


def hit_entry(hit: VectorHit) -> PoolEntry:
    """A shared entry as the index holds it."""
    meta = hit.metadata
    return PoolEntry(id=hit.id, prompt=hit.document, answer=str(meta.get("answer", "")),
                     persona=str(meta.get("persona", "")), domain=str(meta.get("domain", "")),
                     kind=str(meta.get("kind") or "") or None, status=PoolStatus.SHARED,
                     source="")


def from_round(round_: Round, domain: str, status: PoolStatus, source: str,
               score: int | None = None, kind: str | None = None,
               rubric_version: int | None = None) -> PoolEntry:
    """A round of a chat as a pool entry, not yet scrubbed (`SharedPool.add` scrubs it)."""
    return PoolEntry(id=entry_id("round", round_.id), prompt=round_.user_text,
                     answer=round_.reply_text or "", persona=round_.persona, domain=domain,
                     kind=kind, status=status, source=source, score=score,
                     rubric_version=rubric_version, user_id=round_.user_id, round_id=round_.id)
