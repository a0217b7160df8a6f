"""The words a message is searched by in the lexical index: names and rare words, which are what
embeddings match worst ("Taxi Driver", "Xiamen", "Miso")."""

from __future__ import annotations

import functools
import re
from typing import Any

import snowballstemmer

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# Words that say nothing about what a message is about. A short list of English function words,
# kept here rather than taken from a stop-word package: the packaged lists also drop words
# people talk about ("name", "home", "work", "novel").
STOP_WORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before
being below between both but by can could did do does doing down during each else ever few
for from further had has have having he her here hers herself him himself his how i if in into
is it its itself just let me more most my myself no nor not now of off on once only or other
our ours ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were
what when where which while who whom whose why will with would you your yours yourself
yourselves yes yeah ok okay oh hi hey hello thanks thank please really much many lot lots
didn don doesn isn wasn aren weren haven hasn hadn won wouldn couldn shouldn ll ve re s t d
m tell told say said know think thought remember like get got go went going gone one ones
thing things something anything way well still even
""".split())
MAX_TERMS = 12


def query_terms(text: str) -> list[str]:
    """The message's search words, lowercased, in order, each once: no function words, no
    single letters. Words of any script count (a name in Cyrillic is a name too)."""
    terms: list[str] = []
    for word in (w.lower() for w in _WORD.findall(text)):
        if len(word) > 1 and word not in STOP_WORDS and word not in terms:
            terms.append(word)
    return terms[:MAX_TERMS]


def fts5_query(terms: list[str]) -> str:
    """SQLite FTS5: any of the words (the index stems them, "paints" finds "painting"). Each is
    quoted, so no word can be read as an operator."""
    return " OR ".join(f'"{term}"' for term in terms)


def boolean_query(terms: list[str]) -> str:
    """MySQL's boolean mode: any of the words or of their stems as prefixes ("painting" and
    `paint*`), since InnoDB does not stem. Its index skips words under 3 letters."""
    stems = _english_stemmer().stemWords(terms)
    words: list[str] = []
    for term, stem in zip(terms, stems, strict=True):
        for word in (term, f"{stem}*"):
            if len(word.rstrip("*")) >= 3 and word not in words:
                words.append(word)
    return " ".join(words)


@functools.cache
def _english_stemmer() -> Any:
    return snowballstemmer.stemmer("english")
