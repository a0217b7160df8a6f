"""Fact rows in SQL: the record of every fact. Every query filters on the user."""

from __future__ import annotations

import asyncio
import base64
import functools
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import bindparam, delete, exists, func, select, union_all, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from memory.beliefs.belief import SUPERSEDED, belief_columns
from memory.facts.search import facts_by_words
from memory.facts.terms import insert_facts
from memory.protocols import Vector
from memory.sql.engine import as_utc, utcnow
from memory.sql.prepared import PreparedRead, numbered_binds, numbered_values
from memory.sql.retracted import ACTIVE, RETRACTED, retract_row
from memory.sql.tables import belief_questions, facts
from memory.types import Fact, Origin, Speaker

PROVISIONAL_KEPT = 20_000  # provisional facts whose rows and vectors one process keeps
MAX_ROUND_IDS = 12  # what the provenance column holds
# A provisional fact its window's summary replaced: out of every search, its vector still to
# be taken out of the index (then the row goes).
REPLACED = "replaced"
# A provisional fact the user forgot: its text is gone, its id stays until its window is
# summarized, so the summary does not bring the statement back.
FORGOTTEN = "forgotten"
# What the user is told they have when everything goes (/forget all): the facts searched, and
# those taken out but kept for undo. Not what is left of provisional facts (replaced by their
# summary's facts, or forgotten already: an id without words).
_THE_USERS_FACTS = (ACTIVE, RETRACTED, SUPERSEDED)


@dataclass(frozen=True, slots=True)
class HeldFacts:
    """Whether a user has active taught facts, and active said facts past their first summary
    (those the vector index holds; provisional ones are searched in SQL)."""

    taught: bool
    said: bool
    # The active taught facts the index holds: how many, and the sum of their keys. Any
    # change to them changes it (`memory.facts.held_taught`).
    taught_version: tuple[int, int] = (0, 0)


