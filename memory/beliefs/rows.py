"""Beliefs in SQL: the belief columns of the facts table, and the questions about conflicts.
Every query filters on the user: a belief of one user is never a premise for another."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import bindparam, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from memory.beliefs.belief import ACTIVE, SUPERSEDED, About, Belief, Settlement, belief_columns
from memory.facts.rows import to_fact
from memory.sql.engine import utcnow
from memory.sql.failures import again_after_deadlock
from memory.sql.prepared import PreparedRead, PreparedWrite
from memory.sql.tables import belief_questions, facts
from memory.types import Fact

OPEN, ASKED, SETTLED = "open", "asked", "settled"
# Beliefs still to check; one retracted or forgotten before its check is left alone.
_UNCHECKED = (facts.c.checked.is_(False) & (facts.c.status == ACTIVE)
              & facts.c.about.is_not(None))
# Facts stored before beliefs existed (migration 5) whose belief columns are not filled yet.
_WITHOUT_COLUMNS = facts.c.about.is_(None) & (facts.c.confidence == 0)


class SQLBeliefRows:
    def __init__(self, engine: AsyncEngine, *, flipped_confidence: float,
                 autocommit: AsyncEngine | None = None) -> None:
        """`flipped_confidence`: what a superseded belief is left with (Algorithm 1's default
        confidence of a flipped belief); `autocommit`: an engine for statements that need no
        transaction (`open_autocommit_engine`)."""
        self._engine = engine
        self._autocommit = autocommit or engine
        self._flipped = flipped_confidence

    async def unchecked(self, user_id: str, limit: int) -> list[Belief]:
        """The user's beliefs not checked yet, in the order they were said."""
        query = (select(facts).where((facts.c.user_id == user_id) & _UNCHECKED)
                 .order_by(facts.c.said_at, facts.c.seq).limit(limit))
        return await self._fetch(query)

    async def users_with_unchecked(self) -> list[str]:
        query = select(facts.c.user_id).where(_UNCHECKED).distinct()
        async with self._autocommit.connect() as conn:
            return list((await conn.execute(query)).scalars())

    async def newest_unchecked(self, user_id: str) -> int | None:
        """The row number of the user's newest unchecked belief: names a check's work."""
        query = select(func.max(facts.c.seq)).where((facts.c.user_id == user_id) & _UNCHECKED)
        async with self._autocommit.connect() as conn:
            newest = (await conn.execute(query)).scalar_one_or_none()
        return None if newest is None else int(newest)

    async def fill_belief_columns(self, user_id: str) -> int:
        """Give the user's facts stored before beliefs existed who they are about, their subject
        and their confidence, by today's rules; they stay checked (an upgrade does not start
        superseding what was said long ago). Returns how many were filled: none when run
        again."""
        mine = (facts.c.user_id == user_id) & _WITHOUT_COLUMNS
        async with self._engine.begin() as conn:
            rows = (await conn.execute(select(facts).where(mine))).mappings().all()
            changes: list[dict[str, Any]] = []
            for row in rows:
                columns = belief_columns(to_fact(row))
                changes.append({"row": row["seq"], "new_about": columns["about"],
                                "new_subject": columns["subject"],
                                "new_confidence": columns["confidence"]})
            if changes:  # one statement, executed for every row
                await conn.execute(
                    update(facts).where(mine & (facts.c.seq == bindparam("row"))).values(
                        about=bindparam("new_about"), subject=bindparam("new_subject"),
                        confidence=bindparam("new_confidence")),
                    changes,
                )
        return len(changes)

    async def on_topic_of(self, beliefs: Sequence[Belief], limit: int
                          ) -> dict[str, list[Belief]]:
        """For each of one user's `beliefs` (by id), the newest `limit` checked beliefs about
        its subject (the paper's on-topic feedback), newest first; one read for them all."""
        subjects = sorted({b.subject for b in beliefs if b.subject is not None})
        if not subjects:
            return {belief.id: [] for belief in beliefs}
        newest = func.row_number().over(
            partition_by=(facts.c.subject, facts.c.about, facts.c.persona),
            order_by=(facts.c.said_at.desc(), facts.c.seq.desc())).label("newest")
        ranked = select(facts, newest).where(
            _checked_of(_user_of(beliefs)) & facts.c.subject.in_(subjects)).subquery()
        found = await self._fetch(select(ranked).where(ranked.c.newest <= limit)
                                  .order_by(ranked.c.said_at.desc(), ranked.c.seq.desc()))
        return {belief.id: [other for other in found if other.subject == belief.subject
                            and may_be_premise(other, belief)][:limit] for belief in beliefs}

    async def among(self, beliefs: Sequence[Belief], ids: Sequence[str]
                    ) -> dict[str, list[Belief]]:
        """For each of one user's `beliefs` (by id), which of these facts are checked beliefs
        it can be checked against; one read."""
        found = await self._fetch(select(facts).where(
            _checked_of(_user_of(beliefs)) & facts.c.id.in_(list(ids)))) if ids else []
        return {belief.id: [other for other in found if may_be_premise(other, belief)]
                for belief in beliefs}

    @asynccontextmanager
    async def settling(self, user_id: str, ids: Sequence[str]) -> AsyncIterator[Settling]:
        """One transaction for settling a batch of the user's beliefs, knowing the conflicts
        not settled yet that these beliefs are one side of; all committed when the block ends,
        nothing if it fails."""
        async with self._engine.begin() as conn:
            q = belief_questions.c
            pairs = (await conn.execute(select(q.earlier_id, q.later_id).where(
                (q.user_id == user_id) & (q.status != SETTLED)
                & (q.earlier_id.in_(ids) | q.later_id.in_(ids))))).all() if ids else []
            yield Settling(conn, user_id, {(e, later) for e, later in pairs}, self._flipped)

    @again_after_deadlock  # two windows' checks of one user can meet on the same rows
    async def settle(self, belief: Belief, settlement: Settlement) -> list[Fact] | None:
        """Commit one check alone (see `Settling.settle`)."""
        async with self.settling(belief.user_id, []) as settling:
            return await settling.settle(belief, settlement)

    async def next_question(self, user_id: str) -> tuple[Fact, Fact] | None:
        """The oldest conflict of the user not asked about yet whose two beliefs both still
        hold, marked asked (at most once, whichever process asks); conflicts whose beliefs are
        gone are settled on the way. On the reply's path: most users have none, which one
        indexed read tells."""
        q = belief_questions.c
        async with self._autocommit.connect() as conn:  # every private reply: the driver's
            waiting = await _WAITING_QUESTIONS.rows(conn, user_id=user_id)
        if not waiting:
            return None
        async with self._engine.begin() as conn:
            for question in waiting:
                pair = await self._both_active(conn, user_id, question)
                won = await conn.execute(
                    update(belief_questions)
                    .where((q.id == question["id"]) & (q.status == OPEN))
                    .values(status=ASKED if pair else SETTLED, asked_at=utcnow()))
                if pair and won.rowcount == 1:
                    return pair
        return None

    async def _both_active(self, conn: AsyncConnection, user_id: str,
                           question: Any) -> tuple[Fact, Fact] | None:
        ids = [question["earlier_id"], question["later_id"]]
        rows = (await conn.execute(
            select(facts).where(_mine(user_id, ids) & (facts.c.status == ACTIVE))
        )).mappings().all()
        found = {row["id"]: to_fact(row) for row in rows}
        if len(found) != 2:
            return None
        return found[ids[0]], found[ids[1]]

    async def questions(self, user_id: str) -> list[tuple[str, Fact | None, Fact | None]]:
        """The user's conflicts not settled yet: status, earlier and later belief."""
        q = belief_questions.c
        query = (select(belief_questions).where((q.user_id == user_id) & (q.status != SETTLED))
                 .order_by(q.created_at))
        async with self._autocommit.connect() as conn:
            rows = (await conn.execute(query)).mappings().all()
            ids = [i for row in rows for i in (row["earlier_id"], row["later_id"])]
            known = {r["id"]: to_fact(r) for r in (await conn.execute(
                select(facts).where(_mine(user_id, ids)))).mappings()}
        return [(row["status"], known.get(row["earlier_id"]), known.get(row["later_id"]))
                for row in rows]

    async def superseded(self, user_id: str, limit: int) -> list[Belief]:
        """The user's superseded beliefs, the most recently said first."""
        query = (select(facts).where((facts.c.user_id == user_id)
                                     & (facts.c.status == SUPERSEDED))
                 .order_by(facts.c.said_at.desc(), facts.c.seq.desc()).limit(limit))
        return await self._fetch(query)

    async def replaced_by(self, user_id: str, ids: Sequence[str]) -> dict[str, list[Fact]]:
        """For each of these beliefs, the superseded beliefs it replaced."""
        if not ids:
            return {}
        query = (select(facts).where((facts.c.user_id == user_id)
                                     & (facts.c.status == SUPERSEDED)
                                     & facts.c.superseded_by.in_(list(ids)))
                 .order_by(facts.c.said_at))
        replaced: dict[str, list[Fact]] = {}
        async with self._autocommit.connect() as conn:
            for row in (await conn.execute(query)).mappings():
                replaced.setdefault(row["superseded_by"], []).append(to_fact(row))
        return replaced

    async def beliefs(self, user_id: str, ids: Sequence[str]) -> list[Belief]:
        """These beliefs of the user, whatever their status."""
        if not ids:
            return []
        return await self._fetch(select(facts).where(_mine(user_id, ids)))

    async def _fetch(self, query: Any) -> list[Belief]:
        async with self._autocommit.connect() as conn:
            rows = (await conn.execute(query)).mappings().all()
        return [to_belief(row) for row in rows if row["about"] is not None]


