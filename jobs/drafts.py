"""What a summarizer produces, and the contract every summarizer keeps."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from memory.types import Round


@dataclass(frozen=True, slots=True)
class TopicDraft:
    """A topic found in a window of rounds: a short noun label and a description."""

    label: str
    description: str


@dataclass(frozen=True, slots=True)
class Voices:
    """Who is who in the prompts: the user ('host') and the companion's name."""

    user: str = "host"
    companion: str = "Mia"


class NothingUsable(RuntimeError):
    """The summarizer's output held nothing that could be stored; store nothing, retry later."""


class Summarizer(Protocol):
    """Condenses rounds into topics, and a label's descriptions into one.

    Never invents: every stored word comes from the rounds (or from the model, validated
    against them). Raises `NothingUsable` or `ModelUnavailable` when it cannot do the job.
    """

    async def summarize(self, rounds: Sequence[Round], voices: Voices) -> list[TopicDraft]: ...

    async def merge(self, label: str, descriptions: Sequence[str], voices: Voices) -> str: ...
