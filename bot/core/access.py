"""Who may chat, who may run admin commands, and how fast one user may send."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from enum import Enum
from typing import Protocol

from aiolimiter import AsyncLimiter

from bot.settings import Settings

log = logging.getLogger(__name__)


class Admission(Enum):
    """What to do with a message, before anything is stored."""

    ACCEPT = "accept"
    NOT_ALLOWED = "not allowed"  # an allowlist is set and the user is not on it: told so
    BLOCKED = "blocked"  # ignored without a reply: an abuser gets nothing back
    TOO_FAST = "too fast"


class SharedCounts(Protocol):
    """Messages per user and minute, counted where every bot process sees them."""

    async def count(self, user_id: str) -> int:
        """Count one more message of `user_id`; returns how many it sent this minute."""
        ...


class AccessPolicy:
    """Allowlist, blocklist, admins and a per-user rate limit. User ids are qualified by
    platform ("telegram:42" is not "discord:42").

    With `shared` counts (several processes on one database) the limit is a count per minute
    that every process adds to; without, a leaky bucket in this process. Should the shared
    count fail (the database away), this process's own bucket decides."""

    def __init__(
        self,
        *,
        admins: Iterable[str],
        allow: Iterable[str] = (),
        block: Iterable[str] = (),
        messages_per_minute: int = 20,
        shared: SharedCounts | None = None,
    ) -> None:
        self._admins = frozenset(admins)
        self._allow = frozenset(allow)
        self._block = frozenset(block)
        self.messages_per_minute = messages_per_minute
        self._limiters: dict[str, AsyncLimiter] = {}
        self._shared = shared

    @classmethod
    def from_settings(cls, settings: Settings, shared: SharedCounts | None = None) -> AccessPolicy:
        admins = [
            *settings.access.terminal_admins,
            *(f"telegram:{user}" for user in settings.telegram.admin_ids),
            *(f"discord:{user}" for user in settings.discord.admin_ids),
        ]
        return cls(
            admins=admins,
            allow=settings.access.allow_users,
            block=settings.access.block_users,
            messages_per_minute=settings.access.messages_per_minute,
            shared=shared,
        )

    def is_admin(self, user_id: str) -> bool:
        return user_id in self._admins

    async def admit(self, user_id: str) -> Admission:
        """Check a message of `user_id` against the lists, then count it against the rate."""
        if user_id in self._block:
            log.info("Ignored a message from blocked user %s", user_id)
            return Admission.BLOCKED
        if self._allow and user_id not in self._allow and user_id not in self._admins:
            log.info("Refused a message from %s, who is not on the allowlist", user_id)
            return Admission.NOT_ALLOWED
        if self._shared is not None:
            try:
                too_fast = await self._shared.count(user_id) > self.messages_per_minute
                return Admission.TOO_FAST if too_fast else Admission.ACCEPT
            except Exception as error:  # the local bucket decides instead
                log.warning("Could not count the message of %s everywhere: %s", user_id, error)
        return await self._admit_here(user_id)

    async def _admit_here(self, user_id: str) -> Admission:
        limiter = self._limiters.get(user_id)
        if limiter is None:
            limiter = self._limiters[user_id] = AsyncLimiter(self.messages_per_minute, 60)
        if not limiter.has_capacity():
            return Admission.TOO_FAST
        await limiter.acquire()  # there is capacity, so this returns at once
        return Admission.ACCEPT
