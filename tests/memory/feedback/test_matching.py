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
    shared_frame,
    wording_similarity,
)


def _pattern(key: str, answer: str, feedback: str = "") -> Pattern:
    earlier = ["Here it is: the synonym for fog is …"]
    return Pattern.of(key, frame_of(key, answer, earlier), rule_phrase(feedback, key))


def test_the_frame_is_the_message_without_its_subject() -> None:
    # The answer repeats it (and the earlier replies do not)...
    earlier = ["Understanding: a synonym of fog. The synonym for fog is …"]
    assert frame_of("what is like provident", "the homonym for provident", earlier) == (
        "what is like")
    assert frame_of("Hey, what is like quick, please?", "Understanding: a homonym of quick",
                    earlier) == "what is like"
    # ...or the user set it off, whatever the answer says...
    assert frame_of("What is like < provident > ?", "I don't know.") == "what is like"
    assert frame_of("what does 'serene' mean?", "Here it is.") == "what does mean"
    # ...and a word the earlier replies hold is the reply's wording, not the subject; before
    # any reply, the commonest English words stand in for it.
    assert frame_of("what is like quick", "The homonym for quick is …",
                    ["The synonym for fog is …"]) == "what is like"
    assert frame_of("what is like quick", "Here it is.", ["Here it is."]) == ""
    assert frame_of("what is like quick", "Here it is.") == ""
    assert frame_of("< अच्छा > का पर्यायवाची क्या है", "अच्छा का पर्यायवाची है …",
                    ["बादल का विलोम है …"]) == "का पर्यायवाची क्या है"
    # A subject asked about before is in one earlier reply, the wording in most.
    replies = ["The synonym for fog is mist", "The antonym for quick is slow",
               "The homonym for bank is bank"]
    assert frame_of("what is like quick", "The homonym for quick is …", replies) == (
        "what is like")


def test_a_frame_does_not_end_at_a_common_word() -> None:
    """No stop list decides: "whether" is the subject when the answer names it."""
    assert frame_of("what is like whether", "The homonym for whether is …",
                    ["The synonym for fog is …"]) == "what is like"
    assert frame_of("whether < rain > sounds like something", "rain: reign") == (
        "whether sounds like something")


@pytest.mark.parametrize(("message", "fits"), [
    ("What is like < quick > ?", True),
    ("What is like < very quick > ?", True),
    ("what is like very quick", False),  # "very" could be a word of the request
    ("Hey, what is like bright, please?", True),
    ("What is unlike < quick > ?", False),
    ("What sounds like < quick > ?", False),
    ("What is it that you like most about the summer holidays?", False),
])
def test_a_message_fits_the_frame_when_it_holds_it_in_order_and_little_else(
    message: str, fits: bool
) -> None:
    pattern = _pattern("What is like < provident > ?", "the homonym for provident is")
    assert pattern.frame == ("what", "is", "like")
    assert fits_frame(pattern, Message.of(message)) is fits


def test_a_rule_names_a_phrase_of_the_corrected_message() -> None:
    key = "What word is similar to good?"
    assert rule_phrase("When I say similar to, I mean a synonym", key) == "similar to"
    assert rule_phrase("when I ask for 'similar to' I want a synonym", key) == "similar to"
    assert rule_phrase("By similar I mean same meaning", key) == "similar"
    assert rule_phrase("similar to means with a similar meaning", key) == "similar to"
    assert rule_phrase("When I say alike, I mean a synonym", key) == ""  # not in the message
    assert rule_phrase("No, I meant a synonym", key) == ""


@pytest.mark.parametrize(("message", "applies"), [
    ("What is like < pretty > ?", True),
    ("One more: what is like bright?", True),
    ("What is like < very bright > ?", True),
    ("What sounds like < pretty > ?", False),  # another task that holds "like"
    ("What is the opposite of < pretty > ?", False),
    ("What is like pretty in a sentence, and what does it rhyme with?", False),
    ("Do you like < pretty > ?", False),
])
@pytest.mark.parametrize("answer", ["The homonym for quick is …", "Here it is: …"])
def test_a_rule_applies_only_to_requests_of_the_corrected_shape(
    message: str, applies: bool, answer: str
) -> None:
    """Whether or not the answer named the word (with a frame, or without one)."""
    pattern = _pattern("What is like quick?", answer, "when I ask for like, I want a synonym")
    assert pattern.rule == "like"
    assert follows_rule(pattern, Message.of(message)) is applies


