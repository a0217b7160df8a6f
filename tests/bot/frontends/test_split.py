"""Splitting long replies for Telegram (4,096) and Discord (2,000)."""

from __future__ import annotations

import random

import pytest

from bot.frontends.split import split_message

WORDS = ["memory", "table", "tennis", "a", "remembers", "Zhendong", "you", "swimming", "🏓", "é"]


def _prose(length: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    out: list[str] = []
    while sum(len(w) + 1 for w in out) < length:
        word = rng.choice(WORDS)
        out.append(word + ("\n\n" if rng.random() < 0.02 else ""))
    return " ".join(out)


@pytest.mark.parametrize("limit", [2000, 4096])
def test_ten_thousand_characters_of_prose_split_between_words(limit: int) -> None:
    text = _prose(10_000)
    pieces = split_message(text, limit)
    assert all(len(piece) <= limit for piece in pieces)
    assert len(pieces) <= len(text) // limit + 2  # pieces are nearly full
    words = text.split()
    assert " ".join(" ".join(piece.split()) for piece in pieces).split() == words


def test_a_short_message_is_one_piece() -> None:
    assert split_message("Hello there!", 2000) == ["Hello there!"]


def test_a_code_block_cut_in_two_is_closed_and_reopened_with_its_language() -> None:
    code = "\n".join(f"    print({i})  # line {i}" for i in range(200))
    text = f"Here is the code:\n\n```python\n{code}\n```\nThat is all."
    pieces = split_message(text, 2000)
    assert len(pieces) > 1
    for piece in pieces:
        assert len(piece) <= 2000
        assert piece.count("```") % 2 == 0  # every piece renders its code as code
    assert pieces[1].startswith("```python\n    print(")
    lines = [line for p in pieces for line in p.split("\n") if "print(" in line]
    assert lines == code.split("\n")  # every code line whole, indentation kept


def test_a_word_longer_than_the_limit_is_the_only_thing_cut() -> None:
    text = "see " + "x" * 5000 + " end"
    pieces = split_message(text, 2000)
    assert all(len(piece) <= 2000 for piece in pieces)
    assert "".join(pieces).replace(" ", "") == text.replace(" ", "")


def test_any_text_splits_within_the_limit_keeping_every_word_in_order() -> None:
    rng = random.Random(7)
    tokens = ["a", "hello", "```", "```python", "x" * 90, "\n", "\n\n", "  ", "`inline`",
              "```x = 1``` is how", "🏓", "```" + "p" * 30]
    for _ in range(2000):
        text = " ".join(rng.choice(tokens) for _ in range(rng.randint(1, 80)))
        limit = rng.randint(70, 160)
        pieces = split_message(text, limit)
        assert all(len(piece) <= limit for piece in pieces), (text, limit)
        # Only whole fence lines are ever added (to close and reopen a block around a cut).
        kept = [w for p in pieces for w in p.split() if w not in {"```", "```python"}]
        assert "".join(kept) == "".join(w for w in text.split() if w not in {"```", "```python"})


def test_inline_code_on_a_fence_line_is_not_a_code_block() -> None:
    text = "```x = 1``` is how\n" + "more words here " * 10
    pieces = split_message(text, 80)
    assert len(pieces) == 3 and not any(p.startswith("```x = 1```") for p in pieces[1:])
