"""Characters that can make a message read other than it is, taken out of what the bots send.

A right-to-left override (U+202E) shows "invoice\u202efdp.exe" as "invoiceexe.pdf"; a zero-width
space hides inside a word. Such text is stored and exported as it came: only what Telegram and
Discord show is changed. Left alone: the marks that right-to-left scripts need (U+200E, U+200F,
U+061C) and the joiners of emoji sequences and of Persian or Hindi spelling (U+200C, U+200D).
"""

from __future__ import annotations

_DISGUISES = dict.fromkeys(
    [*range(0x202A, 0x202F),  # bidi embeddings and overrides
     *range(0x2066, 0x206A),  # bidi isolates
     0x200B, 0x2060, 0xFEFF],  # zero-width space, word joiner, zero-width no-break space
)


def undisguised(text: str) -> str:
    """`text` without bidi overrides, embeddings, isolates or invisible spaces."""
    return text.translate(_DISGUISES)
