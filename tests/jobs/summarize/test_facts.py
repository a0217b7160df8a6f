"""Facts end to end: made by the summary jobs, kept in the words said, found by words and by
meaning, dated in the prompt, within the Relevance budget. Real stores, real embedder."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bot.app import Companion, open_companion
from memory.embeddings.packaged import minilm_tokenizer_file
from memory.tokens import WordPieceCounter
from memory.types import Exchange, Fact, Speaker
from tests.conftest import make_settings
from tests.fakes.openai_server import ScriptedLLM
from tests.jobs.chats import three_subject_chat

FACTS_PROMPT = "List the facts worth remembering"
START = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
CHAT = [
    ("Hi there!", "Hello! How are you today?"),
    ("I adopted a cat named Miso last week.", "Lovely! What does Miso like to eat?"),
    ("Thanks, I totally agree.", "Great."),
    ("I can't sleep well these days.",
     'I\'m sorry. You should read "The Hobbit" before bed, it calms the mind.'),
    ("I work night shifts as a nurse at the city hospital.", "That must be demanding."),
    ("haha ok", "What do you do to relax?"),
    ("I went to a LGBTQ support group yesterday and it was so powerful.",
     "That's wonderful, tell me more!"),
    ("Yeah, I'm really lucky to have them.", "You are!"),
]


def _settings(tmp_path: Path, llm: ScriptedLLM, **memory: Any) -> Any:
    return make_settings(tmp_path, llm, memory={"retry_seconds": 0, **memory},
                         llm={"max_retries": 0, "timeout_seconds": 2})


async def _import(companion: Companion, user: str, chat: list[tuple[str, str]],
                  start: datetime = START) -> None:
    exchanges = [Exchange(u, r, start + timedelta(minutes=i)) for i, (u, r) in enumerate(chat)]
    await companion.rounds.import_rounds(user, "companion", exchanges)


async def _facts(companion: Companion, user: str) -> list[Fact]:
    return await companion.facts.newest(user, 10_000)


async def test_facts_from_both_sides_are_kept_verbatim_and_never_invented(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    settings = _settings(tmp_path, llm, summarizer="extractive", summarize_every=len(CHAT))
    async with open_companion(settings) as companion:
        await _import(companion, "ana", CHAT)
        await companion.worker.upkeep("ana")
        facts = await _facts(companion, "ana")
        rounds = {r.id: r for r in await companion.rounds.recent_rounds("ana", 100)}
    assert llm.chat_requests == []  # no model involved
    said = {(f.speaker, f.text) for f in facts}
    assert said == {
        (Speaker.USER, "I adopted a cat named Miso last week."),
        (Speaker.USER, "I can't sleep well these days."),
        (Speaker.USER, "I work night shifts as a nurse at the city hospital."),
        (Speaker.USER, "I went to a LGBTQ support group yesterday and it was so powerful."),
        (Speaker.COMPANION, 'You should read "The Hobbit" before bed, it calms the mind.'),
    }
    for fact in facts:  # each in the words of the round it names, and dated by it
        [round_id] = fact.round_ids
        source = rounds[round_id]
        spoken = source.user_text if fact.speaker is Speaker.USER else source.reply_text
        assert fact.text in (spoken or "")
        assert fact.said_at == source.created_at


async def test_a_model_lists_facts_and_what_it_invents_is_dropped(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    llm.answers[FACTS_PROMPT] = (
        "1. Host: The host adopted a cat named Miso.\n"
        "2. Host: The host won the lottery in Paris.\n"  # never said
        '3. You: You suggested reading "The Hobbit" before bed.\n'
    )
    llm.answers["summarize the specific topics"] = (
        "1. The host and I talked about pets, and the host said: she adopted a cat named Miso.")
    settings = _settings(tmp_path, llm, summarizer="llm", summarize_every=len(CHAT))
    async with open_companion(settings) as companion:
        await _import(companion, "ana", CHAT)
        report = await companion.worker.upkeep("ana")
        facts = await _facts(companion, "ana")
        rounds = await companion.rounds.recent_rounds("ana", 100)
    assert (report.summarized, report.failed) == (1, 0)
    by_text = {f.text: f for f in facts}
    assert set(by_text) == {"The host adopted a cat named Miso.",
                            'You suggested reading "The Hobbit" before bed.'}
    cat = by_text["The host adopted a cat named Miso."]
    assert (cat.speaker, cat.round_ids, cat.said_at) == (
        Speaker.USER, (rounds[1].id,), rounds[1].created_at)
    assert by_text['You suggested reading "The Hobbit" before bed.'].round_ids == (rounds[3].id,)


async def test_a_windows_topics_and_facts_come_from_one_model_call(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    llm.enqueue("1. The host and I talked about pets, and the host said: she adopted a cat "
                "named Miso.\n"
                "2. The host and I talked about work, and the host said: she works night "
                "shifts as a nurse.\n"
                "**Facts:**\n"
                "- Host: I adopted a cat named Miso last week.\n"
                "- Host: I work night shifts as a nurse at the city hospital.\n"
                "- Host: I own a yacht in Monaco.")  # never said: dropped
    settings = _settings(tmp_path, llm, summarizer="llm", summarize_every=len(CHAT))
    async with open_companion(settings) as companion:
        await _import(companion, "ana", CHAT)
        asked = len(llm.chat_requests)
        report = await companion.worker.upkeep("ana")
        assert (report.summarized, report.failed) == (1, 0)
        summaries = [r for r in llm.chat_requests[asked:]
                     if "summarize the specific topics" in r["messages"][0]["content"]]
        assert len(summaries) == 1
        assert not any(FACTS_PROMPT in r["messages"][0]["content"]
                       for r in llm.chat_requests[asked:])
        topics = {t.label for t in await companion.topics.list_topics("ana")}
        facts = {f.text for f in await _facts(companion, "ana")}
    assert topics == {"pets", "work"}
    assert facts == {"I adopted a cat named Miso last week.",
                     "I work night shifts as a nurse at the city hospital."}


async def test_small_talk_makes_no_memory(tmp_path: Path, llm: ScriptedLLM) -> None:
    chat = [("hello!", "Hi!"), ("haha ok", "Yes?"), ("Thanks so much, Mel!", "Anytime."),
            ("I totally agree, Melanie.", "Great!"), ("good night", "Sleep well!"),
            ("Wow, that's awesome!", "Thank you!")]
    settings = _settings(tmp_path, llm, summarizer="extractive", summarize_every=len(chat))
    async with open_companion(settings) as companion:
        await _import(companion, "ana", chat)
        report = await companion.worker.upkeep("ana")
        assert report.summarized == 1
        assert await _facts(companion, "ana") == []
        assert await companion.topics.list_topics("ana") == []


async def test_bad_input_gives_no_error_and_no_junk_fact(tmp_path: Path, llm: ScriptedLLM) -> None:
    chat = [("", "Welcome back! How was your week?"),  # the companion opened the window
            ("I " + "really " * 700 + "like long messages", "Wow."),  # 4,000+ characters
            ("🐱🐱🐱 🎉", "Cute!"), ("Danke!", "Gern geschehen."),
            ("Ich habe eine Katze namens Miso.", "Wie schön!"),
            ("", "")]
    settings = _settings(tmp_path, llm, summarizer="extractive", summarize_every=len(chat))
    async with open_companion(settings) as companion:
        await _import(companion, "ana", chat)
        report = await companion.worker.upkeep("ana")
        facts = await _facts(companion, "ana")
    assert (report.summarized, report.failed) == (1, 0)
    assert [f.text for f in facts] == ["Ich habe eine Katze namens Miso."]


async def test_a_rare_name_said_once_300_rounds_ago_is_found_by_words(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    chat = three_subject_chat(320)
    chat[4] = ("My grandmother Xiadani taught me to bake bread.", "How lovely!")
    settings = _settings(tmp_path, llm, summarizer="extractive")
    async with open_companion(settings) as companion:
        await _import(companion, "ana", chat)
        await companion.worker.upkeep("ana")
        recall, messages = await companion.prepare("ana", "Do you remember Xiadani?")
    [found] = [f for f in recall.relevant if "Xiadani" in getattr(f.memory, "text", "")]
    assert found.words is not None and "words" in found.how
    assert "host: \"My grandmother Xiadani taught me to bake bread.\"" in messages[0]["content"]


async def test_a_when_question_gets_the_dated_memory(tmp_path: Path, llm: ScriptedLLM) -> None:
    settings = _settings(tmp_path, llm, summarizer="extractive", summarize_every=len(CHAT))
    async with open_companion(settings) as companion:
        await _import(companion, "ana", CHAT, start=START)
        await companion.worker.upkeep("ana")
        _, messages = await companion.prepare("ana", "When did I go to the support group?")
    prompt = messages[0]["content"]
    assert f"Today is {datetime.now(UTC):%A}" in prompt
    assert ("8 May 2023, host: \"I went to a LGBTQ support group yesterday and it was so "
            "powerful.\"") in prompt


async def test_the_relevance_budget_is_never_exceeded(tmp_path: Path, llm: ScriptedLLM) -> None:
    counter = WordPieceCounter(minilm_tokenizer_file())
    questions = ["What do I do at work?", "Tell me about my garden", "Which sport do I play?",
                 "Do you remember my cat?", "What did you recommend?"]
    for budget in (40, 150):
        settings = make_settings(tmp_path / str(budget), llm,
                                 memory={"summarizer": "extractive"},
                                 chat={"relevance_tokens": budget})
        found = 0
        async with open_companion(settings) as companion:
            await _import(companion, "ana", CHAT + three_subject_chat(142))
            await companion.worker.upkeep("ana")
            for question in questions:
                recall, messages = await companion.prepare("ana", question)
                slot = messages[0]["content"].split("just said")[1].split("=====")[1]
                lines = [line for line in slot.strip().splitlines()
                         if re.match(r"\[\d+\] ", line)]
                assert sum(counter.count(line) for line in lines) <= budget
                assert sum(f.tokens for f in recall.relevant) <= budget
                found += len(lines)
        assert found >= len(questions)  # the budget was used, not left empty


async def test_a_merge_leaves_facts_searchable(tmp_path: Path, llm: ScriptedLLM) -> None:
    chat = [(f"I played table tennis with Zhendong Fan on day {i}.", "Nice!") for i in range(8)]
    settings = _settings(tmp_path, llm, summarizer="extractive", summarize_every=2, merge_at=2)
    async with open_companion(settings) as companion:
        await _import(companion, "ana", chat)
        report = await companion.worker.upkeep("ana")
        assert report.merged >= 1
        assert len(await _facts(companion, "ana")) == 8
        by_words = await companion.facts.by_words("ana", "Zhendong", 20)
        assert len(by_words) == 8
        [vector] = await companion.embedder.embed(["table tennis on day 3"])
        by_meaning = await companion.facts.by_meaning("ana", vector, 3)
        assert by_meaning[0][0].text == "I played table tennis with Zhendong Fan on day 3."