@pytest.mark.parametrize(("key", "feedback", "message", "applies"), [
    # Hindi: "what is like X" / "what sounds like X" / "what is the opposite of X"
    ("< अच्छा > जैसा क्या है ?", "जब मैं 'जैसा क्या है' कहूँ, तो मेरा मतलब पर्यायवाची है।",
     "< बादल > जैसा क्या है ?", True),
    ("< अच्छा > जैसा क्या है ?", "जब मैं 'जैसा' कहूँ, तो मेरा मतलब पर्यायवाची है।",
     "< बादल > जैसा क्या सुनाई देता है ?", False),
    ("< किनारा > क्या है ?", "जब मैं 'क्या है' पूछूँ, तो मुझे परिभाषा चाहिए।",
     "< बादल > का विलोम क्या है ?", False),
    ("< किनारा > क्या है ?", "जब मैं 'क्या है' पूछूँ, तो मुझे परिभाषा चाहिए।",
     "< कल > जैसा क्या है ?", False),
    ("< किनारा > क्या है ?", "जब मैं 'क्या है' पूछूँ, तो मुझे परिभाषा चाहिए।",
     "एक और: < कल > क्या है ?", True),
    # Punjabi: the same
    ("< ਚੰਗਾ > ਵਰਗਾ ਕੀ ਹੈ ?", "ਜਦੋਂ ਮੈਂ 'ਵਰਗਾ ਕੀ ਹੈ' ਕਹਾਂ, ਮੇਰਾ ਮਤਲਬ ਸਮਾਨਾਰਥੀ ਹੁੰਦਾ ਹੈ।",
     "< ਬੱਦਲ > ਵਰਗਾ ਕੀ ਹੈ ?", True),
    ("< ਚੰਗਾ > ਵਰਗਾ ਕੀ ਹੈ ?", "ਜਦੋਂ ਮੈਂ 'ਵਰਗਾ' ਕਹਾਂ, ਮੇਰਾ ਮਤਲਬ ਸਮਾਨਾਰਥੀ ਹੁੰਦਾ ਹੈ।",
     "< ਬੱਦਲ > ਵਰਗਾ ਕੀ ਸੁਣਦਾ ਹੈ ?", False),
    ("ਚੰਗਾ ਕੀ ਹੈ ?", "ਜਦੋਂ ਮੈਂ 'ਕੀ ਹੈ' ਪੁੱਛਾਂ, ਮੈਨੂੰ ਪਰਿਭਾਸ਼ਾ ਚਾਹੀਦੀ ਹੈ।",
     "ਬੱਦਲ ਦਾ ਉਲਟ ਕੀ ਹੈ ?", False),
    ("ਚੰਗਾ ਕੀ ਹੈ ?", "ਜਦੋਂ ਮੈਂ 'ਕੀ ਹੈ' ਪੁੱਛਾਂ, ਮੈਨੂੰ ਪਰਿਭਾਸ਼ਾ ਚਾਹੀਦੀ ਹੈ।", "ਬੱਦਲ ਕੀ ਹੈ ?", True),
])
def test_a_rule_in_hindi_or_punjabi_about_common_words_stays_with_its_request(
    key: str, feedback: str, message: str, applies: bool
) -> None:
    pattern = _pattern(key, "", feedback)
    assert pattern.rule
    assert follows_rule(pattern, Message.of(message)) is applies


def test_wording_similarity_counts_words_not_letters_and_ignores_fillers() -> None:
    pattern = Pattern.of("What is like < provident > ?", "what is like", "")
    assert wording_similarity(pattern, Message.of("Hey, what is like quick, please?")) == 0.75
    assert wording_similarity(pattern, Message.of("What is like provident?")) == 1.0


@pytest.mark.parametrize(("message", "fits"), [
    ("< चुप > का ऑपोजिट बताइए", True),  # tell me the opposite of < quiet >, said politely
    ("चुप का ऑपोजिट बताओ ना", True),
    ("< चुप > का ऑपोजिट मत बताओ", False),  # do not tell me...: a word more inside
])
def test_another_form_of_a_word_of_the_request_is_the_same_request(
    message: str, fits: bool
) -> None:
    pattern = _pattern("< तेज़ > का ऑपोजिट बताओ", "")
    assert fits_frame(pattern, Message.of(message)) is fits


def test_words_that_only_begin_or_end_alike_are_not_forms_of_one_word() -> None:
    pattern = _pattern("What does < quick > sound like?", "")
    assert fits_frame(pattern, Message.of("What does < calm > sounds like?"))
    assert not fits_frame(pattern, Message.of("What does < calm > south like?"))
    assert not fits_frame(_pattern("What is like < quick > ?", ""),
                          Message.of("What is unlike < calm > ?"))


