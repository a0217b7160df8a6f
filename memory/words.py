"""Words in any script: what the lexical lookups split text into.

Python's `\\w` leaves out combining marks, so Hindi's vowel signs and Punjabi's would cut every
word apart ("किताब" became "क", "त", "ब"); a word here is letters with their marks, or digits.
"""

from __future__ import annotations

import regex

WORD = regex.compile(r"[\p{L}\p{M}\p{N}]+")
# An apostrophe inside a word keeps it whole ("don't", "what's").
WORD_WITH_APOSTROPHE = regex.compile(r"[\p{L}\p{M}\p{N}]+(?:['\u2019][\p{L}\p{M}\p{N}]+)?")


def words(text: str) -> list[str]:
    """The lower-case words of `text`, without punctuation."""
    return WORD.findall(text.lower())