class Settling:
    """A batch of one user's belief checks in one transaction (`SQLBeliefRows.settling`): each
    decision sees the conflicts the ones before it opened or settled."""

    def __init__(self, conn: AsyncConnection, user_id: str, open_pairs: set[tuple[str, str]],
                 flipped_confidence: float) -> None:
        self._conn = conn
        self._user_id = user_id
        self._open = open_pairs
        self._flipped = flipped_confidence

    def disputed(self, ids: Sequence[str]) -> set[str]:
        """Which of these beliefs are one side of a conflict the user has not settled (among
        those the batch was opened with, and those it opened since)."""
        return {side for pair in self._open for side in pair} & set(ids)

    async def settle(self, belief: Belief, settlement: Settlement) -> list[Fact] | None:
        """The belief checked (with its subject), the losers superseded, a question opened.
        Returns the facts superseded, or None when another worker checked it first."""
        if belief.user_id != self._user_id:
            raise ValueError("A belief of another user settled in this user's batch")
        won = await _CHECKED.run(self._conn, user_id=self._user_id, fact_id=belief.id,
                                 new_repeats=settlement.repeats, new_subject=belief.subject)
        if won.rowcount != 1:
            return None
        superseded = await self._supersede(settlement)
        losers = set(settlement.losers)
        self._open = {pair for pair in self._open if not losers & set(pair)}
        if settlement.ask is not None and await self._open_question(*settlement.ask):
            self._open.add(settlement.ask)
        return superseded

    async def _supersede(self, settlement: Settlement) -> list[Fact]:
        if not settlement.losers:
            return []
        where = _mine(self._user_id, settlement.losers) & (facts.c.status == ACTIVE)
        losers = (await self._conn.execute(select(facts).where(where))).mappings().all()
        await self._conn.execute(update(facts).where(where).values(
            status=SUPERSEDED, superseded_by=settlement.winner, confidence=self._flipped,
            indexed=False))
        q = belief_questions.c
        await self._conn.execute(
            update(belief_questions)
            .where((q.user_id == self._user_id) & (q.status != SETTLED)
                   & (q.earlier_id.in_(settlement.losers) | q.later_id.in_(settlement.losers)))
            .values(status=SETTLED))
        return [to_fact(row) for row in losers]

    async def _open_question(self, earlier: str, later: str) -> bool:
        """Open the question about two beliefs, unless it was ever opened; whether it was."""
        key = hashlib.sha256(f"{self._user_id}\x1f{earlier}\x1f{later}".encode()).hexdigest()[:32]
        known = select(belief_questions.c.id).where(belief_questions.c.id == key)
        if (await self._conn.execute(known)).first() is not None:
            return False
        await self._conn.execute(insert(belief_questions).values(
            id=key, user_id=self._user_id, earlier_id=earlier, later_id=later, status=OPEN,
            created_at=utcnow()))
        return True


