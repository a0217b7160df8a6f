"""Telegram, through python-telegram-bot's real HTTP stack against a fake Bot API server."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.app import Companion, open_companion
from bot.frontends.desk import BROKEN, NOT_ALLOWED, FrontDesk
from bot.serve import build_frontends
from bot.tokens import Tokens
from memory.types import RoundStatus
from tests.bot.frontends.admin_cases import ADMIN_COMMANDS, REFUSAL
from tests.conftest import _free_port, make_settings
from tests.fakes.openai_server import Error, Reply, ScriptedLLM
from tests.fakes.telegram_server import FakeTelegram

ANN, BOB, ADMIN = 42, 43, 1
GROUP = -100777


@dataclass
class Served:
    """A companion served on the fake Telegram, and what tests watch it by."""

    companion: Companion
    desk: FrontDesk
    fake: FakeTelegram

    def texts(self, chat_id: int) -> list[str]:
        return [m["plain"] for m in self.fake.messages_to(chat_id)]

    async def answered(self, chat_id: int, count: int = 1) -> list[str]:
        """The chat's messages once it has `count` and no reply is still being written."""
        await self.fake.wait_for(
            lambda: len(self.fake.messages_to(chat_id)) >= count and not self.desk.busy
        )
        return self.texts(chat_id)


@asynccontextmanager
async def _serve(settings: Any, fake: FakeTelegram) -> AsyncIterator[Served]:
    async with open_companion(settings) as companion:
        desk = companion.desk
        [frontend] = build_frontends(companion, desk, Tokens(telegram=fake.token, discord=None))
        await frontend.start()
        try:
            yield Served(companion, desk, fake)
        finally:
            await frontend.stop_receiving()
            await desk.drain(5)
            await frontend.close()


def _settings(tmp_path: Path, llm: ScriptedLLM, fake: FakeTelegram, **sections: Any) -> Any:
    telegram = {"base_url": fake.base_url, "admin_ids": [ADMIN], "edit_interval_seconds": 0.2}
    return make_settings(tmp_path, llm, telegram=telegram | sections.pop("telegram", {}),
                         **sections)


@pytest.fixture
async def served(tmp_path: Path, llm: ScriptedLLM, fake: FakeTelegram) -> AsyncIterator[Served]:
    async with _serve(_settings(tmp_path, llm, fake), fake) as opened:
        yield opened


async def test_a_private_chat_is_answered_stored_and_remembered(
    served: Served, fake: FakeTelegram, llm: ScriptedLLM
) -> None:
    await served.companion.add_topic(f"telegram:{ANN}", "hobbies", "The host plays table tennis.")
    llm.enqueue("Table tennis again? Lovely!")
    fake.private_message(ANN, "I played table tennis today")
    assert await served.answered(ANN) == ["Table tennis again? Lovely!"]
    assert (ANN, "typing") in fake.actions
    [round_] = await served.companion.rounds.recent_rounds(f"telegram:{ANN}", 5)
    assert round_.user_text == "I played table tennis today"
    assert round_.status == RoundStatus.ANSWERED
    assert round_.conversation_id == f"telegram:{ANN}"
    assert "The host plays table tennis." in llm.last_system_prompt
    fake.command(ANN, "/why")
    why = (await served.answered(ANN, 2))[1]
    assert "Recency: 0 recent rounds" in why and "hobbies" in why


async def test_the_memory_that_answers_a_question_is_shown_under_the_reply(
    tmp_path: Path, llm: ScriptedLLM, fake: FakeTelegram
) -> None:
    async with _serve(_settings(tmp_path, llm, fake, chat={"show_memory": "on"}), fake) as served:
        llm.enqueue("Lovely!")
        fake.private_message(ANN, "My sister's name is Lea, she lives in Vienna.")
        await served.answered(ANN)
        llm.enqueue("Her name is Luna!")
        fake.private_message(ANN, "What's my sister called again?")
        [_, reply] = await served.answered(ANN, 2)
    words, note = reply.split("\n\n", 1)
    assert words == "Her name is Luna!"  # the model's words, as it said them
    assert re.fullmatch(r"\(From my memory, #\d+ in /why: on .+ you said "
                        r"\u201cMy sister's name is Lea, she lives in Vienna\.\u201d\)", note)


