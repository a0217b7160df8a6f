"""Plans in SQL, on SQLite and MariaDB: stored once, due once, asked once, one user's only."""

from __future__ import annotations

from datetime import UTC, date, datetime

from bot.app.stores import Stores
from memory.plans.rows import SQLPlanRows
from memory.types import Plan


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
    saturday = date(2026, 3, 7)
    due = await rows.due("ana", saturday, within_days=4)
    assert due is not None and due.id == "interview" and due.said_at.tzinfo is not None
    assert await rows.asked("ana", "interview")
    assert not await rows.asked("ana", "interview")
    assert await rows.due("ana", saturday, within_days=4) is None  # "old" is too long ago
    assert (await rows.due("ben", saturday, within_days=4)).id == "bens"  # type: ignore[union-attr]
    assert await rows.forget("ana") == 3
    assert [p.id for p in await rows.of_user("ben")] == ["bens"]


async def test_a_plan_that_replaces_another_is_the_one_followed_up(stores: Stores) -> None:
    rows = SQLPlanRows(stores.engine)
    await rows.add([_plan("ana", "dentist wednesday", date(2026, 3, 11))])
    await rows.add([_plan("ana", "dentist friday", date(2026, 3, 13), round_id=2)],
                   replaced=["dentist wednesday"])
    assert await rows.due("ana", date(2026, 3, 12), within_days=4) is None
    due = await rows.due("ana", date(2026, 3, 14), within_days=4)
    assert due is not None and due.id == "dentist friday"
