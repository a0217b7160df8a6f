"""Rounds in SQL: the user's message is committed first, the reply or the failure after."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Integer, bindparam, delete, func, insert, select, update
from sqlalchemy.dialects import mysql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from memory.sql.engine import as_utc, utcnow
from memory.sql.prepared import PreparedRead, PreparedWrite
from memory.sql.tables import memory_progress, rounds
from memory.types import Exchange, Round, RoundStatus


class SQLRoundStore:
    """`RoundStore` on SQLite or MySQL. Text only ever travels as bound parameters."""

    def __init__(self, engine: AsyncEngine, autocommit: AsyncEngine | None = None) -> None:
        """`autocommit`: an engine for statements that need no transaction
        (`open_autocommit_engine`)."""
        self._engine = engine
        self._autocommit = autocommit or engine

    async def start_round(
        self, *, user_id: str, conversation_id: str, persona: str, text: str
    ) -> Round:
        values = {
            "user_id": user_id,
            "conversation_id": conversation_id,
            "persona": persona,
            "user_text": text,
            "reply_text": None,
            "status": RoundStatus.PENDING.value,
            "created_at": utcnow(),
        }
        async with self._autocommit.begin() as conn:  # one statement, the driver's
            written = await _START.run(conn, **values)
        return to_round({"id": written.lastrowid, **values})

    async def finish_round(self, round_: Round, reply: str, cited: Sequence[str] = (),
                           used: str | None = None) -> int:
        """`cited`: the keys of the memories the reply cited; `used`: what it was given."""
        return await self._close(round_, reply, RoundStatus.ANSWERED, cited, used)

    async def fail_round(self, round_: Round, partial_reply: str | None,
                         used: str | None = None) -> int:
        return await self._close(round_, partial_reply or None, RoundStatus.FAILED, used=used)

    async def _close(
        self, round_: Round, reply: str | None, status: RoundStatus, cited: Sequence[str] = (),
        used: str | None = None,
    ) -> int:
        """Store the outcome and count the round for summarizing, in one transaction."""
        async with self._engine.begin() as conn:
            closed = await _CLOSE.run(  # every turn: the driver's write
                conn, id=round_.id, user_id=round_.user_id, pending=RoundStatus.PENDING.value,
                reply_text=reply, status=status.value, replied_at=utcnow(),
                cited=json.dumps(list(cited)) if cited else None, used=used)
            if closed.rowcount == 0:
                return 0  # closed before (a frontend that gave up): counted once already
            return await add_pending_rounds(conn, round_.user_id, 1)

    async def close_abandoned(self, started_before: datetime, limit: int = 1000) -> int:
        """Mark failed the rounds still pending that started before `started_before`: their
        process died mid-reply, or lost the database before it could store the reply. Each
        message stays, and its round now counts for summarizing. Returns how many."""
        query = (select(rounds).where((rounds.c.status == RoundStatus.PENDING.value)
                                      & (rounds.c.created_at < started_before))
                 .order_by(rounds.c.id).limit(limit))
        async with self._autocommit.connect() as conn:
            left = [to_round(row._mapping) for row in await conn.execute(query)]
        closed = 0
        for round_ in left:
            closed += await self._close(round_, None, RoundStatus.FAILED) > 0
        return closed

    async def import_rounds(
        self, user_id: str, persona: str, exchanges: Sequence[Exchange]
    ) -> int:
        """Store finished rounds from elsewhere as if chatted; returns the rounds now waiting."""
        now = utcnow()
        rows = [
            {"user_id": user_id, "conversation_id": user_id, "persona": persona,
             "user_text": e.user_text, "reply_text": e.reply_text,
             "status": RoundStatus.ANSWERED.value,
             "created_at": naive_utc(e.at) if e.at else now,
             "replied_at": now}
            for e in exchanges
        ]
        async with self._engine.begin() as conn:
            await conn.execute(insert(rounds), rows)
            return await add_pending_rounds(conn, user_id, len(rows))

    async def imported_already(
        self, user_id: str, exchanges: Sequence[Exchange]
    ) -> set[tuple[datetime, str, str | None]]:
        """The (time, message, reply) of the timed exchanges that the user's rounds already
        hold: importing a file twice stores its rounds once."""
        times = sorted({naive_utc(e.at) for e in exchanges if e.at is not None})
        found: set[tuple[datetime, str, str | None]] = set()
        async with self._autocommit.connect() as conn:
            for start in range(0, len(times), 500):
                at = times[start:start + 500]
                query = (select(rounds.c.created_at, rounds.c.user_text, rounds.c.reply_text)
                         .where((rounds.c.user_id == user_id) & rounds.c.created_at.in_(at)))
                found |= {(row[0], row[1], row[2]) for row in (await conn.execute(query)).all()}
        return found

    async def recent_rounds(
        self, user_id: str, limit: int, *, before_id: int | None = None,
        conversation_id: str | None = None,
    ) -> list[Round]:
        if limit <= 0:
            return []
        read = _RECENT[(conversation_id is not None, before_id is not None)]
        async with self._autocommit.connect() as conn:  # every turn reads this: the driver's
            rows = await read.rows(conn, user_id=user_id, conversation_id=conversation_id,
                                   before_id=before_id, limit=limit)
        return [to_round(row) for row in reversed(rows)]

    async def get_round(self, user_id: str, round_id: int) -> Round | None:
        """One of the user's rounds (None when it is not theirs, or gone)."""
        query = select(rounds).where((rounds.c.user_id == user_id) & (rounds.c.id == round_id))
        async with self._autocommit.connect() as conn:
            row = (await conn.execute(query)).mappings().one_or_none()
        return to_round(row) if row else None

    async def round_by_id(self, round_id: int) -> Round | None:
        """Any user's round: only for an admin's command."""
        query = select(rounds).where(rounds.c.id == round_id)
        async with self._autocommit.connect() as conn:
            row = (await conn.execute(query)).mappings().one_or_none()
        return to_round(row) if row else None

    async def last_used(self, user_id: str) -> tuple[Round, str, bool] | None:
        """The user's newest round that keeps what its reply used, that record, and whether it
        is the user's newest round of all (no message of theirs came since)."""
        newest = (select(rounds).where(rounds.c.user_id == user_id)
                  .order_by(rounds.c.id.desc()).limit(1))
        async with self._autocommit.connect() as conn:
            row = (await conn.execute(newest)).mappings().one_or_none()
            if row is not None and row["used"] is not None:
                return to_round(row), row["used"], True
            if row is None:  # the user has no rounds at all
                return None
            row = (await conn.execute(
                select(rounds).where((rounds.c.user_id == user_id) & rounds.c.used.is_not(None))
                .order_by(rounds.c.id.desc()).limit(1))).mappings().one_or_none()
        return None if row is None else (to_round(row), row["used"], False)

    async def keep_used(self, round_id: int, used: str) -> None:
        async with self._engine.begin() as conn:
            await conn.execute(update(rounds).where(rounds.c.id == round_id).values(used=used))

    async def count_rounds(self, user_id: str) -> int:
        query = select(func.count()).select_from(rounds).where(rounds.c.user_id == user_id)
        async with self._autocommit.connect() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def count_unsummarized(self, user_id: str) -> int:
        query = select(func.count()).select_from(rounds).where(
            (rounds.c.user_id == user_id) & rounds.c.summary_job_id.is_(None))
        async with self._autocommit.connect() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def unsummarized(self, user_id: str, limit: int = 1000) -> list[Round]:
        """The user's closed rounds no summary has covered yet, oldest first."""
        query = (select(rounds).where(
            (rounds.c.user_id == user_id) & rounds.c.summary_job_id.is_(None)
            & (rounds.c.status != RoundStatus.PENDING.value))
            .order_by(rounds.c.id.desc()).limit(limit))
        async with self._autocommit.connect() as conn:
            found = [to_round(row) for row in (await conn.execute(query)).mappings()]
        return found[::-1]

    async def forget_rounds(self, user_id: str) -> int:
        async with self._engine.begin() as conn:
            result = await conn.execute(delete(rounds).where(rounds.c.user_id == user_id))
            # Nothing waits to be summarized any more; a job already running finds its rounds
            # gone and ends without writing.
            await conn.execute(delete(memory_progress).where(memory_progress.c.user_id == user_id))
        return int(result.rowcount)


