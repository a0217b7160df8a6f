"""Discord, through discord.py's own event and message machinery, fed real gateway payloads by
dpytest (0.7.0, pinned)."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import discord
import discord.ext.test as dpytest
import pytest
from discord.ext.test import backend as dpy_backend
from discord.ext.test import callbacks as dpy_callbacks
from discord.ext.test import factories as dpy_factories

from bot.app import Companion, open_companion
from bot.errors import ConfigError
from bot.frontends.desk import FrontDesk
from bot.frontends.discord import (
    CompanionBot,
    ShardedCompanionBot,
    companion_bot,
    companion_intents,
)
from bot.settings import load_settings
from memory.types import RoundStatus
from tests.bot.frontends.admin_cases import ADMIN_COMMANDS, REFUSAL
from tests.conftest import make_settings
from tests.fakes.openai_server import Error, ScriptedLLM

ANN, ADMIN = 42, 1

# discord.py warns once per process about voice support, which the bot does not use.
discord.VoiceClient.warn_nacl = False
discord.VoiceClient.warn_dave = False

_send_message = dpy_backend.FakeHttp.send_message


async def _send_message_keeping_content(self: Any, channel_id: int, *, params: Any) -> Any:
    """dpytest 0.7.0 drops a message's text when a file is attached (discord.py moves it into
    the multipart payload_json). dpytest reads `channel` from its caller's frame, hence the
    local of that name."""
    channel = sys._getframe(1).f_locals.get("channel")  # noqa: F841
    if params.files and params.payload is None:
        part = next(p for p in params.multipart if p["name"] == "payload_json")
        params = params._replace(payload=json.loads(part["value"]))
    return await _send_message(self, channel_id, params=params)


@dataclass
class Clock:
    """What the companion takes for now; the tests of check-ins move it."""

    now: datetime = field(default_factory=lambda: datetime.now(UTC))

    def __call__(self) -> datetime:
        return self.now


@dataclass
class Served:
    companion: Companion
    bot: CompanionBot
    desk: FrontDesk
    ann: discord.Member
    admin: discord.Member
    channel: discord.TextChannel
    edited: dict[int, str]  # message id -> its text after the last edit
    clock: Clock

    async def say(self, text: str, member: discord.Member, *, dm: bool = False) -> None:
        channel = await member.create_dm() if dm else self.channel
        await dpytest.message(text, channel=channel, member=member)

    def sent(self) -> list[discord.Message]:
        """The messages the bot sent since the last call, oldest first."""
        return [dpytest.get_message() for _ in range(dpytest.sent_queue.qsize())]

    def texts(self) -> list[str]:
        """What users see of those messages: each as it reads after its last edit."""
        return [self.edited.get(m.id, m.content) for m in self.sent()]


async def _join(name: str, user_id: int) -> discord.Member:
    return await dpytest.member_join(0, dpy_backend.make_user(name, 1, id_num=user_id))


@pytest.fixture
async def served(
    tmp_path: Path, llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> AsyncIterator[Served]:
    monkeypatch.chdir(tmp_path)  # dpytest writes sent files to the working folder
    monkeypatch.setattr(dpy_backend.FakeHttp, "send_message", _send_message_keeping_content)
    chat = getattr(request, "param", {})  # [chat] settings a test asks for (indirect)
    settings = make_settings(tmp_path, llm, chat=chat,
                             discord={"admin_ids": [ADMIN], "edit_interval_seconds": 0.0})
    clock = Clock()
    async with open_companion(settings, clock=clock) as companion:
        desk = companion.desk
        intents = companion_intents()
        intents.members = True  # dpytest builds its members from the member cache
        bot = CompanionBot(desk, settings.discord, intents=intents)
        dpytest.configure(bot, guilds=1, text_channels=1, voice_channels=0, members=["zoe"])
        await bot._async_setup_hook()  # after configure: it gives the fake state its loop
        errors: list[BaseException] = []

        async def on_error(event: str, *args: Any, **kwargs: Any) -> None:
            errors.append(sys.exc_info()[1] or RuntimeError(event))

        bot.on_error = on_error  # type: ignore[method-assign]
        edited: dict[int, str] = {}

        async def on_edit(channel: Any, message: Any, fields: dict[str, Any]) -> None:
            edited[message.id] = fields["params"].payload["content"]

        dpy_callbacks.set_callback(on_edit, "edit_message")
        channel = dpytest.get_config().channels[0]
        served = Served(companion, bot, desk, await _join("ann", ANN),
                        await _join("admin", ADMIN), channel, edited, clock)
        try:
            yield served
        finally:
            await dpytest.empty_queue()
            dpy_callbacks.remove_callback("edit_message")
        assert not errors, errors


async def test_with_shards_the_process_runs_the_shards_it_is_given(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    # dpytest 0.7.0 refuses sharded clients ("Sharded clients not yet supported"), so the
    # sharded bot's answers are those of the one-connection bot, which shares their code.
    settings = make_settings(tmp_path, llm, discord={"shard_count": 4, "shard_ids": [2, 3]})
    async with open_companion(settings) as companion:
        bot = companion_bot(companion.desk, settings.discord)
        assert isinstance(bot, ShardedCompanionBot)
        assert isinstance(bot, discord.AutoShardedClient)
        assert (bot.shard_count, bot.shard_ids) == (4, [2, 3])
        one = companion_bot(companion.desk, make_settings(tmp_path, llm).discord)
        assert not isinstance(one, discord.AutoShardedClient)


def test_a_shard_id_must_be_one_of_the_shards() -> None:
    with pytest.raises(ConfigError, match="shard_ids"):
        load_settings(None, discord={"shard_count": 2, "shard_ids": [2]})


async def test_a_direct_message_is_answered_and_stored_for_the_discord_user(
    served: Served, llm: ScriptedLLM
) -> None:
    await served.companion.add_topic(f"discord:{ANN}", "pets", "The host has a cat, Miso.")
    llm.enqueue("How is Miso?")
    await served.say("I am home", served.ann, dm=True)
    assert served.texts() == ["How is Miso?"]
    [round_] = await served.companion.rounds.recent_rounds(f"discord:{ANN}", 5)
    assert (round_.user_text, round_.status) == ("I am home", RoundStatus.ANSWERED)
    assert "Miso" in llm.last_system_prompt


@pytest.mark.parametrize("served", [{"show_memory": "on"}], indirect=True)
async def test_the_memory_that_answers_a_question_is_shown_under_the_reply(
    served: Served, llm: ScriptedLLM
) -> None:
    llm.enqueue("Lovely!")
    await served.say("My sister's name is Lea, she lives in Vienna.", served.ann, dm=True)
    llm.enqueue("Her name is Luna!")
    await served.say("What's my sister called again?", served.ann, dm=True)
    [_, reply] = served.texts()
    words, note = reply.split("\n\n", 1)
    assert words == "Her name is Luna!"  # the model's words, as it said them
    assert re.fullmatch(r"\(From my memory, #\d+ in /why: on .+ you said "
                        r"\u201cMy sister's name is Lea, she lives in Vienna\.\u201d\)", note)


async def test_in_a_channel_only_a_mention_or_a_reply_is_answered(
    served: Served, llm: ScriptedLLM
) -> None:
    await served.say("talking among ourselves", served.ann)
    assert served.sent() == []
    await served.say(f"<@{served.bot.user.id}> what do you think?", served.ann)
    [answer] = served.sent()
    assert llm.chat_requests[-1]["messages"][-1]["content"] == "what do you think?"
    # A reply to the bot's message, without a mention, as the gateway sends it.
    data = dpy_factories.make_message_dict(served.channel, served.ann, content="and then?",
                                           type=19)
    data["message_reference"] = {"message_id": answer.id, "channel_id": served.channel.id,
                                 "guild_id": served.channel.guild.id}
    data["referenced_message"] = dpy_factories.dict_from_message(answer) | {
        "channel_id": served.channel.id, "timestamp": answer.created_at.isoformat()}
    dpy_backend.get_state().parse_message_create(data)
    await dpytest.run_all_events()
    assert len(served.sent()) == 1
    said = [r.user_text for r in await served.companion.rounds.recent_rounds(f"discord:{ANN}", 5)]
    assert said == ["what do you think?", "and then?"]


async def test_a_long_reply_is_split_at_two_thousand_characters_between_words(
    served: Served, llm: ScriptedLLM
) -> None:
    reply = " ".join(f"sentence{i} about swimming and memory." for i in range(120))
    assert len(reply) > 4000
    llm.enqueue(reply)
    await served.say(f"<@{served.bot.user.id}> talk a lot", served.ann)
    texts = served.texts()
    assert len(texts) == 3 and all(len(text) <= 2000 for text in texts)
    assert " ".join(texts).split() == reply.split()


async def test_why_names_the_memories_behind_the_last_reply(served: Served) -> None:
    topic = await served.companion.add_topic(f"discord:{ANN}", "pets", "The host has a cat.")
    await served.say("How is my cat?", served.ann, dm=True)
    served.sent()
    await served.say("/why", served.ann, dm=True)
    [why] = served.texts()
    assert "Recency: 0 recent rounds" in why
    assert f"[{topic.id[:8]}] topic 'pets'" in why.split("Latest")[0]
    await served.say(f"<@{served.bot.user.id}> /why", served.ann)
    [in_channel] = served.texts()
    assert in_channel.startswith("For your privacy")


async def test_forget_all_asks_with_buttons_and_a_press_is_the_command(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[dict[str, Any]] = []  # what the bot sent, as Discord's API received it
    answered: list[dict[str, Any]] = []  # interaction callbacks, as Discord received them

    async def send_message(self: Any, channel_id: int, *, params: Any) -> Any:
        channel = sys._getframe(1).f_locals.get("channel")  # noqa: F841 (dpytest reads it)
        message = await _send_message(self, channel_id, params=params)
        sent.append(message | {"components": (params.payload or {}).get("components", [])})
        return message

    async def interaction_callback(self: Any, interaction_id: int, token: str,
                                   **request: Any) -> dict[str, Any]:
        answered.append(request["params"].payload)
        return {"interaction": {"id": str(interaction_id), "type": 3}, "resource": {"type": 7}}

    monkeypatch.setattr(dpy_backend.FakeHttp, "send_message", send_message)
    monkeypatch.setattr(discord.webhook.async_.AsyncWebhookAdapter,
                        "create_interaction_response", interaction_callback)
    await served.companion.add_topic(f"discord:{ANN}", "pets", "The host has a cat.")
    await served.companion.add_topic(f"discord:{ADMIN}", "pets", "The host has a dog.")

    await served.say("/forget all", served.ann, dm=True)
    question = sent[-1]
    assert question["content"].startswith("This would delete everything I store about you")
    labels = [b["label"] for row in question["components"] for b in row["components"]]
    assert labels == ["Yes, delete everything", "Cancel"]
    await _press(served, question, "companion:cancel", served.ann)
    assert sent[-1]["content"] == "Cancelled: nothing was changed."
    assert answered[-1]["data"]["components"] == []  # the buttons went
    assert await served.companion.topics.count(f"discord:{ANN}") == 1

    await served.say("/forget all", served.ann, dm=True)
    await _press(served, sent[-1], "companion:/forget all yes", served.ann)
    assert sent[-1]["content"].startswith("Forgotten: 0 rounds, 1 topic")
    assert await served.companion.topics.count(f"discord:{ANN}") == 0
    assert await served.companion.topics.count(f"discord:{ADMIN}") == 1
    served.sent()

    before = len(served.bot.persistent_views)
    await served.bot.setup_hook()  # at start: presses on buttons sent before a restart
    [registered] = served.bot.persistent_views[before:]
    assert [b.custom_id for b in registered.children] == [  # type: ignore[attr-defined]
        "companion:/forget all yes", "companion:cancel"]


async def _press(served: Served, message: dict[str, Any], custom_id: str,
                 member: discord.Member) -> None:
    """A click on a button of a message the bot sent, as Discord's gateway delivers it."""
    dm = member.dm_channel
    assert dm is not None
    before = dpytest.sent_queue.qsize()
    dpy_backend.get_state().parse_interaction_create({  # type: ignore[arg-type]
        "id": str(dpy_factories.make_id()), "application_id": str(served.bot.user.id),
        "type": 3, "token": "interaction-token", "version": 1,
        "attachment_size_limit": 8 << 20, "channel_id": str(dm.id),
        "channel": {"id": str(dm.id), "type": 1},
        "user": dpy_factories.dict_from_user(member._user),
        "data": {"custom_id": custom_id, "component_type": 2},
        "message": message,
    })
    for _ in range(500):  # the press is answered in a task of its own
        if dpytest.sent_queue.qsize() > before and not served.desk.busy:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the press got no answer")


