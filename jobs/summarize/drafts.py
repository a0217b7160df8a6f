"""What a summarizer produces, and the contract every summarizer keeps."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from memory.errors import UnusableAnswer
from memory.types import Round, Speaker


@dataclass(frozen=True, slots=True)
class TopicDraft:
    """A topic found in a window of rounds: a short noun label and a description."""

    label: str
    description: str
    # The days its sentences were said (None: the window's first and last round).
    said_from: datetime | None = None
    said_until: datetime | None = None


@dataclass(frozen=True, slots=True)
class FactDraft:
    """A fact found in a window: one statement, who said it, the rounds it came from and when."""

    text: str
    speaker: Speaker
    round_ids: tuple[int, ...]
    said_at: datetime


@dataclass(frozen=True, slots=True)
class Voices:
    """Who is who in the prompts: the user ('host') and the companion's name."""

    user: str = "host"
    companion: str = "Mia"


@dataclass(frozen=True, slots=True)
class WindowDrafts:
    """What a window of rounds gives: its topics and its facts."""

    topics: list[TopicDraft]
    facts: list[FactDraft]


class NothingUsable(UnusableAnswer):
    """The summarizer's output held nothing that could be stored; store nothing, retry later."""


class Summarizer(Protocol):
    """Condenses rounds into topics and facts, and a label's descriptions into one.

    Never invents: every stored word comes from the rounds (or from the model, validated
    against them). Raises `NothingUsable` or `ModelUnavailable` when it cannot do the job.
    """

    async def summarize(self, rounds: Sequence[Round], voices: Voices) -> list[TopicDraft]: ...

    async def window(self, rounds: Sequence[Round], voices: Voices) -> WindowDrafts:
        """A window's topics and facts (one model call where the answer holds both)."""
        ...

    async def facts(self, rounds: Sequence[Round], voices: Voices) -> list[FactDraft]: ...

    async def merge(self, label: str, descriptions: Sequence[str], voices: Voices) -> str: ...

    async def merge_many(self, topics: Sequence[tuple[str, Sequence[str]]], voices: Voices
                         ) -> list[str | None]:
        """Several labels' descriptions (label, descriptions), each merged into one (one model
        call); None where that one could not be merged this way."""
        ...
