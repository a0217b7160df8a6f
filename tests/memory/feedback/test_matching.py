"""When a correction applies: frames, rules and wording (pure functions)."""

from __future__ import annotations

import pytest

from memory.feedback.matching import (
    Message,
    Pattern,
    fits_frame,
    follows_rule,
    frame_of,
    rule_phrase,
    wording_similarity,
)


def _pattern(key: str, answer: str, feedback: str = "") -> Pattern:
    return Pattern.of(key, frame_of(key, answer), rule_phrase(feedback, key))


def test_the_frame_is_the_message_without_the_subject_the_answer_repeated() -> None:
    assert frame_of("What is like < provident > ?", "the homonym for provident is") == (
        "what is like")
    assert frame_of("Hey, what is like quick, please?", "Understanding: a homonym of quick") == (
        "what is like")
    assert frame_of("What is like < provident > ?", "I don't know.") == ""


@pytest.mark.parametrize(("message", "fits"), [
    ("What is like < quick > ?", True),
    ("what is like very quick", True),
    ("Hey, what is like bright, please?", True),
    ("What is unlike < quick > ?", False),
    ("What sounds like < quick > ?", False),
    ("What is it that you like most about the summer holidays?", False),
])
def test_a_message_fits_the_frame_when_it_holds_it_in_order_and_little_else(
    message: str, fits: bool
) -> None:
    pattern = _pattern("What is like < provident > ?", "the homonym for provident is")
    assert fits_frame(pattern, Message.of(message)) is fits


def test_a_rule_names_a_phrase_of_the_corrected_message() -> None:
    key = "What word is similar to good?"
    assert rule_phrase("When I say similar to, I mean a synonym", key) == "similar to"
    assert rule_phrase("when I ask for 'similar to' I want a synonym", key) == "similar to"
    assert rule_phrase("By similar I mean same meaning", key) == "similar"
    assert rule_phrase("similar to means with a similar meaning", key) == "similar to"
    assert rule_phrase("When I say alike, I mean a synonym", key) == ""  # not in the message
    assert rule_phrase("No, I meant a synonym", key) == ""
    pattern = _pattern(key, "", "When I say similar to, I mean a synonym")
    assert follows_rule(pattern, Message.of("Anything similar to happy?"))
    assert not follows_rule(pattern, Message.of("Anything dissimilar to happy?"))


def test_wording_similarity_counts_words_not_letters_and_ignores_fillers() -> None:
    pattern = Pattern.of("What is like < provident > ?", "what is like", "")
    assert wording_similarity(pattern, Message.of("Hey, what is like quick, please?")) == 0.75
    assert wording_similarity(pattern, Message.of("What is like provident?")) == 1.0