async def test_export_arrives_as_a_json_file(served: Served) -> None:
    await served.say("I like rain", served.ann, dm=True)
    served.sent()
    await served.say("/export", served.ann, dm=True)
    [message] = served.sent()
    assert message.content.startswith("Here is everything I store about you")
    [attachment] = message.attachments
    data = json.loads(await attachment.read())
    assert [r["message"] for r in data["rounds"]] == ["I like rain"]


async def test_admin_commands_are_refused_to_users_and_run_for_admins(served: Served) -> None:
    for command, shown in ADMIN_COMMANDS.items():
        await served.say(command, served.ann, dm=True)
        assert served.texts() == [REFUSAL]
        await served.say(command, served.admin, dm=True)
        [answer] = served.texts()
        assert shown in answer


async def test_a_telegram_user_with_the_same_number_is_someone_else(
    served: Served, llm: ScriptedLLM
) -> None:
    await served.companion.add_topic(f"telegram:{ANN}", "health", "The host has asthma.")
    llm.enqueue("Hi!")
    await served.companion.rounds.start_round(
        user_id=f"telegram:{ANN}", conversation_id=f"telegram:{ANN}", persona="companion",
        text="my secret plan")
    await served.say("/memories", served.ann, dm=True)
    [memories] = served.texts()
    assert memories.startswith("I have no memories of you yet")
    await served.say("Do I have asthma?", served.ann, dm=True)
    served.sent()
    prompt = json.dumps(llm.chat_requests[-1]["messages"])
    assert "asthma." not in prompt.replace("Do I have asthma?", "")
    assert "secret plan" not in prompt


