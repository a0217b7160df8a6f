"""Teaching, explanations that cite memories, and fixing a wrong belief (TeachMe), through a whole
companion: real stores, the real embedder and the scripted model."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.app import Companion, open_companion
from memory.types import Fact, Origin, Speaker
from tests.chatting import memory_lines, run, say
from tests.conftest import make_settings
from tests.fakes.openai_server import ScriptedLLM

SISTER = "What's my sister called again?"


@pytest.fixture
async def teachable(tmp_path: Path, llm: ScriptedLLM, sql_url: str) -> AsyncIterator[Companion]:
    async with open_companion(make_settings(tmp_path, llm, sql_url)) as opened:
        yield opened


async def test_taught_fact_is_found_for_a_paraphrase_and_cited_in_why(
    teachable: Companion, llm: ScriptedLLM
) -> None:
    llm.enqueue("Lovely, tell me about her!")
    said, _ = await say(teachable, "Remember that my sister's name is Lea")
    assert said.startswith('Noted, I\'ll remember: "My sister\'s name is Lea."')
    llm.enqueue("She is called Lea [1]. Say hi from me [7]!")
    said, finished = await say(teachable, "How's my sibling doing, what was her name?")
    assert said == "She is called Lea. Say hi from me!"  # the marks are not for the reader
    assert finished is not None and finished.cited == (1,)  # [7] named no memory: dropped
    [first, *_] = memory_lines(llm.last_system_prompt)
    today = datetime.now(UTC)
    assert first == (f"[1] {today.day} {today:%B %Y}, host taught you: "
                     "\"My sister's name is Lea.\"")
    why = await run(teachable, "/why")
    relied = why.split("My reply relied on:")[1].split("Relevance")[0]
    assert "1. " in relied and "fact (you taught me)" in relied and "Lea" in relied
    assert "7." not in why
    export = json.loads((await teachable.commands.run("ana", "/export")).attachment.content)
    assert export["rounds"][-1]["cited"] == [f"fact:{export['facts'][0]['id']}"]
    assert export["facts"][0]["origin"] == "taught"


async def test_wrong_takes_a_belief_out_of_every_later_prompt_and_answers_with_the_truth(
    teachable: Companion, llm: ScriptedLLM
) -> None:
    ana = await _said_fact(teachable, "ana", "My sister's name is Ana.")
    llm.enqueue("Your sister is Ana [1].")
    await say(teachable, SISTER)
    assert "Ana." in memory_lines(llm.last_system_prompt)[0]
    assert "1. [" in (await run(teachable, "/why")).split("My reply relied on:")[1]
    llm.enqueue("Then she is Lea [1].")
    said, _ = await say(teachable, "/wrong 1 My sister's name is Lea")
    assert said.startswith('Noted: memory 1 ("My sister\'s name is Ana.") is wrong; '
                           f"I won't use it again (to undo: /memories restore {ana.id[:8]}).")
    assert said.endswith("Then she is Lea.")
    asked = llm.chat_requests[-1]["messages"]
    assert asked[-1]["content"] == SISTER  # the question is answered again
    assert "host taught you: \"My sister's name is Lea.\"" in asked[0]["content"]
    assert not any("Ana." in line for line in memory_lines(asked[0]["content"]))
    llm.enqueue("Lea!")
    await say(teachable, "Do you remember my sister's name?")
    assert not any("Ana." in line for line in memory_lines(llm.last_system_prompt))
    facts = json.loads((await teachable.commands.run("ana", "/export")).attachment.content)
    assert {(f["text"], f["status"]) for f in facts["facts"]} == {
        ("My sister's name is Ana.", "retracted"), ("My sister's name is Lea.", "active")}


async def test_a_retracted_memory_can_be_restored(teachable: Companion, llm: ScriptedLLM) -> None:
    topic = await teachable.add_topic("ana", "pets", "The host has a parrot named Kiwi.")
    llm.enqueue("Kiwi [1]!")
    await say(teachable, "What's the name of my parrot?")
    llm.enqueue("Sorry!")
    await say(teachable, "/wrong 1")
    assert await teachable.topics.list_topics("ana") == []
    assert await teachable.worker.reindex() == 0  # the index already matches: nothing to repair
    assert "No memory you said was wrong" in await run(teachable, "/memories restore ffff")
    restored = await run(teachable, f"/memories restore {topic.id[:8]}")
    assert restored == 'Restored: "The host has a parrot named Kiwi.". I will use it again.'
    llm.enqueue("Kiwi!")
    await say(teachable, "What's the name of my parrot?")
    assert any("parrot named Kiwi" in line for line in memory_lines(llm.last_system_prompt))


async def test_no_thats_wrong_right_after_why_fixes_the_one_memory_cited(
    teachable: Companion, llm: ScriptedLLM
) -> None:
    await _said_fact(teachable, "ana", "My cat Miso hates the vacuum.")
    await _why_of_a_cited_nurse(teachable, llm)
    llm.enqueue("A teacher then!")
    said, _ = await say(teachable, "No, that's wrong: I'm a teacher in Leeds now")
    assert said.startswith('Noted: memory 1 ("I work as a nurse in Leeds.") is wrong')
    assert "host taught you: \"I'm a teacher in Leeds now.\"" in llm.last_system_prompt
    assert not any("nurse" in line for line in memory_lines(llm.last_system_prompt))


async def test_no_thats_wrong_after_why_is_taken_by_another_process_but_not_a_message_later(
    tmp_path: Path, llm: ScriptedLLM, sql_url: str
) -> None:
    """Two companions on one database are two bot processes: /why in one, and "No, that's
    wrong" in the other; once another message came between, it is an ordinary message."""
    settings = make_settings(tmp_path, llm, sql_url)
    async with open_companion(settings) as first, open_companion(settings) as second:
        await _why_of_a_cited_nurse(first, llm)
        llm.enqueue("A teacher then!")
        said, _ = await say(second, "No, that's wrong: I'm a teacher in Leeds now")
        assert said.startswith('Noted: memory 1 ("I work as a nurse in Leeds.") is wrong')

        await _said_fact(first, "ana", "My cat Miso hates the vacuum.")
        llm.enqueue("Miso again [1].")
        await say(first, "Tell me about my cat")
        await run(first, "/why")
        await say(second, "She sleeps all day.")
        said, _ = await say(second, "No, that's wrong: she loves it")
        assert said == llm.default  # answered as any message
        kept = [fact.text for fact in await first.facts.newest("ana", 5)]
        assert "My cat Miso hates the vacuum." in kept and "I work as a nurse in Leeds." not in kept