async def test_in_a_group_only_mentions_and_replies_are_answered_for_the_speaker(
    served: Served, fake: FakeTelegram, llm: ScriptedLLM
) -> None:
    fake.group_message(GROUP, BOB, "just chatting with friends")
    fake.group_message(GROUP, BOB, "/roll 2d6")  # another bot's command
    fake.group_message(GROUP, BOB, "what do you think?", mention=True)
    await served.answered(GROUP)
    assert llm.chat_requests[-1]["messages"][-1]["content"] == "what do you think?"
    fake.group_message(GROUP, ANN, "and me?", reply_to=fake.messages_to(GROUP)[0])
    await served.answered(GROUP, 2)
    bobs = await served.companion.rounds.recent_rounds(f"telegram:{BOB}", 5)
    assert [r.user_text for r in bobs] == ["what do you think?"]
    [ann_round] = await served.companion.rounds.recent_rounds(f"telegram:{ANN}", 5)
    assert (ann_round.user_text, ann_round.conversation_id) == ("and me?", f"telegram:{GROUP}")
    assert len(llm.chat_requests) == 2  # the unaddressed messages reached no model
    assert len(served.texts(GROUP)) == 2


async def test_a_reply_in_a_group_never_draws_on_private_memories(
    served: Served, fake: FakeTelegram, llm: ScriptedLLM
) -> None:
    await served.companion.add_topic(f"telegram:{BOB}", "health", "The host has asthma.")
    fake.private_message(BOB, "my password hint is blue whale")
    await served.answered(BOB)
    fake.group_message(GROUP, BOB, "I like hiking", mention=True)
    await served.answered(GROUP)
    fake.group_message(GROUP, BOB, "what should I do this weekend?", mention=True)
    await served.answered(GROUP, 2)
    prompt = json.dumps(llm.chat_requests[-1]["messages"])
    assert "I like hiking" in prompt  # what was said in this group counts
    assert "asthma" not in prompt and "blue whale" not in prompt
    fake.private_message(BOB, "what do you know about me?")
    await served.answered(BOB, 2)
    assert "asthma" in json.dumps(llm.chat_requests[-1]["messages"])  # in private it does


async def test_an_edited_message_is_not_answered_again(
    served: Served, fake: FakeTelegram, llm: ScriptedLLM
) -> None:
    message = fake.private_message(ANN, "I like tea")
    await served.answered(ANN)
    fake.push_update({"edited_message": {**message, "text": "I like green tea",
                                         "edit_date": message["date"] + 5}})
    fake.private_message(ANN, "hello")
    await served.answered(ANN, 2)
    said = [r.user_text for r in await served.companion.rounds.recent_rounds(f"telegram:{ANN}", 9)]
    assert said == ["I like tea", "hello"]


async def test_a_reply_streams_into_one_message_by_edits(
    served: Served, fake: FakeTelegram, llm: ScriptedLLM
) -> None:
    words = " ".join(f"word{i}" for i in range(30))
    llm.enqueue(Reply(words, delay=0.05))  # 1.5 s of streaming
    fake.private_message(ANN, "tell me a story")
    await fake.wait_for(lambda: served.texts(ANN) == [words])
    [message] = fake.messages_to(ANN)
    # Edited as it grew, at most about once per 0.2 s (edit_interval_seconds in this test).
    assert 2 <= message["edits"] <= 1.5 / 0.2 + 2


async def test_a_ten_thousand_character_reply_is_split_between_words(
    served: Served, fake: FakeTelegram, llm: ScriptedLLM
) -> None:
    reply = " ".join(f"sentence{i} about table tennis and memory." for i in range(250))
    assert len(reply) > 10_000
    llm.enqueue(reply)
    fake.private_message(ANN, "talk a lot")
    await fake.wait_for(lambda: " ".join(served.texts(ANN)).split() == reply.split())
    texts = served.texts(ANN)
    assert len(texts) == 3 and all(len(text) <= 4096 for text in texts)