class SQLFactRows:
    """Fact rows by user."""

    def __init__(self, engine: AsyncEngine, autocommit: AsyncEngine | None = None) -> None:
        """`autocommit`: an engine for statements that need no transaction
        (`open_autocommit_engine`)."""
        self._engine = engine
        self._autocommit = autocommit or engine
        # Provisional facts by id, with their vectors made unit length (see provisional_closest),
        # kept in half precision: 768 bytes a vector, 15 MB less for the 20,000 kept; cosines
        # move by about 1e-4.
        self._provisional: OrderedDict[str, tuple[Fact, np.ndarray]] = OrderedDict()
        # A read of a user's provisional facts in flight, which a second asker shares.
        self._reading: dict[str, asyncio.Future[list[tuple[Fact, np.ndarray]]]] = {}

    @property
    def engine(self) -> AsyncEngine:
        return self._engine

    async def insert(self, new_facts: Sequence[Fact]) -> None:
        """Insert active facts, marked as not yet indexed by meaning."""
        if new_facts:
            async with self._engine.begin() as conn:
                await insert_facts(conn, [fact_row(fact) for fact in new_facts])

    async def insert_provisional(self, new_facts: Sequence[Fact],
                                 vectors: Sequence[Vector] | None) -> list[Fact]:
        """Insert those of the provisional facts (of one user) whose ids are not stored yet,
        with their vectors (None: the embedder was down, the sweep embeds them); returns them."""
        if not new_facts:
            return []
        ids = [f.id for f in new_facts]
        vector_of = dict(zip(ids, vectors, strict=True)) if vectors is not None else {}
        async with self._engine.begin() as conn:
            stored = {row["id"] for row in await _stored_ids(len(ids)).rows(
                conn, user_id=new_facts[0].user_id, **numbered_values("id", ids))}
            missing = [f for f in new_facts if f.id not in stored]
            if missing:
                await insert_facts(conn, [
                    fact_row(fact) | _vector_columns(vector_of.get(fact.id))
                    for fact in missing])
        return missing

    async def set_vectors(self, user_id: str, vectors: dict[str, Vector]) -> None:
        """Keep the vectors of provisional facts in their rows (they are searched in SQL)."""
        if not vectors:
            return
        async with self._engine.begin() as conn:
            for fact_id, vector in vectors.items():
                await conn.execute(
                    update(facts).where((facts.c.user_id == user_id) & (facts.c.id == fact_id)
                                        & facts.c.provisional.is_(True))
                    .values(_vector_columns(vector)))

    async def provisional_closest(self, user_id: str, vectors: Sequence[Vector], limit: int
                                  ) -> list[list[tuple[Fact, float]]]:
        """For each of `vectors`, the user's active provisional facts closest in meaning to it,
        at most `limit`, with their cosine similarity."""
        held = await self.provisional(user_id)
        if not held or not vectors:
            return [[] for _ in vectors]
        matrix = np.stack([unit for _, unit in held])
        asked = np.asarray(vectors, dtype=np.float32)
        asked /= np.maximum(np.linalg.norm(asked, axis=1, keepdims=True), 1e-12)
        scores = asked @ matrix.T
        return [[(held[i][0], float(row[i])) for i in np.argsort(-row)[:limit]]
                for row in scores]

    async def provisional(self, user_id: str) -> list[tuple[Fact, np.ndarray]]:
        """The user's active provisional facts, each with its vector made unit length; only
        those embedded by the model in use (after a change of model, none until they are
        embedded again). A user has a window's worth or more of them, read on every turn: only
        their ids are read each time, and each one's row and vector once (a provisional fact's
        words and vector never change while it is active). Asked twice at once (a turn's search
        by meaning and its answer to a question about the person), it is read once."""
        reading = self._reading.get(user_id)
        if reading is None:
            reading = asyncio.ensure_future(self._read_provisional(user_id))
            self._reading[user_id] = reading
            reading.add_done_callback(lambda _: self._reading.pop(user_id, None))
        return await asyncio.shield(reading)  # one asker giving up stops no other's read

    async def _read_provisional(self, user_id: str) -> list[tuple[Fact, np.ndarray]]:
        async with self._autocommit.connect() as conn:
            ids = [row["id"] for row in await _PROVISIONAL_IDS.rows(conn, user_id=user_id)]
            if missing := [i for i in ids if i not in self._provisional]:
                rows = await _provisional_rows(len(missing)).rows(
                    conn, user_id=user_id, **numbered_values("id", missing))
                for row in rows:
                    self._remember(to_fact(row), base64.b64decode(row["vector"]))
        kept = (self._provisional[i] for i in ids if i in self._provisional)
        return [(fact, unit.astype(np.float32)) for fact, unit in kept]

    def _remember(self, fact: Fact, packed: bytes) -> None:
        vector = np.frombuffer(packed, dtype=np.float32)
        unit = vector / max(float(np.linalg.norm(vector)), 1e-12)
        self._provisional[fact.id] = (fact, unit.astype(np.float16))
        while len(self._provisional) > PROVISIONAL_KEPT:
            self._provisional.popitem(last=False)

    async def provisional_of(self, user_id: str, round_ids: Sequence[int]
                             ) -> list[tuple[Fact, str]]:
        """The user's provisional facts kept from these rounds, with their status (active,
        retracted or forgotten; not those replaced already)."""
        if not round_ids:
            return []
        query = (select(facts).where(
            (facts.c.user_id == user_id) & facts.c.provisional.is_(True)
            & (facts.c.status != REPLACED) & facts.c.round_ids.in_([str(i) for i in round_ids]))
            .order_by(facts.c.seq))
        async with self._autocommit.connect() as conn:
            rows = (await conn.execute(query)).mappings().all()
        return [(to_fact(row), row["status"]) for row in rows]

    async def forget_provisional(self, user_id: str, fact_id: str) -> None:
        """Forget a provisional fact's words, keeping its id until its window is summarized."""
        mine = (facts.c.user_id == user_id) & (facts.c.id == fact_id)
        async with self._engine.begin() as conn:
            row = (await conn.execute(select(facts).where(mine))).mappings().first()
            if row is None:
                return
            # Deleted and written again, so the lexical index forgets the words too.
            await conn.execute(delete(facts).where(mine))
            kept = {key: value for key, value in row.items() if key != "seq"}
            await insert_facts(conn, [{**kept, "text": "", "status": FORGOTTEN, "indexed": True}])

    async def replaced_without_vectors(self, user_id: str, fact_ids: Sequence[str]
                                       ) -> list[str]:
        """Those of these replaced provisional facts whose rows hold no vector."""
        if not fact_ids:
            return []
        query = select(facts.c.id).where(
            (facts.c.user_id == user_id) & facts.c.id.in_(list(fact_ids))
            & (facts.c.status == REPLACED) & facts.c.vector.is_(None))
        async with self._autocommit.connect() as conn:
            return list((await conn.execute(query)).scalars())

    async def delete_replaced(self, user_id: str, fact_ids: Sequence[str]) -> None:
        """Delete replaced provisional facts, once their vectors are out of the index."""
        if fact_ids:
            async with self._engine.begin() as conn:
                await conn.execute(delete(facts).where(
                    (facts.c.user_id == user_id) & facts.c.id.in_(list(fact_ids))
                    & (facts.c.status == REPLACED)))

    async def by_words(
        self, user_id: str, terms: list[str], limit: int, *, taught: bool = False
    ) -> list[tuple[Fact, float]]:
        """The user's active facts (only the taught ones if `taught`) that hold any of `terms`,
        best first, with their score (see `fact_search` for the words left out)."""
        if not terms or limit <= 0:
            return []
        async with self._autocommit.connect() as conn:
            found = await facts_by_words(conn, user_id, terms, limit, taught=taught)
        return [(to_fact(row), score) for row, score in found]

    async def held(self, user_id: str) -> HeldFacts:
        """Which of the vector indexes may hold the user's active facts: most people never
        teach, and a new person's facts are all provisional until their first summary."""
        async with self._autocommit.connect() as conn:
            [row] = await _HELD.rows(conn, user_id=user_id)
        return HeldFacts(taught=bool(row["taught"]), said=bool(row["said"]),
                         taught_version=(int(row["indexed"] or 0), int(row["keys"] or 0)))

    async def subjects_of(self, user_id: str, fact_ids: Sequence[str]) -> dict[str, str]:
        """The subjects of these facts of the user that have one, by id."""
        if not fact_ids:
            return {}
        async with self._autocommit.connect() as conn:
            rows = await _subjects_of(len(fact_ids)).rows(conn, user_id=user_id,
                                                          **numbered_values("id", fact_ids))
        return {row["id"]: row["subject"] for row in rows}

    async def newest_on(self, user_id: str, subjects: Sequence[str]) -> dict[str, Fact]:
        """The user's own newest active statement (taught or said, provisional or not) on each
        subject: one statement, one indexed read per subject."""
        if not subjects:
            return {}
        asked = list(dict.fromkeys(subjects))
        values = {f"subject{i}": subject for i, subject in enumerate(asked)}
        async with self._autocommit.connect() as conn:
            rows = await _newest_on(len(asked)).rows(conn, user_id=user_id, **values)
        return {row["subject"]: to_fact(row) for row in rows}

    async def newest(
        self, user_id: str, limit: int, offset: int = 0, *, origin: Origin | None = None
    ) -> list[Fact]:
        query = (
            select(facts).where(_active_of(user_id, origin))
            .order_by(facts.c.said_at.desc(), facts.c.seq.desc())
            .limit(limit).offset(offset)
        )
        return await self._fetch(query)

    async def taught_with_text(self, user_id: str, text: str) -> list[Fact]:
        """The user's active taught fact with exactly this text, if there is one."""
        query = select(facts).where(_active_of(user_id, Origin.TAUGHT) & (facts.c.text == text))
        return await self._fetch(query.limit(1))

    async def retract(self, user_id: str, fact_id: str) -> Fact | None:
        """Retract the fact; a question about it is settled (the user has answered it)."""
        row = await retract_row(self._engine, facts, user_id, fact_id)
        if row is None:
            return None
        q = belief_questions.c
        async with self._engine.begin() as conn:
            await conn.execute(
                update(belief_questions)
                .where((q.user_id == user_id)
                       & ((q.earlier_id == fact_id) | (q.later_id == fact_id)))
                .values(status="settled"))
        return to_fact(row)

    async def count(self, user_id: str, *, origin: Origin | None = None) -> int:
        query = select(func.count()).select_from(facts).where(_active_of(user_id, origin))
        async with self._autocommit.connect() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def count_stored(self, user_id: str) -> int:
        """The user's facts, retracted and superseded ones too: what `delete` counts."""
        async with self._autocommit.connect() as conn:
            return await _count_the_users_facts(conn, facts.c.user_id == user_id)

    async def active_by_ids(self, user_id: str, fact_ids: Sequence[str]) -> list[Fact]:
        """Those of the user's facts that are still active, in no particular order."""
        if not fact_ids:
            return []
        return await self._fetch(select(facts).where(_active_of(user_id)
                                                     & facts.c.id.in_(list(fact_ids))))

    async def with_id_prefix(self, user_id: str, prefix: str) -> list[Fact]:
        """The user's facts (active or retracted: forgetting covers both) whose id starts with
        `prefix` (hex digits only)."""
        if not prefix or any(ch not in "0123456789abcdef" for ch in prefix):
            return []
        return await self._fetch(
            select(facts).where((facts.c.user_id == user_id) & facts.c.id.startswith(prefix))
            .limit(2)
        )

    async def delete_taught(self, user_id: str) -> int:
        """Delete every fact the user taught, retracted ones too; returns how many went."""
        where = (facts.c.user_id == user_id) & (facts.c.origin == Origin.TAUGHT.value)
        async with self._engine.begin() as conn:
            return int((await conn.execute(delete(facts).where(where))).rowcount)

    async def delete(self, user_id: str, fact_id: str | None = None) -> int:
        """Delete one of the user's facts, or all of them, with the questions about them;
        returns how many facts went, counted as `count_stored` counts them."""
        where = facts.c.user_id == user_id
        asked = belief_questions.c.user_id == user_id
        if fact_id is not None:
            where = where & (facts.c.id == fact_id)
            asked = asked & ((belief_questions.c.earlier_id == fact_id)
                             | (belief_questions.c.later_id == fact_id))
        async with self._engine.begin() as conn:
            await conn.execute(delete(belief_questions).where(asked))
            going = await _count_the_users_facts(conn, where)
            await conn.execute(delete(facts).where(where))
        return going

    async def active_ids(self, user_id: str, fact_ids: Sequence[str]) -> set[str]:
        """Those of the ids whose facts are active."""
        if not fact_ids:
            return set()
        query = select(facts.c.id).where(_active_of(user_id) & facts.c.id.in_(list(fact_ids)))
        async with self._autocommit.connect() as conn:
            return set((await conn.execute(query)).scalars())

    async def mark_indexed(self, user_id: str, fact_ids: Sequence[str]) -> None:
        if fact_ids:
            async with self._engine.begin() as conn:
                await conn.execute(
                    update(facts)
                    .where((facts.c.user_id == user_id) & facts.c.id.in_(list(fact_ids)))
                    .values(indexed=True)
                )

    async def unindexed(self, limit: int = 500, *, status: str = ACTIVE) -> list[Fact]:
        """Facts whose vectors may not match their row yet (a crash, the embedder down): active
        ones the index may lack, retracted ones it may still hold."""
        query = (select(facts).where(facts.c.indexed.is_(False) & (facts.c.status == status))
                 .order_by(facts.c.seq).limit(limit))
        return await self._fetch(query)

    async def _fetch(self, query: Any) -> list[Fact]:
        async with self._autocommit.connect() as conn:
            rows = (await conn.execute(query)).mappings().all()
        return [to_fact(row) for row in rows]


