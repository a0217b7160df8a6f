"""The terminal UI, driven by textual's Pilot against real stores and the scripted LLM."""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from bot.app import open_companion
from bot.frontends.tui.app import WELCOMED_MARKER, CompanionApp, welcome_text
from bot.frontends.tui.widgets import CompanionMessage, HistoryInput, MemoryPanel, Note
from bot.settings import LLMSettings, Settings
from memory.types import Fact, Speaker
from tests.chatting import say
from tests.conftest import make_settings
from tests.fakes.openai_server import Error, Reply, ScriptedLLM
from tests.fakes.word_reader import misreading_reader


async def wait_until(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    """Poll until the UI reaches a state: the app works in its own tasks."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("the UI did not reach the expected state in time")
        await asyncio.sleep(0.02)


def _text(widget: Any) -> str:
    return str(widget.render())


async def _ready(pilot: Pilot[None]) -> None:
    await wait_until(lambda: not pilot.app.query_one(HistoryInput).disabled)


async def _send(pilot: Pilot[None], text: str) -> None:
    """Type a message and wait for its echo and its answer (a reply or a command's note)."""
    chat_log = pilot.app.query_one("#log")
    shown = len(chat_log.children)
    await pilot.click(HistoryInput)
    await pilot.press(*text, "enter")
    await wait_until(lambda: len(chat_log.children) >= shown + 2)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def _app(settings: Settings, user: str = "ana") -> CompanionApp:
    return CompanionApp(lambda: open_companion(settings), user)


async def test_typed_message_gets_a_streamed_reply_and_the_memory_panel(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    settings = make_settings(tmp_path, llm)
    async with open_companion(settings) as companion:
        await companion.add_topic("ana", "hobbies", "The host plays table tennis every week.")
    rest_of_the_reply = threading.Event()
    llm.enqueue(Reply("You play table tennis, right?", hold=rest_of_the_reply))
    app = _app(settings)
    async with app.run_test(size=(120, 36)) as pilot:
        await _ready(pilot)
        assert "Mia: Hi, I'm Mia" in _text(app.query(CompanionMessage).first())
        await pilot.click(HistoryInput)
        await pilot.press(*"Which sport do I play?", "enter")
        bubble = await _bubble(pilot)
        await wait_until(lambda: bubble.reply == "You")  # the first word, shown as it came
        rest_of_the_reply.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert bubble.reply == "You play table tennis, right?"
        panel = _text(app.query_one(MemoryPanel))
        assert "Recency: 0 recent rounds" in panel
        assert "hobbies" in panel.split("Relevance")[1].split("Latest topics:")[0]
    assert llm.chat_requests[-1]["messages"][-1]["content"] == "Which sport do I play?"


async def test_memory_panel_shows_a_fact_with_its_date_and_how_it_was_found(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    settings = make_settings(tmp_path, llm)
    said = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    fact = Fact(uuid.uuid4().hex, "ana", "My cat Miso hates the vacuum.", Speaker.USER, said, (1,))
    async with open_companion(settings) as companion:
        await companion.facts.add_facts([fact])
    llm.enqueue(Reply("Miso, of course!"))
    app = _app(settings)
    async with app.run_test(size=(120, 36)) as pilot:
        await _ready(pilot)
        await _send(pilot, "What is the name of my cat Miso again?")
        relevance = _text(app.query_one(MemoryPanel)).split("Relevance")[1]
        fact_line = relevance.split("Latest topics:")[0]
    assert "fact (you), 8 May 2023" in fact_line
    assert "words" in fact_line  # found by the name, a word embeddings match poorly
    assert "My cat Miso hates the vacuum." in fact_line


async def test_memory_panel_shows_what_the_reply_cited_first(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    settings = make_settings(tmp_path, llm)
    async with open_companion(settings) as companion:
        await companion.commands.run("ana", "/teach My sister's name is Lea.")
    llm.enqueue(Reply("Her name is Lea [1]."))
    app = _app(settings)
    async with app.run_test(size=(120, 36)) as pilot:
        await _ready(pilot)
        await _send(pilot, "What is my sister called?")
        bubble = await _bubble(pilot)
        panel = _text(app.query_one(MemoryPanel))
    assert bubble.reply == "Her name is Lea."
    relied = panel.split("My reply relied on:")[1].split("Relevance")[0]
    assert "1. " in relied and "you taught me" in relied and "Lea" in relied


async def _bubble(pilot: Pilot[None]) -> CompanionMessage:
    """The reply's bubble (the first one is the greeting)."""
    await wait_until(lambda: len(pilot.app.query(CompanionMessage)) == 2)
    return pilot.app.query(CompanionMessage).last()


async def test_model_outage_is_shown_without_a_stack_trace(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    llm.enqueue(Error(503), Error(503), Error(503))
    app = _app(make_settings(tmp_path, llm))
    async with app.run_test(size=(120, 36)) as pilot:
        await _ready(pilot)
        await _send(pilot, "hello?")
        bubble = app.query(CompanionMessage).last()
        assert "Your message is saved" in _text(bubble)
        assert bubble.has_class("failed")
        assert "Traceback" not in _text(bubble)


async def test_slash_commands_and_input_history(tmp_path: Path, llm: ScriptedLLM) -> None:
    app = _app(make_settings(tmp_path, llm))
    async with app.run_test(size=(120, 36)) as pilot:
        await _ready(pilot)
        await _send(pilot, "/persona coach")
        assert "Switched to Sam" in _text(app.query(Note).last())
        assert app.sub_title.startswith("Sam")
        await _send(pilot, "/topics")
        assert "no memories of you yet" in _text(app.query(Note).last())
        await _send(pilot, "/help")
        assert "/forget all" in _text(app.query(Note)[-2])  # the commands, then the keys
        chat_input = app.query_one(HistoryInput)
        await pilot.press("up")
        assert chat_input.value == "/help"
        await pilot.press("up", "up")
        assert chat_input.value == "/persona coach"
        await pilot.press("down", "down", "down")
        assert chat_input.value == ""
    assert llm.chat_requests == []  # commands never reach the model


def test_chat_screen_snapshot(snap_compare: Any, tmp_path: Path, llm: ScriptedLLM) -> None:
    llm.enqueue("I'd love to hear more about your garden. What are you growing?")

    async def chat(pilot: Pilot[None]) -> None:
        await _ready(pilot)
        await _send(pilot, "I spent the morning in my garden")
        pilot.app.query_one(HistoryInput).cursor_blink = False  # else the capture's timing shows

    settings = make_settings(tmp_path, llm)
    # The everyday screen: the first-run welcome names the scripted server's random port.
    settings.resolved_data_dir.mkdir(parents=True)
    (settings.resolved_data_dir / WELCOMED_MARKER).touch()
    assert snap_compare(_app(settings), terminal_size=(100, 24), run_before=chat)


async def test_the_first_run_welcomes_once_and_names_the_model(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    settings = make_settings(tmp_path, llm)
    llm.enqueue("Lovely!")
    async with _app(settings).run_test(size=(120, 36)) as pilot:
        await _ready(pilot)
        welcome = _text(pilot.app.query_one(".welcome"))
        assert welcome.startswith(f"Welcome! Mia answers with fake at {llm.base_url}.")
        assert "/help" in welcome and "demo" not in welcome
        await _send(pilot, "I love my garden")
        assert "Recency" in _text(pilot.app.query_one(MemoryPanel))  # the panel, as always
    async with _app(settings).run_test(size=(120, 36)) as pilot:
        await _ready(pilot)
        assert not pilot.app.query(".welcome")


def test_the_demo_models_welcome_says_it_is_tiny_and_how_to_choose_another() -> None:
    text = welcome_text(LLMSettings(), "Mia")
    assert text.startswith("Welcome! Mia answers with the bundled demo model (SmolLM2-135M")
    assert "tiny" in text and "run `companion setup`" in text
    own = welcome_text(LLMSettings(provider="local", local_model_path="/m/qwen.gguf"), "Mia")
    assert own.startswith("Welcome! Mia answers with qwen.gguf (offline).")
    assert "tiny" not in own


async def test_brackets_in_memories_are_shown_as_typed(tmp_path: Path, llm: ScriptedLLM) -> None:
    settings = make_settings(tmp_path, llm)
    async with open_companion(settings) as companion:
        await companion.add_topic("ana", "[/b] odd [label]", "The host plays table tennis [daily].")
    app = _app(settings)
    async with app.run_test(size=(120, 36)) as pilot:
        await _ready(pilot)
        await _send(pilot, "Which sport do I play? [/i]")
        panel = _text(app.query_one(MemoryPanel))
        assert "[/b] odd [label]" in panel
        assert app.query(CompanionMessage).last().reply == "Happy to chat with you!"


async def test_export_saves_the_file_and_admin_is_for_terminal_admins(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    settings = make_settings(tmp_path, llm, access={"terminal_admins": ["boss"]})
    app = _app(settings, user="ana")
    async with app.run_test(size=(120, 36)) as pilot:
        await _ready(pilot)
        await _send(pilot, "hello")
        await _send(pilot, "/export")
        note = _text(app.query(Note).last())
        saved = Path(note.split("Saved to ")[1].strip())
        assert saved.parent == settings.resolved_data_dir / "exports"
        assert [r["message"] for r in json.loads(saved.read_text())["rounds"]] == ["hello"]
        await _send(pilot, "/admin stats")
        assert "only for this bot's admins" in _text(app.query(Note).last())
    boss = _app(settings, user="boss")
    async with boss.run_test(size=(120, 36)) as pilot:
        await _ready(pilot)
        await _send(pilot, "/admin stats")
        assert "Users: 1" in _text(boss.query(Note).last())


async def test_a_new_user_corrects_a_misreading_once_and_is_understood_next_time(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    llm.responder = misreading_reader
    app = _app(make_settings(tmp_path, llm))
    async with app.run_test(size=(120, 40)) as pilot:
        await _ready(pilot)
        await _send(pilot, "/persona tutor")
        await _send(pilot, "What word is similar to good?")
        assert "sounds like good" in app.query(CompanionMessage).last().reply
        await _send(pilot, "No, I meant a word with a similar meaning")
        corrected = app.query(CompanionMessage).last().reply
        assert corrected.startswith('Noted: "No, I meant a word with a similar meaning"')
        assert "synonym of good" in corrected
        await _send(pilot, "What word is similar to fast?")
        assert "synonym of fast" in app.query(CompanionMessage).last().reply
        panel = _text(app.query_one(MemoryPanel))
        assert "No, I meant a word with a similar meaning" in panel.split("Clarifications")[1]
        await _send(pilot, "/why")
        why = _text(app.query(Note).last())
        assert "same request" in why and "What word is similar to good?" in why


async def test_it_shows_that_it_is_thinking_stays_at_the_newest_line_and_forgets_visibly(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    settings = make_settings(tmp_path, llm)
    async with open_companion(settings) as companion:
        await companion.add_topic("ana", "hobbies", "The host plays table tennis every week.")
    llm.enqueue(Reply("Table tennis, of course.", delay=0.3))  # a slow first word
    app = _app(settings)
    async with app.run_test(size=(120, 24)) as pilot:
        await _ready(pilot)
        await pilot.click(HistoryInput)
        await pilot.press(*"Which sport do I play?", "enter")
        bubble = await _bubble(pilot)
        assert _text(bubble).endswith("thinking…") and bubble.reply == ""
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert _text(bubble) == "Mia: Table tennis, of course."
        assert "hobbies" in _text(app.query_one(MemoryPanel))
        await _send(pilot, "/help")  # taller than the screen
        chat_log = app.query_one("#log")
        await wait_until(lambda: chat_log.scroll_y == chat_log.max_scroll_y > 0)
        await _send(pilot, "/forget all yes")
        assert "hobbies" not in _text(app.query_one(MemoryPanel))
        await wait_until(lambda: chat_log.scroll_y == chat_log.max_scroll_y)


async def test_a_plan_that_is_over_is_asked_about_when_the_chat_opens_once(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    settings = make_settings(tmp_path, llm)
    monday, saturday = (datetime(2026, 3, d, 10, tzinfo=UTC) for d in (9, 14))
    async with open_companion(settings, clock=lambda: monday) as companion:
        await say(companion, "my exam is on Friday")
    asked = "On 9 March 2026 you said: \u201cmy exam is on Friday\u201d. How did it go?"
    for opening in range(2):
        app = CompanionApp(lambda: open_companion(settings, clock=lambda: saturday), "ana")
        async with app.run_test(size=(120, 36)) as pilot:
            await _ready(pilot)
            shown = [_text(m) for m in app.query(CompanionMessage)]
        # Asked once, after the greeting; the next time, it is among the earlier rounds.
        fresh = [text for text in shown if asked in text]
        assert len(fresh) == 1
        assert shown.index(fresh[0]) == (len(shown) - 1 if opening == 0 else 1)
