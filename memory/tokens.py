"""Counting prompt tokens, so memories can fill a budget without passing it."""

from __future__ import annotations

import functools
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
        self._tokenizer = wordpiece_tokenizer(tokenizer_file)

    def count(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)


@functools.cache
def wordpiece_tokenizer(tokenizer_file: Path) -> Tokenizer:
    """The tokenizer in `tokenizer_file` without padding or truncation (the file pads and
    truncates for the embedder), loaded once per process: a copy holds about 10 MB, and the
    embedder, the token counter and the readability check share one."""
    tokenizer = Tokenizer.from_file(str(tokenizer_file))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer
