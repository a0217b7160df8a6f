"""Check-ins: one private message when a plan is over and the person has not written since.

Off unless the person says `/checkins on`. The bots look for plans due every few minutes
(`checkins.every_minutes`) and send each through the platform the person uses. A check-in is
sent only:

- within the person's waking hours, in their time zone (`/timezone`, else `checkins.timezone`);
- when fewer than `checkins.per_week` went to them in the last 7 days (counted under the
  person's turn, which processes share);
- once per plan, whichever process finds it first: the plan is claimed (marked asked) in one
  statement before it is sent, and given back if the sending fails.

A check-in is stored as a round with no message of the person's, so the next reply sees it in
Recency and `/why` names the plan. It asks with the plain question the demo model's replies end
with (`bot.core.follow_ups`), whatever the model: it is sent with no message to answer.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from bot.core.follow_ups import follow_up_question
from bot.core.persona_choice import PersonaChoice
from bot.core.turn_lock import TurnLock
from bot.settings import CheckinSettings
from memory.plans.checkin_rows import SQLCheckinRows
from memory.plans.plans import FOLLOW_UP_DAYS, due_where_they_are, local_zone
from memory.plans.rows import SQLPlanRows
from memory.protocols import RoundStore
from memory.provenance import used_record
from memory.types import Plan, Recall

log = logging.getLogger(__name__)

# Sends a private message to a person ("telegram:42"); raises when it cannot.
Send = Callable[[str, str], Awaitable[None]]


class CheckIns:
    def __init__(self, *, plans: SQLPlanRows, choices: SQLCheckinRows, rounds: RoundStore,
                 personas: PersonaChoice, turns: TurnLock, settings: CheckinSettings,
                 clock: Callable[[], datetime]) -> None:
        self._plans = plans
        self.choices = choices
        self._rounds = rounds
        self._personas = personas
        self._turns = turns
        self._settings = settings
        self._clock = clock

    async def send_due(self, senders: Mapping[str, Send]) -> list[Plan]:
        """Send every check-in due now through `senders` (platform -> send); returns the plans
        asked about."""
        now = self._clock()
        sent = []
        for plan, timezone in await self._plans.checkin_candidates(now.date(), FOLLOW_UP_DAYS):
            send = senders.get(plan.user_id.split(":", 1)[0])
            if (send is not None and await self._due(plan, now, timezone)
                    and await self._send(plan, send)):
                sent.append(plan)
        return sent

    async def _due(self, plan: Plan, now: datetime, timezone: str | None) -> bool:
        local = now.astimezone(self.zone(timezone))
        if not self._settings.waking_from <= local.hour < self._settings.waking_until:
            return False
        return plan.last_day < local.date() <= plan.last_day + timedelta(days=FOLLOW_UP_DAYS)

    async def _send(self, plan: Plan, send: Send) -> bool:
        return await self._ask(plan, "checkin", send) is not None

    async def _week_is_full(self, user_id: str) -> bool:
        week_ago = self._clock() - timedelta(days=7)
        return await self._plans.checkins_since(user_id, week_ago) >= self._settings.per_week

    async def on_opening(self, user_id: str) -> str | None:
        """The question about a plan that is over, as the terminal UI opens: stored like a
        check-in (whatever `/checkins` says: the person opened the chat). None: none is due."""
        now = self._clock()
        candidates = await self._plans.due_candidates(user_id, now.astimezone(UTC).date(),
                                                      FOLLOW_UP_DAYS)
        plan = due_where_they_are(candidates, now, self._settings.timezone)
        return None if plan is None else await self._ask(plan, "opening", None)

    async def _ask(self, plan: Plan, via: str, send: Send | None) -> str | None:
        """Claim the plan, send the question (when `send`), store it as a round; the question,
        or None when another process claimed it or the sending failed."""
        async with self._turns.turn(plan.user_id):
            # The week's count is read under the person's turn, which processes share: two
            # cannot both see room for one more.
            if via == "checkin" and await self._week_is_full(plan.user_id):
                return None
            if not await self._plans.asked(plan.user_id, plan.id, via=via):
                return None  # another process asked, or a reply did meanwhile
            text = follow_up_question(plan)
            if send is not None:
                try:
                    await send(plan.user_id, text)
                except Exception:
                    log.warning("A check-in could not be sent to %s", plan.user_id,
                                exc_info=True)
                    await self._plans.give_back(plan.user_id, plan.id)
                    return None
            persona = await self._personas.of(plan.user_id)
            round_ = await self._rounds.start_round(
                user_id=plan.user_id, conversation_id=plan.user_id, persona=persona.name,
                text="")
            used = used_record(replace(Recall.empty(), follow_up=plan), "", ())
            await self._rounds.finish_round(round_, text, [], used)
        return text

    def zone(self, timezone: str | None) -> ZoneInfo:
        """The person's time zone, else the settings' (an unknown name: UTC)."""
        return local_zone(timezone, self._settings.timezone)