async def test_a_question_after_why_is_not_a_retraction(
    teachable: Companion, llm: ScriptedLLM
) -> None:
    await _why_of_a_cited_nurse(teachable, llm)
    llm.enqueue("It is.")
    said, _ = await say(teachable, "That’s wrong to ask, isn't it?")
    assert not said.startswith("Noted")
    assert await teachable.facts.count("ana") == 1


async def test_a_retracted_fact_can_still_be_forgotten(
    teachable: Companion, llm: ScriptedLLM
) -> None:
    nurse = await _said_fact(teachable, "ana", "I work as a nurse in Leeds.")
    llm.enqueue("You are a nurse [1].")
    await say(teachable, "What do I do for work?")
    llm.enqueue("Sorry.")
    await say(teachable, "/wrong 1")
    assert "Forgotten" in await run(teachable, f"/forget {nurse.id[:8]}")
    export = json.loads((await teachable.commands.run("ana", "/export")).attachment.content)
    assert export["facts"] == []


async def test_a_fact_in_a_language_without_spaces_can_be_taught(companion: Companion) -> None:
    answer = await run(companion, "/teach 我的妹妹叫莉亚")
    assert answer.startswith("Noted")
    assert await companion.facts.count("ana", origin=Origin.TAUGHT) == 1


async def test_a_taught_fact_comes_before_an_older_extracted_one_that_disagrees(
    teachable: Companion, llm: ScriptedLLM
) -> None:
    await _said_fact(teachable, "ana", "I live in Paris with my partner.")
    await run(teachable, "/teach We moved to Berlin in May.")
    llm.enqueue("Berlin!")
    await say(teachable, "Which city do I live in?")
    lines = memory_lines(llm.last_system_prompt)
    assert "taught you: \"We moved to Berlin in May.\"" in lines[0]
    assert any("Paris" in line for line in lines[1:])


async def test_teaching_is_per_user(teachable: Companion, llm: ScriptedLLM) -> None:
    await run(teachable, "/teach My sister's name is Lea.", user="ana")
    llm.enqueue("Hmm, tell me!")
    await say(teachable, "What's my sister's name?", user="ben")
    assert "Lea" not in llm.last_system_prompt
    assert "not taught me anything" in await run(teachable, "/taught", user="ben")
    assert "Lea" in await run(teachable, "/taught", user="ana")
    assert "Lea" not in await run(teachable, "/taught forget all", user="ben")
    assert await teachable.facts.count("ana", origin=Origin.TAUGHT) == 1


