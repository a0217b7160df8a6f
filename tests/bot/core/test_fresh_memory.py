"""Recall that is never blind to the newest rounds: what a user tells is found from the next
message on, before any window of rounds is summarized, and once it is summarized it is there
once. A whole companion: the scripted LLM server, real SQL (SQLite and MariaDB), chromadb and
the packaged embedder; the offline summarizer."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.app import Companion, open_companion
from memory.types import Speaker
from tests.chatting import memory_lines, run, say
from tests.conftest import make_settings
from tests.fakes.openai_server import ScriptedLLM

WINDOW = 40  # rounds per summary window in these tests (50 by default)
SISTER = "My sister Lea plays the cello in the Vienna orchestra."
SMALL_TALK = ["ok", "haha", "hmm, let me think", "nice", "sure thing", "lol", "right"]


@pytest.fixture
async def chatting(tmp_path: Path, llm: ScriptedLLM, sql_url: str) -> AsyncIterator[Companion]:
    settings = make_settings(tmp_path, llm, sql_url,
                             memory={"summarizer": "extractive", "summarize_every": WINDOW,
                                     "retry_seconds": 0})
    async with open_companion(settings) as opened:
        yield opened


async def _small_talk(companion: Companion, count: int, user: str = "ana") -> None:
    for i in range(count):
        await say(companion, f"{SMALL_TALK[i % len(SMALL_TALK)]} ({i})", user)


async def _sister_lines(llm: ScriptedLLM) -> list[str]:
    return [line for line in memory_lines(llm.last_system_prompt) if "Lea" in line]


async def test_what_was_said_30_messages_ago_reaches_the_prompt_and_why(
    chatting: Companion, llm: ScriptedLLM
) -> None:
    await say(chatting, SISTER)
    await _small_talk(chatting, 30)  # out of Recency (20 rounds), no window summarized yet
    assert await chatting.topics.count("ana") == 0
    await say(chatting, "Which instrument does my sister play?")
    [line] = await _sister_lines(llm)
    assert SISTER in line
    why = await run(chatting, "/why")
    assert SISTER in why
    memories = await run(chatting, "/memories")
    assert SISTER in memories


async def test_once_the_window_is_summarized_the_statement_is_there_once(
    chatting: Companion, llm: ScriptedLLM
) -> None:
    await say(chatting, SISTER)
    await _small_talk(chatting, WINDOW + 5)
    await chatting.worker.wait_idle()
    assert await chatting.rounds.count_unsummarized("ana") < WINDOW  # a window was summarized
    await say(chatting, "Which instrument does my sister play?")
    assert len(await _sister_lines(llm)) == 1
    facts = [f for f in await chatting.facts.newest("ana", 1000) if "Lea" in f.text]
    assert [(f.text, f.provisional) for f in facts] == [(SISTER, False)]
    assert (await run(chatting, "/facts")).count(SISTER) == 1
    exported = json.loads((await chatting.commands.run("ana", "/export")).attachment.content)
    assert [f["text"] for f in exported["facts"]].count(SISTER) == 1
    await chatting.worker.sweep()  # nothing left for the index to repair, no copy anywhere
    await say(chatting, "Tell me about my sister Lea and her cello")
    assert len(await _sister_lines(llm)) == 1


async def test_a_forgotten_statement_stays_forgotten_after_its_window_is_summarized(
    chatting: Companion, llm: ScriptedLLM
) -> None:
    await say(chatting, SISTER)
    [fact] = await chatting.facts.newest("ana", 10)
    assert fact.provisional
    forgot = await run(chatting, f"/forget {fact.id[:8]}")
    assert forgot.startswith("Forgotten")
    await say(chatting, "Which instrument does my sister play?")
    assert await _sister_lines(llm) == []
    await _small_talk(chatting, WINDOW + 5)
    await chatting.worker.wait_idle()
    assert not [f for f in await chatting.facts.newest("ana", 1000) if "Lea" in f.text]
    exported = json.loads((await chatting.commands.run("ana", "/export")).attachment.content)
    assert not [f for f in exported["facts"] if "Lea" in f["text"] or not f["text"]]


async def test_forget_all_takes_the_provisional_facts_too(
    chatting: Companion, llm: ScriptedLLM
) -> None:
    await say(chatting, SISTER)
    await run(chatting, "/forget all yes")
    assert await chatting.facts.count("ana") == 0
    await say(chatting, "Which instrument does my sister play?")
    assert await _sister_lines(llm) == []


async def test_another_users_fresh_statements_never_reach_a_prompt(
    chatting: Companion, llm: ScriptedLLM
) -> None:
    await say(chatting, SISTER, user="ana")
    await say(chatting, "Which instrument does my sister Lea play?", user="ben")
    assert await _sister_lines(llm) == []


async def test_a_group_chat_and_a_correction_keep_no_provisional_fact(
    chatting: Companion, llm: ScriptedLLM
) -> None:
    await say(chatting, SISTER, private=False)
    await say(chatting, "/correct I meant my cousin Lea, who plays the cello")
    assert await chatting.facts.count("ana") == 0


async def test_with_the_demo_model_the_companions_lines_are_never_facts(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    """The bundled model's lines are inventions: the window keeps only what the user said. (Its
    rounds are imported: the demo model itself is too slow to chat 40 rounds in a test.)"""
    from memory.types import Exchange

    settings = make_settings(tmp_path, None, memory={"summarize_every": 4})
    assert settings.llm.is_demo
    chat = [(SISTER, 'You should read "The Hobbit" with Lea, Miso your cat is a star!'),
            ("I work night shifts at the hospital.", "I recommend the blue cafe on Main Street."),
            ("ok", "Try the violin, like Lea!"), ("haha", "Your cat Miso is already famous!")]
    async with open_companion(settings) as companion:
        await companion.ingest("ana", [Exchange(u, r) for u, r in chat])
        facts = await companion.facts.newest("ana", 100)
    assert {f.speaker for f in facts} == {Speaker.USER}
    assert {f.text for f in facts} == {SISTER, "I work night shifts at the hospital."}
