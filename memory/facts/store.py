"""Fact memory: SQL rows are the record (with their lexical index); a vector index per user finds
them by meaning. Taught facts (what the user taught on purpose) have a vector index and, on
SQLite, a lexical index of their own: they are few, searched apart, and shown first."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import replace

from memory.beliefs.belief import SUPERSEDED
from memory.beliefs.subjects import Subjects
from memory.errors import EmbeddingUnavailable
from memory.facts.held_taught import HeldTaught, TaughtVersion
from memory.facts.hits import fact_of, metadata_of
from memory.facts.rows import REPLACED, SQLFactRows, to_fact
from memory.index.chroma import ChromaIndex, VectorHit
from memory.lexical import query_terms
from memory.protocols import Embedder, Vector
from memory.sql.retracted import RETRACTED, restore_retracted
from memory.sql.tables import facts
from memory.types import Fact, Origin, Speaker

log = logging.getLogger(__name__)


class FactStore:
    """Facts of each user. Rows are written first (by the memory jobs, in the transaction that
    finishes a summary), then indexed; a row the index missed is repaired by the sweep.

    Provisional facts (`memory.facts.provisional`) keep their vectors in their rows instead: a
    user has few of them (the rounds no window has summarized yet), one SQL write keeps one,
    and a write to the vector index costs more than the rest of a turn's memory work. They
    are searched by meaning in SQL beside the index, and reach the index as their window's
    facts."""

    def __init__(
        self, rows: SQLFactRows, index: ChromaIndex, taught_index: ChromaIndex, embedder: Embedder,
        subjects: Subjects | None = None,
    ) -> None:
        """`subjects`: names what a provisional fact is about, so the newest statement on a
        subject is found before its window is summarized (None: not until then)."""
        self.rows = rows
        self._indexes = {Origin.SAID: index, Origin.TAUGHT: taught_index}
        self._embedder = embedder
        self._subjects = subjects
        self._held_taught = HeldTaught(taught_index)

    async def add_facts(self, new_facts: Sequence[Fact]) -> None:
        """Store and index facts of one user (the Python API; jobs write rows themselves)."""
        await self.rows.insert(new_facts)
        await self.index(new_facts)

    async def index(self, facts: Sequence[Fact]) -> None:
        """Put facts of one user into their vector index (a provisional fact's vector into its
        row) and record that they are there."""
        if not facts:
            return
        user_id = facts[0].user_id
        paired = list(zip(facts, await self._embedder.embed([f.text for f in facts]),
                          strict=True))
        await self.rows.set_vectors(user_id, {f.id: v for f, v in paired if f.provisional})
        await self._upsert(user_id, [(f, v) for f, v in paired if not f.provisional])

    async def _upsert(self, user_id: str, paired: Sequence[tuple[Fact, Vector]]) -> None:
        """Write the vectors into the index. A fact may leave `active` meanwhile (retracted,
        forgotten, replaced), and whoever took it out may have cleared the index before the
        vector went in: so the rows are read after the write, and the vectors of facts no
        longer active are taken out again."""
        for origin, index in self._indexes.items():
            chosen = [(f, v) for f, v in paired if f.origin is origin]
            if chosen:
                await index.upsert(
                    user_id, [f.id for f, _ in chosen], [v for _, v in chosen],
                    [f.text for f, _ in chosen], [metadata_of(f) for f, _ in chosen],
                )
        active = await self.rows.active_ids(user_id, [f.id for f, _ in paired])
        for origin, index in self._indexes.items():
            if gone := [f.id for f, _ in paired if f.origin is origin and f.id not in active]:
                await index.delete(user_id, gone)
        await self.rows.mark_indexed(user_id, [f.id for f, _ in paired if f.id in active])

    async def by_meaning(
        self, user_id: str, vector: Vector, limit: int, *, taught: bool = False,
        in_index: bool = True, taught_version: TaughtVersion | None = None,
    ) -> list[tuple[Fact, float]]:
        """The user's facts (found in conversations, or the taught ones) closest in meaning,
        with their cosine similarity. `in_index`: False when the index holds none of them
        (`rows.held`), so that only the provisional facts are searched. `taught_version`
        (`rows.held`): the taught facts are searched in memory while it holds."""
        if taught and taught_version is not None:
            held = await self._held_taught.nearest(user_id, taught_version, [vector], limit)
            if held is not None:
                return held[0]
        [found] = await self.by_meaning_many(user_id, [vector], limit, taught=taught,
                                             in_index=in_index)
        return found

    async def by_meaning_many(
        self, user_id: str, vectors: Sequence[Vector], limit: int, *, taught: bool = False,
        in_index: bool = True,
    ) -> list[list[tuple[Fact, float]]]:
        """`by_meaning` for each of `vectors`, in one query of the index (and one read of the
        provisional facts): a window's belief checks ask for a few dozen at once."""
        origin = Origin.TAUGHT if taught else Origin.SAID
        searched = (self._indexes[origin].query_many(user_id, vectors, limit) if in_index
                    else _no_hits(len(vectors)))
        if taught:
            return [[(fact_of(user_id, hit, origin), hit.score) for hit in mine]
                    for mine in await searched]
        hits, provisional = await asyncio.gather(
            searched, self.rows.provisional_closest(user_id, vectors, limit))
        return [sorted([(fact_of(user_id, hit, origin), hit.score) for hit in mine] + held,
                       key=lambda pair: -pair[1])[:limit]
                for mine, held in zip(hits, provisional, strict=True)]

    async def keep_provisional(self, new_facts: Sequence[Fact]) -> list[Fact]:
        """Store the provisional facts of one user not stored yet, each with its vector;
        returns those new. When the embedder is down, they are found by words until the sweep
        embeds them."""
        try:
            vectors = await self._embedder.embed([f.text for f in new_facts]) if new_facts else []
        except EmbeddingUnavailable as error:
            log.warning("Provisional facts found by words only until the sweep: %s", error)
            return await self.rows.insert_provisional(new_facts, None)
        if self._subjects is not None:
            await self._subjects.load()
            new_facts = [replace(fact, subject=self._subjects.of_vector(fact.text, vector))
                         if fact.speaker is Speaker.USER else fact
                         for fact, vector in zip(new_facts, vectors, strict=True)]
        return await self.rows.insert_provisional(new_facts, vectors)

    async def by_words(
        self, user_id: str, text: str, limit: int, *, taught: bool = False
    ) -> list[tuple[Fact, float]]:
        """The user's facts (only the taught ones if `taught`) that share words with `text`,
        with their lexical score."""
        return await self.rows.by_words(user_id, query_terms(text), limit, taught=taught)

    async def newest(
        self, user_id: str, limit: int, offset: int = 0, *, origin: Origin | None = None
    ) -> list[Fact]:
        return await self.rows.newest(user_id, limit, offset, origin=origin)

    async def count(self, user_id: str, *, origin: Origin | None = None) -> int:
        return await self.rows.count(user_id, origin=origin)

    async def count_stored(self, user_id: str) -> int:
        """Every fact of the user that forgetting them all deletes: the retracted and the
        superseded ones too, kept for undo (`count` counts the facts searched)."""
        return await self.rows.count_stored(user_id)

    async def retract(self, user_id: str, fact_id: str) -> Fact | None:
        """Take a fact the user says is wrong out of every search, kept for audit and undo."""
        fact = await self.rows.retract(user_id, fact_id)
        if fact is not None:
            await self.unindex([fact])
        return fact

    async def forget_taught(self, user_id: str) -> int:
        """Forget every fact the user taught; returns how many."""
        deleted = await self.rows.delete_taught(user_id)
        await self._indexes[Origin.TAUGHT].delete(user_id, None)
        return deleted

    async def restore(self, user_id: str, id_prefix: str) -> Fact | None:
        """Undo a retraction, or a supersession (the retracted or superseded fact whose id
        starts so): it is searched again. A superseded belief comes back with the confidence
        it lost with, and the belief that superseded it stays."""
        row = (await restore_retracted(self.rows.engine, facts, user_id, id_prefix)
               or await restore_retracted(self.rows.engine, facts, user_id, id_prefix,
                                          status=SUPERSEDED, superseded_by=None))
        if row is None:
            return None
        fact = to_fact(row)
        await self.index([fact])
        return fact

    async def find(self, user_id: str, id_prefix: str) -> list[Fact]:
        """The user's facts whose id starts with `id_prefix` (at most two: enough to tell)."""
        return await self.rows.with_id_prefix(user_id, id_prefix.lower())

    async def forget(self, user_id: str, fact_id: str | None = None) -> int:
        """Forget one fact of the user, or all of them; returns how many. A provisional fact
        keeps its id, without its words, until its window's summary (which must not bring it
        back) is done."""
        forgotten = await self.rows.with_id_prefix(user_id, fact_id) if fact_id else []
        if forgotten and forgotten[0].provisional:
            await self.rows.forget_provisional(user_id, forgotten[0].id)
            await self._indexes[Origin.SAID].delete(user_id, [forgotten[0].id])
            return 1
        deleted = await self.rows.delete(user_id, fact_id)
        # "All" drops the user's whole collections, even vectors left by an interrupted write.
        for index in self._indexes.values():
            await index.delete(user_id, None if fact_id is None else [fact_id])
        return deleted

    async def reindex(self) -> int:
        """Index the facts a crash or an embedder outage left out, and take out the retracted
        ones the index still holds; returns how many."""
        repaired = 0
        while stale := await self.rows.unindexed():
            for user_id in dict.fromkeys(f.user_id for f in stale):
                await self.index([f for f in stale if f.user_id == user_id])
            repaired += len(stale)
        for status in (RETRACTED, SUPERSEDED):
            while gone := await self.rows.unindexed(status=status):
                for fact in gone:
                    await self._unindex(fact)
                repaired += len(gone)
        while replaced := await self.rows.unindexed(status=REPLACED):
            for user_id in dict.fromkeys(f.user_id for f in replaced):
                await self._drop([f for f in replaced if f.user_id == user_id])
            repaired += len(replaced)
        return repaired

    async def drop_replaced(self, replaced: Sequence[Fact]) -> None:
        """Take provisional facts their window's summary replaced out of the index, then out
        of SQL; what fails here is left to the sweep."""
        if not replaced:
            return
        try:
            await self._drop(replaced)
        except Exception:
            log.warning("%d replaced facts are still in the vector index", len(replaced),
                        exc_info=True)

    async def _drop(self, replaced: Sequence[Fact]) -> None:
        user_id = replaced[0].user_id
        ids = [f.id for f in replaced]
        # A provisional fact's vector is kept in its row, never in the index: only one stored
        # before that (migration 12), whose row has no vector, may be there. A chroma server
        # spends about 10 ms of CPU on a delete, even of ids it does not hold.
        if indexed := await self.rows.replaced_without_vectors(user_id, ids):
            await self._indexes[Origin.SAID].delete(user_id, indexed)
        await self.rows.delete_replaced(user_id, ids)

    async def unindex(self, gone: Sequence[Fact]) -> None:
        """Take facts that left `active` out of the vector index; the sweep retries."""
        for fact in gone:
            try:
                await self._unindex(fact)
            except Exception:
                log.warning("Fact %s is still in the vector index", fact.id[:8], exc_info=True)

    async def _unindex(self, fact: Fact) -> None:
        await self._indexes[fact.origin].delete(fact.user_id, [fact.id])
        await self.rows.mark_indexed(fact.user_id, [fact.id])


async def _no_hits(count: int) -> list[list[VectorHit]]:
    return [[] for _ in range(count)]
