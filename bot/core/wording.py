"""Counts as people write them: "1 round", "2 rounds", "0 corrections"."""

from __future__ import annotations


def counted(count: int, singular: str, plural: str = "") -> str:
    """`count` and the noun that agrees with it; `plural` for nouns that do not just add "s"."""
    return f"{count} {singular if count == 1 else plural or singular + 's'}"
