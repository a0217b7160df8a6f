"""Slash commands against real stores: what a user sees and what is left stored."""

from __future__ import annotations

from bot.app import Companion
from bot.inbound import Incoming
from tests.fakes.openai_server import ScriptedLLM


async def _chat(companion: Companion, user: str, text: str) -> None:
    async for _ in companion.dialogue.respond(Incoming(user, text)):
        pass


async def test_topics_lists_mine_with_short_ids(companion: Companion) -> None:
    mine = await companion.add_topic("ana", "hobbies", "The host plays table tennis.")
    await companion.add_topic("ben", "work", "The host is a baker.")
    listed = await companion.commands.run("ana", "/topics")
    assert f"[{mine.id[:8]}] hobbies: The host plays table tennis." in listed
    assert "baker" not in listed


async def test_forget_one_topic_by_id(companion: Companion) -> None:
    hobby = await companion.add_topic("ana", "hobbies", "The host plays table tennis.")
    await companion.add_topic("ana", "work", "The host is a nurse.")
    assert await companion.commands.run("ana", f"/forget {hobby.id[:8]}") == (
        f"Forgotten: [{hobby.id[:8]}] hobbies"
    )
    assert [t.label for t in await companion.topics.list_topics("ana")] == ["work"]
    assert await companion.search_topics("ana", "table tennis", floor=0.5) == []


async def test_forget_cannot_reach_another_users_topic(companion: Companion) -> None:
    bens = await companion.add_topic("ben", "work", "The host is a baker.")
    answer = await companion.commands.run("ana", f"/forget {bens.id[:8]}")
    assert answer.startswith("No topic has the id")
    assert await companion.topics.count("ben") == 1


async def test_forget_all_clears_rounds_and_topics_of_that_user_only(
    companion: Companion, llm: ScriptedLLM
) -> None:
    for user in ("ana", "ben"):
        await companion.add_topic(user, "hobbies", "The host plays table tennis.")
        await _chat(companion, user, "I love table tennis")
    answer = await companion.commands.run("ana", "/forget all")
    assert answer == "Forgotten: 1 rounds and 1 topics. We start afresh."
    assert await companion.rounds.count_rounds("ana") == 0
    assert await companion.topics.count("ana") == 0
    assert await companion.search_topics("ana", "table tennis") == []
    assert await companion.rounds.count_rounds("ben") == 1
    assert len(await companion.search_topics("ben", "table tennis")) == 1


async def test_why_names_the_memories_behind_the_last_reply(
    companion: Companion, llm: ScriptedLLM
) -> None:
    assert "not replied to you yet" in await companion.commands.run("ana", "/why")
    hobby = await companion.add_topic("ana", "hobbies", "The host plays table tennis.")
    await _chat(companion, "ana", "hello")
    await _chat(companion, "ana", "Which sport do I play?")
    why = await companion.commands.run("ana", "/why")
    assert "Recency: 1 recent rounds" in why
    assert f"[{hobby.id[:8]}] hobbies" in why.split("Relevance:")[1].split("Latest")[0]


async def test_unknown_command_and_bad_usage_get_help(companion: Companion) -> None:
    assert "Unknown command /dance" in await companion.commands.run("ana", "/dance")
    assert "Usage: /forget" in await companion.commands.run("ana", "/forget")
    assert "no persona called 'pirate'" in await companion.commands.run("ana", "/persona pirate")
