"""The words a message is searched by in the lexical index: names and rare words, which are what
embeddings match worst ("Taxi Driver", "Xiamen", "Miso")."""

from __future__ import annotations

import functools
import unicodedata
from typing import Any

import snowballstemmer

from memory.words import WORD, words

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
# A word found in more of the user's facts than this finds nothing in particular (for them it is
# a common word), and ranking that many rows would cost a turn tens of milliseconds.
MAX_MATCHES = 500
STEMS_KEPT = 50_000  # words whose stems one process keeps (a few MB)
TERM_LENGTH = 64  # the letters of a word MySQL's postings keep (a longer word is cut)
# The end of the Latin letters with their extensions: only their accents are dropped, since
# elsewhere a mark changes the word (Hindi's vowel signs).
_LATIN_END = "\u0250"


def query_terms(text: str) -> list[str]:
    """The message's search words, lowercased, in order, each once: no function words, no
    single letters. Words of any script count (a name in Cyrillic is a name too)."""
    terms: list[str] = []
    for word in words(text):
        if len(word) > 1 and word not in STOP_WORDS and word not in terms:
            terms.append(word)
    return terms[:MAX_TERMS]


def fts5_match(user_id: str, terms: list[str]) -> str:
    """SQLite FTS5: the user's facts that hold any of the words (the index stems them, "paints"
    finds "painting"). Each word and the user id are quoted, so none can act as an operator."""
    words = " OR ".join(_quoted(term) for term in terms)
    return f"user_id : {_quoted(user_id)} AND text : ({words})"


def searchable_user(user_id: str) -> bool:
    """Whether the FTS5 index can tell this user's rows (their id holds a letter or digit)."""
    return WORD.search(user_id) is not None


def plain(word: str) -> str:
    """A word as MySQL's postings hold it and are searched by: lower-case, without the accents
    of Latin letters ("José" is found by "jose", as SQLite's index does), cut to
    `TERM_LENGTH`."""
    kept: list[str] = []
    for char in unicodedata.normalize("NFD", word.lower()):
        if not (unicodedata.combining(char) and kept and kept[-1] < _LATIN_END):
            kept.append(char)
    return unicodedata.normalize("NFC", "".join(kept))[:TERM_LENGTH]


def indexed_words(text: str) -> list[str]:
    """What MySQL's postings hold of a fact: each of its words once, made `plain`."""
    return list(dict.fromkeys(plain(word) for word in words(text)))


def word_patterns(term: str) -> tuple[str, str]:
    """How MySQL's postings are searched for a query word: a LIKE pattern of its stem's prefix
    ("paintings" as `paint%`, since nothing else stems there) and the word itself, which its
    stem may not start ("happy", `happi%`). A stem under 3 letters is no prefix: it would find
    every word it starts. Words hold letters, marks and digits only, never `%` or `_`."""
    word = plain(term)
    stem = _stem(word)
    return (f"{stem}%" if len(stem) >= 3 else word), word


def _quoted(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


@functools.lru_cache(maxsize=STEMS_KEPT)
def _stem(word: str) -> str:
    """The word's English stem. Kept: the pure-Python stemmer costs about 0.1 ms a word, and
    people use the same words again (a turn searches its words twice)."""
    return str(_english_stemmer().stemWord(word))


@functools.cache
def _english_stemmer() -> Any:
    return snowballstemmer.stemmer("english")


def straight_quotes(text: str) -> str:
    """Phone keyboards type curly apostrophes (U+2019): text patterns use straight ones."""
    return text.replace("\u2019", "'").replace("\u2018", "'")