async def test_a_model_outage_gets_an_apology_and_keeps_the_message(
    served: Served, llm: ScriptedLLM
) -> None:
    llm.enqueue(*[Error(503)] * 3)
    await served.say("are you there?", served.ann, dm=True)
    assert "Your message is saved" in served.texts()[-1]
    [kept] = await served.companion.rounds.recent_rounds(f"discord:{ANN}", 5)
    assert (kept.user_text, kept.status) == ("are you there?", RoundStatus.FAILED)


async def test_a_thumbs_up_on_a_reply_in_a_dm_makes_it_a_candidate(
    served: Served, llm: ScriptedLLM
) -> None:
    await served.say("/share on", served.ann, dm=True)
    served.sent()
    llm.enqueue("Valiant, bold or fearless.")
    await served.say("A synonym for brave?", served.ann, dm=True)
    [reply] = served.sent()
    await _react(served, reply, "👍")
    [thanks] = served.texts()
    assert "candidate example" in thanks
    [entry] = await served.companion.pool.pool.rows.of_user(f"discord:{ANN}")
    assert (entry.prompt, entry.votes) == ("A synonym for brave?", 1)
    await _react(served, reply, "🎉")  # says nothing about the reply
    assert served.sent() == []


async def _react(served: Served, message: discord.Message, emoji: str) -> None:
    """A MESSAGE_REACTION_ADD gateway payload, as Discord sends it for a DM (dpytest 0.7.0's
    own lacks the "type" that discord.py 2.7 reads)."""
    dpy_backend.get_state().parse_message_reaction_add({
        "message_id": message.id, "channel_id": message.channel.id, "user_id": served.ann.id,
        "emoji": {"id": None, "name": emoji}, "type": 0, "burst": False,
        "message_author_id": served.bot.user.id,
    })
    await dpytest.run_all_events()


async def test_a_check_in_reaches_the_person_once_as_a_direct_message(served: Served) -> None:
    served.clock.now = datetime(2026, 3, 9, 10, tzinfo=UTC)  # a Monday
    await served.say("/checkins on", served.ann, dm=True)
    await served.say("my exam is on Friday", served.ann, dm=True)
    assert "Check-ins are on" in served.texts()[0]
    served.clock.now = datetime(2026, 3, 14, 10, tzinfo=UTC)
    senders = {"discord": served.bot.send_private}
    await served.companion.checkins.send_due(senders)
    await served.companion.checkins.send_due(senders)
    [message] = served.sent()
    assert message.content == ("On 9 March 2026 you said: \u201cmy exam is on Friday\u201d. "
                               "How did it go?")
    assert message.channel.id == (await served.ann.create_dm()).id  # Ann's direct messages
