"""A memory shown under a reply: when a message asks the companion about the person and one
thing they said answers it with confidence, the person reads that memory (quoted, dated, with
its `/why` number) under the reply, whatever the model made of it.

The bundled demo model is too small to use what it is given (it answers "My cat's name is Luna!"
with "Miso" in its prompt): the note lets a first session show the memory working. It is never
the model's words: it is set apart and says where it comes from. On with the demo model, off
for other models unless `chat.show_memory` says so.

Whether a message asks about the person is `memory.questions`' to say (and `memory.asking`'s,
for a question without a word for the person); which memory answers it,
`memory.answers`': one of the person's own statements in the prompt, by meaning and by what it
is about (Relevance brings the one that answers best, `Relevance.find`). The note quotes the
whole message the statement was said in when that message is short and asks nothing: a
statement is one sentence of it, and the sentence beside it may be the one that names the thing
("fitted three boilers before lunch." in "long one today. fitted three boilers before lunch.
plumber life"). Tuned and measured with `python -m benchmarks.demo_probe`.
"""

from __future__ import annotations

from dataclasses import dataclass

from memory.answers import Answers
from memory.days import day
from memory.protocols import RoundStore
from memory.questions import is_question, may_ask_about_the_speaker
from memory.types import Fact, Origin, Recall, Round

NOTE_OPENING = "\n\n(From my memory, #"
# The longest message quoted whole, in words; a longer one is quoted by its statement alone.
WHOLE_MESSAGE_WORDS = 40


@dataclass(frozen=True, slots=True)
class ShownMemory:
    """A memory shown under a reply, with its number in the reply's prompt (see `/why`)."""

    number: int
    fact: Fact
    said: str  # the words quoted: the statement, or the short message it was said in

    def note(self) -> str:
        who = "you taught me" if self.fact.origin is Origin.TAUGHT else "you said"
        return (f"{NOTE_OPENING}{self.number} in /why: on {day(self.fact.said_at)} {who} "
                f"\u201c{self.said}\u201d)")


class MemoryNotes:
    """Chooses the memory shown under a reply, if any."""

    def __init__(self, answers: Answers, rounds: RoundStore | None = None) -> None:
        """`rounds`: where a statement's message is read when it is not among the recent
        rounds (None: only those are looked in)."""
        self._answers = answers
        self._rounds = rounds

    async def to_show(self, recall: Recall, message: str) -> ShownMemory | None:
        """The memory that answers `message`, when it asks about the person and one does."""
        if not may_ask_about_the_speaker(message):  # the rest is `Answers`' to judge
            return None
        found = await self._answers.answering(recall, message)
        if found is None:
            return None
        fact = found.memory
        assert isinstance(fact, Fact)
        return ShownMemory(recall.numbered().index(fact) + 1, fact,
                           await self._said_in(fact, recall.recent))

    async def _said_in(self, fact: Fact, recent: tuple[Round, ...]) -> str:
        """The short message `fact` was said in, whole, else `fact`'s own words."""
        statement = fact.text.strip()
        if fact.origin is Origin.TAUGHT or fact.inferred or len(fact.round_ids) != 1:
            return statement
        [round_id] = fact.round_ids
        said = next((r for r in recent if r.id == round_id), None)
        if said is None and self._rounds is not None:
            said = await self._rounds.get_round(fact.user_id, round_id)
        message = "" if said is None else said.user_text.strip()
        if (statement not in message or len(message.split()) > WHOLE_MESSAGE_WORDS
                or is_question(message)):  # a question beside it is no part of what was told
            return statement
        return message
