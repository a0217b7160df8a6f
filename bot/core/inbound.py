"""What arrives from a frontend, and the checks every message passes before it is stored."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from bot.errors import InputRejected

_KEEP_CONTROLS = {"\n", "\t"}


@dataclass(frozen=True, slots=True)
class Incoming:
    """One message from a person. Memory belongs to `user_id`; replies go to `conversation_id`."""

    user_id: str
    text: str
    conversation_id: str = ""
    # False in a group chat or server channel: others read the reply, so it may draw only on
    # what was said in that chat, never on the user's private memories.
    private: bool = True

    @property
    def conversation(self) -> str:
        return self.conversation_id or self.user_id


def clean_message(text: str, max_chars: int) -> str:
    """The text to store: control characters (but newline and tab) removed, limits enforced.

    Raises `InputRejected` with a message for the user when nothing can be stored.
    """
    cleaned = "".join(ch for ch in text if ch in _KEEP_CONTROLS or not _is_control(ch))
    if not cleaned.strip():
        raise InputRejected("Your message was empty. Type something to chat, or /help.")
    if len(cleaned) > max_chars:
        raise InputRejected(
            f"Your message is {len(cleaned):,} characters long; the limit is {max_chars:,}. "
            "Please shorten it or send it in parts."
        )
    return cleaned


def _is_control(ch: str) -> bool:
    # Cc: C0/C1 controls (NUL, ESC, DEL, CR...); Cs: lone surrogates that cannot be stored.
    return unicodedata.category(ch) in {"Cc", "Cs"}