def _recent(in_conversation: bool, before: bool) -> PreparedRead:
    """The user's newest rounds (in one conversation; before a round)."""
    query = select(rounds).where(rounds.c.user_id == bindparam("user_id"))
    if in_conversation:
        query = query.where(rounds.c.conversation_id == bindparam("conversation_id"))
    if before:
        query = query.where(rounds.c.id < bindparam("before_id"))
    return PreparedRead(query.order_by(rounds.c.id.desc()).limit(bindparam("limit")))


_START = PreparedWrite(insert(rounds).values(
    {name: bindparam(name, type_=rounds.c[name].type)
     for name in ("user_id", "conversation_id", "persona", "user_text", "reply_text", "status",
                  "created_at")}))
_CLOSE = PreparedWrite(
    update(rounds)
    .where((rounds.c.id == bindparam("id")) & (rounds.c.user_id == bindparam("user_id"))
           & (rounds.c.status == bindparam("pending")))
    .values({name: bindparam(name, type_=rounds.c[name].type)
             for name in ("reply_text", "status", "replied_at", "cited", "used")}))
_COUNTED = mysql.insert(memory_progress).values(
    user_id=bindparam("user_id"), pending_rounds=bindparam("count", type_=Integer),
    scheduled_through=0)
_COUNT_ROUNDS = PreparedWrite(_COUNTED.on_duplicate_key_update(
    pending_rounds=memory_progress.c.pending_rounds + _COUNTED.inserted.pending_rounds))
