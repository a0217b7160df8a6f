"""The timelines of the consistency study, read from benchmarks/data: the development set
(consistency_development.jsonl) and the held-out set (consistency_heldout.jsonl). Their headers
say who wrote the templates they were generated from, how, and where they are weak."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from benchmarks.support import read_set


@dataclass(frozen=True)
class Statement:
    text: str  # one sentence the speaker says, everyday chat phrasing
    day: int  # days since the timeline's start (non-decreasing along the timeline)
    speaker: str  # "user" or "companion"
    subject: str  # single-valued subject the sentence sets, "" for a compatible or filler one
    value: str  # normalized value for that subject, "" when subject is ""
    replaces: int | None  # index of the latest earlier statement (same speaker and subject)
    #                       when its value differs, else None


@dataclass(frozen=True)
class Question:
    text: str  # what the user asks later about a subject that changed
    subject: str
    newest: tuple[str, ...]  # words, any one of which in a memory's text shows the newest value
    old: tuple[str, ...]  # words, any one of which shows a superseded value


@dataclass(frozen=True)
class Timeline:
    user: str  # "user-000" ...
    statements: tuple[Statement, ...]
    questions: tuple[Question, ...]


def timelines(name: str) -> list[Timeline]:
    """The timelines of a set: "consistency_development", "consistency_heldout" or
    "consistency_independent"."""
    return [_timeline(record) for record in read_set(name).records]


def _timeline(record: dict[str, Any]) -> Timeline:
    return Timeline(
        user=record["user"],
        statements=tuple(Statement(**s) for s in record["statements"]),
        questions=tuple(Question(q["text"], q["subject"], tuple(q["newest"]), tuple(q["old"]))
                        for q in record["questions"]),
    )
