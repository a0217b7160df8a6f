"""The bundled demo model in-process on llama.cpp: streaming off the event loop, stopping early,
short replies that stop before the next speaker's line; and, through a whole companion, /why
after a reply of the demo model lists only what its short prompt held."""

from __future__ import annotations

import asyncio
import re
from contextlib import aclosing
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.app import build_chat_model, open_companion
from bot.commands.replies import LEFT_OUT
from bot.core.demo_prompt import build_demo_messages
from bot.errors import ModelUnavailable
from bot.llm.local_llama import (
    DEMO_MAX_TOKENS,
    LocalLlama,
    label_pattern,
    turn_labels,
    whole_sentences,
    without_opening_label,
)
from bot.settings import LLMSettings
from memory.embeddings.packaged import smollm2_model_file
from memory.protocols import CUT_SHORT
from memory.types import Fact, Origin, Recall, Round, RoundStatus, Speaker
from personas.loader import load_personas
from tests.chatting import run, say
from tests.conftest import make_settings
from tests.fakes.openai_server import ScriptedLLM

pytestmark = pytest.mark.real_model
MESSAGES = [{"role": "user", "content": "Tell me a long story about a cat."}]
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _model(path: Path | None = None) -> LocalLlama:
    return LocalLlama(path or smollm2_model_file(), context_tokens=2048, threads=2,
                      temperature=0.7, max_tokens=60)


async def test_streams_pieces_while_the_event_loop_stays_free() -> None:
    model = _model()
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    beat = asyncio.create_task(ticker())
    pieces = [piece async for piece in model.stream(MESSAGES)]  # type: ignore[arg-type]
    beat.cancel()
    await model.aclose()
    assert len(pieces) > 3 and "".join(pieces).strip()
    assert ticks > 5  # the loop kept running while llama.cpp worked in its thread


async def test_stopping_early_frees_the_model_for_the_next_reply() -> None:
    model = _model()
    async with aclosing(model.stream(MESSAGES)) as stream:  # type: ignore[arg-type]
        first = await anext(stream)
    assert first
    again = [piece async for piece in model.stream(MESSAGES)]  # type: ignore[arg-type]
    await model.aclose()
    assert again


async def test_a_file_that_is_not_a_model_is_reported(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"not a gguf file at all")
    with pytest.raises(ModelUnavailable, match="could not be loaded"):
        async for _ in _model(broken).stream(MESSAGES):  # type: ignore[arg-type]
            pass


async def test_a_reply_cut_by_the_token_limit_ends_visibly() -> None:
    model = LocalLlama(smollm2_model_file(), context_tokens=2048, threads=2, temperature=0.7,
                       max_tokens=8)
    pieces = [piece async for piece in model.stream(MESSAGES)]  # type: ignore[arg-type]
    await model.aclose()
    assert pieces[-1] == CUT_SHORT and len(pieces) > 2  # a long story never fits in 8 tokens


def _demo_model() -> LocalLlama:
    """The demo model exactly as the product builds it (default settings)."""
    model = build_chat_model(LLMSettings(), speakers=["Mia", "host"])
    assert isinstance(model, LocalLlama)
    return model


def _said(number: int, message: str, reply: str) -> Round:
    return Round(number, "u", "u", "companion", message, reply, RoundStatus.ANSWERED, NOW)


# Replies that wrote the next turns themselves (as the untamed demo model did): a 135M model
# imitates them and goes on writing "Host:" and "Mia:" lines.
TRANSCRIPT = (
    _said(1, "Hi, I'm Ana.",
          "Hi Ana!\nHost: I love swimming.\nMia: Swimming is great!\nHost: Yes, every morning."),
    _said(2, "I swim every morning.",
          "Wonderful.\nHost: And you?\nMia: I like reading.\nHost: Cool."),
)
SPEAKER_LINE = re.compile(r"^\W*(host|user|you|assistant|mia|ana|a|q|system)\W*:",
                          re.IGNORECASE | re.MULTILINE)


