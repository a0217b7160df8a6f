"""What people and admins do with the shared pool: opt in or out, say a reply was good or bad
(/good, /bad, or a thumbs reaction), and review what may be shared."""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.upkeep import Upkeep
from bot.errors import UserFacingError
from memory.pool.store import SharedPool, from_round
from memory.sql.rounds import SQLRoundStore
from memory.types import PoolEntry, PoolStatus, Round, RoundStatus
from personas.loader import Persona

GOOD_REACTIONS = frozenset({"👍", "❤", "❤️", "🔥", "🥰", "👏", "😍", "💯"})
BAD_REACTIONS = frozenset({"👎", "💩", "🤮"})
SHARE_HELP = (
    "Sharing is {state}. With /share on, replies of mine you mark good (/good, or a 👍) and "
    "ones that score well may become examples that help my other personas answer other "
    "people: names, places, numbers, emails, phone numbers and handles are taken out first, "
    "and an admin reviews each one. /share off takes all of yours out again.")
NOT_SHARING = ("Thanks, noted. Your chats stay private: if you would like good answers like "
               "this one to help my other personas (personal details taken out, reviewed by an "
               "admin first), say /share on.")


def reaction_verdict(emoji: str) -> bool | None:
    """True for a thumbs-up (or another clearly happy reaction), False for a thumbs-down,
    None for anything else."""
    emoji = emoji.strip()
    if emoji in GOOD_REACTIONS:
        return True
    return False if emoji in BAD_REACTIONS else None


@dataclass(frozen=True, slots=True)
class Review:
    """What `/admin pool` lists."""

    counts: dict[str, int]
    candidates: list[PoolEntry]


class Sharing:
    """The pool as people and admins see it; every change of a user's entries is theirs."""

    def __init__(self, pool: SharedPool, rounds: SQLRoundStore, personas: dict[str, Persona],
                 upkeep: Upkeep) -> None:
        self.pool = pool
        self._rounds = rounds
        self._personas = personas
        self._upkeep = upkeep

    async def opt(self, user_id: str, on: bool | None) -> str:
        """`/share on|off`, or (None) where the user stands."""
        if on is None:
            state = "on" if await self.pool.rows.opted_in(user_id) else "off"
            return SHARE_HELP.format(state=state)
        await self.pool.rows.set_opt_in(user_id, on)
        if on:
            return ("Sharing is on. Thank you! Good replies of mine may become examples for my "
                    "other personas, with your personal details taken out. /share off undoes it.")
        removed = await self.pool.forget_user(user_id)
        return (f"Sharing is off. I took {removed} of your exchanges out of the shared pool; "
                "none will go in from now on.")

    async def vote_last(self, user_id: str, conversation_id: str | None, good: bool) -> str:
        """`/good` or `/bad`: about my last reply in this chat."""
        recent = await self._rounds.recent_rounds(user_id, 5, conversation_id=conversation_id)
        answered = [r for r in recent if r.status is RoundStatus.ANSWERED]
        if not answered:
            return "There is no reply of mine here to rate yet."
        return await self._vote(answered[-1], good)

    async def vote_reaction(self, user_id: str, message_key: str, emoji: str) -> str | None:
        """A reaction to a message of ours; None when it says nothing we use (another emoji, a
        message that was not a reply to this user)."""
        good = reaction_verdict(emoji)
        if good is None:
            return None
        round_id = await self.pool.rows.round_of_reply(message_key, user_id)
        round_ = await self._rounds.get_round(user_id, round_id) if round_id else None
        if round_ is None or round_.status is not RoundStatus.ANSWERED:
            return None
        return await self._vote(round_, good)

    async def _vote(self, round_: Round, good: bool) -> str:
        stored = await self.pool.rows.by_round(round_.id)
        if not await self.pool.rows.opted_in(round_.user_id):
            return NOT_SHARING if good else "Thanks, noted: I'll try to do better."
        if not good:
            if stored is None:
                stored = await self.pool.add(from_round(round_, self._domain(round_),
                                                         PoolStatus.REJECTED, "chat"))
            else:
                await self.pool.set_status(stored, PoolStatus.REJECTED)
            await self.pool.rows.vote(stored.id, -1)
            return "Thanks, noted: that reply will never be shown to anyone as an example."
        if stored is None:
            stored = await self.pool.add(from_round(round_, self._domain(round_),
                                                     PoolStatus.CANDIDATE, "chat"))
            self._upkeep.entry_added(round_.user_id, round_.id)
        await self.pool.rows.vote(stored.id, +1)
        if stored.status is PoolStatus.REJECTED:
            return "Thanks! (That reply was marked bad before, so it stays out of the pool.)"
        if stored.status is PoolStatus.SHARED:
            return "Thanks! That reply is already an example for my other personas."
        return ("Thanks! That reply is now a candidate example for my other personas, with your "
                "personal details taken out; an admin reviews it first.")

    def _domain(self, round_: Round) -> str:
        persona = self._personas.get(round_.persona)
        return persona.domain if persona else "general"

    async def remember_reply(self, keys: list[str], user_id: str, round_id: int) -> None:
        await self.pool.rows.remember_reply(keys, user_id, round_id)

    async def review(self, limit: int = 10) -> Review:
        return Review(await self.pool.rows.counts(),
                      await self.pool.rows.listed(PoolStatus.CANDIDATE, limit))

    async def decide(self, prefix: str, status: PoolStatus, admin_id: str) -> PoolEntry:
        """An admin approves (shares) or rejects an entry, by id prefix."""
        found = await self.pool.rows.find(prefix)
        if len(found) != 1:
            raise UserFacingError(f"{'No' if not found else 'More than one'} pool entry has "
                                  f"the id '{prefix}'. See /admin pool.")
        entry = await self.pool.set_status(found[0], status, admin_id)
        if status is PoolStatus.SHARED:
            self._upkeep.pool_grew()
        return entry

    async def share_round(self, round_id: int, admin_id: str) -> PoolEntry:
        """An admin shares a round of any chat (scrubbed like every entry)."""
        round_ = await self._rounds.round_by_id(round_id)
        if round_ is None or round_.status is not RoundStatus.ANSWERED:
            raise UserFacingError(f"There is no answered round {round_id}.")
        stored = await self.pool.rows.by_round(round_id)
        if stored is None:
            stored = await self.pool.add(from_round(round_, self._domain(round_),
                                                     PoolStatus.SHARED, "admin"))
        elif stored.status is not PoolStatus.SHARED:
            stored = await self.pool.set_status(stored, PoolStatus.SHARED, admin_id)
        self._upkeep.entry_added(round_.user_id, round_.id)
        self._upkeep.pool_grew()
        return stored
