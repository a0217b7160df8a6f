"""Corrections end to end, through a whole companion: `/correct` and "No, I meant ..." stored as
feedback memories, the message answered again, and the clarification carried to the messages it
applies to; the scripted LLM server, real SQL, chromadb and MiniLM."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update

from bot.app import Companion, open_companion
from memory.sql.tables import feedback
from tests.chatting import say_recalled
from tests.conftest import make_settings
from tests.fakes.openai_server import Error, ScriptedLLM
from tests.fakes.word_reader import misreading_reader

ASKED = "What word is similar to good?"
CORRECTION = "No, I meant a word with a similar meaning"


@pytest.fixture
async def tutor(tmp_path: Path, llm: ScriptedLLM, sql_url: str) -> AsyncIterator[Companion]:
    llm.responder = misreading_reader
    settings = make_settings(tmp_path, llm, sql_url, chat={"persona": "tutor"})
    async with open_companion(settings) as opened:
        yield opened


def _clarifications(llm: ScriptedLLM) -> list[str]:
    return [line for line in llm.last_system_prompt.splitlines()
            if re.match(r"\[\d+\] clarification:", line)]


def _clarified(llm: ScriptedLLM) -> bool:
    return bool(_clarifications(llm))


async def test_a_correction_is_stored_acknowledged_and_the_message_answered_again(
    tutor: Companion, llm: ScriptedLLM
) -> None:
    _, first = await say_recalled(tutor, ASKED)
    assert "sounds like good" in first
    recall, said = await say_recalled(tutor, CORRECTION)
    assert said.startswith(f'Noted: "{CORRECTION}" (about "{ASKED}")')
    assert "Understanding: you want a synonym of good." in said  # answered again, corrected
    assert llm.chat_requests[-1]["messages"][-1]["content"] == ASKED
    assert recall is not None and recall.clarifications[0].how == "same message"
    [stored] = await tutor.feedback.list_mine("ana")
    assert (stored.key, stored.feedback) == (ASKED, CORRECTION)
    assert stored.understanding == "you want a word that sounds like good."
    assert stored.persona == "tutor"
    assert "No, I meant a word with a similar meaning" in (
        await tutor.commands.run("ana", "/feedback")).text


async def test_the_same_and_a_similar_message_carry_the_clarification_and_others_do_not(
    tutor: Companion, llm: ScriptedLLM
) -> None:
    await say_recalled(tutor, ASKED)
    await say_recalled(tutor, CORRECTION)
    for message, applies in [
        (ASKED, True),
        ("what word is similar to good", True),
        ("What word is similar to fast?", True),
        ("Hey, what word is similar to brave, please?", True),
        ("What word is dissimilar to fast?", False),
        ("What word sounds like fast?", False),
        ("How was your day?", False),
        ("Is it similar to what we did last week, the trip to the lake with good friends?", False),
    ]:
        _, said = await say_recalled(tutor, message)
        assert _clarified(llm) is applies, message
        assert ("synonym" in said) is applies, message


async def test_a_stated_rule_applies_to_requests_of_the_corrected_shape_only(
    tutor: Companion, llm: ScriptedLLM
) -> None:
    await say_recalled(tutor, ASKED)
    _, said = await say_recalled(tutor, "/correct when I say similar to, I mean a synonym")
    assert said.startswith('Noted: "when I say similar to, I mean a synonym"')
    recall, said = await say_recalled(tutor, "What word is similar to happy?")
    assert recall is not None and [c.how for c in recall.clarifications] == ["your rule"]
    assert "synonym of happy" in said
    why = (await tutor.commands.run("ana", "/why")).text
    assert 'your rule on "similar to"' in why and "I mean a synonym" in why
    for other_shape in ["Give me something similar to happy, and make it short",
                        "What word is dissimilar to happy?", "Is my plan similar to yours?"]:
        recall, _ = await say_recalled(tutor, other_shape)
        assert recall is not None and recall.clarifications == (), other_shape


async def test_correct_with_nothing_to_correct_or_no_text_is_refused_and_stores_nothing(
    tutor: Companion, llm: ScriptedLLM
) -> None:
    _, said = await say_recalled(tutor, "/correct I meant a synonym")
    assert said.startswith("There is nothing to correct yet")
    await say_recalled(tutor, ASKED)
    _, said = await say_recalled(tutor, "/correct")
    assert said.startswith("Usage: /correct")
    assert await tutor.rounds.count_rounds("ana") == 1
    assert await tutor.feedback.list_mine("ana") == []


async def test_a_possible_correction_counts_only_when_the_model_confirms_it(
    tutor: Companion, llm: ScriptedLLM
) -> None:
    await say_recalled(tutor, "Do you like the sea?")
    _, said = await say_recalled(tutor, "Not that often, to be honest")  # the reader says "no"
    assert not said.startswith("Noted")
    await say_recalled(tutor, ASKED)
    _, said = await say_recalled(tutor, "No, the other kind of similar")  # the reader says "yes"
    assert said.startswith('Noted: "No, the other kind of similar"')
    assert [f.feedback for f in await tutor.feedback.list_mine("ana")] == [
        "No, the other kind of similar"]


def _reader_stating_nothing(body: dict[str, Any]) -> str:
    return "Wood."


async def test_with_the_demo_model_a_no_after_a_reply_stating_nothing_is_no_correction(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    llm.responder = _reader_stating_nothing
    settings = make_settings(tmp_path, llm, feedback={"confirm_with_model": "never"})
    async with open_companion(settings) as companion:
        await say_recalled(companion, ASKED)
        _, said = await say_recalled(companion, "No, the other kind of similar")
        assert not said.startswith("Noted")  # it may answer a question the reply asked
        _, said = await say_recalled(companion, "That's not what I asked: I wanted a synonym")
        assert said.startswith("Noted")  # unmistakable
        assert not any("Decide whether" in r["messages"][-1]["content"]
                       for r in llm.chat_requests)


@pytest.mark.parametrize("correction", [
    "No, the other kind of similar",
    "Wrong one. A synonym",
    "ये नहीं, पर्यायवाची बताओ",  # Hindi: not this, tell me a synonym
    'If I write "similar to" I mean a synonym',  # the request's own words quoted back
])
async def test_with_the_demo_model_disputing_a_stated_understanding_is_a_correction(
    tmp_path: Path, llm: ScriptedLLM, correction: str
) -> None:
    llm.responder = misreading_reader  # states "Understanding: ..." first
    settings = make_settings(tmp_path, llm, feedback={"confirm_with_model": "never"})
    async with open_companion(settings) as companion:
        await say_recalled(companion, ASKED)
        _, said = await say_recalled(companion, correction)
        assert said.startswith("Noted")
        assert "Understanding: you want a synonym of good." in said  # answered again
        assert not any("Decide whether" in r["messages"][-1]["content"]
                       for r in llm.chat_requests)


@pytest.mark.parametrize("message", [
    "What word is similar to kind?",  # the request again, about another word
    '"good" in a sentence, please',  # the request's subject quoted, not its wording
    "Whether formal or not, give me a sentence with good",  # a "not" inside a request
])
async def test_with_the_demo_model_a_new_request_after_a_stated_understanding_is_no_correction(
    tmp_path: Path, llm: ScriptedLLM, message: str
) -> None:
    llm.responder = misreading_reader
    settings = make_settings(tmp_path, llm, feedback={"confirm_with_model": "never"})
    async with open_companion(settings) as companion:
        await say_recalled(companion, ASKED)
        _, said = await say_recalled(companion, message)
        assert not said.startswith("Noted")
        assert await companion.feedback.list_mine("ana") == []


async def test_another_users_feedback_is_not_used_until_an_admin_promotes_it(
    tutor: Companion, llm: ScriptedLLM
) -> None:
    await say_recalled(tutor, ASKED, user="telegram:1")
    await say_recalled(tutor, CORRECTION, user="telegram:1")
    await say_recalled(tutor, ASKED, user="telegram:2")
    assert not _clarified(llm)
    [item] = await tutor.feedback.list_mine("telegram:1")
    refused = await tutor.commands.run("telegram:2", f"/admin promote {item.id[:8]}")
    assert refused.text.startswith("Sorry, /admin commands are only for")
    promoted = await tutor.commands.run("local", f"/admin promote {item.id[:8]}")
    assert promoted.text.startswith("Promoted: it now applies to every user.")
    recall, said = await say_recalled(tutor, "What word is similar to kind?", user="telegram:2")
    assert _clarified(llm) and "synonym of kind" in said
    assert recall is not None and recall.clarifications[0].feedback.user_id == "telegram:1"
    await tutor.commands.run("local", f"/admin demote {item.id[:8]}")
    await say_recalled(tutor, ASKED, user="telegram:2")
    assert not _clarified(llm)
    assert "telegram:1" in (await tutor.commands.run("local", "/admin feedback")).text


async def test_sharing_on_makes_new_corrections_apply_to_everyone(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    llm.responder = misreading_reader
    settings = make_settings(tmp_path, llm, feedback={"share_with_everyone": True})
    async with open_companion(settings) as companion:
        await say_recalled(companion, ASKED, user="ana")
        await say_recalled(companion, CORRECTION, user="ana")
        await say_recalled(companion, ASKED, user="ben")
        assert _clarified(llm)


async def test_a_newer_correction_of_the_same_message_supersedes_the_older(
    tutor: Companion, llm: ScriptedLLM
) -> None:
    await say_recalled(tutor, ASKED)
    await say_recalled(tutor, CORRECTION)
    await say_recalled(tutor, "Thanks!")
    await say_recalled(tutor, ASKED)
    await say_recalled(tutor, "/correct I want an antonym")
    await say_recalled(tutor, ASKED)
    [clarification] = _clarifications(llm)
    assert clarification.startswith('[1] clarification: "I want an antonym')
    listed = (await tutor.commands.run("ana", "/feedback")).text
    assert "I want an antonym" in listed and CORRECTION not in listed
    export = await tutor.commands.run("ana", "/export")
    assert export.attachment is not None
    exported = json.loads(export.attachment.content)["feedback"]
    assert [(f["feedback"], f["status"]) for f in exported] == [
        (CORRECTION, "superseded"), ("I want an antonym", "active")]


async def test_correcting_the_corrected_answer_is_about_the_first_message(
    tutor: Companion, llm: ScriptedLLM
) -> None:
    await say_recalled(tutor, ASKED)
    await say_recalled(tutor, "No, I meant an antonym")
    _, said = await say_recalled(tutor, CORRECTION)
    assert said.startswith(f'Noted: "{CORRECTION}" (about "{ASKED}")')
    assert [f.feedback for f in await tutor.feedback.list_mine("ana")] == [CORRECTION]


async def test_feedback_forget_removes_one_and_forget_all_removes_every_correction(
    tutor: Companion, llm: ScriptedLLM
) -> None:
    await say_recalled(tutor, ASKED)
    await say_recalled(tutor, CORRECTION)
    await say_recalled(tutor, "What is the opposite of cold?")
    await say_recalled(tutor, "No, I meant a word that sounds the same")
    first, second = await tutor.feedback.list_mine("ana")
    answer = await tutor.commands.run("ana", f"/feedback forget {first.id[:8]}")
    assert answer.text.startswith(f"Forgotten: [{first.id[:8]}]")
    await say_recalled(tutor, ASKED)
    assert not _clarified(llm)
    assert [f.id for f in await tutor.feedback.list_mine("ana")] == [second.id]
    wrong = await tutor.commands.run("ana", f"/feedback forget {first.id[:8]}")
    assert wrong.text.startswith("There is no feedback with the id")
    answer = await tutor.commands.run("ana", "/forget all yes")
    assert "1 correction," in answer.text
    await say_recalled(tutor, "What is the opposite of cold?")
    assert not _clarified(llm)
    assert (await tutor.commands.run("ana", "/feedback")).text.startswith("I have no corrections")


async def test_one_user_cannot_forget_another_users_correction(
    tutor: Companion, llm: ScriptedLLM
) -> None:
    await say_recalled(tutor, ASKED, user="ana")
    await say_recalled(tutor, CORRECTION, user="ana")
    [item] = await tutor.feedback.list_mine("ana")
    answer = await tutor.commands.run("ben", f"/feedback forget {item.id[:8]}")
    assert answer.text.startswith("There is no feedback with the id")
    assert len(await tutor.feedback.list_mine("ana")) == 1


async def test_group_chats_neither_catch_nor_use_corrections(
    tutor: Companion, llm: ScriptedLLM
) -> None:
    await say_recalled(tutor, ASKED)
    await say_recalled(tutor, CORRECTION)
    _, said = await say_recalled(tutor, "/correct I wanted a synonym", private=False)
    assert said == "For your privacy, /correct only works in a private chat with me."
    await say_recalled(tutor, ASKED, private=False)
    assert not _clarified(llm)
    _, said = await say_recalled(tutor, "No, I meant an antonym", private=False)
    assert not said.startswith("Noted")
    assert len(await tutor.feedback.list_mine("ana")) == 1


async def test_a_model_outage_while_answering_again_keeps_the_correction(
    tutor: Companion, llm: ScriptedLLM
) -> None:
    await say_recalled(tutor, ASKED)
    llm.enqueue("yes", Error(503), Error(503), Error(503))
    _, said = await say_recalled(tutor, "No, I wanted a synonym")
    assert said.startswith('Noted: "No, I wanted a synonym"')
    assert "Your message is saved; please try again." in said
    assert [f.feedback for f in await tutor.feedback.list_mine("ana")] == [
        "No, I wanted a synonym"]
    [*_, last] = await tutor.rounds.recent_rounds("ana", 5)
    assert last.user_text == "No, I wanted a synonym" and last.status.value == "failed"


async def test_the_tutor_persona_is_asked_to_state_its_understanding(
    tutor: Companion, llm: ScriptedLLM
) -> None:
    await say_recalled(tutor, "Hello")
    assert 'begin your reply with one short line' in llm.last_system_prompt


def _reader_naming_no_word(body: dict[str, Any]) -> str:
    """Misreads "is like" as asking for a homonym, in an answer that names no word; asked what
    a message is about, names its last word; agrees that "No, ..." is a correction."""
    asked = body["messages"][-1]["content"]
    if asked.startswith("Decide whether a chat message corrects"):
        return "yes"
    if asked.startswith("Which words of this message say what it is about"):
        return asked.split("Message: ")[1].split("\n")[0].rstrip(" ?").split()[-1]
    if "clarification:" in body["messages"][0]["content"]:
        return "Understanding: you want a synonym.\nHere it is."
    return "Understanding: you want a homonym.\nHere it is."


async def test_a_capable_model_says_what_the_corrected_message_was_about_when_its_answer_did_not(
    tmp_path: Path, llm: ScriptedLLM, sql_url: str
) -> None:
    llm.responder = _reader_naming_no_word
    settings = make_settings(tmp_path, llm, sql_url, chat={"persona": "tutor"})
    async with open_companion(settings) as tutor:
        await say_recalled(tutor, "What is like quick?")
        await say_recalled(tutor, "No, I meant a synonym")
        [stored] = await tutor.feedback.list_mine("ana")
        assert stored.frame == "what is like"
        asked = [r for r in llm.chat_requests
                 if r["messages"][-1]["content"].startswith("Which words of this message")]
        assert len(asked) == 1 and "Message: What is like quick?" in asked[0]["messages"][-1][
            "content"]
        recall, said = await say_recalled(tutor, "What is like calm?")  # at once, for another word
        assert recall is not None and [c.how for c in recall.clarifications] == [
            "same request"]
        assert said.startswith("Understanding: you want a synonym.")
        recall, _ = await say_recalled(tutor, "What sounds like calm?")
        assert recall is not None and recall.clarifications == ()


async def test_a_correction_the_index_missed_is_found_by_meaning_after_the_sweep(
    tutor: Companion, llm: ScriptedLLM
) -> None:
    """A lookup only reads: a correction whose vector was lost (the store was away when it was
    written) stays out of the index until the sweep puts it back, and is then found again by a
    message alike only in meaning."""
    await say_recalled(tutor, ASKED)
    await say_recalled(tutor, CORRECTION)
    [item] = await tutor.feedback.list_mine("ana")
    rows = tutor.feedback._rows  # the record, as a failed index write leaves it
    await tutor.feedback._index.delete("ana", [item.id])
    async with rows._engine.begin() as conn:
        await conn.execute(update(feedback).values(indexed=False))
    await say_recalled(tutor, ASKED)
    assert [c.id for c in await rows.unindexed()] == [item.id]  # the read repaired nothing
    report = await tutor.worker.sweep()
    assert report.reindexed >= 1 and await rows.unindexed() == []
    hits = await tutor.feedback._index.query("ana", (await tutor.embedder.embed([ASKED]))[0], 1)
    assert [hit.id for hit in hits] == [item.id]
