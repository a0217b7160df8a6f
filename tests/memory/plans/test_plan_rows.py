"""Plans in SQL, on SQLite and MariaDB: stored once, due once, asked once, one user's only."""

from __future__ import annotations

from datetime import UTC, date, datetime

from bot.app.stores import Stores
from memory.plans.checkin_rows import SQLCheckinRows
from memory.plans.plans import due_where_they_are
from memory.plans.rows import SQLPlanRows
from memory.types import Plan


async def _due(rows: SQLPlanRows, user: str, now: datetime, default_zone: str = "UTC"
               ) -> Plan | None:
    candidates = await rows.due_candidates(user, now.astimezone(UTC).date(), within_days=4)
    return due_where_they_are(candidates, now, default_zone)


def _at(day: date, hour: int = 10) -> datetime:
    return datetime(day.year, day.month, day.day, hour, tzinfo=UTC)


def _plan(user: str, id_: str, last: date, round_id: int = 1) -> Plan:
    return Plan(id=id_, user_id=user, text=f"{id_} on {last}", first_day=last, last_day=last,
                said_at=datetime(2026, 3, 2, 9, tzinfo=UTC), round_id=round_id)


async def test_the_plan_due_is_the_users_latest_over_and_it_is_asked_once(
        stores: Stores) -> None:
    rows = SQLPlanRows(stores.engine)
    await rows.add([_plan("ana", "interview", date(2026, 3, 6)),
                    _plan("ana", "old", date(2026, 2, 20)),
                    _plan("ana", "coming", date(2026, 3, 12)),
                    _plan("ben", "bens", date(2026, 3, 6))])
    assert await rows.add([_plan("ana", "interview", date(2026, 3, 6))]) == []  # once
    saturday = _at(date(2026, 3, 7))
    due = await _due(rows, "ana", saturday)
    assert due is not None and due.id == "interview" and due.said_at.tzinfo is not None
    assert await rows.asked("ana", "interview")
    assert not await rows.asked("ana", "interview")
    assert await _due(rows, "ana", saturday) is None  # "old" is too long ago
    assert (await _due(rows, "ben", saturday)).id == "bens"  # type: ignore[union-attr]
    assert await rows.forget("ana") == 3
    assert [p.id for p in await rows.of_user("ben")] == ["bens"]


async def test_a_plan_that_replaces_another_is_the_one_followed_up(stores: Stores) -> None:
    rows = SQLPlanRows(stores.engine)
    await rows.add([_plan("ana", "dentist wednesday", date(2026, 3, 11))])
    await rows.add([_plan("ana", "dentist friday", date(2026, 3, 13), round_id=2)],
                   replaced=["dentist wednesday"])
    assert await _due(rows, "ana", _at(date(2026, 3, 12))) is None
    due = await _due(rows, "ana", _at(date(2026, 3, 14)))
    assert due is not None and due.id == "dentist friday"


async def test_a_plan_is_over_when_its_day_is_over_where_the_person_is(stores: Stores) -> None:
    rows = SQLPlanRows(stores.engine)
    await rows.add([_plan("ana", "exam", date(2026, 3, 13)),
                    _plan("ben", "bens exam", date(2026, 3, 13))])
    await SQLCheckinRows(stores.engine).choose("ana", timezone="America/New_York")
    saturday_early = _at(date(2026, 3, 14), hour=2)  # 22:00 on Friday in New York
    assert await _due(rows, "ana", saturday_early) is None
    assert (await _due(rows, "ben", saturday_early)).id == "bens exam"  # type: ignore[union-attr]
    # Ben chose no zone: the settings' zone is his.
    assert await _due(rows, "ben", saturday_early, default_zone="America/Chicago") is None
    assert (await _due(rows, "ana", _at(date(2026, 3, 14), hour=14))).id == "exam"  # type: ignore[union-attr]
