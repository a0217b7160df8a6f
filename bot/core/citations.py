"""Citation marks in a reply: "[2]" at the end of a sentence says it relies on memory 2 of the
prompt (TeachMe's answers that show the beliefs they used). The marks are taken out of what the
user reads while the reply streams, and kept apart; a mark naming no memory of that prompt is
dropped, never kept as a reason. A prompt without numbered memories asked for no marks: then the
reply passes untouched.
"""

from __future__ import annotations

import re

# "[2]", "[1, 3]", "[1][3]" with the one space or tab before it, but not "array[0]" (a word
# right before the bracket) and not "[1 January 2026]".
_MARK = re.compile(r"(?:[ \t]|(?<!\w))\[(\d{1,3}(?:[ \t]*,[ \t]*\d{1,3})*)\]")
# The start of a mark that a later piece may close: "[", "[1", "[1,", "[1, 2".
_OPEN_MARK = re.compile(r"[ \t]?\[[\d, \t]{0,16}$")
MAX_HELD = 20  # characters held back at most: a mark is never longer


class CitationFilter:
    """Feed it the pieces of a streamed reply: it returns the text to show, without marks.
    The end of a piece that may begin a mark (at most `MAX_HELD` characters) is held back until
    the next piece tells; `flush` returns what is left at the end."""

    def __init__(self, memories: int) -> None:
        """`memories`: how many numbered memories the prompt held."""
        self._memories = memories
        self._held = ""
        self._shown = ""  # the last character shown: what comes before the next mark
        self._cited: list[int] = []

    @property
    def cited(self) -> list[int]:
        """The numbers of the memories cited, in the order first cited."""
        return list(self._cited)

    def feed(self, piece: str) -> str:
        if self._memories == 0:
            return piece
        text = self._held + piece
        self._held = ""
        tail = text[-MAX_HELD:]
        open_mark = _OPEN_MARK.search(tail)
        if open_mark is not None:
            cut = len(text) - len(tail) + open_mark.start()
        elif text[-1:] in (" ", "\t"):  # a mark may follow, and takes this space with it
            cut = len(text) - 1
        else:
            cut = len(text)
        self._held = text[cut:]
        return self._unmarked(text[:cut])

    def flush(self) -> str:
        held, self._held = self._held, ""
        return self._unmarked(held)

    def _unmarked(self, text: str) -> str:
        """`text` without its marks, judged with the character shown before it in sight."""
        seen = self._shown + text
        kept, start = [], len(self._shown)
        for mark in _MARK.finditer(seen, start):
            kept.append(seen[start:mark.start()])
            self._take(mark[1])
            start = mark.end()
        kept.append(seen[start:])
        shown = "".join(kept)
        self._shown = shown[-1:] or self._shown
        return shown

    def _take(self, numbers: str) -> None:
        for number in (int(n) for n in numbers.split(",")):
            if 1 <= number <= self._memories and number not in self._cited:
                self._cited.append(number)