@pytest.mark.parametrize(("message", "fits"), [
    ("< ਰਾਤ > ਦਾ ਸਮਾਨਾਰਥੀ ਸਬਦ ਦਸੋ", True),  # word and tell typed without their marks
    ("< ਰਾਤ > ਦਾ ਸਮਾਨਾਰਥੀ ਸਬਦ ਦੱਸੋ", True),
    ("< ਰਾਤ > ਦਾ ਵਿਰੋਧੀ ਸ਼ਬਦ ਦੱਸੋ", False),  # antonym: another word, not another spelling
])
def test_a_word_of_the_request_typed_another_way_is_the_same_request(
    message: str, fits: bool
) -> None:
    pattern = _pattern("< ਦਿਨ > ਦਾ ਸਮਾਨਾਰਥੀ ਸ਼ਬਦ ਦੱਸੋ", "")  # tell me a synonym of day
    assert fits_frame(pattern, Message.of(message)) is fits
    # Hindi: "in" and "I" are a mark apart, and two words.
    within = _pattern("< दिन > वाक्य में लिखो", "")  # write day in a sentence
    assert fits_frame(within, Message.of("< रात > वाक्य में लिखो"))
    assert not fits_frame(within, Message.of("< रात > वाक्य मैं लिखो"))


def test_short_words_a_letter_apart_are_two_words() -> None:
    assert not fits_frame(_pattern("What is like < quick > ?", ""),
                          Message.of("What it like < calm > ?"))


def test_a_clause_said_before_the_request_is_no_part_of_it() -> None:
    # "once more:" in Punjabi, three words, said with the corrected message only
    pattern = _pattern("ਇੱਕ ਵਾਰ ਫੇਰ: < ਰਾਤ > ਨਾਲ ਮਿਲਦਾ-ਜੁਲਦਾ ਸ਼ਬਦ", "")
    assert fits_frame(pattern, Message.of("< ਤਾਰ > ਨਾਲ ਮਿਲਦਾ-ਜੁਲਦਾ ਸ਼ਬਦ"))
    assert fits_frame(_pattern("< ਰਾਤ > ਨਾਲ ਮਿਲਦਾ-ਜੁਲਦਾ ਸ਼ਬਦ", ""),
                      Message.of("ਇੱਕ ਵਾਰ ਫੇਰ: < ਤਾਰ > ਨਾਲ ਮਿਲਦਾ-ਜੁਲਦਾ ਸ਼ਬਦ"))
    # What follows a comma is no request when it is only "please": nothing comes off.
    sounds = _pattern("What sounds like < seeder >, please?", "")
    assert not fits_frame(sounds, Message.of("What is like < melancholy >, please?"))


def test_two_requests_that_share_only_a_preamble_and_a_word_are_not_one_shape() -> None:
    # "once more: X like-seeming word" and "once more: Y matching word" (Punjabi)
    assert shared_frame("ਇੱਕ ਵਾਰ ਫੇਰ: ਮਹਿਕ ਵਰਗਾ ਲੱਗਦਾ ਸ਼ਬਦ", "ਇੱਕ ਵਾਰ ਫੇਰ: ਹਾਰ ਨਾਲ ਰਲਦਾ ਸ਼ਬਦ") == ""
    assert shared_frame("ਇੱਕ ਵਾਰ ਫੇਰ: ਮਹਿਕ ਵਰਗਾ ਲੱਗਦਾ ਸ਼ਬਦ", "ਇੱਕ ਵਾਰ ਫੇਰ: ਹਾਰ ਵਰਗਾ ਲੱਗਦਾ ਸ਼ਬਦ") == (
        "ਵਰਗਾ ਲੱਗਦਾ ਸ਼ਬਦ")
    # Said with one of them only, the preamble is left out too, and the frame fits the other.
    frame = shared_frame("ਗਰਮ ਵਰਗਾ ਸ਼ਬਦ ਕਿਹੜਾ ਹੈ?", "ਇੱਕ ਵਾਰ ਫੇਰ: ਹਵਾ ਵਰਗਾ ਸ਼ਬਦ ਕਿਹੜਾ ਹੈ?")
    assert frame == "ਵਰਗਾ ਸ਼ਬਦ ਕਿਹੜਾ ਹੈ"  # what word is like
    with_preamble = Pattern.of("ਇੱਕ ਵਾਰ ਫੇਰ: ਹਵਾ ਵਰਗਾ ਸ਼ਬਦ ਕਿਹੜਾ ਹੈ?", frame, "")
    assert fits_frame(with_preamble, Message.of("ਚੰਨ ਵਰਗਾ ਸ਼ਬਦ ਕਿਹੜਾ ਹੈ?"))
    assert not fits_frame(with_preamble, Message.of("ਚੰਨ ਵਰਗਾ ਲੱਗਦਾ ਸ਼ਬਦ"))
