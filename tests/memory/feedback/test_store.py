"""The feedback memory: what a stored correction learns about the requests it applies to."""

from __future__ import annotations

from bot.app.stores import Stores
from memory.feedback.store import Correction


def _correction(key: str, understood: str, feedback: str = "No, I meant a synonym") -> Correction:
    """A correction of `key`, misread as `understood`, by an answer that names no word."""
    return Correction(user_id="ana", key=key, feedback=feedback, understanding=understood,
                      answer=f"Understanding: {understood}\nHere it is: …", persona="tutor",
                      shared=False)


async def test_a_frame_is_learned_from_two_requests_of_one_shape_misread_alike_only(
    stores: Stores,
) -> None:
    first = await stores.feedback.remember(_correction("What is like quick?",
                                                       "you want a homonym."))
    assert first.frame == ""  # the answer named no word, nor did the user: no frame yet
    # Same shape, same word, another request, misread another way: not one request about two
    # subjects, so no frame ("what like quick" would be wrong).
    other = await stores.feedback.remember(_correction(
        "What sounds like quick?", "you want a synonym.", "No, I meant a homonym"))
    assert other.frame == ""
    # The same request about another word, misread the same way: the frame is what they share.
    second = await stores.feedback.remember(_correction("What is like calm?",
                                                        "you want a homonym."))
    assert second.frame == "what is like"
    frames = {f.key: f.frame for f in await stores.feedback.list_mine("ana")}
    assert frames["What is like quick?"] == "what is like"
    assert frames["What sounds like quick?"] == ""


async def _lookup(stores: Stores, text: str, user_id: str = "ana") -> list[tuple[str, str]]:
    async def no_vector() -> None:
        return None
    return [(found.feedback.feedback, found.how)
            for found in await stores.feedback.lookup(user_id, text, no_vector())]


def _named(key: str, feedback: str, user_id: str = "ana") -> Correction:
    """A correction of a message that set off its subject: the frame is known."""
    return Correction(user_id=user_id, key=key, feedback=feedback, understanding=None,
                      answer="Understanding: you want a homonym of it. …", persona="tutor",
                      shared=False)


async def test_a_message_two_requests_read_differently_gets_no_clarification(
    stores: Stores,
) -> None:
    # Two shapes: "what is like" about a word, and "what is" about a phrase.
    await stores.feedback.remember(_named("What is like < quick > ?", "No, I meant a synonym"))
    await stores.feedback.remember(_named("What is < like fog > ?", "No, I meant a simile"))
    # Both fit as well: which one? neither.
    assert await _lookup(stores, "What is like < calm > ?") == []
    assert await _lookup(stores, "What is like < quick > ?") == [  # said of this very message
        ("No, I meant a synonym", "same message")]


async def test_the_newer_correction_of_one_requests_shape_is_the_one_that_applies(
    stores: Stores,
) -> None:
    await stores.feedback.remember(_named("What is like < quick > ?", "No, I meant a synonym"))
    await stores.feedback.remember(_named("What is like < calm > ?", "No, I meant an antonym"))
    assert await _lookup(stores, "What is like < fog > ?") == [
        ("No, I meant an antonym", "same request")]
    assert await _lookup(stores, "What is like < quick > ?") == [  # said of this very message
        ("No, I meant a synonym", "same message")]


async def test_a_rule_for_the_messages_shape_wins_over_one_found_by_its_frame(
    stores: Stores,
) -> None:
    await stores.feedback.remember(_named("What is like < quick > ?", "No, I meant a homonym"))
    await stores.feedback.remember(_named(
        "What is like < calm > ?", "When I ask for 'is like', I want a synonym"))
    assert await _lookup(stores, "What is like < fog > ?") == [
        ("When I ask for 'is like', I want a synonym", "your rule")]
    # Not of the corrected shape: the rule is not shown, and neither is anything else.
    assert await _lookup(stores, "What sounds like < fog > ?") == []


async def test_another_users_correction_never_applies(stores: Stores) -> None:
    await stores.feedback.remember(_named(
        "What is like < quick > ?", "When I ask for 'is like', I want a synonym", "bea"))
    assert await _lookup(stores, "What is like < quick > ?") == []
    assert await _lookup(stores, "What is like < fog > ?") == []
    assert await _lookup(stores, "What is like < fog > ?", "bea") == [
        ("When I ask for 'is like', I want a synonym", "your rule")]
