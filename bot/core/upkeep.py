"""The memory work a turn starts in the background, as the dialogue core sees it."""

from __future__ import annotations

from typing import Protocol


class Upkeep(Protocol):
    """Background memory jobs (`jobs.worker.MemoryWorker`). Every call returns at once: the
    work runs later, never on a reply's path."""

    def round_stored(self, user_id: str, pending: int) -> None:
        """A round was stored; `pending` of the user's rounds wait to be summarized."""
        ...

    def exchange_finished(self, user_id: str, round_id: int) -> None:
        """A reply in a private chat is done: the shared pool may score it."""
        ...

    def beliefs_added(self, user_id: str) -> None:
        """A fact was taught: check it against the user's beliefs."""
        ...

    def entry_added(self, user_id: str, round_id: int) -> None:
        """A round entered the shared pool unscored: score it."""
        ...

    def pool_grew(self) -> None:
        """Entries were shared: train the pool's retriever again if enough came in."""
        ...