async def test_markdown_is_rendered_and_what_telegram_cannot_parse_goes_plain(
    served: Served, fake: FakeTelegram, llm: ScriptedLLM
) -> None:
    llm.enqueue("**Swim** at <dawn> & stretch", "**a *b** c*")
    fake.private_message(ANN, "plan?")
    assert await served.answered(ANN) == ["Swim at <dawn> & stretch"]
    assert fake.messages_to(ANN)[0]["parse_mode"] == "HTML"
    fake.private_message(ANN, "again")
    assert (await served.answered(ANN, 2))[1] == "**a *b** c*"  # misnested: sent as written


async def test_export_arrives_as_a_json_document_and_memories_list_topics(
    served: Served, fake: FakeTelegram, llm: ScriptedLLM
) -> None:
    topic = await served.companion.add_topic(f"telegram:{ANN}", "work", "The host is a nurse.")
    fake.private_message(ANN, "hello")
    await served.answered(ANN)
    fake.command(ANN, "/memories")
    assert f"[{topic.id[:8]}] work: The host is a nurse." in (await served.answered(ANN, 2))[1]
    fake.command(ANN, "/export")
    await served.answered(ANN, 3)
    document = fake.messages_to(ANN)[2]["document"]
    data = json.loads(document["content"])
    assert document["file_name"].endswith(".json")
    assert [r["message"] for r in data["rounds"]] == ["hello"]
    assert [t["description"] for t in data["topics"]] == ["The host is a nurse."]
    fake.command(ANN, "/forget all yes")
    await served.answered(ANN, 4)
    fake.command(ANN, "/export")
    await served.answered(ANN, 5)
    emptied = json.loads(fake.messages_to(ANN)[4]["document"]["content"])
    assert (emptied["rounds"], emptied["topics"]) == ([], [])


async def test_forget_all_asks_first_with_buttons_that_go_once_pressed(
    served: Served, fake: FakeTelegram
) -> None:
    await served.companion.add_topic(f"telegram:{ANN}", "work", "The host is a nurse.")
    await served.companion.add_topic(f"telegram:{BOB}", "work", "The host is a baker.")
    fake.command(ANN, "/forget all")
    [asked] = await served.answered(ANN)
    assert asked.startswith("This would delete everything I store about you: 0 rounds, 1 topic")
    question = fake.messages_to(ANN)[0]
    assert [b["text"] for b in question["reply_markup"]["inline_keyboard"][0]] == [
        "Yes, delete everything", "Cancel"]
    fake.press_button(ANN, question["message_id"], "Cancel")
    assert (await served.answered(ANN, 2))[1] == "Cancelled: nothing was changed."
    assert await served.companion.topics.count(f"telegram:{ANN}") == 1
    assert fake.messages_to(ANN)[0]["reply_markup"] is None  # the buttons went

    fake.command(ANN, "/forget all")
    await served.answered(ANN, 3)
    question = fake.messages_to(ANN)[2]
    fake.press_button(ANN, question["message_id"], "Yes, delete everything")
    assert (await served.answered(ANN, 4))[3].startswith("Forgotten: 0 rounds, 1 topic")
    assert await served.companion.topics.count(f"telegram:{ANN}") == 0
    assert await served.companion.topics.count(f"telegram:{BOB}") == 1
    assert fake.messages_to(ANN)[2]["reply_markup"] is None
    assert len(fake.calls_to("answerCallbackQuery")) == 2


async def test_admin_commands_are_refused_to_users_and_run_for_admins(
    served: Served, fake: FakeTelegram
) -> None:
    await served.companion.add_topic(f"telegram:{BOB}", "work", "The host is a baker.")
    for count, (command, shown) in enumerate(ADMIN_COMMANDS.items(), start=1):
        fake.command(ANN, command)
        assert (await served.answered(ANN, count))[-1] == REFUSAL
        fake.command(ADMIN, command)
        assert shown in (await served.answered(ADMIN, count))[-1]
    assert "The host is a baker." in served.texts(ADMIN)[1]  # /admin topics telegram:43


