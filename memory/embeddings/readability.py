"""How much of a text a WordPiece embedder actually reads.

The packaged MiniLM knows English word pieces. Text in Devanagari or Gurmukhi becomes unknown
tokens, and Cyrillic or Arabic single letters, so unrelated messages in those scripts get
nearly the same vector (cosine near 1): a cosine between them says nothing. A word counts as
read when the tokenizer knows it whole, or as pieces of two letters or more on average.
"""

from __future__ import annotations

from pathlib import Path

from memory.tokens import wordpiece_tokenizer
from memory.words import WORD

UNKNOWN = "[UNK]"
MIN_LETTERS_PER_PIECE = 2.0


class WordPieceReadability:
    """The share of a text's letters that are in words the tokenizer reads (0.0 for a text
    without letters: an emoji says nothing to the model either)."""

    def __init__(self, tokenizer_file: Path) -> None:
        self._tokenizer = wordpiece_tokenizer(tokenizer_file)

    def share(self, text: str) -> float:
        encoding = self._tokenizer.encode(text, add_special_tokens=False)
        pieces: dict[int, list[tuple[str, int, int]]] = {}
        for word_id, token, (start, end) in zip(
            encoding.word_ids, encoding.tokens, encoding.offsets, strict=True
        ):
            if word_id is not None:
                pieces.setdefault(word_id, []).append((token, start, end))
        read = total = 0
        for word in pieces.values():
            letters = _letters(text[word[0][1]:word[-1][2]])
            if not letters:
                continue  # punctuation
            total += letters
            if all(token != UNKNOWN for token, _, _ in word) and (
                len(word) == 1 or letters / len(word) >= MIN_LETTERS_PER_PIECE
            ):
                read += letters
        return read / total if total else 0.0


def _letters(text: str) -> int:
    return sum(len(word) for word in WORD.findall(text))
