"""Topic rows in SQL: the record of every topic, and the fast path for the newest ones."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import bindparam, delete, func, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from memory.sql.engine import as_utc
from memory.sql.prepared import PreparedRead
from memory.sql.retracted import restore_retracted, retract_row
from memory.sql.tables import topics
from memory.types import Topic
from memory.words import words

ACTIVE = "active"
MERGED = "merged"


class SQLTopicRows:
    """Topic rows by user. Every statement filters on the user."""

    def __init__(self, engine: AsyncEngine, autocommit: AsyncEngine | None = None) -> None:
        """`autocommit`: an engine for statements that need no transaction
        (`open_autocommit_engine`)."""
        self._engine = engine
        self._autocommit = autocommit or engine

    async def insert(self, new_topics: Sequence[Topic]) -> None:
        """Insert active topics, marked as not yet indexed."""
        async with self._engine.begin() as conn:
            await conn.execute(insert(topics), [topic_row(topic) for topic in new_topics])

    async def mark_indexed(self, user_id: str, topic_ids: Sequence[str], *, active: bool) -> None:
        """Record that the index matches these rows: active ones are in it, the others (merged,
        retracted) are out. A row whose status changed meanwhile stays marked for repair."""
        if topic_ids:
            status = topics.c.status == ACTIVE if active else topics.c.status != ACTIVE
            async with self._engine.begin() as conn:
                await conn.execute(
                    update(topics)
                    .where((topics.c.user_id == user_id) & topics.c.id.in_(list(topic_ids))
                           & status)
                    .values(indexed=True)
                )

    async def latest(self, user_id: str, limit: int) -> list[Topic]:
        async with self._autocommit.connect() as conn:  # every turn: the driver's read
            rows = await _LATEST.rows(conn, user_id=user_id, limit=limit)
        return [to_topic(row) for row in rows]

    async def all_of(self, user_id: str) -> list[Topic]:
        """The user's active topics, oldest first."""
        query = select(topics).where(_active_of(user_id)).order_by(topics.c.created_at)
        return await self._fetch(query)

    async def active_by_ids(self, user_id: str, topic_ids: Sequence[str]) -> list[Topic]:
        """Those of the user's topics that are still active (not forgotten, merged or taken
        back), in no particular order."""
        if not topic_ids:
            return []
        return await self._fetch(select(topics).where(_active_of(user_id)
                                                      & topics.c.id.in_(list(topic_ids))))

    async def count(self, user_id: str) -> int:
        query = select(func.count()).select_from(topics).where(_active_of(user_id))
        async with self._autocommit.connect() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def delete(self, user_id: str, topic_id: str | None = None) -> int:
        """Delete one of the user's topics, or all of them with their history; returns how many
        active topics went."""
        where = topics.c.user_id == user_id
        if topic_id is not None:
            where = where & (topics.c.id == topic_id)
        async with self._engine.begin() as conn:
            active = await conn.execute(
                select(func.count()).select_from(topics).where(where & (topics.c.status == ACTIVE))
            )
            count = int(active.scalar_one())
            await conn.execute(delete(topics).where(where))
        return count

    async def retract(self, user_id: str, topic_id: str) -> bool:
        return await retract_row(self._engine, topics, user_id, topic_id) is not None

    async def mark_quoting(self, user_id: str, superseded_id: str, old: Collection[str],
                           new: Collection[str], said_before: datetime) -> list[Topic]:
        """Mark the user's active topics dated no later than `said_before` whose description
        holds one of the words `old` and none of `new` (lowercase, whole words) as quoting the
        superseded belief; returns them, marked and to be indexed again."""
        if not old:
            return []
        text = func.lower(topics.c.description)
        query = select(topics).where(
            _active_of(user_id) & topics.c.quotes_superseded.is_(None)
            & (topics.c.updated_at <= said_before.astimezone(UTC).replace(tzinfo=None))
            & or_(*(text.contains(word, autoescape=True) for word in old)))
        async with self._engine.begin() as conn:
            rows = (await conn.execute(query)).mappings().all()
            quoting = [to_topic(r) for r in rows
                       if _holds(r["description"], old) and not _holds(r["description"], new)]
            if quoting:
                await conn.execute(update(topics).where(
                    (topics.c.user_id == user_id) & topics.c.id.in_([t.id for t in quoting]))
                    .values(quotes_superseded=superseded_id, indexed=False))
        return [replace(t, quotes_superseded=superseded_id) for t in quoting]

    async def unmark_quoting(self, user_id: str, superseded_id: str) -> list[Topic]:
        """The belief is current again (restored): its topics are no longer earlier."""
        mine = (_active_of(user_id) & (topics.c.quotes_superseded == superseded_id))
        async with self._engine.begin() as conn:
            rows = (await conn.execute(select(topics).where(mine))).mappings().all()
            await conn.execute(update(topics).where(mine).values(quotes_superseded=None,
                                                                 indexed=False))
        return [replace(to_topic(r), quotes_superseded=None) for r in rows]

    async def restore(self, user_id: str, id_prefix: str) -> Topic | None:
        row = await restore_retracted(self._engine, topics, user_id, id_prefix)
        return None if row is None else to_topic(row)

    async def unindexed(self, limit: int = 500) -> list[tuple[Topic, str]]:
        """Topics (every user's) whose vectors may not match their row yet, with their
        status."""
        query = select(topics).where(topics.c.indexed.is_(False)).limit(limit)
        async with self._autocommit.connect() as conn:
            rows = (await conn.execute(query)).mappings().all()
        return [(to_topic(row), row["status"]) for row in rows]

    async def _fetch(self, query: Any) -> list[Topic]:
        async with self._autocommit.connect() as conn:
            rows = (await conn.execute(query)).mappings().all()
        return [to_topic(row) for row in rows]


def _active_of(user_id: Any) -> Any:
    return (topics.c.user_id == user_id) & (topics.c.status == ACTIVE)


_LATEST = PreparedRead(select(topics).where(_active_of(bindparam("user_id")))
                       .order_by(topics.c.updated_at.desc(), topics.c.id.desc())
                       .limit(bindparam("limit")))


def _holds(description: str, words: Collection[str]) -> bool:
    """Whether the description holds one of these lowercase words or phrases, as whole words."""
    text = description.casefold()
    return any(re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text) for word in words)


def topic_row(topic: Topic, *, source_job_id: int | None = None) -> dict[str, Any]:
    """The SQL row of a new active topic, not yet indexed."""
    return {
        "id": topic.id,
        "user_id": topic.user_id,
        "label": topic.label,
        "label_key": label_key(topic.label),
        "description": topic.description,
        "status": ACTIVE,
        "merged_into": None,
        "source_job_id": source_job_id,
        "indexed": False,
        "created_at": topic.created_at.replace(tzinfo=None),
        "updated_at": topic.updated_at.replace(tzinfo=None),
        "quotes_superseded": topic.quotes_superseded,
    }


def to_topic(row: Any) -> Topic:
    return Topic(
        id=row["id"],
        user_id=row["user_id"],
        label=row["label"],
        description=row["description"],
        created_at=as_utc(row["created_at"]),
        updated_at=as_utc(row["updated_at"]),
        quotes_superseded=row["quotes_superseded"],
    )


def label_key(label: str) -> str:
    """The key topics are merged by: labels that differ only in case, punctuation or plural share
    it: `Hobbies!` and `hobby` give `hobby`; `Movies` and `movie` give `movy` (a key, not a
    word)."""
    return " ".join(_singular(word) for word in words(label))


def _singular(word: str) -> str:
    if len(word) <= 3:
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith("ie"):
        return word[:-2] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word