async def test_a_model_outage_gets_an_apology_and_keeps_the_message(
    served: Served, fake: FakeTelegram, llm: ScriptedLLM
) -> None:
    llm.enqueue(*[Error(503)] * 3)
    fake.private_message(ANN, "are you there?")
    [apology] = await served.answered(ANN)
    assert "Your message is saved" in apology
    [kept] = await served.companion.rounds.recent_rounds(f"telegram:{ANN}", 5)
    assert (kept.user_text, kept.status) == ("are you there?", RoundStatus.FAILED)


async def test_flood_waits_and_network_errors_from_telegram_are_retried(
    served: Served, fake: FakeTelegram, llm: ScriptedLLM
) -> None:
    fake.fail_next("sendMessage", status=429, retry_after=1)
    fake.fail_next("editMessageText", status=502, times=2)
    llm.enqueue(Reply("one two three four five", delay=0.1))
    fake.private_message(ANN, "hi")
    await fake.wait_for(lambda: served.texts(ANN) == ["one two three four five"])
    assert [e[0] for e in fake.errors] == ["sendMessage", "editMessageText", "editMessageText"]


async def test_a_flood_from_one_user_is_limited_and_never_delays_another(
    tmp_path: Path, llm: ScriptedLLM, fake: FakeTelegram
) -> None:
    settings = _settings(tmp_path, llm, fake, access={"messages_per_minute": 3})
    async with _serve(settings, fake) as served:
        llm.delay = 0.15  # each reply takes a while ("Happy to chat with you!": 0.6 s)
        for i in range(6):
            fake.private_message(ANN, f"flood {i}")
        await fake.wait_for(lambda: any("faster than I can" in t for t in served.texts(ANN)))
        fake.private_message(BOB, "hello")
        await fake.wait_for(lambda: served.texts(BOB) == ["Happy to chat with you!"])
        # Bob is answered while Ann's three accepted messages are still being answered.
        assert sum(t == "Happy to chat with you!" for t in served.texts(ANN)) < 3
        await fake.wait_for(lambda: len(served.texts(ANN)) == 4)
        slow_down = [t for t in served.texts(ANN) if "faster than I can" in t]
        assert len(slow_down) == 1  # said once, not once per extra message


async def test_blocked_users_get_nothing_and_strangers_are_told_once_per_message(
    tmp_path: Path, llm: ScriptedLLM, fake: FakeTelegram
) -> None:
    access = {"block_users": [f"telegram:{BOB}"], "allow_users": [f"telegram:{ANN}"]}
    async with _serve(_settings(tmp_path, llm, fake, access=access), fake) as served:
        fake.private_message(BOB, "let me in")
        fake.private_message(77, "hi?")
        fake.private_message(ANN, "hello")
        assert await served.answered(77) == [NOT_ALLOWED]
        await served.answered(ANN)
        assert fake.messages_to(BOB) == []
        assert await served.companion.rounds.count_rounds(f"telegram:{BOB}") == 0
        assert await served.companion.rounds.count_rounds("telegram:77") == 0


COMPANION = str(Path(sys.executable).parent / "companion")


def _run_env(tmp_path: Path, llm: ScriptedLLM, base_url: str, token: str) -> dict[str, str]:
    """The environment of `companion run --telegram` against `base_url` with `token`."""
    return {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")} | {
        "COMPANION_DATA_DIR": str(tmp_path),
        "COMPANION_LLM__PROVIDER": "openai",
        "COMPANION_LLM__BASE_URL": llm.base_url,
        "COMPANION_TELEGRAM__BASE_URL": base_url,
        "TELEGRAM_BOT_TOKEN": token,
    }


