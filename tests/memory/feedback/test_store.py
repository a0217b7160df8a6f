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
    first = await stores.feedback.remember(_correction("What is like < quick > ?",
                                                       "you want a homonym."))
    assert first.frame == ""  # the answer named no word: no frame yet
    # Same shape, same word, another request, misread another way: not one request about two
    # subjects, so no frame ("what like quick" would be wrong).
    other = await stores.feedback.remember(_correction(
        "What sounds like < quick > ?", "you want a synonym.", "No, I meant a homonym"))
    assert other.frame == ""
    # The same request about another word, misread the same way: the frame is what they share.
    second = await stores.feedback.remember(_correction("What is like < calm > ?",
                                                        "you want a homonym."))
    assert second.frame == "what is like"
    frames = {f.key: f.frame for f in await stores.feedback.list_mine("ana")}
    assert frames["What is like < quick > ?"] == "what is like"
    assert frames["What sounds like < quick > ?"] == ""