async def _count_the_users_facts(conn: AsyncConnection, where: Any) -> int:
    query = select(func.count()).select_from(facts).where(
        where & facts.c.status.in_(_THE_USERS_FACTS))
    return int((await conn.execute(query)).scalar_one())


@functools.cache
def _newest_on(subjects: int) -> PreparedRead:
    """The user's newest active statement on each of `subjects` subjects (`:subject0`...)."""
    mine = ((facts.c.user_id == bindparam("user_id")) & (facts.c.status == ACTIVE)
            & (facts.c.speaker == Speaker.USER.value))
    newest_each = [select(facts.c.seq).where(mine & (facts.c.subject == bindparam(f"subject{i}")))
                   .order_by(facts.c.said_at.desc(), facts.c.seq.desc()).limit(1).subquery()
                   for i in range(subjects)]
    # Only the keys go through the union: MariaDB holds a union's rows in a temporary table,
    # on disk when they carry text columns (1-2 ms a turn).
    newest = union_all(*(select(each) for each in newest_each)).subquery("newest")
    return PreparedRead(select(facts).join_from(newest, facts, facts.c.seq == newest.c.seq))


def _searched_provisional(mine: Any) -> Any:
    """The active provisional facts searched by meaning in SQL (embedded by the model in use)
    among `mine`."""
    return (mine & (facts.c.status == ACTIVE) & facts.c.provisional.is_(True)
            & facts.c.indexed.is_(True) & facts.c.vector.is_not(None))


