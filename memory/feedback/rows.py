"""Feedback rows in SQL: the record of every correction, active or superseded."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from memory.feedback.matching import normalize_key
from memory.sql.engine import as_utc
from memory.sql.prepared import PreparedRead
from memory.sql.retracted import restore_retracted, retract_row
from memory.sql.tables import feedback
from memory.types import Feedback

ACTIVE = "active"
SUPERSEDED = "superseded"


@dataclass(frozen=True, slots=True)
class Candidate:
    """The columns of a feedback row that decide whether it applies (names as in the table)."""

    id: str
    user_id: str
    key_text: str
    frame: str
    rule: str
    shared: bool


def key_hash(key: str) -> str:
    return hashlib.sha256(normalize_key(key).encode()).hexdigest()


class SQLFeedbackRows:
    """Feedback rows. Every statement filters on the user, or on `shared` for everyone's."""

    def __init__(self, engine: AsyncEngine, autocommit: AsyncEngine | None = None) -> None:
        """`autocommit`: an engine for statements that need no transaction
        (`open_autocommit_engine`)."""
        self._engine = engine
        self._autocommit = autocommit or engine

    async def insert(self, item: Feedback, *, round_id: int | None = None) -> list[str]:
        """Store a new correction; the user's active ones for the same message are superseded
        in the same transaction. Returns the ids superseded."""
        digest = key_hash(item.key)
        older = (feedback.c.user_id == item.user_id) & (feedback.c.key_hash == digest) & (
            feedback.c.status == ACTIVE)
        async with self._engine.begin() as conn:
            replaced = list((await conn.execute(select(feedback.c.id).where(older))).scalars())
            if replaced:
                await conn.execute(update(feedback).where(older).values(
                    status=SUPERSEDED, superseded_by=item.id, indexed=False))
            await conn.execute(insert(feedback), [_row(item, digest, round_id)])
        return replaced

    async def candidates(self, user_id: str, limit: int) -> list[Candidate]:
        """The active feedback that may apply to the user's messages (theirs, and shared),
        newest first: only what the lookup reads, since this runs for every message."""
        async with self._autocommit.connect() as conn:  # the driver's read
            rows = await _CANDIDATES.rows(conn, user_id=user_id, limit=limit)
        return [Candidate(**row) for row in rows]

    async def unindexed(self, limit: int = 500) -> list[Candidate]:
        """Active rows the vector index may miss (every user's), for a rebuilt index."""
        query = (
            select(*(feedback.c[name] for name in Candidate.__dataclass_fields__))
            .where((feedback.c.status == ACTIVE) & feedback.c.indexed.is_(False))
            .limit(limit)
        )
        async with self._autocommit.connect() as conn:
            return [Candidate(*row) for row in (await conn.execute(query)).all()]

    async def set_frame(self, user_id: str, feedback_id: str, frame: str) -> None:
        """Give one of the user's corrections the frame learned from another."""
        async with self._engine.begin() as conn:
            await conn.execute(update(feedback).where(
                (feedback.c.id == feedback_id) & (feedback.c.user_id == user_id)
            ).values(frame=frame))

    async def active_by_ids(self, ids: Sequence[str]) -> list[Feedback]:
        return await self._fetch(select(feedback).where(
            feedback.c.id.in_(list(ids)) & (feedback.c.status == ACTIVE)))

    async def mark_indexed(self, ids: Sequence[str]) -> None:
        if ids:
            async with self._engine.begin() as conn:
                await conn.execute(update(feedback).where(
                    feedback.c.id.in_(list(ids)) & (feedback.c.status == ACTIVE)
                ).values(indexed=True))

    async def active_of(self, user_id: str) -> list[Feedback]:
        """The user's own active feedback, oldest first."""
        query = (select(feedback)
                 .where((feedback.c.user_id == user_id) & (feedback.c.status == ACTIVE))
                 .order_by(feedback.c.created_at))
        return await self._fetch(query)

    async def active_everywhere(self, limit: int) -> list[Feedback]:
        """Every user's active feedback, newest first, for admins."""
        query = (select(feedback).where(feedback.c.status == ACTIVE)
                 .order_by(feedback.c.created_at.desc()).limit(limit))
        return await self._fetch(query)

    async def with_id_prefix(self, prefix: str, user_id: str | None) -> list[Feedback]:
        """Active feedback whose id starts with `prefix` (hex digits only): the user's, or any
        user's when `user_id` is None (admins)."""
        if not prefix or any(c not in "0123456789abcdef" for c in prefix):
            return []
        where = (feedback.c.status == ACTIVE) & feedback.c.id.startswith(prefix)
        if user_id is not None:
            where = where & (feedback.c.user_id == user_id)
        return await self._fetch(select(feedback).where(where).limit(2))

    async def given_in_round(self, user_id: str, round_id: int) -> Feedback | None:
        """The correction the user gave in that round, if any (active or superseded)."""
        found = await self._fetch(select(feedback).where(
            (feedback.c.user_id == user_id) & (feedback.c.round_id == round_id)))
        return found[0] if found else None

    async def set_shared(self, feedback_id: str, shared: bool) -> None:
        async with self._engine.begin() as conn:
            await conn.execute(update(feedback).where(feedback.c.id == feedback_id)
                               .values(shared=shared, indexed=False))

    async def delete(self, user_id: str, feedback_id: str | None = None) -> list[str]:
        """Delete one of the user's corrections (with what it superseded) or all of them;
        returns the ids of the active ones that went."""
        where = feedback.c.user_id == user_id
        if feedback_id is not None:
            where = where & ((feedback.c.id == feedback_id)
                             | (feedback.c.superseded_by == feedback_id))
        async with self._engine.begin() as conn:
            gone = list((await conn.execute(
                select(feedback.c.id).where(where & (feedback.c.status == ACTIVE))
            )).scalars())
            await conn.execute(delete(feedback).where(where))
        return gone

    async def retract(self, user_id: str, feedback_id: str) -> bool:
        """Only the user's own corrections: a promoted one of someone else is not theirs."""
        return await retract_row(self._engine, feedback, user_id, feedback_id) is not None

    async def restore(self, user_id: str, id_prefix: str) -> Feedback | None:
        row = await restore_retracted(self._engine, feedback, user_id, id_prefix)
        return None if row is None else to_feedback(row)

    async def _fetch(self, query: Any) -> list[Feedback]:
        async with self._autocommit.connect() as conn:
            rows = (await conn.execute(query)).mappings().all()
        return [to_feedback(row) for row in rows]


