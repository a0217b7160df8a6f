"""One user's messages and commands, one at a time: the memory is the user's, so a reply in one
chat must see the round just said in another, and `/forget` never races a reply being written."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Protocol


class SharedTurns(Protocol):
    """Whose turn it is across processes (`memory.sql.user_turns.SQLUserTurns`)."""

    def turn(self, user_id: str) -> AbstractAsyncContextManager[None]: ...


class TurnLock:
    """A lock per user in this process and, with `shared` turns (several bot processes on one
    database), in every process. Different users never wait for each other."""

    def __init__(self, shared: SharedTurns | None = None) -> None:
        self._shared = shared
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )

    @asynccontextmanager
    async def turn(self, user_id: str) -> AsyncIterator[None]:
        async with self._locks.setdefault(user_id, asyncio.Lock()):
            if self._shared is None:
                yield
                return
            async with self._shared.turn(user_id):
                yield