async def test_taught_facts_are_listed_forgotten_and_shown_to_admins(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    settings = make_settings(tmp_path, llm, telegram={"admin_ids": [1]})
    async with open_companion(settings) as companion:
        await run(companion, "/teach I'm vegetarian now")
        await run(companion, "/teach I play the cello")
        listed = await run(companion, "/taught")
        assert "you taught me: I'm vegetarian now." in listed and "cello" in listed
        admin = await run(companion, "/admin taught ana", user="telegram:1")
        assert "vegetarian" in admin and "cello" in admin
        cello = next(line for line in listed.splitlines() if "cello" in line)
        short = cello.split("]")[0].lstrip("[")
        assert "cello" in await run(companion, f"/taught forget {short}")
        assert "cello" not in await run(companion, "/taught")
        assert "1 fact you taught me" in await run(companion, "/taught forget all")
        assert await companion.facts.count("ana") == 0


async def test_groups_neither_take_teaching_nor_use_taught_facts(
    teachable: Companion, llm: ScriptedLLM
) -> None:
    await run(teachable, "/teach My sister's name is Lea.")
    llm.enqueue("Nice!")
    said, _ = await say(teachable, "Remember that my brother is Tom", private=False)
    assert "Noted" not in said
    assert "Lea" not in llm.last_system_prompt
    assert await teachable.facts.count("ana", origin=Origin.TAUGHT) == 1
    refused = await teachable.commands.run("ana", "/teach I like jazz", private=False)
    assert "private chat" in refused.text


@pytest.mark.parametrize("text", ["/teach", "/teach " + "x" * 4_000, "/teach the"])
async def test_teaching_bad_input_gets_one_line_and_stores_nothing(
    companion: Companion, text: str
) -> None:
    answer = await run(companion, text)
    assert "\n" not in answer.strip() and ("/teach" in answer or "too long" in answer)
    assert await companion.facts.count("ana") == 0


async def test_wrong_before_any_reply_or_with_no_such_memory_stores_nothing(
    companion: Companion, llm: ScriptedLLM
) -> None:
    said, _ = await say(companion, "/wrong 1 my sister is Lea")
    assert said == "There is no reply of mine to fix yet: /why shows what my last reply used."
    llm.enqueue("Hello!")
    await say(companion, "Hi there")
    rounds = len(await companion.rounds.recent_rounds("ana", 50))
    said, _ = await say(companion, "/wrong 99")
    assert said.startswith("There is no memory 99 under /why")
    said, _ = await say(companion, "/wrong")
    assert said.startswith("Usage: /wrong <n>")
    assert len(await companion.rounds.recent_rounds("ana", 50)) == rounds
    assert await companion.facts.count("ana") == 0


async def test_a_question_that_mentions_remembering_teaches_nothing(
    companion: Companion, llm: ScriptedLLM
) -> None:
    for text in ("Remember when we talked about Paris?", "Do you remember my sister?",
                 "I remember my first bike"):
        llm.enqueue("Sure.")
        said, _ = await say(companion, text)
        assert not said.startswith("Noted")
    # Nothing taught ("I remember my first bike" is kept as what it tells, a provisional fact).
    assert await companion.facts.count("ana", origin=Origin.TAUGHT) == 0


async def test_a_message_that_may_be_teaching_is_put_to_a_capable_model(
    companion: Companion, llm: ScriptedLLM
) -> None:
    llm.answers["wants remembered"] = "no"
    llm.enqueue("Oh?")
    said, _ = await say(companion, "Actually, I was tired yesterday")
    assert not said.startswith("Noted")
    llm.answers["wants remembered"] = "yes"
    llm.enqueue("Welcome to Berlin!")
    said, _ = await say(companion, "Actually, I moved to Berlin in May")
    assert said.startswith('Noted, I\'ll remember: "I moved to Berlin in May."')
    taught = await companion.facts.newest("ana", 5, origin=Origin.TAUGHT)
    assert [f.text for f in taught] == ["I moved to Berlin in May."]


async def _why_of_a_cited_nurse(companion: Companion, llm: ScriptedLLM) -> None:
    """A stored fact, a reply that cites it, and /why shown: what "that's wrong" is about."""
    await _said_fact(companion, "ana", "I work as a nurse in Leeds.")
    llm.enqueue("You are a nurse [1].")
    await say(companion, "What do I do for work?")
    await run(companion, "/why")


async def _said_fact(companion: Companion, user: str, text: str) -> Fact:
    fact = Fact(uuid.uuid4().hex, user, text, Speaker.USER,
                datetime(2024, 3, 2, 10, 0, tzinfo=UTC), (1,))
    await companion.facts.add_facts([fact])
    return fact
