"""The round store on SQLite and the real MariaDB: pending, answered and failed rounds, each
user's own, any text exactly as typed, imported rounds found again."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from memory.sql.rounds import SQLRoundStore
from memory.types import Exchange, RoundStatus

TRICKY_TEXTS = [
    "emoji 👩‍👩‍👧‍👦 and 🏓",
    "RTL: مرحبا بك \u200f and עברית",
    "CJK: 你好，世界 こんにちは 안녕하세요",
    "combining: e\u0301 a\u0308 n\u0303 and zalgo z\u0336\u0317a\u0334",
    "quotes ' \" ` and; DROP TABLE rounds; -- \\ %s %(x)s {0}",
    "newlines\nand\ttabs",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 outside the BMP 𐍈",
]


async def test_round_is_stored_pending_then_answered(engine: AsyncEngine) -> None:
    store = SQLRoundStore(engine)
    started = await store.start_round(
        user_id="alice", conversation_id="alice", persona="companion", text="hi there"
    )
    [pending] = await store.recent_rounds("alice", 5)
    assert (pending.user_text, pending.status, pending.reply_text) == (
        "hi there", RoundStatus.PENDING, None,
    )
    await store.finish_round(started, "hello!")
    [answered] = await store.recent_rounds("alice", 5)
    assert (answered.status, answered.reply_text) == (RoundStatus.ANSWERED, "hello!")


async def test_failed_round_keeps_the_message_and_partial_reply(engine: AsyncEngine) -> None:
    store = SQLRoundStore(engine)
    started = await store.start_round(
        user_id="alice", conversation_id="alice", persona="companion", text="are you there?"
    )
    await store.fail_round(started, "I was say")
    [failed] = await store.recent_rounds("alice", 5)
    assert (failed.user_text, failed.reply_text, failed.status) == (
        "are you there?", "I was say", RoundStatus.FAILED,
    )


async def test_recent_rounds_are_the_users_latest_oldest_first(engine: AsyncEngine) -> None:
    store = SQLRoundStore(engine)
    for i in range(30):
        for user in ("alice", "bob"):
            await store.start_round(
                user_id=user, conversation_id=user, persona="companion", text=f"{user} {i}"
            )
    recent = await store.recent_rounds("alice", 20)
    assert [r.user_text for r in recent] == [f"alice {i}" for i in range(10, 30)]
    before = await store.recent_rounds("alice", 3, before_id=recent[-1].id)
    assert [r.user_text for r in before] == ["alice 26", "alice 27", "alice 28"]
    assert await store.count_rounds("alice") == 30
    assert await store.recent_rounds("alice", 0) == []


@pytest.mark.parametrize("text", TRICKY_TEXTS)
async def test_any_unicode_round_trips_exactly(engine: AsyncEngine, text: str) -> None:
    store = SQLRoundStore(engine)
    started = await store.start_round(
        user_id="üser-ñ", conversation_id="üser-ñ", persona="companion", text=text
    )
    await store.finish_round(started, text[::-1])
    [stored] = await store.recent_rounds("üser-ñ", 1)
    assert stored.user_text == text
    assert stored.reply_text == text[::-1]


async def test_forget_rounds_deletes_only_that_user(engine: AsyncEngine) -> None:
    store = SQLRoundStore(engine)
    for user in ("alice", "bob", "Alice"):
        await store.start_round(user_id=user, conversation_id=user, persona="c", text="x")
    assert await store.forget_rounds("alice") == 1
    assert await store.count_rounds("alice") == 0
    assert await store.count_rounds("bob") == 1
    assert await store.count_rounds("Alice") == 1  # user ids are exact, case included


async def test_imported_rounds_are_found_again_by_their_time_and_text_for_their_user_only(
    engine: AsyncEngine
) -> None:
    store = SQLRoundStore(engine)
    at = datetime(2024, 3, 1, 10, 0, 0, 123456, tzinfo=UTC)
    said = [Exchange("I adopted a cat", "What is her name?", at),
            Exchange("", "Good morning!", at + timedelta(minutes=1)),
            Exchange("untimed", "ok", None)]
    await store.import_rounds("ana", "c", said)
    assert await store.imported_already("ana", said) == {
        (at.replace(tzinfo=None), "I adopted a cat", "What is her name?"),
        ((at + timedelta(minutes=1)).replace(tzinfo=None), "", "Good morning!")}
    assert await store.imported_already("bo", said) == set()


async def test_many_new_users_finish_their_first_rounds_at_once(engine: AsyncEngine) -> None:
    """Each user's first round creates their count of rounds to summarize. On MariaDB an
    update of a missing row followed by an insert took gap locks that deadlocked two new
    users, and the loser's reply was not stored."""
    store = SQLRoundStore(engine)
    users = [f"new{n:03d}" for n in range(40)]
    started = await asyncio.gather(*(
        store.start_round(user_id=user, conversation_id=user, persona="companion",
                          text=f"hello from {user}") for user in users))
    waiting = await asyncio.gather(*(store.finish_round(round_, "welcome!")
                                     for round_ in started))
    assert waiting == [1] * len(users)
    for user in users:
        [answered] = await store.recent_rounds(user, 5)
        assert answered.status == RoundStatus.ANSWERED
