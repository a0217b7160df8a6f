"""Long replies in pieces a platform accepts, never cutting a word or a code block."""

from __future__ import annotations

FENCE = "```"


def split_message(text: str, limit: int) -> list[str]:
    """Pieces of at most `limit` characters. Cuts fall at a paragraph, a line or a space (a
    word longer than a whole piece is the only thing ever cut). A code block cut in two is
    closed at the end of one piece and reopened, with its language, at the start of the next."""
    if limit < 20:
        raise ValueError("limit is too small to split a message sensibly")
    pieces: list[str] = []
    fence = ""  # the fence line (```python) open where the rest of the text starts
    rest = text
    while rest:
        prefix = f"{fence}\n" if fence else ""
        if len(prefix) + len(rest) <= limit:
            pieces.append(prefix + rest)
            break
        budget = limit - len(prefix) - len(FENCE) - 1  # room to close a code block
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
    """The code fence still open at the end of `piece`, given the one open at its start."""
    for line in piece.split("\n"):
        stripped = line.strip()
        if stripped.startswith(FENCE):
            fence = "" if fence else stripped
    return fence