async def test_the_demo_model_stops_before_the_next_speakers_line() -> None:
    model = _demo_model()
    persona = load_personas()["companion"]
    recall = Recall(recent=TRANSCRIPT, relevant=(), latest=())
    replies = []
    for message in ("Go on.", "And then?", "What did I say next?", "Continue our chat.",
                    "Tell me more."):
        messages = build_demo_messages(persona, recall, message)
        replies.append("".join([piece async for piece in model.stream(messages)]))
    await model.aclose()
    assert all(reply.strip() for reply in replies)
    assert not [reply for reply in replies if SPEAKER_LINE.search(reply)]


async def test_a_long_demo_reply_ends_with_a_whole_sentence() -> None:
    model = _demo_model()
    reply = "".join([piece async for piece in model.stream(MESSAGES)])  # type: ignore[arg-type]
    await model.aclose()
    assert reply.rstrip().endswith((".", "!", "?", '"', "\u201d", "\u2019", ")"))
    assert not reply.endswith(CUT_SHORT)  # a long story runs past the limit: cut, in whole
    assert len(reply.split()) <= DEMO_MAX_TOKENS


def test_a_demo_reply_that_opens_like_a_transcript_line_loses_the_label() -> None:
    label = label_pattern(turn_labels(["Mia"]))
    assert "".join(without_opening_label(["A: Hi, I'm Mia.", " How are you?"], label)) == (
        "Hi, I'm Mia. How are you?")
    assert "".join(without_opening_label(["System: Be kind."], label)) == "Be kind."
    assert "".join(without_opening_label(["mia: Hello!"], label)) == "Hello!"
    # Only a label that opens the reply, and only once: words with a colon stay.
    assert "".join(without_opening_label(["Note: A: yes."], label)) == "Note: A: yes."
    assert "".join(without_opening_label(["Hi.", " A: no."], label)) == "Hi. A: no."


def test_a_reply_cut_by_the_token_limit_keeps_its_whole_sentences() -> None:
    pieces = [("Hi Ana. How", False), (" are you? I lo", False), ("ve swim", True)]
    assert list(whole_sentences(pieces)) == ["Hi Ana.", " How are you?"]
    assert "".join(whole_sentences([("Hi Ana. How are you?", True)])) == "Hi Ana. How are you?"
    assert "".join(whole_sentences([("I went swimm", True)])) == "I went swimm" + CUT_SHORT
    assert "".join(whole_sentences([("Done. Really", False)])) == "Done. Really"  # not cut


async def test_why_lists_only_what_the_demo_models_short_prompt_held(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    """The short prompt holds no Latest_topics and asks nothing about two beliefs that
    disagree: /why does not claim them, and the question waits for a model that can ask it."""
    same_memories = {"vector": {"collection": f"demo{tmp_path.name[-8:]}"}}
    async with open_companion(
            make_settings(tmp_path, llm, llm={"provider": "local"}, **same_memories)) as demo:
        await demo.add_topic("ana", "swimming", "The host swims every morning.")
        await demo.facts.add_facts([
            Fact(f"{city}{n}", "ana", f"I live in {city}.", Speaker.USER,
                 NOW.replace(day=1 + 2 * n), (1,), Origin.SAID)
            for n, city in enumerate(("Paris", "Lyon"))])
        await demo.worker.check_beliefs("ana")
        reply, _ = await say(demo, "How was your day?")
        why = await run(demo, "/why")
    assert reply.strip()
    assert f"Latest topics:\n  {LEFT_OUT}" in why and "swimming" not in why
    assert "To check with you" not in why and "Paris" not in why

    async with open_companion(make_settings(tmp_path, llm, **same_memories)) as real:
        llm.enqueue("Which one is it now?")
        await say(real, "How was your day?")
        why = await run(real, "/why")
    assert "Something to check" in llm.last_system_prompt  # kept for this model to ask
    assert "swimming" in why and "To check with you" in why and LEFT_OUT not in why
