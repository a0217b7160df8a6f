"""The user's slash commands (/memories, /facts, /forget, /export, /why, /persona) on a whole
companion, with real stores: what a user sees and what is left stored."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path

from bot.app import Companion, open_companion
from bot.core.inbound import Incoming
from memory.types import Fact, Speaker
from tests.conftest import make_settings
from tests.fakes.openai_server import ScriptedLLM

SAID = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


async def _facts(companion: Companion, user: str, *texts: str) -> list[Fact]:
    facts = [Fact(uuid.uuid4().hex, user, t, Speaker.USER, SAID, (1,)) for t in texts]
    await companion.facts.add_facts(facts)
    return facts


async def _run(companion: Companion, user: str, text: str) -> str:
    return (await companion.commands.run(user, text)).text


async def _chat(companion: Companion, user: str, text: str) -> None:
    async for _ in companion.dialogue.respond(Incoming(user, text)):
        pass


async def test_topics_lists_mine_with_short_ids(companion: Companion) -> None:
    mine = await companion.add_topic("ana", "hobbies", "The host plays table tennis.")
    await companion.add_topic("ben", "work", "The host is a baker.")
    listed = await _run(companion, "ana", "/memories")
    assert f"[{mine.id[:8]}] hobbies: The host plays table tennis." in listed
    assert "baker" not in listed


async def test_forget_one_topic_by_id(companion: Companion) -> None:
    hobby = await companion.add_topic("ana", "hobbies", "The host plays table tennis.")
    await companion.add_topic("ana", "work", "The host is a nurse.")
    assert await _run(companion, "ana", f"/forget {hobby.id[:8]}") == (
        f"Forgotten: [{hobby.id[:8]}] hobbies"
    )
    assert [t.label for t in await companion.topics.list_topics("ana")] == ["work"]
    assert await companion.search_topics("ana", "table tennis", floor=0.5) == []


async def test_forget_cannot_reach_another_users_topic(companion: Companion) -> None:
    bens = await companion.add_topic("ben", "work", "The host is a baker.")
    answer = await _run(companion, "ana", f"/forget {bens.id[:8]}")
    assert answer.startswith("No memory has the id")
    assert await companion.topics.count("ben") == 1


async def test_forget_all_clears_rounds_and_topics_of_that_user_only(
    companion: Companion, llm: ScriptedLLM
) -> None:
    for user in ("ana", "ben"):
        await companion.add_topic(user, "hobbies", "The host plays table tennis.")
        await _chat(companion, user, "I love table tennis")
    answer = await _run(companion, "ana", "/forget all yes")
    # The fact: what the message told, kept at once (provisional).
    assert answer == ("Forgotten: 1 round, 1 topic, 1 fact, 0 corrections, 0 plans and 0 "
                      "shared exchanges. We start afresh.")
    assert await companion.rounds.count_rounds("ana") == 0
    assert await companion.facts.count("ana") == 0
    assert await companion.facts.count("ben") == 1
    assert await companion.topics.count("ana") == 0
    assert await companion.search_topics("ana", "table tennis") == []
    assert await companion.rounds.count_rounds("ben") == 1
    assert len(await companion.search_topics("ben", "table tennis")) == 1


async def test_why_names_the_memories_behind_the_last_reply(
    companion: Companion, llm: ScriptedLLM
) -> None:
    assert "no reply of mine to explain yet" in await _run(companion, "ana", "/why")
    hobby = await companion.add_topic("ana", "hobbies", "The host plays table tennis.")
    await _chat(companion, "ana", "hello")
    await _chat(companion, "ana", "Which sport do I play?")
    why = await _run(companion, "ana", "/why")
    assert "Recency: 1 recent round\n" in why
    relevance = why.split("Relevance")[1].split("Latest")[0]
    assert f"[{hobby.id[:8]}] topic 'hobbies'" in relevance
    assert "by meaning (similarity 0." in relevance


async def test_why_works_in_another_process_after_a_restart_and_after_forgetting(
    tmp_path: Path, llm: ScriptedLLM, sql_url: str
) -> None:
    """Two companions on one database are two bot processes (or one process, restarted):
    /why in the second explains the reply the first gave, with memories as they are now."""
    settings = make_settings(tmp_path, llm, sql_url)
    async with open_companion(settings) as first:
        hobby = await first.add_topic("ana", "hobbies", "The host plays table tennis.")
        work = await first.add_topic("ana", "work", "The host is a nurse.")
        await _chat(first, "ana", "hello")
        await _chat(first, "ana", "Which sport do I play?")
        await _chat(first, "ben", "Which sport do I play?")  # another user's reply, later
        async with open_companion(settings) as second:
            why = await _run(second, "ana", "/why")
            assert "Recency: 1 recent round\n" in why
            relevance = why.split("Relevance")[1].split("Latest")[0]
            assert f"1. [{hobby.id[:8]}] topic 'hobbies'" in relevance
            assert why == await _run(first, "ana", "/why")
            latest = why.split("Latest topics:")[1].split("Clarifications")[0]
            number = next(line.split(".")[0].strip() for line in latest.splitlines()
                          if work.id[:8] in line)

            await _run(second, "ana", f"/forget {work.id[:8]}")
            after = await _run(first, "ana", "/why")
            assert "nurse" not in after
            assert f"{number}. [{work.id[:8]}] gone" in after  # the same number, said gone
            assert hobby.id[:8] in after

            await _run(first, "ana", "/forget all yes")
            assert "no reply of mine to explain yet" in await _run(second, "ana", "/why")
            assert "no reply of mine" not in await _run(second, "ben", "/why")


async def test_unknown_command_and_bad_usage_get_help(companion: Companion) -> None:
    assert "Unknown command /dance" in await _run(companion, "ana", "/dance")
    assert "Usage: /forget" in await _run(companion, "ana", "/forget")
    assert "no persona called 'pirate'" in await _run(companion, "ana", "/persona pirate")


async def test_memories_is_also_known_as_topics(companion: Companion) -> None:
    await companion.add_topic("ana", "hobbies", "The host plays table tennis.")
    assert await _run(companion, "ana", "/topics") == await _run(companion, "ana", "/memories")


async def test_commands_addressed_to_a_bot_by_name_work(companion: Companion) -> None:
    # Telegram groups send "/help@botname"; quotes and stray quotes are tolerated.
    assert (await _run(companion, "ana", "/help@companion_bot")).startswith("Commands:")
    assert "no persona called" in await _run(companion, "ana", "/persona \"pirate")


async def test_export_is_a_json_file_of_all_my_data_and_only_mine(
    companion: Companion, llm: ScriptedLLM
) -> None:
    await companion.add_topic("ana", "hobbies", "The host plays table tennis.")
    await companion.add_topic("ben", "work", "The host is a baker.")
    llm.enqueue("Table tennis is great!")
    await _chat(companion, "ana", "I love table tennis 🏓")
    await _chat(companion, "ben", "I bake bread")
    answer = await companion.commands.run("ana", "/export")
    assert answer.text.startswith(
        "Here is everything I store about you: 1 round, 1 topic description")
    assert answer.attachment is not None
    assert answer.attachment.filename.endswith(".json")
    data = json.loads(answer.attachment.content)
    assert data["user_id"] == "ana"
    assert [(r["message"], r["reply"]) for r in data["rounds"]] == [
        ("I love table tennis 🏓", "Table tennis is great!")
    ]
    assert [t["description"] for t in data["topics"]] == ["The host plays table tennis."]
    assert "baker" not in answer.attachment.content.decode()
    assert "bread" not in answer.attachment.content.decode()


async def test_after_forget_all_export_shows_nothing(
    companion: Companion, llm: ScriptedLLM
) -> None:
    await companion.add_topic("ana", "hobbies", "The host plays table tennis.")
    await _chat(companion, "ana", "I love table tennis")
    await _run(companion, "ana", "/forget all yes")
    data = json.loads((await companion.commands.run("ana", "/export")).attachment.content)
    assert (data["rounds"], data["topics"]) == ([], [])
    assert await companion.search_topics("ana", "table tennis") == []


async def test_memory_commands_are_not_answered_where_others_read_along(
    companion: Companion,
) -> None:
    await companion.add_topic("ana", "health", "The host has asthma.")
    for command in ("/memories", "/why", "/export", "/forget all", "/admin stats"):
        answer = await companion.commands.run("ana", command, private=False)
        assert answer.text.startswith("For your privacy") and answer.attachment is None
    assert await companion.topics.count("ana") == 1
    assert "Personas" in (await companion.commands.run("ana", "/persona", private=False)).text


async def test_memories_and_facts_list_what_i_said_with_dates(companion: Companion) -> None:
    await companion.add_topic("ana", "pets", "The host has a cat named Miso.")
    [cat, *_] = await _facts(companion, "ana", "I adopted a cat named Miso.",
                             *(f"I read book number {n}." for n in range(40)))
    await _facts(companion, "ben", "I am a baker in Lyon.")
    listed = await _run(companion, "ana", "/memories")
    assert "pets: The host has a cat named Miso." in listed
    assert "Facts (10 newest of 41; /facts for all):" in listed
    assert "baker" not in listed
    first, last = await _run(companion, "ana", "/facts"), await _run(companion, "ana", "/facts 2")
    assert first.startswith("Facts, newest first (page 1 of 2, 41 in all):")
    assert f"[{cat.id[:8]}] 8 May 2023, you said: I adopted a cat named Miso." in first + last
    assert "baker" not in first + last
    assert (await _run(companion, "ben", "/facts")).count("you said:") == 1


async def test_forget_one_fact_by_id_and_not_another_users(companion: Companion) -> None:
    [cat] = await _facts(companion, "ana", "I adopted a cat named Miso.")
    [bens] = await _facts(companion, "ben", "I am a baker in Lyon.")
    assert (await _run(companion, "ben", f"/forget {cat.id[:8]}")).startswith("No memory")
    forgotten = await _run(companion, "ana", f"/forget {cat.id[:8]}")
    assert forgotten == (
        f"Forgotten: [{cat.id[:8]}] 8 May 2023, you said: I adopted a cat named Miso.")
    assert await companion.facts.count("ana") == 0
    assert await companion.facts.by_words("ana", "Miso", 5) == []
    assert await companion.facts.count("ben") == 1 and bens.user_id == "ben"


async def test_export_and_forget_all_cover_facts(companion: Companion) -> None:
    await _facts(companion, "ana", "I adopted a cat named Miso.")
    await _facts(companion, "ben", "I am a baker in Lyon.")
    answer = await companion.commands.run("ana", "/export")
    data = json.loads(answer.attachment.content)
    assert "1 fact and" in answer.text
    assert data["facts"] == [{
        "id": data["facts"][0]["id"], "text": "I adopted a cat named Miso.", "said_by": "you",
        "said_at": "2023-05-08T13:56:00+00:00", "from_rounds": [1], "origin": "said",
        "provisional": False, "status": "active", "superseded_by": None, "about": "user",
        "confidence": 0.8, "times_said": 1}]
    assert "baker" not in answer.attachment.content.decode()
    assert "1 fact," in await _run(companion, "ana", "/forget all yes")
    data = json.loads((await companion.commands.run("ana", "/export")).attachment.content)
    assert data["facts"] == []
    assert await companion.facts.count("ben") == 1


async def test_forget_all_counts_a_retracted_fact_before_and_after_alike(
    companion: Companion,
) -> None:
    # It said "1 fact" before and "2 facts" after: a retracted fact is kept (for undo) until
    # everything goes, and goes then.
    _, wrong = await _facts(companion, "ana", "I adopted a cat named Miso.", "I live in Oslo.")
    await companion.facts.retract("ana", wrong.id)
    asked = await _run(companion, "ana", "/forget all")
    done = await _run(companion, "ana", "/forget all yes")
    counts = "0 rounds, 0 topics, 2 facts, 0 corrections, 0 plans and 0 shared exchanges"
    assert asked.startswith(f"This would delete everything I store about you: {counts}, ")
    assert done == f"Forgotten: {counts}. We start afresh."
    assert await _run(companion, "ana", "/forget all") == asked.replace("2 facts", "0 facts")


async def test_why_says_how_each_memory_was_found(companion: Companion, llm: ScriptedLLM) -> None:
    [cat] = await _facts(companion, "ana", "I adopted a cat named Miso.")
    await _chat(companion, "ana", "How is Miso the cat doing?")
    why = await _run(companion, "ana", "/why")
    line = next(line for line in why.splitlines() if cat.id[:8] in line)
    assert "fact (you), 8 May 2023, by words and meaning (similarity 0." in line
    assert "words " in line and line.endswith("I adopted a cat named Miso.")


async def test_persona_lists_each_with_a_line_for_people_not_its_prompt_notes(
    companion: Companion,
) -> None:
    listing = await _run(companion, "ana", "/persona")
    assert "* companion    Mia: a warm friend who remembers what you tell her" in listing
    assert "  tutor        Lex: a word tutor" in listing
    assert "Ask one question" not in listing  # the notes are for the model


async def test_forget_all_says_what_would_go_and_deletes_only_when_confirmed(
    companion: Companion, llm: ScriptedLLM
) -> None:
    await companion.add_topic("ana", "hobbies", "The host plays table tennis.")
    await _chat(companion, "ana", "I love table tennis")
    asked = await _run(companion, "ana", "/forget all")
    assert asked == ("This would delete everything I store about you: 1 round, 1 topic, 1 fact, "
                     "0 corrections, 0 plans and 0 shared exchanges, for good (/export saves a "
                     "copy first). To go ahead, send /forget all yes")
    assert await companion.rounds.count_rounds("ana") == 1  # nothing went yet
    assert await companion.topics.count("ana") == 1
    assert (await _run(companion, "ana", "/forget all YES")).startswith("Forgotten: 1 round")
    assert await companion.rounds.count_rounds("ana") == 0
