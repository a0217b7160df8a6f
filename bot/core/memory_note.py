"""A memory shown under a reply: when a message asks the companion about the person and one
thing they said answers it with confidence, the person reads that memory (quoted, dated, with
its `/why` number) under the reply, whatever the model made of it.

The bundled demo model is too small to use what it is given (it answers "My cat's name is Luna!"
with "Miso" in its prompt): the note lets a first session show the memory working. It is never
the model's words: it is set apart and says where it comes from. On with the demo model, off
for other models unless `chat.show_memory` says so.

Whether a message asks about the person is `memory.questions`' to say; which memory answers it,
`memory.answers`': one of the person's own statements in the prompt, by meaning and by what it
is about (Relevance brings the one that answers best, `Relevance.find`). Tuned and measured with
`python -m benchmarks.demo_probe`.
"""

from __future__ import annotations

from dataclasses import dataclass

from memory.answers import Answers
from memory.days import day
from memory.questions import asks_about_the_speaker
from memory.types import Fact, Origin, Recall

NOTE_OPENING = "\n\n(From my memory, #"


@dataclass(frozen=True, slots=True)
class ShownMemory:
    """A memory shown under a reply, with its number in the reply's prompt (see `/why`)."""

    number: int
    fact: Fact

    def note(self) -> str:
        who = "you taught me" if self.fact.origin is Origin.TAUGHT else "you said"
        return (f"{NOTE_OPENING}{self.number} in /why: on {day(self.fact.said_at)} {who} "
                f"\u201c{self.fact.text.strip()}\u201d)")


class MemoryNotes:
    """Chooses the memory shown under a reply, if any."""

    def __init__(self, answers: Answers) -> None:
        self._answers = answers

    async def to_show(self, recall: Recall, message: str) -> ShownMemory | None:
        """The memory that answers `message`, when it asks about the person and one does."""
        if not asks_about_the_speaker(message):
            return None
        found = await self._answers.answering(recall, message)
        if found is None:
            return None
        assert isinstance(found.memory, Fact)
        return ShownMemory(recall.numbered().index(found.memory) + 1, found.memory)
