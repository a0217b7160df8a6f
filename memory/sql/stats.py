"""Counts across all users, for the admin's `/admin stats`."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import distinct, func, select
from sqlalchemy.ext.asyncio import AsyncEngine

from memory.sql.tables import facts, memory_jobs, rounds, topics
from memory.topics.rows import ACTIVE


@dataclass(frozen=True, slots=True)
class MemoryStats:
    users: int
    rounds: int
    failed_rounds: int
    active_topics: int
    active_facts: int
    jobs_by_status: dict[str, int]


async def memory_stats(engine: AsyncEngine) -> MemoryStats:
    async with engine.connect() as conn:
        users = (await conn.execute(select(func.count(distinct(rounds.c.user_id))))).scalar_one()
        by_status: dict[str, int] = {status: int(n) for status, n in (await conn.execute(
            select(rounds.c.status, func.count()).group_by(rounds.c.status)
        )).all()}
        active = (await conn.execute(
            select(func.count()).select_from(topics).where(topics.c.status == ACTIVE)
        )).scalar_one()
        fact_count = (await conn.execute(
            select(func.count()).select_from(facts).where(facts.c.status == ACTIVE)
        )).scalar_one()
        jobs: dict[str, int] = {status: int(n) for status, n in (await conn.execute(
            select(memory_jobs.c.status, func.count()).group_by(memory_jobs.c.status)
        )).all()}
    return MemoryStats(
        users=int(users),
        rounds=sum(by_status.values()),
        failed_rounds=by_status.get("failed", 0),
        active_topics=int(active),
        active_facts=int(fact_count),
        jobs_by_status=jobs,
    )
