"""Counting prompt tokens, so memories can fill a budget without passing it."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from tokenizers import Tokenizer


class TokenCounter(Protocol):
    """How many tokens a text costs in a prompt (an estimate: each chat model has its own
    tokenizer). The same text always counts the same."""

    def count(self, text: str) -> int: ...


class WordPieceCounter:
    """Counts with the packaged MiniLM WordPiece tokenizer: offline, in microseconds, and close
    to what chat models' tokenizers count for English (a word is one token or a few)."""

    def __init__(self, tokenizer_file: Path) -> None:
        self._tokenizer = Tokenizer.from_file(str(tokenizer_file))
        # The file pads and truncates for the embedder; a count needs neither.
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()

    def count(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)
