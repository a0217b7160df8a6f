"""Long replies in pieces a platform accepts, never cutting a word or a code block."""

from __future__ import annotations

import re

FENCE = "```"
# A line that opens or closes a code block: the fence alone, or with a language name.
_FENCE_LINE = re.compile(r"^\s*```([\w+#.-]{0,20})\s*$")
MIN_ROOM = 16  # characters of text a piece always has room for, whatever the fences take


def split_message(text: str, limit: int) -> list[str]:
    """Pieces of at most `limit` characters. Cuts fall at a paragraph, a line or a space (a
    word longer than a whole piece is the only thing ever cut). A code block cut in two is
    closed at the end of one piece and reopened, with its language, at the start of the next."""
    if limit < 2 * MIN_ROOM + 2 * len(FENCE) + 30:
        raise ValueError("limit is too small to split a message sensibly")
    pieces: list[str] = []
    fence = ""  # the fence line (```python) open where the rest of the text starts
    rest = text
    while rest:
        prefix = f"{fence}\n" if fence else ""
        if len(prefix) + len(rest) <= limit:
            pieces.append(prefix + rest)
            break
        budget = max(limit - len(prefix) - len(FENCE) - 1, MIN_ROOM)  # room to close a block
        cut, skip = _cut_point(rest, budget)
        piece, rest = rest[:cut], rest[cut + skip:]
        fence = _open_fence_after(piece, fence)
        pieces.append(prefix + piece + (f"\n{FENCE}" if fence else ""))
    return [piece for piece in pieces if piece.strip()]


def _cut_point(text: str, budget: int) -> tuple[int, int]:
    """Where to cut within `budget` characters, and how many separator characters to drop."""
    window = text[: budget + 1]  # a separator right at the budget still counts
    for separator in ("\n\n", "\n", " "):
        at = window.rfind(separator, 0, budget + 1)
        if at > budget // 4:  # not so early that the piece is mostly empty
            return at, len(separator)
    return budget, 0


def _open_fence_after(piece: str, fence: str) -> str:
    """The code fence ("```python") still open at the end of `piece`, given the one open at its
    start. Only a line that is a fence alone counts: "```x = 1``` is how" is inline code."""
    for line in piece.split("\n"):
        match = _FENCE_LINE.match(line)
        if match:
            fence = "" if fence else FENCE + match.group(1)
    return fence
