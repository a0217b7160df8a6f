"""One user's turn at a time across processes: a lease on a row per user in SQL.

Several bot processes on one database answer a user's messages one after another, as one
process does with its asyncio lock: the holder's lease is renewed while its turn runs, and a
process that dies leaves a lease that runs out. No connection is held while a reply streams.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from datetime import timedelta

from sqlalchemy import bindparam, delete, insert, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from memory.sql.engine import utcnow
from memory.sql.prepared import PreparedWrite
from memory.sql.tables import user_turns

log = logging.getLogger(__name__)
LEASE = timedelta(seconds=30)
RENEW_SECONDS = 10.0
POLL_SECONDS = (0.02, 0.5)  # the first and the longest wait between tries
PATIENCE_SECONDS = 180.0  # a turn held longer than this by another process is not waited for


class SQLUserTurns:
    def __init__(self, engine: AsyncEngine, *, lease: timedelta = LEASE,
                 renew_seconds: float = RENEW_SECONDS) -> None:
        """Each statement here stands alone: `engine` may be one in autocommit
        (`open_autocommit_engine`), which spares a COMMIT a statement."""
        self._engine = engine
        self._lease = lease
        self._renew_seconds = renew_seconds
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"

    @asynccontextmanager
    async def turn(self, user_id: str) -> AsyncIterator[None]:
        """Hold the user's turn while the block runs (after waiting for another process's)."""
        await self._take(user_id)
        renewing = asyncio.create_task(self._renew(user_id))
        try:
            yield
        finally:
            renewing.cancel()
            with suppress(asyncio.CancelledError):
                await renewing
            await asyncio.shield(self._give_back(user_id))

    async def _take(self, user_id: str) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + PATIENCE_SECONDS
        wait = POLL_SECONDS[0]
        while not await self._try(user_id):
            if loop.time() > deadline:
                log.warning("Took the turn of %s from a holder that kept it over %.0f s",
                            user_id, PATIENCE_SECONDS)
                await self._force(user_id)
                return
            await asyncio.sleep(wait)
            wait = min(wait * 2, POLL_SECONDS[1])

    async def _try(self, user_id: str) -> bool:
        now = utcnow()
        try:
            async with self._engine.begin() as conn:  # every turn: the driver's write
                await _TAKE.run(conn, user_id=user_id, holder=self.holder,
                                expires_at=now + self._lease)
            return True
        except IntegrityError:  # held: take it if its lease ran out, or if it is ours (left
            # behind when the database went away before we could give it back; this process's
            # own lock makes sure no other turn of ours holds it)
            async with self._engine.begin() as conn:
                taken = await conn.execute(
                    update(user_turns)
                    .where((user_turns.c.user_id == user_id)
                           & ((user_turns.c.expires_at < now)
                              | (user_turns.c.holder == self.holder)))
                    .values(holder=self.holder, expires_at=now + self._lease))
            return taken.rowcount == 1

    async def _force(self, user_id: str) -> None:
        async with self._engine.begin() as conn:
            await conn.execute(update(user_turns).where(user_turns.c.user_id == user_id)
                               .values(holder=self.holder, expires_at=utcnow() + self._lease))

    async def _renew(self, user_id: str) -> None:
        while True:
            await asyncio.sleep(self._renew_seconds)
            try:
                async with self._engine.begin() as conn:
                    await conn.execute(
                        update(user_turns)
                        .where((user_turns.c.user_id == user_id)
                               & (user_turns.c.holder == self.holder))
                        .values(expires_at=utcnow() + self._lease))
            except Exception as error:  # the database is away: the turn goes on; if the
                # lease runs out meanwhile, another process may start the next message early
                log.warning("Could not renew the turn of %s: %s", user_id, error)

    async def _give_back(self, user_id: str) -> None:
        async with self._engine.begin() as conn:  # every turn: the driver's write
            await _GIVE_BACK.run(conn, user_id=user_id, holder=self.holder)


_TAKE = PreparedWrite(insert(user_turns).values(
    user_id=bindparam("user_id"), holder=bindparam("holder"),
    expires_at=bindparam("expires_at", type_=user_turns.c.expires_at.type)))
_GIVE_BACK = PreparedWrite(delete(user_turns).where(
    (user_turns.c.user_id == bindparam("user_id")) & (user_turns.c.holder == bindparam("holder"))))
