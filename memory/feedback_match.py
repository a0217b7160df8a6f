"""When a stored correction applies to a new message: the wording side of MemPrompt's lookup Ω
and its gate C. Pure functions; the vector side lives in `memory.feedback`.

A correction is about *how* something was asked, not about *what* it was asked about: "What is
like < quick > ?" and "What is like < pretty > ?" share a misunderstanding, while "What is
unlike < quick > ?" and "What sounds like < quick > ?" do not, though they are closer in
spelling and in meaning. So each correction keeps a **frame**: the words of the misunderstood
message minus its subject, where the subject is the content words the companion's own answer
repeated ("the homonym for quick is ..." repeats "quick"). A later message shares the
misunderstanding when it holds the whole frame, in order, and little else.

A user can also state a **rule** ("When I say similar to, I mean a synonym"): the rule's phrase
then applies wherever it appears.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz.distance import Levenshtein
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
# "when I say X, I mean Y", "when I ask for X I want Y", "by X I mean Y", "X means Y"
_RULES = (
    re.compile(r"\bwhen i (?:say|ask for|ask about|ask|write|type|use)\s+(?P<phrase>.+?)\s*,?\s*"
               r"i(?: am|'m)? (?:mean|want|meant|wanted|asking for|asking about)\b", re.I),
    re.compile(r"\bby\s+(?P<phrase>.+?)\s*,?\s*i mean\b", re.I),
    re.compile(r"^\W*(?P<phrase>[\w' ]{2,40}?)\W*\s+means\b", re.I),
)
# Words that only soften or introduce a request; they say nothing about what is asked.
FILLERS = frozenset({"please", "pls", "hey", "hi", "hello", "thanks", "thank", "ok", "okay",
                     "oh", "um", "uh", "again", "also"})
_NOT_A_PHRASE = frozenset({"it", "that", "this", "no", "which", "what"})
MAX_RULE_WORDS = 5
# A later message may hold a few more words than the misunderstood one ("What is like < very
# quick > ?"); beyond that it is a different request that happens to share words.
EXTRA_WORDS = 2


def words(text: str) -> list[str]:
    """Lower-case words, without punctuation or brackets."""
    return _WORD.findall(text.lower())


def normalize_key(text: str) -> str:
    """The form two messages share when they are the same message."""
    return " ".join(words(text))


def rule_phrase(feedback: str, key: str) -> str:
    """The phrase of a rule stated in `feedback` that also appears in `key`, else ""."""
    key_text = f" {normalize_key(key)} "
    for pattern in _RULES:
        match = pattern.search(feedback)
        if match is None:
            continue
        phrase = normalize_key(match["phrase"])
        phrase_words = phrase.split()
        if (0 < len(phrase_words) <= MAX_RULE_WORDS and phrase not in _NOT_A_PHRASE
                and f" {phrase} " in key_text):
            return phrase
    return ""


def frame_of(key: str, answer: str) -> str:
    """The words of `key` that are neither its subject nor filler; "" when the answer names
    no subject."""
    answered = set(words(answer))
    key_words = _meaningful(key)
    subject = {w for w in key_words if w in answered and w not in ENGLISH_STOP_WORDS}
    if not subject:
        return ""
    return " ".join(w for w in key_words if w not in subject)


def _meaningful(text: str) -> list[str]:
    return [w for w in words(text) if w not in FILLERS]


@dataclass(frozen=True, slots=True)
class Pattern:
    """What of a correction a message is checked against, tokenized once."""

    key: str  # normalized
    key_words: tuple[str, ...]  # without fillers
    frame: tuple[str, ...]
    rule: str

    @classmethod
    def of(cls, key: str, frame: str, rule: str) -> Pattern:
        return cls(normalize_key(key), tuple(_meaningful(key)), tuple(frame.split()), rule)


@dataclass(frozen=True, slots=True)
class Message:
    """A new message, tokenized once for all the patterns it is checked against."""

    key: str
    words: tuple[str, ...]  # without fillers

    @classmethod
    def of(cls, text: str) -> Message:
        return cls(normalize_key(text), tuple(_meaningful(text)))


def same_message(pattern: Pattern, message: Message) -> bool:
    return message.key == pattern.key


def follows_rule(pattern: Pattern, message: Message) -> bool:
    return bool(pattern.rule) and f" {pattern.rule} " in f" {message.key} "


def fits_frame(pattern: Pattern, message: Message) -> bool:
    """The message holds the whole frame in order, with at most a few words besides."""
    if not pattern.frame:
        return False
    subject_size = len(pattern.key_words) - len(pattern.frame)
    if len(message.words) - len(pattern.frame) > subject_size + EXTRA_WORDS:
        return False
    return _in_order(pattern.frame, message.words)


def _in_order(needles: Sequence[str], haystack: Sequence[str]) -> bool:
    remaining = iter(haystack)
    return all(any(word == seen for seen in remaining) for word in needles)


def wording_similarity(pattern: Pattern, message: Message) -> float:
    """1 - word-level edit distance, normalized, without fillers: MemPrompt's lexical lookup
    (Appendix D)."""
    return Levenshtein.normalized_similarity(pattern.key_words, message.words)
