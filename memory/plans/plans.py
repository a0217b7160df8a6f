"""Plans kept from what the user says, and the one to ask about in a turn.

Each private message is read for plans while it is answered (`memory.plans.finder`, in a worker
thread), and what it finds is looked at again by a learned gate (`memory.plans.gate`). A plan
that names the same thing as an open one of the user's ("the interview moved to Monday" after
"my interview is on Friday") replaces it, whatever the gate would say. In a later turn, the
open plan that ended most recently, within `FOLLOW_UP_DAYS`, is the one to ask about; once the
reply that asks is stored, the plan is asked and never comes up again.
"""

from __future__ import annotations

import asyncio
import calendar
import hashlib
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from memory.plans.finder import FoundPlan, PlanFinder
from memory.plans.gate import PlanGate
from memory.plans.rows import SQLPlanRows
from memory.statements import content_words
from memory.types import Plan, Round

FOLLOW_UP_DAYS = 4  # a plan is asked about in the first conversation this many days after it
# Words that say when, not what: two plans sharing only these are not the same plan.
_TIME_WORDS = frozenset(
    [name.lower() for name in (*calendar.day_name, *calendar.month_name) if name]
    + "today tonight tomorrow tmrw next week weekend month year morning evening night "
      "afternoon day days moved move moving changed postponed rescheduled instead now "
      "th st nd rd".split())


class Plans:
    """Finds, keeps and follows up the user's plans."""

    def __init__(self, rows: SQLPlanRows, finder: PlanFinder | None = None,
                 gate: PlanGate | None = None, default_zone: str = "UTC") -> None:
        """`gate`: None keeps what the finder's rules find (with an embedder the gate was not
        trained on). `default_zone`: the time zone of users who chose none (/timezone): the
        day a plan is said on and the day it is over are days there."""
        self._rows = rows
        self._finder = finder or PlanFinder()
        self._gate = gate
        self._default_zone = default_zone

    async def keep(self, round_: Round, said_at: datetime) -> list[Plan]:
        """Store the plans of the round's message, said at `said_at`; returns those new. Safe
        to run twice: a plan's id comes from its round.

        A sentence that names the same thing as an open plan is a change of that plan ("the
        interview moved to Monday"): what the user said before vouches for it, and the gate
        is not asked."""
        said_on = said_at.astimezone(UTC).date()
        found = await asyncio.to_thread(self._finder.find, round_.user_text, said_on)
        if not found:
            return []
        zone = local_zone(await self._rows.zone_of(round_.user_id), self._default_zone)
        if said_at.astimezone(zone).date() != said_on:  # near midnight: "tomorrow" is theirs
            said_on = said_at.astimezone(zone).date()
            found = await asyncio.to_thread(self._finder.find, round_.user_text, said_on)
        earlier = [old for old in await self._rows.open_from(round_.user_id, said_on)
                   if old.round_id != round_.id]
        changes = [plan for plan in found
                   if any(_same_thing(old.text, plan.text) for old in earlier)]
        vetted = await self._vetted([plan for plan in found if plan not in changes])
        kept = [plan for plan in found if plan in changes or plan in vetted]
        new = [_plan(round_, i, plan, said_at) for i, plan in enumerate(kept)]
        replaced = [old.id for old in earlier for plan in new if _same_thing(old.text, plan.text)]
        return await self._rows.add(new, replaced)

    async def _vetted(self, found: list[FoundPlan]) -> list[FoundPlan]:
        if not found or self._gate is None:
            return found
        return await self._gate.plans_among(found)

    async def due(self, user_id: str, now: datetime) -> Plan | None:
        """The plan to ask the user about now, if one is due: one read."""
        candidates = await self._rows.due_candidates(user_id, now.astimezone(UTC).date(),
                                                     FOLLOW_UP_DAYS)
        return due_where_they_are(candidates, now, self._default_zone)

    async def asked(self, plan: Plan) -> None:
        await self._rows.asked(plan.user_id, plan.id)


def due_where_they_are(candidates: Sequence[tuple[Plan, str | None]], now: datetime,
                       default_zone: str) -> Plan | None:
    """The most recent plan over where its user is (their zone, else `default_zone`), at most
    `FOLLOW_UP_DAYS` days ago."""
    for plan, zone in candidates:
        today = now.astimezone(local_zone(zone, default_zone)).date()
        if plan.last_day < today <= plan.last_day + timedelta(days=FOLLOW_UP_DAYS):
            return plan
    return None


def local_zone(name: str | None, default: str) -> ZoneInfo:
    """The zone named, else the default; UTC for a name this machine does not know."""
    try:
        return ZoneInfo(name or default)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def _same_thing(older: str, newer: str) -> bool:
    """Two plans that name the same thing: a word besides the time words in common."""
    return bool(_what(older) & _what(newer))


def _what(text: str) -> set[str]:
    return {w for w in content_words(text) if w not in _TIME_WORDS and not w.isdigit()}


def _plan(round_: Round, index: int, found: FoundPlan, said_at: datetime) -> Plan:
    digest = hashlib.sha256(f"{round_.user_id}/plan/{round_.id}#{index}".encode()).digest()
    return Plan(id=uuid.UUID(bytes=digest[:16]).hex, user_id=round_.user_id, text=found.text,
                first_day=found.first_day, last_day=found.last_day, said_at=said_at,
                round_id=round_.id, persona=round_.persona)