# Reads by a list of ids, built once per length (at most this many lengths kept): most
# turns ask for a few facts, and building a statement costs more than running it.
_LENGTHS_KEPT = 64


@functools.lru_cache(maxsize=_LENGTHS_KEPT)
def _subjects_of(count: int) -> PreparedRead:
    """The subjects of `count` facts of the user (`:id0`...), those that have one."""
    return PreparedRead(select(facts.c.id, facts.c.subject).where(
        (facts.c.user_id == bindparam("user_id")) & facts.c.id.in_(numbered_binds("id", count))
        & facts.c.subject.is_not(None)))


@functools.lru_cache(maxsize=_LENGTHS_KEPT)
def _stored_ids(count: int) -> PreparedRead:
    """Which of `count` ids (`:id0`...) the user's facts have."""
    return PreparedRead(select(facts.c.id).where(
        (facts.c.user_id == bindparam("user_id")) & facts.c.id.in_(numbered_binds("id", count))))


@functools.lru_cache(maxsize=_LENGTHS_KEPT)
def _provisional_rows(count: int) -> PreparedRead:
    """The rows of `count` searched provisional facts of the user (`:id0`...)."""
    return PreparedRead(select(facts).where(
        _searched_provisional(facts.c.user_id == bindparam("user_id"))
        & facts.c.id.in_(numbered_binds("id", count))))


