"""Each user's persona choice, kept in SQL (SQLite and the real MariaDB) and seen by every
process."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncEngine

from memory.sql.profiles import SQLProfileStore


async def test_persona_choice_is_remembered_per_user(engine: AsyncEngine) -> None:
    profiles = SQLProfileStore(engine)
    assert await profiles.persona_of("alice") is None
    await profiles.set_persona("alice", "coach")
    await profiles.set_persona("alice", "coach")  # same value again: still one row, no error
    await profiles.set_persona("bob", "companion")
    assert await profiles.persona_of("alice") == "coach"
    assert await SQLProfileStore(engine).persona_of("bob") == "companion"


async def test_a_persona_chosen_in_another_process_is_seen_within_a_minute(
    engine: AsyncEngine,
) -> None:
    now = [0.0]
    here = SQLProfileStore(engine, keep_seconds=60, clock=lambda: now[0])
    elsewhere = SQLProfileStore(engine)
    await here.set_persona("alice", "coach")
    assert await here.persona_of("alice") == "coach"
    await elsewhere.set_persona("alice", "tutor")
    now[0] = 59.0
    assert await here.persona_of("alice") == "coach"  # kept: read for every message
    now[0] = 61.0
    assert await here.persona_of("alice") == "tutor"
    await here.set_persona("alice", "companion")  # a change made here is seen at once
    assert await here.persona_of("alice") == "companion"
