"""What a statement says its subject's value is, by the entities in it: the places, people,
organisations, names and numbers spaCy finds ("we're not in Rome any more, it's Vienna now"
says Vienna now, and Rome before).

An entity said under a negation ("not in Rome", "no longer at Acme") or after "from" ("moved from
Leeds") is a value the statement says is over. Two statements on one subject whose values now
share nothing say different things; sharing one, they agree.

spaCy's small English model (packaged on PyPI, `memory.english`) is loaded on first use: a
statement takes a few milliseconds in a worker thread.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memory.beliefs.holder import of_someone_else
from memory.english import English

_ENTITIES = frozenset(("GPE", "LOC", "ORG", "PERSON", "NORP", "FAC", "PRODUCT", "WORK_OF_ART",
                       "LANGUAGE", "EVENT", "CARDINAL"))
_OVER = frozenset(("from", "left", "quit", "leaving", "ex", "former", "formerly", "instead"))
_NEGATIONS = frozenset(("not", "n't", "never", "no", "longer"))
_NOT_VALUES = frozenset(("i", "me", "my", "we", "us", "our", "lol", "haha", "ok", "omg", "btw",
                         "tbh", "one"))


@dataclass(frozen=True, slots=True)
class Values:
    """The values a statement gives, lowercased, with their kind (place, person, organisation,
    number, other name): those it says hold `now`, and those it says are over (`before`)."""

    now: frozenset[tuple[str, str]]
    before: frozenset[tuple[str, str]]
    someone_else: bool = False  # said of another person's life (`memory.beliefs.holder`)

    def differs(self, older: Values) -> bool:
        """This newer statement gives a value of a kind the older one gave too, and shares none
        with it: "Vienna" after "Rome"; not "Sushi" (a pet) after "Osaka" (a place)."""
        shared_kinds = {kind for kind, _ in self.now} & {kind for kind, _ in older.now}
        return bool(shared_kinds) and not self.agrees(older)

    def agrees(self, older: Values) -> bool:
        return bool(_texts(self.now) & _texts(older.now))

    def ends(self, older: Values) -> bool:
        """This newer statement says a value of the older one is over."""
        return bool(_texts(self.before) & _texts(older.now))


def _texts(values: frozenset[tuple[str, str]]) -> set[str]:
    return {text for _, text in values}


NONE = Values(frozenset(), frozenset())
_KINDS = {"GPE": "place", "LOC": "place", "FAC": "place", "PERSON": "person",
          "ORG": "organisation", "CARDINAL": "number"}


class ValueReader:
    """Reads statements' values with spaCy (`memory.english`, shared); each text is read once
    (a premise is read for many new beliefs)."""

    def __init__(self, english: English | None = None) -> None:
        self._english = english or English()
        self._lock = threading.Lock()  # guards what was read
        self._read: dict[str, Values] = {}

    async def read(self, texts: Sequence[str]) -> list[Values]:
        return await asyncio.to_thread(self.read_now, texts)

    def read_now(self, texts: Sequence[str]) -> list[Values]:
        """Blocking: call from a worker thread."""
        with self._lock:
            if len(self._read) > MAX_READ:
                self._read.clear()
            unread = list(dict.fromkeys(t for t in texts if t not in self._read))
            self._read.update(zip(unread, map(_values, self._english.parse_all(unread)),
                                  strict=True))
            return [self._read[text] for text in texts]


MAX_READ = 20_000  # texts whose values are kept


def _values(doc: Any) -> Values:
    now: set[tuple[str, str]] = set()
    before: set[tuple[str, str]] = set()
    spans = [(ent.start, ent.end, _KINDS.get(ent.label_, "name")) for ent in doc.ents
             if ent.label_ in _ENTITIES]
    covered = {i for ent in doc.ents for i in range(ent.start, ent.end)}  # dates too
    # Proper nouns spaCy did not tag ("Nordwind", a dog's name) count as values too.
    spans += [(t.i, t.i + 1, "name") for t in doc if t.pos_ == "PROPN" and t.i not in covered]
    for start, end, kind in spans:
        text = doc[start:end].text.lower().strip(" .,!?'\"")
        if not text or text in _NOT_VALUES:
            continue
        (before if _over(doc[start:end].root) else now).add((kind, text))
    over = _texts(frozenset(before))
    return Values(frozenset(v for v in now if v[1] not in over), frozenset(before),
                  of_someone_else(doc))


def _over(token: Any) -> bool:
    """The value is said to be over: negated on its way up the parse, or after "from"."""
    if token.i > 0 and token.doc[token.i - 1].lower_ in _OVER:
        return True
    for ancestor in (token, *token.ancestors):
        if ancestor.lower_ in _OVER and ancestor.i < token.i:
            return True
        if any(child.dep_ == "neg" or child.lower_ in _NEGATIONS for child in ancestor.children
               if child.i < token.i):
            return True
        if ancestor.dep_ in ("ROOT", "ccomp", "conj") and ancestor is not token:
            break
    return False