# A belief checked (the one statement most checks make), sent by the driver: a window checks
# a few dozen.
_CHECKED = PreparedWrite(
    update(facts).where((facts.c.user_id == bindparam("user_id"))
                        & (facts.c.id == bindparam("fact_id")) & facts.c.checked.is_(False))
    .values(checked=True, repeats=bindparam("new_repeats"), subject=bindparam("new_subject")))


def _mine(user_id: str, ids: Sequence[str]) -> Any:
    return (facts.c.user_id == user_id) & facts.c.id.in_(list(ids))


def _checked_of(user_id: str) -> Any:
    """The user's active beliefs, checked already: those a new belief may be checked
    against (`may_be_premise` says which)."""
    return ((facts.c.user_id == user_id) & (facts.c.status == ACTIVE)
            & facts.c.checked.is_(True) & facts.c.about.is_not(None))


def _user_of(beliefs: Sequence[Belief]) -> str:
    """The one user whose beliefs these are: a read for several never mixes users."""
    users = {belief.user_id for belief in beliefs}
    if len(users) != 1:
        raise ValueError(f"Beliefs of {len(users)} users read together")
    return users.pop()


def may_be_premise(other: Belief, belief: Belief) -> bool:
    """Whether `other` may be a premise of `belief`: the same user's, about the same one (the
    companion's of the same persona), and not itself."""
    return (other.user_id == belief.user_id and other.about is belief.about
            and other.id != belief.id
            and (belief.about is not About.COMPANION
                 or (other.persona or None) == (belief.persona or None)))


def to_belief(row: Any) -> Belief:
    return Belief(
        fact=to_fact(row),
        about=About(row["about"]),
        subject=row["subject"],
        confidence=float(row["confidence"]),
        repeats=int(row["repeats"]),
        status=row["status"],
        superseded_by=row["superseded_by"],
    )


_WAITING_QUESTIONS = PreparedRead(
    select(belief_questions)
    .where((belief_questions.c.user_id == bindparam("user_id"))
           & (belief_questions.c.status == OPEN))
    .order_by(belief_questions.c.created_at).limit(5))
