"""The shared pool's rows in SQL: its entries, who opted in, and which message showed a reply.

Entries hold no personal details (they are scrubbed before they get here); `user_id` and
`round_id` only say where an entry came from, so its user can see, export and delete it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from sqlalchemy import bindparam, delete, func, insert, select, update
from sqlalchemy.dialects import mysql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from memory.sql.engine import as_utc, utcnow
from memory.sql.failures import again_after_deadlock
from memory.sql.prepared import PreparedRead, PreparedWrite, numbered_binds, numbered_values
from memory.sql.tables import pool_entries, pool_optins, reply_messages
from memory.types import PoolEntry, PoolStatus


class SQLPoolRows:
    def __init__(self, engine: AsyncEngine, autocommit: AsyncEngine | None = None) -> None:
        """`autocommit`: an engine for statements that need no transaction
        (`open_autocommit_engine`)."""
        self._engine = engine
        self._autocommit = autocommit or engine

    async def insert(self, entry: PoolEntry) -> PoolEntry:
        """Store a new entry; the entry already stored under its id or round if there is one
        (running a job twice, or in two processes, stores it once)."""
        try:
            async with self._engine.begin() as conn:
                await conn.execute(insert(pool_entries).values(**_row(entry)))
            return entry
        except IntegrityError:
            same = pool_entries.c.id == entry.id
            if entry.round_id is not None:
                same |= pool_entries.c.round_id == entry.round_id
            found = await self._one(same)
            if found is None:
                raise
            return found

    async def get(self, entry_id: str) -> PoolEntry | None:
        return await self._one(pool_entries.c.id == entry_id)

    async def by_round(self, round_id: int) -> PoolEntry | None:
        return await self._one(pool_entries.c.round_id == round_id)

    async def find(self, prefix: str) -> list[PoolEntry]:
        """Entries whose id starts with `prefix` (what the admin commands show)."""
        if not prefix:
            return []
        return await self._many(pool_entries.c.id.startswith(prefix, autoescape=True), limit=2)

    async def _one(self, where: Any) -> PoolEntry | None:
        found = await self._many(where, limit=1)
        return found[0] if found else None

    async def _many(self, where: Any, *, limit: int | None = None,
                    newest_first: bool = False) -> list[PoolEntry]:
        order = pool_entries.c.created_at.desc() if newest_first else pool_entries.c.created_at
        query = select(pool_entries).where(where).order_by(order, pool_entries.c.id).limit(limit)
        async with self._autocommit.connect() as conn:
            return [_entry(row) for row in (await conn.execute(query)).mappings()]

    async def listed(self, status: PoolStatus, limit: int) -> list[PoolEntry]:
        """The newest entries of a status, for `/admin pool`."""
        return await self._many(pool_entries.c.status == status.value, limit=limit,
                                newest_first=True)

    async def counts(self) -> dict[str, int]:
        query = select(pool_entries.c.status, func.count()).group_by(pool_entries.c.status)
        async with self._autocommit.connect() as conn:
            return {status: int(n) for status, n in (await conn.execute(query)).all()}

    async def count_shared(self, domain: str) -> int:
        """How many shared entries a domain has."""
        async with self._autocommit.connect() as conn:  # the driver's read
            [row] = await _COUNT_SHARED.rows(conn, domain=domain, shared=PoolStatus.SHARED.value)
        return int(row["shared"])

    async def shared_by_ids(self, ids: Sequence[str]) -> list[PoolEntry]:
        """Those of these entries that are shared now (a turn's examples, read by id)."""
        if not ids:
            return []
        async with self._autocommit.connect() as conn:  # the driver's read
            rows = await _shared_by_ids(len(ids)).rows(conn, shared=PoolStatus.SHARED.value,
                                                      **numbered_values("id", ids))
        return [_entry(row) for row in rows]

    async def count_labelled(self) -> int:
        """How many shared entries have a kind of task (what the retriever trains on)."""
        query = select(func.count()).select_from(pool_entries).where(
            (pool_entries.c.status == PoolStatus.SHARED.value) & pool_entries.c.kind.is_not(None))
        async with self._autocommit.connect() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def shared_domains(self) -> set[str]:
        """The domains that hold at least one shared entry."""
        query = select(pool_entries.c.domain).where(
            pool_entries.c.status == PoolStatus.SHARED.value).distinct()
        async with self._autocommit.connect() as conn:
            return set((await conn.execute(query)).scalars())

    async def shared(self, *, labelled: bool = False) -> list[PoolEntry]:
        """Every shared entry, oldest first (`labelled`: only those with a kind of task)."""
        where = pool_entries.c.status == PoolStatus.SHARED.value
        if labelled:
            where &= pool_entries.c.kind.is_not(None)
        return await self._many(where)

    async def shared_of(self, domain: str, kind: str, limit: int) -> list[PoolEntry]:
        """The newest shared entries of one kind of task."""
        return await self._many((pool_entries.c.status == PoolStatus.SHARED.value)
                                & (pool_entries.c.domain == domain)
                                & (pool_entries.c.kind == kind), limit=limit, newest_first=True)

    async def set_status(self, entry_id: str, status: PoolStatus,
                         reviewed_by: str | None = None) -> None:
        async with self._engine.begin() as conn:
            await conn.execute(update(pool_entries).where(pool_entries.c.id == entry_id).values(
                status=status.value, reviewed_by=reviewed_by, indexed=False))

    async def scored(self, entry_id: str, score: int, kind: str, rubric_version: int) -> None:
        async with self._engine.begin() as conn:
            await conn.execute(update(pool_entries).where(pool_entries.c.id == entry_id).values(
                score=score, kind=kind, rubric_version=rubric_version, indexed=False))

    async def vote(self, entry_id: str, delta: int) -> None:
        async with self._engine.begin() as conn:
            await conn.execute(update(pool_entries).where(pool_entries.c.id == entry_id)
                               .values(votes=pool_entries.c.votes + delta))

    async def mark_indexed(self, ids: Sequence[str]) -> None:
        if ids:
            async with self._engine.begin() as conn:
                await conn.execute(update(pool_entries).where(pool_entries.c.id.in_(ids))
                                   .values(indexed=True))

    async def unindexed(self, limit: int = 500) -> list[PoolEntry]:
        return await self._many(pool_entries.c.indexed.is_(False), limit=limit)

    async def of_user(self, user_id: str) -> list[PoolEntry]:
        return await self._many(pool_entries.c.user_id == user_id)

    async def delete_of_user(self, user_id: str) -> list[PoolEntry]:
        """Delete every entry that came from the user's chats; returns them."""
        mine = await self.of_user(user_id)
        if mine:
            async with self._engine.begin() as conn:
                await conn.execute(delete(pool_entries).where(pool_entries.c.user_id == user_id))
        return mine

    async def opted_in(self, user_id: str) -> bool:
        async with self._autocommit.connect() as conn:  # every reply: the driver's read
            return bool(await _OPTED_IN.rows(conn, user_id=user_id))

    async def set_opt_in(self, user_id: str, on: bool) -> None:
        async with self._engine.begin() as conn:
            await conn.execute(delete(pool_optins).where(pool_optins.c.user_id == user_id))
            if on:
                await conn.execute(insert(pool_optins).values(user_id=user_id, since=utcnow()))

    @again_after_deadlock
    async def remember_reply(self, keys: Sequence[str], user_id: str, round_id: int) -> None:
        """The platform messages that showed a reply, so a reaction to one finds its round (a
        key stored before now names this round)."""
        if not keys:
            return
        now = utcnow()
        async with self._engine.begin() as conn:
            remember = _REMEMBER_REPLY[conn.dialect.name == "sqlite"]
            for key in keys:  # one a reply, nearly always
                await remember.run(conn, message_key=key, user_id=user_id, round_id=round_id,
                                   created_at=now)

    async def round_of_reply(self, key: str, user_id: str) -> int | None:
        """The round a message showed, when it was a reply to `user_id` (reactions to another
        person's reply count for nothing)."""
        query = select(reply_messages.c.round_id).where(
            (reply_messages.c.message_key == key) & (reply_messages.c.user_id == user_id))
        async with self._autocommit.connect() as conn:
            return (await conn.execute(query)).scalar_one_or_none()

    async def forget_replies(self, user_id: str) -> None:
        async with self._engine.begin() as conn:
            await conn.execute(delete(reply_messages).where(reply_messages.c.user_id == user_id))


def _row(entry: PoolEntry) -> dict[str, Any]:
    return {
        "id": entry.id, "prompt": entry.prompt, "answer": entry.answer, "persona": entry.persona,
        "domain": entry.domain, "kind": entry.kind, "status": entry.status.value,
        "source": entry.source, "score": entry.score, "rubric_version": entry.rubric_version,
        "votes": entry.votes, "user_id": entry.user_id, "round_id": entry.round_id,
        "indexed": False, "created_at": utcnow(), "reviewed_by": None,
    }


def _entry(row: Any) -> PoolEntry:
    return PoolEntry(
        id=row["id"], prompt=row["prompt"], answer=row["answer"], persona=row["persona"],
        domain=row["domain"], kind=row["kind"], status=PoolStatus(row["status"]),
        source=row["source"], score=row["score"], rubric_version=row["rubric_version"],
        votes=int(row["votes"]), user_id=row["user_id"], round_id=row["round_id"],
        created_at=as_utc(row["created_at"]),
    )


_COUNT_SHARED = PreparedRead(
    select(func.count().label("shared")).select_from(pool_entries)
    .where((pool_entries.c.status == bindparam("shared"))
           & (pool_entries.c.domain == bindparam("domain"))))


@functools.lru_cache(maxsize=64)
def _shared_by_ids(count: int) -> PreparedRead:
    """The shared entries among `count` ids (`:id0`...), built once per length."""
    return PreparedRead(select(pool_entries).where(
        pool_entries.c.id.in_(numbered_binds("id", count))
        & (pool_entries.c.status == bindparam("shared"))))


_OPTED_IN = PreparedRead(select(pool_optins.c.user_id)
                         .where(pool_optins.c.user_id == bindparam("user_id")))


def _upsert(sqlite_dialect: bool) -> PreparedWrite:
    """Insert a reply message, or point the stored one at the new round, in one statement:
    MariaDB's gap locks deadlock two replies that first delete keys not stored yet. Sent by
    the driver: one runs after every reply."""
    values = {name: bindparam(name, type_=reply_messages.c[name].type)
              for name in ("message_key", "user_id", "round_id", "created_at")}
    new_values = ("user_id", "round_id", "created_at")
    if sqlite_dialect:
        added = sqlite.insert(reply_messages).values(values)
        return PreparedWrite(added.on_conflict_do_update(
            index_elements=[reply_messages.c.message_key],
            set_={name: added.excluded[name] for name in new_values}))
    added_mysql = mysql.insert(reply_messages).values(values)
    return PreparedWrite(added_mysql.on_duplicate_key_update(
        {name: added_mysql.inserted[name] for name in new_values}))


_REMEMBER_REPLY = {True: _upsert(True), False: _upsert(False)}
