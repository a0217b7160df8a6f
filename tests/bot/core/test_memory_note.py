"""The memory under a reply: a question about the person gets the memory that answers it shown
under the model's words (quoted, dated, with its /why number), whatever the model said; other
messages get none; the note is never taken for the model's words. A whole companion: the
scripted LLM server or the bundled demo model, SQL, chromadb and the packaged embedder."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.app import Companion, open_companion
from bot.core.memory_note import MemoryNotes
from bot.settings import load_settings
from memory.answers import Answers
from memory.beliefs.subjects import Subjects
from memory.days import day
from memory.embeddings.onnx_minilm import OnnxMiniLM
from memory.embeddings.packaged import minilm_tokenizer_file
from memory.embeddings.requantize import requantized_minilm_file
from memory.life_parts import LifeParts
from memory.places import Places
from memory.types import Fact, Found, Recall, Round, RoundStatus, Speaker
from tests.chatting import run, say
from tests.conftest import make_settings
from tests.fakes.openai_server import ScriptedLLM

SISTER = "My sister's name is Lea, she lives in Vienna."
TOMATOES = "I grow tomatoes on my balcony."
SMALL_TALK = ["ok", "haha nice", "what a day", "lol right"]
NOTE = re.compile(r"\(From my memory, #(\d+) in /why: on (.+?) you said \u201c(.+?)\u201d\)")


@pytest.fixture
async def showing(tmp_path: Path, llm: ScriptedLLM, sql_url: str
                  ) -> AsyncIterator[Companion]:
    settings = make_settings(tmp_path, llm, sql_url, chat={"show_memory": "on"})
    async with open_companion(settings) as opened:
        yield opened


async def _told(companion: Companion) -> None:
    for text in (SISTER, TOMATOES, *SMALL_TALK):
        await say(companion, text)


async def test_a_question_about_the_person_shows_the_memory_that_answers_it(
    showing: Companion, llm: ScriptedLLM
) -> None:
    await _told(showing)
    llm.enqueue("Her name is Luna!")
    said, finished = await say(showing, "What's my sister called again?")
    assert said.startswith("Her name is Luna!")  # the model's words, as it said them
    [(number, when, quoted)] = NOTE.findall(said)
    assert quoted == SISTER
    assert when == day(datetime.now(UTC))
    why = await run(showing, "/why")
    assert re.search(rf"\n  {number}\. .*Lea", why), why  # its number in /why
    # Not what the model relied on: "that's wrong" about the model's words asks which memory,
    # and never takes out the one the note showed.
    assert finished is not None and int(number) not in finished.cited
    wrong, _ = await say(showing, "No, that's wrong: her name is Lea")
    assert wrong.startswith("Which memory is wrong?")


async def test_a_city_said_in_passing_answers_where_the_person_is(
    showing: Companion, llm: ScriptedLLM
) -> None:
    # Said about the weather, it shares no word with the question and sits under the search by
    # meaning's floor; what it is about brings it to the prompt, and so to the note.
    passing = "Gothenburg is so windy today, my umbrella died"
    number, quoted, why = await _shown_after(
        showing, [passing, "practised drums for two hours"], "what city did i say i'm in")
    assert quoted == passing
    assert re.search(rf"\n  {number}\. .*Gothenburg", why), why


async def _shown_after(companion: Companion, told: list[str], question: str
                       ) -> tuple[str, str, str]:
    """Tell `told` and some small talk, ask `question`: the /why number of the memory shown,
    the words quoted, and /why."""
    for text in (*told, *SMALL_TALK):
        await say(companion, text)
    said, _ = await say(companion, question)
    [(number, _, quoted)] = NOTE.findall(said)
    return number, quoted, await run(companion, "/why")


async def test_the_note_quotes_the_short_message_its_statement_was_said_in(
    showing: Companion, llm: ScriptedLLM
) -> None:
    """The statement is one sentence of the message; the sentence that names the job is too
    short to be kept alone, and the person reads it all the same."""
    message = "long one today. fitted three boilers before lunch. plumber life"
    number, quoted, why = await _shown_after(
        showing, [message, "my cat Nimbus knocked my tea over"],
        "wait what do i do for work again?")
    assert quoted == message
    # /why cites the statement, a sentence of that message
    assert re.search(rf"\n  {number}\. .*(long one today|boilers|plumber)", why), why


async def test_other_messages_show_no_memory(showing: Companion, llm: ScriptedLLM) -> None:
    await _told(showing)
    for message in ("How often should tomatoes be watered in summer?",  # not about the person
                    "My sister phoned me today.",  # about the person, but no question
                    "What should I cook tonight?"):  # about the person, nothing answers it
        said, _ = await say(showing, message)
        assert "From my memory" not in said, message


async def test_the_note_is_never_the_models_words(showing: Companion, llm: ScriptedLLM
                                                  ) -> None:
    await _told(showing)
    said, _ = await say(showing, "Where does my sister live?")
    assert "From my memory" in said
    await say(showing, "thanks!")
    prompt = "\n".join(m["content"] for m in llm.chat_requests[-1]["messages"])
    assert "Happy to chat with you!" in prompt  # Recency holds the replies...
    assert "From my memory" not in prompt  # ...as the model said them
    export = await showing.commands.run("ana", "/export")
    assert export.attachment is not None
    rounds = json.loads(export.attachment.content)["rounds"]
    assert not [r for r in rounds if "From my memory" in (r["reply"] or "")]


async def test_a_model_of_your_own_shows_no_memory_unless_turned_on(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    async with open_companion(make_settings(tmp_path, llm)) as companion:  # the default
        await _told(companion)
        said, _ = await say(companion, "What's my sister called again?")
    assert "From my memory" not in said


@pytest.mark.real_model
async def test_with_the_demo_model_a_first_session_shows_the_memory(tmp_path: Path) -> None:
    settings = load_settings(None, data_dir=str(tmp_path / "data"))  # the defaults, offline
    async with open_companion(settings) as companion:
        await _told(companion)
        said, finished = await say(companion, "What did I say I grow on my balcony?")
    assert finished is not None
    assert re.search(r"From my memory, #\d+ in /why: .*tomatoes", said), said


async def test_two_sentences_of_one_message_do_not_replace_each_other(
    showing: Companion, llm: ScriptedLLM
) -> None:
    # Both are about the same part of life; the second is not news that outdates the first.
    book = "My all-time favourite book is Anne of Green Gables. I reread it every winter."
    for text in (book, *SMALL_TALK):
        await say(showing, text)
    said, _ = await say(showing, "What's the book I always go back to?")
    [(_, _, quoted)] = NOTE.findall(said)
    assert "Anne of Green Gables" in quoted


async def test_what_frames_a_question_is_not_shown_as_a_memory(
    showing: Companion, llm: ScriptedLLM
) -> None:
    for text in ("my dog Biscuit ate a whole sock today", *SMALL_TALK,
                 "whos coming round to mine later? i forgot her name lmao"):
        await say(showing, text)
    said, _ = await say(showing, "and whats my dogs name again")
    [(_, _, quoted)] = NOTE.findall(said)
    assert "Biscuit" in quoted


@pytest.fixture(scope="module")
def notes() -> MemoryNotes:
    embedder = OnnxMiniLM(requantized_minilm_file(), minilm_tokenizer_file())
    return MemoryNotes(Answers(embedder, Subjects(embedder), Places(), LifeParts.packaged()))


def _fact(number: int, text: str, subject: str | None = None) -> Fact:
    return Fact(f"f{number}", "ana", text, Speaker.USER, datetime(2026, 3, number, tzinfo=UTC),
                (number,), subject=subject)


def _recall(*facts: Fact, earlier: tuple[Fact, ...] = ()) -> Recall:
    return Recall(recent=(), latest=(), relevant=tuple(
        Found(fact, 0.0, earlier=fact in earlier) for fact in facts))


MOVED = _fact(1, "I live in Paris, near the canal.", "home")
BERLIN = _fact(2, "We moved to Berlin last month.", "home")
SMALL_TALK_READ_AS_HOME = _fact(3, "Okay, that's enough procrastinating for now.", "home")
FIXIE = _fact(4, "rode my yellow fixie through the snow today, zero regrets")
STUDY = _fact(5, "I'm studying marine biology at uni, second year.", "study")
SISTER_FACT = _fact(6, SISTER)
CHAT = [_fact(7, "Miserable weather today, rain sideways."),
        _fact(8, "Had a pint and a chat with the lads, great afternoon."),
        _fact(9, "ugh, work was long today")]


async def test_a_newer_statement_is_shown_over_the_one_it_replaced(notes: MemoryNotes) -> None:
    shown = await notes.to_show(_recall(MOVED, BERLIN, earlier=(MOVED,)), "Where do I live?")
    assert shown is not None and (shown.number, shown.fact) == (2, BERLIN)


async def test_the_statement_that_answers_is_shown_when_its_replacement_answers_nothing(
    notes: MemoryNotes
) -> None:
    """The newest statement on a subject is brought into the prompt whatever it says; small
    talk whose subject was misread is not the answer."""
    recall = _recall(SMALL_TALK_READ_AS_HOME, MOVED, earlier=(MOVED,))
    shown = await notes.to_show(recall, "Where do I live?")
    assert shown is not None and (shown.number, shown.fact) == (2, MOVED)


async def test_a_statement_said_in_other_words_answers_over_small_talk(notes: MemoryNotes
                                                                       ) -> None:
    """No word in common and a low cosine ("bike" and "fixie"), but the same part of life."""
    shown = await notes.to_show(_recall(*CHAT, FIXIE, SISTER_FACT), "what kind of bike do i ride?")
    assert shown is not None and shown.fact == FIXIE


@pytest.mark.parametrize("question", [
    "How do I convert kilometres to miles quickly in my head?",  # a how-to
    "What should I study to become a vet?",  # advice
    "Why do we see the northern lights mostly in winter?",  # the world
    "Who wrote One Hundred Years of Solitude?",  # not about the speaker
])
async def test_advice_and_questions_about_the_world_show_no_memory(
    notes: MemoryNotes, question: str
) -> None:
    assert await notes.to_show(_recall(*CHAT, STUDY, FIXIE, SISTER_FACT), question) is None


JOB_BY_THE_WORK = _fact(13, "Spent all morning on a scaffold repointing a chimney, hands wrecked")
TIRED = _fact(14, "Long week, I'm done in.")


async def test_a_job_said_by_the_work_answers_what_the_person_does_for_a_living(
    notes: MemoryNotes
) -> None:
    """Nothing names the job; what the statement is about does (`memory.life_parts`). (Small
    talk that names work, "ugh, work was long today", still wins: a known miss.)"""
    recall = _recall(*CHAT[:2], TIRED, FIXIE, JOB_BY_THE_WORK, SISTER_FACT)
    shown = await notes.to_show(recall, "what did I tell you I do for a living?")
    assert shown is not None and shown.fact == JOB_BY_THE_WORK


async def test_a_message_that_asks_something_is_not_quoted_whole(notes: MemoryNotes) -> None:
    """What the person asked beside the statement is no part of what they told."""
    message = "Is Vienna nice in May? My sister lives there with her two kids."
    said = Round(30, "ana", "c", "companion", message, "It is!", RoundStatus.ANSWERED,
                 datetime(2026, 3, 30, tzinfo=UTC))
    statement = Fact("f30", "ana", "My sister lives there with her two kids.", Speaker.USER,
                     said.created_at, (30,))
    recall = Recall(recent=(said,), relevant=(Found(statement, 0.0), *(
        Found(fact, 0.0) for fact in CHAT)), latest=())
    shown = await notes.to_show(recall, "remind me, where does my sister live?")
    assert shown is not None and shown.said == statement.text


PLACE_IN_PASSING = _fact(10, "Tampines so hot today, walk to MRT already sweating like mad")
TIRE_SHOP = _fact(11, "i work at a tire shop so at least i get the tires cheap lol")


@pytest.mark.parametrize("question", ["where i stay hor, you remember?",
                                      "do u remember what city im in"])
async def test_a_place_said_in_passing_answers_where_the_person_lives(
    notes: MemoryNotes, question: str
) -> None:
    recall = _recall(*CHAT, _fact(12, "today very sian, nothing to do"),
                     PLACE_IN_PASSING)
    shown = await notes.to_show(recall, question)
    assert shown is not None and shown.fact == PLACE_IN_PASSING


async def test_where_the_person_works_is_not_a_place_question(notes: MemoryNotes) -> None:
    shown = await notes.to_show(_recall(PLACE_IN_PASSING, TIRE_SHOP), "where do i work?")
    assert shown is not None and shown.fact == TIRE_SHOP


async def test_a_question_nothing_answers_shows_no_memory(notes: MemoryNotes) -> None:
    assert await notes.to_show(_recall(*CHAT), "What's my sister called?") is None
