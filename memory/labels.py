"""Topic label keys: labels that differ only in case, punctuation or plural share a key."""

from __future__ import annotations

from memory.words import words


def label_key(label: str) -> str:
    """`Hobbies!` and `hobby` give `hobby`; `Movies` and `movie` give `movy` (a key, not a word)."""
    return " ".join(_singular(word) for word in words(label))


def _singular(word: str) -> str:
    if len(word) <= 3:
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith("ie"):
        return word[:-2] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word
