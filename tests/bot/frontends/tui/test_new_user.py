"""The chat screen as a new user meets it (issue 31): stopping a reply, quitting, the keys, empty
and refused messages, "thinking…", the earlier conversation, the side panel and emoji. Driven
by textual's Pilot against real stores and the scripted LLM."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import get_character_cell_size

from bot.app import open_companion
from bot.frontends.tui.widgets import THINKING, CompanionMessage, HistoryInput, Note, UserMessage
from tests.bot.frontends.tui.test_app import _app, _bubble, _ready, _send, _text, wait_until
from tests.conftest import make_settings
from tests.fakes.openai_server import Reply, ScriptedLLM

SLOW_REPLY = "One two three four five six seven eight nine ten eleven twelve."


@pytest.mark.parametrize("key", ["escape", "ctrl+c"])
async def test_a_key_stops_the_reply_what_was_said_stays_and_is_stored_as_cut(
    tmp_path: Path, llm: ScriptedLLM, key: str
) -> None:
    llm.enqueue(Reply(SLOW_REPLY, delay=0.2))
    app = _app(make_settings(tmp_path, llm))
    async with app.run_test(size=(120, 36)) as pilot:
        await _ready(pilot)
        await pilot.click(HistoryInput)
        await pilot.press(*"Count for me", "enter")
        bubble = await _bubble(pilot)
        await wait_until(lambda: len(bubble.reply.split()) >= 2)
        await pilot.press(key)
        await app.workers.wait_for_complete()
        said = bubble.reply
        await pilot.pause(0.5)  # the model would have gone on by now
        assert _text(bubble) == f"Mia: {said} [stopped]"
        assert said and SLOW_REPLY.startswith(said) and len(said) < len(SLOW_REPLY)
        assert app.companion is not None
        [stored] = await app.companion.rounds.recent_rounds("ana", 1)
        assert (stored.user_text, stored.reply_text, stored.status) == ("Count for me", said,
                                                                        "failed")
        await _send(pilot, "Are you there?")  # the chat goes on
        assert app.query(CompanionMessage).last().reply == "Happy to chat with you!"


async def test_ctrl_c_with_no_reply_to_stop_says_how_to_quit(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    app = _app(make_settings(tmp_path, llm))
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await _ready(pilot)
        await pilot.press("ctrl+c")
        await wait_until(lambda: bool(app.screen.query("Toast")))
        toast = _text(app.screen.query("Toast").last())
        assert "Ctrl+Q" in toast and "/quit" in toast
        assert app.is_running


@pytest.mark.parametrize("command", ["/quit", "/exit"])
async def test_quit_and_exit_close_the_app(
    tmp_path: Path, llm: ScriptedLLM, command: str
) -> None:
    app = _app(make_settings(tmp_path, llm))
    async with app.run_test(size=(120, 36)) as pilot:
        await _ready(pilot)
        await pilot.click(HistoryInput)
        await pilot.press(*command, "enter")
        await wait_until(lambda: app.return_code == 0)  # closed, not failed
        assert not any("Unknown command" in _text(note) for note in app.query(Note))


async def test_help_lists_the_keys_and_the_footer_shows_them(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    app = _app(make_settings(tmp_path, llm))
    async with app.run_test(size=(120, 36)) as pilot:
        await _ready(pilot)
        await _send(pilot, "/help")
        keys = _text(app.query(Note).last())
        footer = " ".join(_text(key) for key in app.query("FooterKey"))
    assert "Ctrl+Q, /quit, /exit  quit" in keys
    assert "Esc, Ctrl+C" in keys and "stop the reply" in keys
    assert "F2" in keys and "memory panel" in keys
    assert "Quit" in footer and "Stop reply" in footer and "Memory panel" in footer


async def test_an_empty_enter_is_ignored_silently(tmp_path: Path, llm: ScriptedLLM) -> None:
    app = _app(make_settings(tmp_path, llm))
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await _ready(pilot)
        chat_log = app.query_one("#log")
        shown = len(chat_log.children)
        await pilot.click(HistoryInput)
        await pilot.press("enter", *"   ", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert len(chat_log.children) == shown
        assert not app.screen.query("Toast")
        assert app.companion is not None
        assert await app.companion.rounds.count_rounds("ana") == 0


async def test_a_refused_message_is_not_echoed_only_the_refusal_is_shown(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    app = _app(make_settings(tmp_path, llm))
    async with app.run_test(size=(120, 36)) as pilot:
        await _ready(pilot)
        chat_input = app.query_one(HistoryInput)
        chat_input.value = "All about my day. " * 280  # 5,040 characters, pasted
        await pilot.click(HistoryInput)
        await pilot.press("enter")
        refusal = await _bubble(pilot)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "5,040 characters long; the limit is 4,000" in _text(refusal)
        assert refusal.has_class("failed")
        assert not app.query(UserMessage)
        assert app.companion is not None
        assert await app.companion.rounds.count_rounds("ana") == 0
    assert llm.chat_requests == []


async def test_the_answer_given_again_after_a_correction_says_it_is_thinking(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    app = _app(make_settings(tmp_path, llm))
    async with app.run_test(size=(120, 36)) as pilot:
        await _ready(pilot)
        await _send(pilot, "What word is similar to good?")
        # The model finds the subject of the message at once, then is slow to answer again.
        llm.answers["Which words of this message say what it is about"] = "similar"
        llm.enqueue(Reply("Fine.", delay=3.5))
        await pilot.click(HistoryInput)
        await pilot.press(*"/correct I wanted a synonym", "enter")
        await wait_until(lambda: len(app.query(CompanionMessage)) == 3)
        again = app.query(CompanionMessage).last()
        await wait_until(lambda: again.reply.startswith("Noted:"))
        await wait_until(lambda: _text(again).endswith(THINKING), timeout=5)
        assert "Let me answer again" in _text(again)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert _text(again).endswith("Let me answer again:\n\nFine.")
        assert THINKING not in _text(again)


async def test_reopening_shows_the_last_rounds_dimmed_under_earlier(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    settings = make_settings(tmp_path, llm)
    async with open_companion(settings) as companion:
        for n in range(1, 7):
            round_ = await companion.rounds.start_round(
                user_id="ana", conversation_id="ana", persona="companion", text=f"message {n}")
            await companion.rounds.finish_round(round_, f"reply {n}")
        cut = await companion.rounds.start_round(
            user_id="ana", conversation_id="ana", persona="coach", text="message 7")
        await companion.rounds.fail_round(cut, "reply 7 was")
    app = _app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await _ready(pilot)
        shown = [(_text(widget), widget.has_class("earlier"))
                 for widget in app.query_one("#log").children]
    earlier = [text for text, dimmed in shown if dimmed]
    assert earlier == ["── Earlier ──",
                       *[line for n in range(3, 7) for line in (f"You: message {n}",
                                                                f"Mia: reply {n}")],
                       "You: message 7", "Sam: reply 7 was [unfinished]"]
    assert shown[:len(earlier)] == [(text, True) for text in earlier]  # the earlier come first
    assert shown[len(earlier)][0].startswith("Mia: Hi, I'm Mia")  # then today's greeting
    assert "message 1" not in str(shown) and "message 2" not in str(shown)


async def test_f2_hides_and_shows_the_memory_panel(tmp_path: Path, llm: ScriptedLLM) -> None:
    app = _app(make_settings(tmp_path, llm))
    async with app.run_test(size=(120, 36)) as pilot:
        await _ready(pilot)
        side, chat_log = app.query_one("#side"), app.query_one("#log")
        assert side.region.width > 0 and chat_log.region.width < 120
        await pilot.press("f2")
        await pilot.pause()
        assert side.region.width == 0 and chat_log.region.width == 120
        await pilot.press("f2")
        await pilot.pause()
        assert side.region.width > 0 and chat_log.region.width < 120
        assert app.query_one(HistoryInput).has_focus  # typing goes on


EMOJI = "❤️ 👨‍👩‍👧 ☀️ 👍🏽 1️⃣ 🏳️‍🌈 😀 🇫🇷"


def _codepoint_width(line: str) -> int:
    """The width of a line in a terminal that measures each code point (xterm, VTE, tmux): a
    zero-width joiner or an emoji variation selector adds nothing to the symbol before it."""
    return sum(get_character_cell_size(character) for character in line)


async def test_emoji_leave_the_side_panels_border_in_its_column(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    settings = make_settings(tmp_path, llm)
    async with open_companion(settings) as companion:
        await companion.add_topic("ana", f"emoji {EMOJI}", f"The host loves {EMOJI} " * 4)
    llm.enqueue(Reply(f"Mine too {EMOJI} {EMOJI}"))
    app = _app(settings)
    async with app.run_test(size=(100, 30)) as pilot:
        await _ready(pilot)
        await _send(pilot, "Which emoji do I love?")
        assert "The host loves" in _text(app.query_one("#memory"))
        # The screen as textual lays it out, row by row: what it sends the terminal.
        rows = ["".join(segment.text for segment in strip)
                for strip in app.screen._compositor.render_strips()]
    chat_rows = [row for row in rows if "│" in row]
    assert any("Mine too" in row for row in chat_rows)
    assert any("The host loves" in row for row in chat_rows)
    border_columns = {_codepoint_width(row[:row.index("│")]) for row in chat_rows}
    assert len(border_columns) == 1, border_columns
    assert {_codepoint_width(row) for row in rows} == {100}


async def test_the_memory_that_answers_a_question_is_shown_under_the_reply(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    app = _app(make_settings(tmp_path, llm, chat={"show_memory": "on"}))
    async with app.run_test(size=(120, 36)) as pilot:
        await _ready(pilot)
        await _send(pilot, "My sister's name is Lea, she lives in Vienna.")
        llm.enqueue("Her name is Luna!")
        await _send(pilot, "What's my sister called again?")
        shown = _text(app.query(CompanionMessage).last())
    assert shown.startswith("Mia: Her name is Luna!")  # the model's words, as it said them
    assert "(From my memory, #" in shown and "you said \u201cMy sister's name is Lea" in shown
