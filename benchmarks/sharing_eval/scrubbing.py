"""The scrubber on sets written for it: does a personal detail survive, is a task word lost?

Each message of `benchmarks/data/scrub_<set>.jsonl` lists the exact spans that must not survive
(`personal`: names, places a person lives or works, contacts, ages, dates and numbers tied to a
person) and those that must (`task_words`: forms, counts, times of day, styles). Each message
is scrubbed alone, as the pool scrubs an exchange, with the product's scrubber (Presidio).

A personal detail is left when one of its telling words (one with a capital, a digit or an @,
and not a function word such as "I'm"; its other words but function words when it has none, as
"summer" in "its summer") is in the scrubbed text as a whole word, case and all, more often
than the task words of that message hold it ("I'm 17" beside "17 syllables"). A task word is
kept when the whole span is in the scrubbed text, case and all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from benchmarks.support import read_set
from memory.lexical import STOP_WORDS
from memory.pool.scrub import Scrubber

# The sets the learned look (`memory.pool.tagger`) is trained on: every one whose misses have
# been read, and those written to train on.
TRAINING_SETS = ("development", "independent", "independent2", "independent3", "independent4",
                 "training_a", "training_b", "training_c", "training_d", "training_e")
_WORDS = re.compile(r"[\w@.+-]*\w")  # "I'm" is "I" and "m": function words


@dataclass(frozen=True, slots=True)
class Scored:
    messages: int
    personal: int
    left: list[tuple[str, str]]  # (detail, scrubbed text)
    task_words: int
    lost: list[tuple[str, str]]  # (task word, scrubbed text)

    @property
    def task_words_kept(self) -> float:
        return 1 - len(self.lost) / self.task_words if self.task_words else 1.0


async def score_set(name: str, scrubber: Scrubber) -> Scored:
    records = read_set(f"scrub_{name}").records
    left: list[tuple[str, str]] = []
    lost: list[tuple[str, str]] = []
    personal = task_words = 0
    for record in records:
        [scrubbed] = await scrubber.scrub([record["text"]])
        for detail in record["personal"]:
            personal += 1
            if _left(detail, scrubbed, record["task_words"]):
                left.append((detail, scrubbed))
        for word in record["task_words"]:
            task_words += 1
            if not _has(word, scrubbed):
                lost.append((word, scrubbed))
    return Scored(len(records), personal, left, task_words, lost)


def telling_words(detail: str) -> list[str]:
    """The words of a personal detail that say who: those with a capital, a digit or an @
    (not function words), else its words but function words, else all of them."""
    words = _WORDS.findall(detail)
    telling = [w for w in words if w.lower() not in STOP_WORDS
               and any(c.isupper() or c.isdigit() or c == "@" for c in w)]
    content = [w for w in words if w.lower() not in STOP_WORDS]
    return telling or content or words


def _left(detail: str, scrubbed: str, task_words: list[str]) -> bool:
    for word in telling_words(detail):
        explained = sum(_count(word, task) for task in task_words)
        if _count(word, scrubbed) > explained:
            return True
    return False


def _has(span: str, text: str) -> bool:
    return _count(span, text) > 0


def _count(span: str, text: str) -> int:
    return len(re.findall(rf"(?<!\w){re.escape(span)}(?!\w)", text))
