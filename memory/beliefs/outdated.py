"""Topics that a superseded belief leaves out of date: those that quote its old value and not
the new one.

A topic is a window's summary ("the host said: they love their flat in Rome"). When a belief is
superseded ("we live in Vienna now" over "our flat in Rome"), the values the old belief gave
that the new one does not (its entities, or its hand-written claim's value as said) are what is
over. A topic dated before the new belief was said that holds one of them and none of the new
values says only what is over: the prompt shows it as earlier. One that holds both (a summary
of the move) stays current.
"""

from __future__ import annotations

from dataclasses import dataclass

from memory.beliefs.claims import claim_of
from memory.beliefs.values import ValueReader, Values
from memory.types import Fact

_SHORTEST = 3  # a claim's value shorter than this ("no", "2") says too little to find


@dataclass(frozen=True, slots=True)
class Change:
    """What a supersession changed: the old values, and the new ones, lowercased."""

    old: frozenset[str]
    new: frozenset[str]


async def change_of(superseded: Fact, winner: Fact, reader: ValueReader) -> Change:
    """The values `superseded` gave that `winner` does not, and those `winner` gives."""
    was, now = await reader.read([superseded.text, winner.text])
    old, new = _values(superseded.text, was), _values(winner.text, now)
    return Change(frozenset(w for w in old if not any(w in n or n in w for n in new)),
                  frozenset(new))


def _values(text: str, values: Values) -> set[str]:
    found = {value for _, value in values.now}
    claim = claim_of(text)
    if claim is not None and len(claim.value) >= _SHORTEST and claim.value in text.casefold():
        found.add(claim.value)
    return found