# Read on every turn: the ids of the user's provisional facts (their rows are kept).
_PROVISIONAL_IDS = PreparedRead(select(facts.c.id).where(
    _searched_provisional(facts.c.user_id == bindparam("user_id"))))


_INDEXED_TAUGHT = ((facts.c.user_id == bindparam("user_id"))
                   & (facts.c.origin == Origin.TAUGHT.value) & (facts.c.status == ACTIVE)
                   & facts.c.indexed.is_(True))
_HELD = PreparedRead(select(
    exists().where((facts.c.user_id == bindparam("user_id"))
                   & (facts.c.origin == Origin.TAUGHT.value) & (facts.c.status == ACTIVE)
                   ).label("taught"),
    exists().where((facts.c.user_id == bindparam("user_id"))
                   & (facts.c.origin == Origin.SAID.value) & (facts.c.status == ACTIVE)
                   & facts.c.provisional.is_(False)).label("said"),
    *(select(summed).where(_INDEXED_TAUGHT).scalar_subquery().label(name)
      for summed, name in ((func.count(), "indexed"), (func.sum(facts.c.seq), "keys")))))


def _active_of(user_id: str, origin: Origin | None = None) -> Any:
    where = (facts.c.user_id == user_id) & (facts.c.status == ACTIVE)
    return where if origin is None else where & (facts.c.origin == origin.value)


def fact_row(fact: Fact, *, source_job_id: int | None = None) -> dict[str, Any]:
    """The SQL row of a new active fact, not yet indexed by meaning (nor checked against the
    beliefs before it, when it is a belief)."""
    return belief_columns(fact) | {
        "id": fact.id,
        "user_id": fact.user_id,
        "text": fact.text,
        "speaker": fact.speaker.value,
        "said_at": fact.said_at.replace(tzinfo=None),
        "round_ids": " ".join(str(i) for i in fact.round_ids[:MAX_ROUND_IDS]),
        "status": ACTIVE,
        "origin": fact.origin.value,
        "source_job_id": source_job_id,
        "indexed": False,
        "created_at": utcnow(),
        "provisional": fact.provisional,
    }


def _vector_columns(vector: Vector | None) -> dict[str, Any]:
    if vector is None:
        return {}
    packed = base64.b64encode(np.asarray(vector, dtype=np.float32).tobytes()).decode("ascii")
    return {"vector": packed, "indexed": True}


def to_fact(row: Any) -> Fact:
    return Fact(
        id=row["id"],
        user_id=row["user_id"],
        text=row["text"],
        speaker=Speaker(row["speaker"]),
        said_at=as_utc(row["said_at"]),
        round_ids=tuple(int(i) for i in row["round_ids"].split()),
        origin=Origin(row["origin"]),
        persona=row["persona"] or "",
        provisional=bool(row["provisional"]),
        subject=row["subject"],
    )