async def _run_until_it_stops(env: dict[str, str]) -> tuple[int, list[str]]:
    """`companion run --telegram` that is expected to stop by itself: its exit code, and the
    lines of its standard error that are not log lines (what it says to the person). Neither
    they nor the log lines ever show the token."""
    process = await asyncio.create_subprocess_exec(
        COMPANION, "run", "--telegram", env=env, cwd=env["COMPANION_DATA_DIR"],
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    try:
        _, stderr = await asyncio.wait_for(process.communicate(), timeout=120)
    finally:
        if process.returncode is None:
            process.kill()
    assert env["TELEGRAM_BOT_TOKEN"].strip('"') not in stderr.decode()
    logged = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ (INFO|WARNING) ")
    said = [line for line in stderr.decode().splitlines() if not logged.match(line)]
    return int(process.returncode or 0), said


@pytest.mark.parametrize("token", ["123456:TEST-TOKEN", "companion_test_bot",
                                   '"123456:TEST-TOKEN-of-the-fake-bot-api-server"'])
async def test_a_token_of_the_wrong_shape_is_refused_without_asking_telegram(
    tmp_path: Path, llm: ScriptedLLM, fake: FakeTelegram, token: str
) -> None:
    code, said = await _run_until_it_stops(_run_env(tmp_path, llm, fake.base_url, token))
    assert code == 1
    [line] = said
    assert line.startswith("Error: TELEGRAM_BOT_TOKEN does not look like a Telegram bot token:")
    assert fake.calls == []  # refused before any connection


async def test_a_token_telegram_refuses_is_said_in_one_line(
    tmp_path: Path, llm: ScriptedLLM, fake: FakeTelegram
) -> None:
    revoked = "123456:AAnother-token-that-was-revoked-long-ago"
    code, said = await _run_until_it_stops(_run_env(tmp_path, llm, fake.base_url, revoked))
    assert code == 1
    assert said == ["Error: Telegram refused TELEGRAM_BOT_TOKEN (Unauthorized). Set it to the "
                    "token @BotFather gave this bot (/mybots, then API Token), the newest one "
                    "if it was revoked."]
    assert [method for method, _ in fake.calls] == ["getMe"]


async def test_an_unreachable_telegram_is_said_in_one_line(
    tmp_path: Path, llm: ScriptedLLM, fake: FakeTelegram
) -> None:
    closed = f"http://127.0.0.1:{_free_port()}/bot"  # nothing listens there
    code, said = await _run_until_it_stops(_run_env(tmp_path, llm, closed, fake.token))
    assert code == 1
    assert said == [f"Error: Could not reach Telegram at {closed} (Connection refused). Check "
                    "the network, or telegram.base_url if you run your own Bot API server."]


async def test_companion_run_serves_telegram_and_stops_cleanly_on_sigterm(
    tmp_path: Path, llm: ScriptedLLM, fake: FakeTelegram
) -> None:
    env = _run_env(tmp_path, llm, fake.base_url, fake.token)
    process = await asyncio.create_subprocess_exec(
        COMPANION, "run", "--telegram", env=env, cwd=tmp_path,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    try:
        fake.private_message(ANN, "hello from the real process")
        await fake.wait_for(lambda: bool(fake.messages_to(ANN)), timeout=60)
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), timeout=30)
    finally:
        if process.returncode is None:
            process.kill()
    assert process.returncode == 0, stderr.decode()
    assert "Stopped cleanly" in stderr.decode()
    assert fake.token not in stderr.decode()  # httpx logs each URL, where the token is
    # The reply under way at SIGTERM was finished, not cut off.
    assert [m["plain"] for m in fake.messages_to(ANN)] == ["Happy to chat with you!"]


