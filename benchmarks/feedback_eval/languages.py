"""The requests, corrections and answers of the feedback study, per language, read from
benchmarks/data: the development set (feedback_lexical.jsonl) or an independent one
(feedback_lexical_independent.jsonl, ...2.jsonl, ...3.jsonl); their headers say who wrote them
and how."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from benchmarks.support import read_set


@dataclass(frozen=True)
class Phrasing:
    template: str  # "{w}" is the word asked about
    task: str  # what the user means
    phrase: str  # the words that say which task (what a rule names)
    misread: str | None = None  # what the model takes an ambiguous phrasing for


@dataclass(frozen=True)
class Language:
    name: str
    phrasings: tuple[Phrasing, ...]
    words: tuple[str, ...]
    nouns: dict[str, tuple[str, ...]]  # per task: how a user or the model names it
    feedback: tuple[str, ...]  # "{noun}" and "{phrase}" are filled in
    variations: tuple[Callable[[str], str], ...]  # how people vary a phrasing they used before
    # The model's answer, naming the word ("{w}") or not: "{noun}" is the task it understood.
    answer_naming_the_word: str
    answer_without_the_word: str


SETS = {"development": "feedback_lexical", "independent": "feedback_lexical_independent",
        "independent2": "feedback_lexical_independent2",
        "independent3": "feedback_lexical_independent3"}


def _article(noun: str, language: str) -> str:
    """"{a_noun}": the noun with its article in English; Hindi and Punjabi have none."""
    if language != "English":
        return noun
    return ("an " if noun[0] in "aeiou" else "a ") + noun


def fill(template: str, *, language: str, noun: str, word: str = "", phrase: str = "") -> str:
    """A feedback or answer template with its blanks filled in."""
    return template.format(noun=noun, a_noun=_article(noun, language), w=word, phrase=phrase)


def variation(spec: dict[str, Any]) -> Callable[[str], str]:
    """How a person retypes a request: as typed, after a prefix, with words replaced, or in
    lower case."""
    match spec["change"]:
        case "none":
            return lambda q: q
        case "prefix":
            return lambda q: spec["text"] + q
        case "lower":
            return str.lower
        case "replace":
            return lambda q: _replace_all(q, spec["pairs"])
    raise ValueError(f"unknown variation {spec!r}")


def _replace_all(text: str, pairs: list[list[str]]) -> str:
    for old, new in pairs:
        text = text.replace(old, new)
    return text


def _language(name: str, records: list[dict[str, Any]]) -> Language:
    part = {key: value for r in records if "phrasing" not in r for key, value in r.items()}
    return Language(
        name=name,
        phrasings=tuple(Phrasing(r["phrasing"], r["task"], r["phrase"], r["misread"])
                        for r in records if "phrasing" in r),
        words=tuple(part["words"]),
        nouns={task: tuple(nouns) for task, nouns in part["nouns"].items()},
        feedback=tuple(part["feedback"]),
        variations=tuple(variation(spec) for spec in part["variations"]),
        answer_naming_the_word=part["answer_naming_the_word"],
        answer_without_the_word=part["answer_without_the_word"],
    )


@cache
def languages(set_name: str = "development") -> tuple[Language, ...]:
    """The languages of a set (a key of SETS), in the order written."""
    by_name: dict[str, list[dict[str, Any]]] = {}
    for record in read_set(SETS[set_name]).records:
        by_name.setdefault(record["language"], []).append(record)
    return tuple(_language(name, records) for name, records in by_name.items())


def english(set_name: str = "development") -> Language:
    return next(language for language in languages(set_name) if language.name == "English")
