"""How replies word what they count."""

from __future__ import annotations

from bot.core.wording import counted


def test_counts_agree_with_their_nouns() -> None:
    assert [counted(n, "round") for n in (0, 1, 2)] == ["0 rounds", "1 round", "2 rounds"]
    assert counted(1, "entry", "entries") == "1 entry"
    assert counted(3, "entry", "entries") == "3 entries"