async def test_an_unexpected_error_is_logged_with_context_and_the_bot_keeps_going(
    served: Served, fake: FakeTelegram, llm: ScriptedLLM, caplog: pytest.LogCaptureFixture
) -> None:
    fake.fail_next("sendMessage", status=400, description="Bad Request: something odd")
    fake.private_message(ANN, "first try")
    await served.answered(ANN)
    assert "Failed to answer telegram:42 in telegram:42: 'first try'" in caplog.text
    assert served.texts(ANN) == [BROKEN]  # told, without a stack trace
    fake.private_message(ANN, "second try")
    assert (await served.answered(ANN, 2))[1] == "Happy to chat with you!"
    assert await served.companion.rounds.count_rounds(f"telegram:{ANN}") == 2


async def test_a_thumbs_up_on_a_reply_makes_it_a_candidate_for_the_shared_pool(
    served: Served, fake: FakeTelegram, llm: ScriptedLLM
) -> None:
    fake.command(ANN, "/share on")
    await served.answered(ANN)
    llm.enqueue("Valiant, bold or fearless.")
    fake.private_message(ANN, "A synonym for brave?")
    await served.answered(ANN, 2)
    reply = fake.messages_to(ANN)[-1]
    fake.reaction(ANN, reply["message_id"], "👍")
    thanks = (await served.answered(ANN, 3))[2]
    assert "candidate example" in thanks
    [entry] = await served.companion.pool.pool.rows.of_user(f"telegram:{ANN}")
    assert (entry.prompt, entry.votes) == ("A synonym for brave?", 1)
    assert "bold or fearless" in entry.answer
    fake.reaction(ANN, reply["message_id"], "👎")
    await served.answered(ANN, 4)
    [entry] = await served.companion.pool.pool.rows.of_user(f"telegram:{ANN}")
    assert entry.status.value == "rejected"


async def test_text_that_could_disguise_itself_is_shown_plainly_and_stored_as_it_came(
    served: Served, fake: FakeTelegram, llm: ScriptedLLM
) -> None:
    # Shown as is, U+202E would make "invoice\u202efdp.exe" read "invoiceexe.pdf".
    disguised = "Open invoice\u202efdp.exe, it is from your\u200b bank"
    llm.enqueue(disguised)
    fake.private_message(ANN, "anything new?")
    assert await served.answered(ANN) == ["Open invoicefdp.exe, it is from your bank"]
    [round_] = await served.companion.rounds.recent_rounds(f"telegram:{ANN}", 5)
    assert round_.reply_text == disguised  # the record keeps what was said
    family = ("our family \U0001F468\u200d\U0001F469\u200d\U0001F467 in "
              "\u05e2\u05d1\u05e8\u05d9\u05ea\u200f")
    llm.enqueue(family)
    fake.private_message(ANN, "and you?")
    assert (await served.answered(ANN, 2))[1] == family  # joiners and RTL marks stay


async def test_a_check_in_reaches_the_person_once_through_telegram(
    tmp_path: Path, llm: ScriptedLLM, fake: FakeTelegram
) -> None:
    clock = {"now": datetime(2026, 3, 9, 10, tzinfo=UTC)}  # a Monday
    settings = _settings(tmp_path, llm, fake)
    async with open_companion(settings, clock=lambda: clock["now"]) as companion:
        desk = companion.desk
        [frontend] = build_frontends(companion, desk, Tokens(telegram=fake.token, discord=None))
        await frontend.start()
        served = Served(companion, desk, fake)
        try:
            fake.command(ANN, "/checkins on")
            fake.private_message(ANN, "my exam is on Friday")
            fake.group_message(GROUP, ANN, "my exam is on Friday, all!", mention=True)
            assert "Check-ins are on" in (await served.answered(ANN, 2))[0]
            await served.answered(GROUP)
            clock["now"] = datetime(2026, 3, 14, 10, tzinfo=UTC)
            senders = {frontend.platform: frontend.send_private}
            await companion.checkins.send_due(senders)
            await companion.checkins.send_due(senders)
            asked = "On 9 March 2026 you said: \u201cmy exam is on Friday\u201d. How did it go?"
            assert served.texts(ANN)[2:] == [asked]
            assert len(served.texts(GROUP)) == 1  # the group's reply, and nothing else
        finally:
            await frontend.stop_receiving()
            await desk.drain(5)
            await frontend.close()