_RECENT = {(in_conversation, before): _recent(in_conversation, before)
           for in_conversation in (False, True) for before in (False, True)}


async def add_pending_rounds(conn: AsyncConnection, user_id: str, count: int) -> int:
    """Count `count` more rounds waiting to be summarized; returns how many wait now.

    One upsert creates the user's row with their first round. An update of the missing row
    and then an insert took gap locks on MariaDB that deadlocked two new users' first rounds.
    """
    if conn.dialect.name == "sqlite":  # the count comes back with the upsert
        added = sqlite.insert(memory_progress).values(
            user_id=user_id, pending_rounds=count, scheduled_through=0)
        counted = added.on_conflict_do_update(
            index_elements=[memory_progress.c.user_id],
            set_={"pending_rounds": memory_progress.c.pending_rounds + count})
        return int((await conn.execute(
            counted.returning(memory_progress.c.pending_rounds))).scalar_one())
    await _COUNT_ROUNDS.run(conn, user_id=user_id, count=count)  # the driver's write
    return await _waiting(conn, user_id)


async def _waiting(conn: AsyncConnection, user_id: str) -> int:
    [row] = await _WAITING.rows(conn, user_id=user_id)  # the driver's read
    return int(row["pending_rounds"])


_WAITING = PreparedRead(select(memory_progress.c.pending_rounds)
                        .where(memory_progress.c.user_id == bindparam("user_id")))


def to_round(row: Any) -> Round:
    return Round(
        id=int(row["id"]),
        user_id=row["user_id"],
        conversation_id=row["conversation_id"],
        persona=row["persona"],
        user_text=row["user_text"],
        reply_text=row["reply_text"],
        status=RoundStatus(row["status"]),
        created_at=as_utc(row["created_at"]),
    )


def naive_utc(moment: datetime) -> datetime:
    """A time as the rounds table stores it: UTC, without a zone."""
    return moment.astimezone(UTC).replace(tzinfo=None)
