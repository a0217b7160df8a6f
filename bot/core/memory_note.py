"""A memory shown under a reply: when a message asks the companion about the person and one
thing they said answers it with confidence, the person reads that memory (quoted, dated, with
its `/why` number) under the reply, whatever the model made of it.

The bundled demo model is too small to use what it is given (it answers "My cat's name is Luna!"
with "Miso" in its prompt): the note lets a first session show the memory working. It is never
the model's words: it is set apart and says where it comes from. On with the demo model, off
for other models unless `chat.show_memory` says so.

A message asks about the person when it is a question (a question mark, or a question word or a
request to recall first) that speaks of the speaker ("my", "I", "we") and does not ask for
advice ("how do I...", "what should I...", "why do we...": there "I" is anyone). Which memory
answers it is `memory.answers`' to say: one of the person's own statements in the prompt, by
meaning and by what it is about. The question and person words are English, as the demo model
is; tuned and measured with `python -m benchmarks.demo_probe`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory.answers import Answers
from memory.days import day
from memory.types import Fact, Origin, Recall

_WORDS = re.compile(r"[\w']+")
# The words that open a question, or ask to be reminded, when there is no question mark.
_OPENINGS = frozenset({
    "what", "what's", "whats", "who", "who's", "whos", "where", "where's", "when", "which",
    "how", "why", "do", "did", "does", "is", "are", "am", "was", "were", "have", "can",
    "could", "remind", "remember", "tell",
})
# The words by which a message speaks of its speaker.
_SPEAKER = frozenset({"i", "me", "my", "mine", "we", "us", "our", "ours", "i'm", "im", "i've",
                      "i'd", "i'll", "we're"})
# A request for advice, a how-to or a why of the world: the speaker stands for anyone ("how do I
# sharpen a chisel?", "what should I eat before a run?", "why do we get hiccups?"), and no
# memory answers it.
_ADVICE = re.compile(r"\b(?:(?:how|why)\s+(?:do|does|can|could|should|would)|should|could|would"
                     r"|can|might|must|shall)\s+(?:i|we)\b", re.IGNORECASE)


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


def asks_about_the_speaker(message: str) -> bool:
    words = _WORDS.findall(message.lower())
    if not words:
        return False
    question = "?" in message or words[0] in _OPENINGS
    return (question and any(word in _SPEAKER for word in words)
            and _ADVICE.search(message) is None)
