"""Forgetting, as `/forget`, `/feedback forget` and `/admin forget` do it: one memory by its id,
or everything of a user, from SQL and the vector indexes alike."""

from __future__ import annotations

from dataclasses import dataclass

from bot.commands.replies import fact_line, feedback_line, plan_line, short_id
from bot.core.wording import counted
from bot.errors import UserFacingError
from memory.facts.store import FactStore
from memory.feedback.store import FeedbackMemory
from memory.plans.checkin_rows import SQLCheckinRows
from memory.plans.rows import SQLPlanRows
from memory.pool.store import SharedPool
from memory.protocols import RoundStore, TopicStore
from memory.types import Fact, Plan, Topic


@dataclass(frozen=True, slots=True)
class UserMemories:
    """Where a user's memories live: what the commands show, count and forget."""

    rounds: RoundStore
    topics: TopicStore
    facts: FactStore
    feedback: FeedbackMemory
    pool: SharedPool
    plans: SQLPlanRows
    checkins: SQLCheckinRows


CONFIRM_WORD = "yes"


async def what_forget_all_takes(memories: UserMemories, user_id: str) -> str:
    """What `/forget all` would delete, and how to confirm: nothing goes on one command."""
    shared = len(await memories.pool.rows.of_user(user_id))
    counts = [counted(await memories.rounds.count_rounds(user_id), "round"),
              counted(await memories.topics.count(user_id), "topic"),
              counted(await memories.facts.count_stored(user_id), "fact"),
              counted(len(await memories.feedback.list_mine(user_id)), "correction"),
              counted(len(await memories.plans.of_user(user_id)), "plan"),
              counted(shared, "shared exchange")]
    return (f"This would delete everything I store about you: {', '.join(counts[:-1])} and "
            f"{counts[-1]}, for good (/export saves a copy first). To go ahead, send "
            f"/forget all {CONFIRM_WORD}")


async def forget_memories(memories: UserMemories, user_id: str, what: str) -> str:
    """Forget one topic or fact by id prefix, or everything with "all", from SQL and the
    indexes."""
    if what.lower() == "all":
        await memories.checkins.forget(user_id)
        topic_count = await memories.topics.forget(user_id)
        fact_count = await memories.facts.forget(user_id)
        feedback_count = await memories.feedback.forget(user_id)
        plan_count = await memories.plans.forget(user_id)
        round_count = await memories.rounds.forget_rounds(user_id)
        pool_count = await _forget_shared(memories.pool, user_id)
        return (f"Forgotten: {counted(round_count, 'round')}, {counted(topic_count, 'topic')}, "
                f"{counted(fact_count, 'fact')}, {counted(feedback_count, 'correction')}, "
                f"{counted(plan_count, 'plan')} and {counted(pool_count, 'shared exchange')}. "
                "We start afresh.")
    memory = await _find_memory(memories, user_id, what)
    await memories.checkins.stop(user_id)  # any /forget stops check-ins at once
    if isinstance(memory, Plan):
        await memories.plans.forget(user_id, memory.id)
        return f"Forgotten: {plan_line(memory)}"
    if isinstance(memory, Topic):
        await memories.topics.forget(user_id, memory.id)
        return f"Forgotten: [{short_id(memory.id)}] {memory.label}"
    await memories.facts.forget(user_id, memory.id)
    return f"Forgotten: {fact_line(memory)}"


async def _forget_shared(pool: SharedPool, user_id: str) -> int:
    await pool.rows.forget_replies(user_id)
    return await pool.forget_user(user_id)


async def forget_feedback(feedback: FeedbackMemory, user_id: str, what: str) -> str:
    """Forget one of the user's corrections by id prefix, or all of them."""
    if what.lower() == "all":
        return f"Forgotten: {counted(await feedback.forget(user_id), 'correction')}."
    try:
        item = await feedback.find(what, user_id)
    except LookupError as error:
        raise UserFacingError(f"There is {error} with the id '{what}'. See /feedback.") from None
    await feedback.forget(user_id, item.id)
    return f"Forgotten: {feedback_line(item)}"


async def _find_memory(memories: UserMemories, user_id: str, prefix: str
                       ) -> Topic | Fact | Plan:
    topics = [t for t in await memories.topics.list_topics(user_id) if t.id.startswith(prefix)]
    matches: list[Topic | Fact | Plan] = [*topics, *await memories.facts.find(user_id, prefix),
                                          *await memories.plans.with_prefix(user_id, prefix)]
    if len(matches) != 1:
        problem = "No memory" if not matches else "More than one memory"
        raise UserFacingError(f"{problem} has the id '{prefix}'. See /memories or /facts.")
    return matches[0]
