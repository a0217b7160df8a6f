"""Citation marks taken out of a streamed reply: what the user reads and what is kept."""

from __future__ import annotations

from bot.core.citations import CitationFilter


def _streamed(pieces: list[str], memories: int) -> tuple[str, list[int]]:
    marks = CitationFilter(memories)
    shown = "".join(marks.feed(piece) for piece in pieces) + marks.flush()
    return shown, marks.cited


def test_marks_are_taken_out_and_only_memories_of_the_prompt_are_kept() -> None:
    shown, cited = _streamed(["Your sister is Lea [2]. You live in Berlin [1, 9][3]."], 3)
    assert shown == "Your sister is Lea. You live in Berlin."
    assert cited == [2, 1, 3]  # 9 names no memory of this prompt


def test_a_mark_split_across_pieces_is_still_a_mark() -> None:
    shown, cited = _streamed(["She is ", "Lea ", "[", "1", "]", ". Say ", "hi [2", ",3]!"], 3)
    assert shown == "She is Lea. Say hi!"
    assert cited == [1, 2, 3]


def test_what_only_looks_like_a_mark_is_left_alone() -> None:
    text = "Use array[0], see [the docs](x), born on [1 January 2026], or [1"
    assert _streamed(list(text), 3) == (text, [])


def test_without_numbered_memories_nothing_is_touched() -> None:
    assert _streamed(["Step [1]: breathe."], 0) == ("Step [1]: breathe.", [])


def test_spaces_and_newlines_pass_through() -> None:
    pieces = [" " * 16] * 50 + ["\n"] * 50 + ["done [1]"]
    shown, cited = _streamed(pieces, 1)
    assert shown == " " * 800 + "\n" * 50 + "done" and cited == [1]
