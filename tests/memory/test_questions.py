"""Which messages ask the companion about the person who wrote them: questions however they are
written (no question mark, the question word last), never statements that hold a "who" or a
"when", nor advice where "I" is anyone."""

from __future__ import annotations

import pytest

from memory.questions import asks_about_the_speaker, is_question


@pytest.mark.parametrize("message", [
    "What's my sister called again?",
    "whens my birthday again",  # no question mark, a question word run together
    "my fav food what",  # the question word last
    "wait which football team did i say i support",  # a word before it
    "do u remember where im based",
    "remind me what I do for work",
    "Where am I based, do you remember?",
])
def test_questions_about_the_speaker(message: str) -> None:
    assert asks_about_the_speaker(message)


@pytest.mark.parametrize("message", [
    "I have a parrot named Pancho who says hola to everyone.",  # "who" relative
    "I was born in Dundee, came out to Australia when I was ten",  # "when" relative
    "Nothing beats my mum's jollof rice, I don't care what Ghanaians say",
    "I remember my first car so well",  # remembering, not asking
    "How do I get candle wax out of a carpet?",  # advice: "I" is anyone
    "What should I cook tonight with rice?",
    "Who wrote One Hundred Years of Solitude?",  # not about the speaker
    "How long do you boil an egg? I never get it right.",  # the speaker is in another sentence
    "Please tell me, why is the ocean salty?",  # "tell me" asks the companion
    "how to stop procrastinating, I keep wasting time on reels",  # how-tos
    "how I can remove a stain of coffee from my shirt",
    "",
])
def test_statements_advice_and_the_world(message: str) -> None:
    assert not asks_about_the_speaker(message)


@pytest.mark.parametrize("sentence", [
    "whats the difference between a frog and a toad",  # no question mark: still no fact
    "why do cats purr",
    "ok quiz time what breed's our dog",
    "which team did i say i support",
])
def test_questions_without_a_question_mark(sentence: str) -> None:
    assert is_question(sentence)


@pytest.mark.parametrize("sentence", [
    "when I was ten I lived in Rome",  # a question word that opens a clause
    "my brother who lives in Leeds is a chef",
    "What I love most is my garden",
    "what a day",
])
def test_statements_with_a_question_word(sentence: str) -> None:
    assert not is_question(sentence)
