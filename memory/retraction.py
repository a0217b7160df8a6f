"""Retracting a memory of any kind (`/wrong`): kept for audit, out of every later prompt of the
user who says it is wrong; and restoring it (`/memories restore`)."""

from __future__ import annotations

from memory.facts.store import FactStore
from memory.feedback.store import FeedbackMemory
from memory.topics.store import IndexedTopicStore
from memory.types import Fact, Memory, Topic


class Retractions:
    """Retracts memories of any kind for the user who says they are wrong."""

    def __init__(
        self, topics: IndexedTopicStore, facts: FactStore, feedback: FeedbackMemory
    ) -> None:
        self._topics = topics
        self._facts = facts
        self._feedback = feedback

    async def retract(self, user_id: str, memory: Memory) -> bool:
        """Take the memory out of every later prompt of `user_id`; False when it is gone
        already, or is not theirs to retract (a correction someone else gave)."""
        if isinstance(memory, Topic):
            return await self._topics.retract(user_id, memory.id)
        if isinstance(memory, Fact):
            return await self._facts.retract(user_id, memory.id) is not None
        if memory.user_id != user_id:
            return False
        return await self._feedback.retract(user_id, memory.id)

    async def restore(self, user_id: str, id_prefix: str) -> Memory | None:
        """Undo a retraction, or a supersession: the user's retracted or superseded memory whose
        id starts with `id_prefix`. The topics a restored belief left earlier are current
        again."""
        fact = await self._facts.restore(user_id, id_prefix)
        if fact is not None:
            await self._topics.unmark_quoting(user_id, fact.id)
            return fact
        return (await self._topics.restore(user_id, id_prefix)
                or await self._feedback.restore(user_id, id_prefix))
