"""Citation marks in a reply: "[2]" at the end of a sentence says it relies on memory 2 of the
prompt (TeachMe's answers that show the beliefs they used). The marks are taken out of what the
user reads while the reply streams, and kept apart; a mark naming no memory of that prompt is
dropped, never kept as a reason.
"""

from __future__ import annotations

import re

# "[2]", "[1, 3]", "[1][3]", with the space before them.
_MARK = re.compile(r"\s*\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]")
# The start of a mark that a later piece may close: "[", "[1", "[1,", "[1, 2".
_OPEN_MARK = re.compile(r"\s*\[(?:\d{1,3}(?:\s*,\s*\d{0,3})*)?\s*$")
_TRAILING_SPACE = re.compile(r"\s+$")


class CitationFilter:
    """Feed it the pieces of a streamed reply: it returns the text to show, without marks.
    Text that may begin a mark (and the spaces before it) is held back until the next piece
    tells; `flush` returns what is left at the end."""

    def __init__(self, memories: int) -> None:
        """`memories`: how many numbered memories the prompt held."""
        self._memories = memories
        self._held = ""
        self._cited: list[int] = []

    @property
    def cited(self) -> list[int]:
        """The numbers of the memories cited, in the order first cited."""
        return list(self._cited)

    def feed(self, piece: str) -> str:
        text = _MARK.sub(self._take, self._held + piece)
        open_mark = _OPEN_MARK.search(text) or _TRAILING_SPACE.search(text)
        cut = open_mark.start() if open_mark else len(text)
        self._held = text[cut:]
        return text[:cut]

    def flush(self) -> str:
        held, self._held = self._held, ""
        return held

    def _take(self, mark: re.Match[str]) -> str:
        for number in (int(n) for n in mark[1].split(",")):
            if 1 <= number <= self._memories and number not in self._cited:
                self._cited.append(number)
        return ""


def strip_citations(reply: str, memories: int) -> tuple[str, list[int]]:
    """A whole reply without its marks, and the memories it cited."""
    marks = CitationFilter(memories)
    return marks.feed(reply) + marks.flush(), marks.cited
