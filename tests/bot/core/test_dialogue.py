"""The dialogue core end to end (a whole companion: real stores, real embedder, the scripted
OpenAI server): a reply streamed and stored, Recency, Relevance and Latest_topics in the prompt,
each user's memories kept from every other user's prompt, turns in order, failures kept."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from bot.app import Companion, open_companion
from bot.core.dialogue import Delta, Failed, Finished, Recalled, Refused, ReplyEvent
from bot.core.inbound import Incoming
from memory.types import Fact, RoundStatus, Speaker
from tests.conftest import make_settings
from tests.fakes.openai_server import Error, Reply, ScriptedLLM

SAID = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


async def _talk(companion: Companion, user: str, text: str) -> list[ReplyEvent]:
    return [event async for event in companion.dialogue.respond(Incoming(user, text))]


async def test_reply_streams_and_the_round_is_stored(
    companion: Companion, llm: ScriptedLLM
) -> None:
    llm.enqueue("Nice to meet you, Ana!")
    events = await _talk(companion, "ana", "Hi, I'm Ana")
    assert isinstance(events[0], Recalled)
    assert "".join(e.text for e in events if isinstance(e, Delta)) == "Nice to meet you, Ana!"
    assert isinstance(events[-1], Finished)
    [stored] = await companion.rounds.recent_rounds("ana", 5)
    assert (stored.user_text, stored.reply_text, stored.status) == (
        "Hi, I'm Ana", "Nice to meet you, Ana!", RoundStatus.ANSWERED,
    )


async def test_message_is_stored_before_the_model_is_called(
    companion: Companion, llm: ScriptedLLM
) -> None:
    replies = companion.dialogue.respond(Incoming("ana", "remember this"))
    first = await anext(replies)
    assert isinstance(first, Recalled)
    assert llm.chat_requests == []  # the model has not been asked yet...
    [pending] = await companion.rounds.recent_rounds("ana", 5)  # ...and the message is stored
    assert (pending.user_text, pending.status) == ("remember this", RoundStatus.PENDING)
    assert isinstance([e async for e in replies][-1], Finished)


async def test_model_outage_keeps_the_message_and_tells_the_user(
    companion: Companion, llm: ScriptedLLM
) -> None:
    llm.enqueue(Error(503), Error(503), Error(503))
    events = await _talk(companion, "ana", "I adopted a cat named Miso")
    assert isinstance(events[-1], Failed)
    assert "Your message is saved" in events[-1].message
    assert "Traceback" not in events[-1].message
    [kept] = await companion.rounds.recent_rounds("ana", 5)
    assert (kept.user_text, kept.status) == ("I adopted a cat named Miso", RoundStatus.FAILED)

    llm.enqueue("Tell me about Miso!")
    await _talk(companion, "ana", "Do you remember my cat?")
    assert "Host: I adopted a cat named Miso" in llm.last_system_prompt


async def test_recency_holds_the_last_rounds_in_order(tmp_path: Path, llm: ScriptedLLM) -> None:
    settings = make_settings(tmp_path, llm, chat={"recency_rounds": 2})
    async with open_companion(settings) as companion:
        for i in range(4):
            llm.enqueue(f"reply {i}")
            await _talk(companion, "ana", f"message {i}")
        await _talk(companion, "ana", "and now?")
    prompt = llm.last_system_prompt
    assert "message 1" not in prompt
    assert prompt.index("Host: message 2") < prompt.index("Mia: reply 2") < prompt.index(
        "Host: message 3") < prompt.index("Mia: reply 3")
    assert "and now?" not in prompt  # the current message is the user turn, not Recency
    assert llm.chat_requests[-1]["messages"][-1] == {"role": "user", "content": "and now?"}


async def test_relevance_and_latest_topics_reach_the_prompt(
    companion: Companion, llm: ScriptedLLM
) -> None:
    hobby = await companion.add_topic(
        "ana", "hobbies", "The host and I talked about hobbies; the host plays table tennis.")
    await companion.add_topic("ana", "work", "The host and I talked about work; she is a nurse.")
    events = await _talk(companion, "ana", "Which sport do I play?")
    recall = events[0].recall  # type: ignore[union-attr]
    assert [s.memory.id for s in recall.relevant] == [hobby.id]
    assert recall.relevant[0].similarity > 0.3 and recall.relevant[0].how == "meaning"
    assert [t.label for t in recall.latest] == ["work"]  # hobbies is in Relevance: not twice
    relevance = llm.last_system_prompt.split("most relevant")[1].split("recently discussed")[0]
    assert "plays table tennis" in relevance
    assert "nurse" not in relevance  # below the similarity floor


async def test_one_users_memories_never_reach_another_users_prompt(
    tmp_path: Path, llm: ScriptedLLM, sql_url: str
) -> None:
    async with open_companion(make_settings(tmp_path, llm, sql_url)) as companion:
        await companion.add_topic("telegram:1", "secrets", "The host's secret word is pineapple.")
        llm.enqueue("Got it.")
        await _talk(companion, "telegram:1", "My secret word is pineapple")
        llm.enqueue("I don't know yet!")
        events = await _talk(companion, "discord:1", "What is my secret word?")
    recall = events[0].recall  # type: ignore[union-attr]
    assert recall.recent == () and recall.relevant == () and recall.latest == ()
    assert "pineapple" not in str(llm.chat_requests[-1]["messages"])
    assert "pineapple" in str(llm.chat_requests[-2]["messages"])


async def test_one_user_is_answered_in_order_while_users_run_concurrently(
    companion: Companion, llm: ScriptedLLM
) -> None:
    llm.default = "slow reply"
    llm.enqueue(Reply("first answer", delay=0.2), Reply("second answer", delay=0.2))
    await asyncio.gather(_talk(companion, "ana", "one"), _talk(companion, "ana", "two"))
    assert llm.max_in_flight == 1
    assert "Mia: first answer" in llm.last_system_prompt  # the second saw the first's reply

    llm.reset()
    llm.enqueue(Reply("for ana", delay=0.3), Reply("for ben", delay=0.3))
    await asyncio.gather(_talk(companion, "ana", "hi"), _talk(companion, "ben", "hi"))
    assert llm.max_in_flight == 2


async def test_bad_input_is_refused_and_nothing_is_stored(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    settings = make_settings(tmp_path, llm, chat={"max_message_chars": 50})
    async with open_companion(settings) as companion:
        for text in ["", "  \n\t ", "x" * 51]:
            [event] = await _talk(companion, "ana", text)
            assert isinstance(event, Refused)
        assert "limit is 50" in event.message
        assert await companion.rounds.count_rounds("ana") == 0
    assert llm.chat_requests == []


async def test_a_reply_abandoned_midway_is_kept_as_failed(
    companion: Companion, llm: ScriptedLLM
) -> None:
    llm.enqueue(Reply("one two three four five", delay=0.05))
    replies = companion.dialogue.respond(Incoming("ana", "tell me a story"))
    async for event in replies:
        if isinstance(event, Delta):
            break
    await replies.aclose()
    [kept] = await companion.rounds.recent_rounds("ana", 5)
    assert (kept.status, kept.reply_text) == (RoundStatus.FAILED, "one")


async def test_persona_choice_is_remembered_across_restarts(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    settings = make_settings(tmp_path, llm)
    async with open_companion(settings) as companion:
        answer = (await companion.commands.run("ana", "/persona coach")).text
        assert "Switched to Sam" in answer
    async with open_companion(settings) as companion:
        await _talk(companion, "ana", "hello")
        await _talk(companion, "ben", "hello")
    assert llm.chat_requests[-2]["messages"][0]["content"].startswith("You are Sam")
    assert llm.chat_requests[-1]["messages"][0]["content"].startswith("You are Mia")


async def test_prepare_assembles_the_prompt_without_storing(
    companion: Companion, llm: ScriptedLLM
) -> None:
    await companion.add_topic("ana", "pets", "The host has a cat named Miso.")
    recall, messages = await companion.prepare("ana", "How is my cat?")
    assert [s.memory.label for s in recall.relevant] == ["pets"]
    assert "cat named Miso" in messages[0]["content"]
    assert await companion.rounds.count_rounds("ana") == 0
    assert llm.chat_requests == []


async def test_recall_shows_only_the_rounds_that_fit_the_prompt(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    settings = make_settings(tmp_path, llm, chat={"recency_max_chars": 500})
    async with open_companion(settings) as companion:
        for i in range(5):
            llm.enqueue("ok")
            await _talk(companion, "ana", f"wall {i} " + "w" * 200)
        events = await _talk(companion, "ana", "still there?")
    recall = events[0].recall  # type: ignore[union-attr]
    assert [r.user_text[:6] for r in recall.recent] == ["wall 3", "wall 4"]
    assert "wall 2" not in llm.last_system_prompt
    assert "wall 3" in llm.last_system_prompt


async def test_a_memory_failure_after_storing_leaves_the_round_failed_not_pending(
    companion: Companion, llm: ScriptedLLM
) -> None:
    engine = companion.rounds._engine  # break the topic table under the running companion
    async with engine.begin() as conn:
        await conn.execute(text("DROP TABLE topics"))
    with pytest.raises(OperationalError):
        await _talk(companion, "ana", "do you remember me?")
    [kept] = await companion.rounds.recent_rounds("ana", 5)
    assert (kept.user_text, kept.status) == ("do you remember me?", RoundStatus.FAILED)
    assert llm.chat_requests == []


def _fact(n: int, user: str, text: str) -> Fact:
    return Fact(f"{n:032x}", user, text, Speaker.USER, SAID, (n,))


@pytest.mark.parametrize("vector_server", [False, True], ids=["embedded", "chroma-server"])
async def test_one_users_facts_never_reach_another_users_prompt(
    tmp_path: Path, llm: ScriptedLLM, sql_url: str, vector_server: bool,
    request: pytest.FixtureRequest,
) -> None:
    vector = {"url": request.getfixturevalue("chroma_url")} if vector_server else {}
    settings = make_settings(tmp_path, llm, sql_url, vector=vector)
    async with open_companion(settings) as companion:
        await companion.facts.add_facts(
            [_fact(1, "telegram:1", "My secret fruit is the Xiamen pineapple.")])
        await companion.commands.run("telegram:1", "/teach My secret dog is Miso the pug.")
        ana = await _prompt(companion, "telegram:1", "What is my secret fruit, the pineapple?")
        ben = await _prompt(companion, "discord:1", "What is my secret fruit, the pineapple?")
        ana_dog = await _prompt(companion, "telegram:1", "What is my secret dog called?")
        ben_dog = await _prompt(companion, "discord:1", "What is my secret dog called?")
    assert "Xiamen pineapple" in ana
    assert "Xiamen" not in ben
    assert "taught you: \"My secret dog is Miso the pug.\"" in ana_dog
    assert "Miso" not in ben_dog


async def _prompt(companion: Companion, user: str, text: str) -> str:
    async for _ in companion.dialogue.respond(Incoming(user, text)):
        pass
    last = await companion.uses.last(user)
    recall = last.recall if last else None
    assert recall is not None
    assert all(f.memory.user_id == user for f in recall.relevant)
    _, messages = await companion.prepare(user, text)
    return messages[0]["content"]
