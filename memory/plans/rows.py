"""Plans in SQL (SQLite or MySQL): kept once, read when due, asked about once."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import Date, bindparam, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from memory.sql.engine import as_utc, utcnow
from memory.sql.prepared import PreparedRead
from memory.sql.tables import checkins, plans
from memory.types import Plan

# Plans read to find the one due: those that end today in UTC may not be over where the user is,
# and a few of them must not hide an older one that is.
_CANDIDATES = 5


class SQLPlanRows:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def add(self, new: Sequence[Plan], replaced: Sequence[str] = ()) -> list[Plan]:
        """Store the plans not stored yet (their ids come from their round), and mark
        `replaced` (open plans these change) replaced; returns the plans stored now."""
        if not new:
            return []
        async with self._engine.begin() as conn:
            have = set((await conn.execute(select(plans.c.id).where(
                plans.c.id.in_([p.id for p in new])))).scalars())
            added = [p for p in new if p.id not in have]
            if added:
                try:
                    await conn.execute(insert(plans), [_row(p) for p in added])
                except IntegrityError:  # another process stored them first
                    return []
            if replaced and added:
                await conn.execute(update(plans).where(
                    plans.c.id.in_(list(replaced)) & (plans.c.status == "open")
                ).values(status="replaced"))
        return added

    async def open_from(self, user_id: str, day: date) -> list[Plan]:
        """The user's open plans that end on `day` or later."""
        query = select(plans).where((plans.c.user_id == user_id) & (plans.c.status == "open")
                                    & (plans.c.last_day >= day))
        async with self._engine.connect() as conn:
            return [_plan(row) for row in (await conn.execute(query)).mappings()]

    async def due_candidates(self, user_id: str, today: date, within_days: int
                             ) -> list[tuple[Plan, str | None]]:
        """The user's open plans that may be over somewhere on Earth on the UTC day `today`
        (ended by `today`, at most `within_days` and a day before), the most recent first, with
        the user's time zone (None: none chosen): one read on the (user, status, last day)
        index. The caller decides in the zone (`memory.plans.plans.due_where_they_are`)."""
        async with self._engine.connect() as conn:  # every private reply: the driver's read
            rows = await _DUE.rows(conn, user_id=user_id, today=today,
                                   since=today - timedelta(days=within_days + 1))
        return [(_plan(row), row["timezone"]) for row in rows]

    async def zone_of(self, user_id: str) -> str | None:
        """The time zone the user chose (/timezone), if any."""
        query = select(checkins.c.timezone).where(checkins.c.user_id == user_id)
        async with self._engine.connect() as conn:
            return (await conn.execute(query)).scalar_one_or_none()

    async def asked(self, user_id: str, plan_id: str, via: str = "reply") -> bool:
        """Mark the plan asked about (`via` a reply or a check-in), in one statement: False
        when it was asked about already, here or in another process, or is gone."""
        async with self._engine.begin() as conn:
            result = await conn.execute(update(plans).where(
                (plans.c.user_id == user_id) & (plans.c.id == plan_id)
                & (plans.c.status == "open")).values(status="asked", asked_at=utcnow(),
                                                       asked_via=via))
        return bool(result.rowcount)

    async def give_back(self, user_id: str, plan_id: str) -> None:
        """A question that could not be sent: the plan is open again."""
        async with self._engine.begin() as conn:
            await conn.execute(update(plans).where(
                (plans.c.user_id == user_id) & (plans.c.id == plan_id)
                & (plans.c.status == "asked")).values(status="open", asked_at=None,
                                                      asked_via=None))

    async def checkins_since(self, user_id: str, since: datetime) -> int:
        """How many check-ins went to the user since `since`."""
        query = select(func.count()).select_from(plans).where(
            (plans.c.user_id == user_id) & (plans.c.asked_via == "checkin")
            & (plans.c.asked_at >= _stored(since)))
        async with self._engine.connect() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def checkin_candidates(self, today: date, within_days: int
                                 ) -> list[tuple[Plan, str | None]]:
        """Open plans of users with check-ins on that may be over somewhere on Earth today
        (ended before tomorrow, and at most `within_days` and a day ago), with the user's
        time zone: the caller decides in it."""
        query = (select(plans, checkins.c.timezone)
                 .join(checkins, checkins.c.user_id == plans.c.user_id)
                 .where(checkins.c.enabled & (plans.c.status == "open")
                        & (plans.c.last_day <= today)
                        & (plans.c.last_day >= today - timedelta(days=within_days + 1)))
                 .order_by(plans.c.last_day))
        async with self._engine.connect() as conn:
            rows = (await conn.execute(query)).mappings().all()
        return [(_plan(row), row["timezone"]) for row in rows]

    async def by_id(self, user_id: str, plan_id: str) -> Plan | None:
        query = select(plans).where((plans.c.user_id == user_id) & (plans.c.id == plan_id))
        async with self._engine.connect() as conn:
            row = (await conn.execute(query)).mappings().first()
        return None if row is None else _plan(row)

    async def with_prefix(self, user_id: str, prefix: str) -> list[Plan]:
        """The user's plans whose id starts with `prefix` (as /memories shows it)."""
        query = select(plans).where((plans.c.user_id == user_id)
                                    & plans.c.id.startswith(prefix, autoescape=True))
        async with self._engine.connect() as conn:
            return [_plan(row) for row in (await conn.execute(query)).mappings()]

    async def of_user(self, user_id: str) -> list[Plan]:
        """Every plan of the user, the soonest first."""
        query = (select(plans).where(plans.c.user_id == user_id)
                 .order_by(plans.c.first_day, plans.c.said_at))
        async with self._engine.connect() as conn:
            return [_plan(row) for row in (await conn.execute(query)).mappings()]

    async def forget(self, user_id: str, plan_id: str | None = None) -> int:
        """Delete the user's plans, or one of them."""
        mine = plans.c.user_id == user_id
        where = mine if plan_id is None else mine & (plans.c.id == plan_id)
        async with self._engine.begin() as conn:
            result = await conn.execute(delete(plans).where(where))
        return int(result.rowcount)


def _row(plan: Plan) -> dict[str, Any]:
    return {"id": plan.id, "user_id": plan.user_id, "persona": plan.persona, "text": plan.text,
            "first_day": plan.first_day, "last_day": plan.last_day,
            "said_at": _stored(plan.said_at), "round_id": plan.round_id,
            "status": plan.status}


def _stored(when: datetime) -> datetime:
    return when.astimezone(UTC).replace(tzinfo=None) if when.tzinfo else when


def _plan(row: Any) -> Plan:
    return Plan(id=row["id"], user_id=row["user_id"], text=row["text"],
                first_day=row["first_day"], last_day=row["last_day"],
                said_at=as_utc(row["said_at"]), round_id=row["round_id"],
                persona=row["persona"], status=row["status"])


_DUE = PreparedRead(
    select(plans, checkins.c.timezone)
    .outerjoin(checkins, checkins.c.user_id == plans.c.user_id)
    .where((plans.c.user_id == bindparam("user_id")) & (plans.c.status == "open")
           & (plans.c.last_day <= bindparam("today", type_=Date))
           & (plans.c.last_day >= bindparam("since", type_=Date)))
    .order_by(plans.c.last_day.desc(), plans.c.said_at.desc()).limit(_CANDIDATES))
