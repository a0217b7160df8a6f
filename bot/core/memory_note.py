"""A memory shown under a reply: when a message asks the companion about the person and one
thing they said answers it with confidence, the person reads that memory (quoted, dated, with
its `/why` number) under the reply, whatever the model made of it.

The bundled demo model is too small to use what it is given (it answers "My cat's name is Luna!"
with "Miso" in its prompt): the note lets a first session show the memory working. It is never
the model's words: it is set apart and says where it comes from. On with the demo model, off
for other models unless `chat.show_memory` says so.

A message asks about the person when it is a question (a question mark, or a question word or a
request to recall first) that speaks of the speaker ("my", "I", "we"); the memory must be
something the person said or taught, found by meaning at `MIN_SIMILARITY` or more. A statement
shown as earlier in the prompt (a newer one on its subject is there too) is passed over for the
newer one when that one was found by meaning as well; when only the older one answers the
question by meaning, it is shown, with its day: the subject of small talk is often misread
("Okay, that's enough procrastinating" taken for something about a car), and a question about
the car is answered by the statement about the car. Tuned on
benchmarks/data/demo_conversations_development.jsonl; the measure is `python -m
benchmarks.demo_probe` (its independent set too). English only: the question and person words
are English, as the demo model is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory.days import day
from memory.types import Fact, Found, Origin, Recall, Speaker

# The cosine of the message and the memory below which a memory is not shown: at 0.25 the
# development set's questions got the right memory 94% of the time, general questions one in 30;
# the independent set's 83%, most misses being statements said indirectly, at 0.20-0.23.
MIN_SIMILARITY = 0.25
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


def memory_to_show(recall: Recall, message: str) -> ShownMemory | None:
    """The memory that answers `message`, when it asks about the person and one does."""
    if not asks_about_the_speaker(message):
        return None
    numbered = recall.numbered()
    answering = [found for found in recall.relevant
                 if isinstance(found.memory, Fact) and found.similarity is not None
                 and found.similarity >= MIN_SIMILARITY and _theirs(found.memory)]
    newer_subjects = {_subject(found) for found in answering if not found.earlier}
    candidates = [found for found in answering
                  if not (found.earlier and _subject(found) in newer_subjects)]
    if not candidates:
        return None
    best = max(candidates, key=lambda found: found.similarity or 0.0)
    assert isinstance(best.memory, Fact)
    return ShownMemory(numbered.index(best.memory) + 1, best.memory)


def asks_about_the_speaker(message: str) -> bool:
    words = _WORDS.findall(message.lower())
    if not words:
        return False
    question = "?" in message or words[0] in _OPENINGS
    return question and any(word in _SPEAKER for word in words)


def _subject(found: Found) -> str | None:
    return found.memory.subject if isinstance(found.memory, Fact) else None


def _theirs(fact: Fact) -> bool:
    """Something the person said or taught (not what the companion said)."""
    return fact.origin is Origin.TAUGHT or fact.speaker is Speaker.USER
