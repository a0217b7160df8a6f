"""The cheap correction detector and the parts of a reply it reads."""

from __future__ import annotations

import pytest

from bot.core.corrections import Signal, detect, understanding_of
from bot.core.fixes import correction_command


@pytest.mark.parametrize(("text", "signal"), [
    ("No, I meant a synonym", Signal.CERTAIN),
    ("That's not what I asked", Signal.CERTAIN),
    ("that is not what I meant at all", Signal.CERTAIN),
    ("When I say similar to, I mean a synonym", Signal.CERTAIN),
    ("You misunderstood me", Signal.CERTAIN),
    ("I meant the other bank, the river one", Signal.CERTAIN),
    ("No, the other one", Signal.POSSIBLE),
    ("Wrong.", Signal.POSSIBLE),
    ("No thanks, I'm fine", Signal.POSSIBLE),
    ("I meant to tell you: I got the job!", Signal.NONE),
    ("By the way, I mean it: thank you", Signal.NONE),
    ("By similar I mean the same meaning", Signal.CERTAIN),
    ("I love the sea", Signal.NONE),
    ("Nobody came to the party", Signal.NONE),
    # Hindi, Punjabi and a few more: the same kinds of sentences
    ("नहीं, मेरा मतलब पर्यायवाची था।", Signal.CERTAIN),
    ("यह नहीं पूछा था। मुझे विलोम शब्द चाहिए था।", Signal.CERTAIN),
    ("आपने मुझे गलत समझा", Signal.CERTAIN),
    ("जब मैं 'जैसा क्या है' कहूँ, तो मेरा मतलब पर्यायवाची होता है।", Signal.CERTAIN),
    ("नहीं, धन्यवाद", Signal.POSSIBLE),
    ("मेरा मतलब है कि आज मौसम अच्छा है", Signal.NONE),
    ("मुझे चाय पसंद है", Signal.NONE),
    ("ਨਹੀਂ, ਮੇਰਾ ਮਤਲਬ ਸਮਾਨਾਰਥੀ ਸੀ।", Signal.CERTAIN),
    ("ਇਹ ਨਹੀਂ ਪੁੱਛਿਆ ਸੀ। ਮੈਨੂੰ ਵਿਰੋਧੀ ਸ਼ਬਦ ਚਾਹੀਦਾ ਸੀ।", Signal.CERTAIN),
    ("ਜਦੋਂ ਮੈਂ 'ਵਰਗਾ' ਕਹਾਂ, ਮੇਰਾ ਮਤਲਬ ਸਮਾਨਾਰਥੀ ਹੁੰਦਾ ਹੈ।", Signal.CERTAIN),
    ("ਮੈਨੂੰ ਪੰਜਾਬੀ ਗੀਤ ਪਸੰਦ ਹਨ", Signal.NONE),
    ("No, quise decir un sinónimo", Signal.CERTAIN),
    ("Non, je voulais dire un synonyme", Signal.CERTAIN),
    ("Nein, ich meinte ein Synonym", Signal.CERTAIN),
    ("Нет, я имел в виду синоним", Signal.CERTAIN),
    ("Nein danke", Signal.POSSIBLE),
])
def test_the_detector_sorts_messages(text: str, signal: Signal) -> None:
    assert detect(text) is signal


def test_correct_commands_are_recognised_with_or_without_feedback() -> None:
    assert correction_command("/correct I wanted a synonym") == "I wanted a synonym"
    assert correction_command("/correct@CompanionBot  two\nlines") == "two\nlines"
    assert correction_command("/correct") == ""
    assert correction_command("/corrections") is None
    assert correction_command("please /correct this") is None


def test_the_stated_understanding_is_read_from_the_reply() -> None:
    reply = "Understanding: you want a synonym of good.\nGreat!"
    assert understanding_of(reply) == "you want a synonym of good."
    assert understanding_of("Great!") is None


def test_the_understanding_is_read_when_the_model_translated_its_label() -> None:
    assert understanding_of("समझ: आप पर्यायवाची चाहते हैं।\nयह रहा: …") == "आप पर्यायवाची चाहते हैं।"
    assert understanding_of("ਸਮਝ: ਤੁਸੀਂ ਸਮਾਨਾਰਥੀ ਚਾਹੁੰਦੇ ਹੋ।") == "ਤੁਸੀਂ ਸਮਾਨਾਰਥੀ ਚਾਹੁੰਦੇ ਹੋ।"
    assert understanding_of("Note: you want a synonym") is None