def _row(item: Feedback, digest: str, round_id: int | None) -> dict[str, Any]:
    return {
        "id": item.id,
        "user_id": item.user_id,
        "key_text": item.key,
        "key_hash": digest,
        "feedback": item.feedback,
        "understanding": item.understanding,
        "frame": item.frame,
        "rule": item.rule,
        "persona": item.persona,
        "status": ACTIVE,
        "superseded_by": None,
        "shared": item.shared,
        "indexed": False,
        "round_id": round_id,
        "created_at": item.created_at.replace(tzinfo=None),
    }


def to_feedback(row: Any) -> Feedback:
    return Feedback(
        id=row["id"],
        user_id=row["user_id"],
        key=row["key_text"],
        feedback=row["feedback"],
        understanding=row["understanding"],
        frame=row["frame"],
        rule=row["rule"],
        persona=row["persona"],
        shared=bool(row["shared"]),
        created_at=as_utc(row["created_at"]),
    )


_CANDIDATES = PreparedRead(
    select(*(feedback.c[name] for name in Candidate.__dataclass_fields__))
    .where((feedback.c.status == ACTIVE)
           & ((feedback.c.user_id == bindparam("user_id")) | feedback.c.shared))
    .order_by(feedback.c.created_at.desc())
    .limit(bindparam("limit")))
