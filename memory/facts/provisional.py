"""Provisional facts: the user's statements of a round, kept while the round is answered.

Facts and topics are made per window of rounds (every 50) and Recency holds the last 20: without
these, whatever was said 21 to 50 rounds ago would be in no memory at all. Each statement of the
user worth keeping (`memory.statements.user_facts`: the sentences the offline summary keeps) is
stored with its vector before its round is closed, so it is found by words and by meaning from
the next message on, and no summary of its window can start before it is there. Its vector is
kept in its row, not in the vector index (see `memory.facts.store.FactStore`). The window's
summary replaces them in the transaction that commits its facts (a fact in the same words from
the same round takes the provisional one's id, so what `/why` cited stays findable; one the user
retracted or forgot is not written again): a statement is never in two facts at once.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence

from memory.facts.store import FactStore
from memory.statements import user_facts
from memory.types import Fact, Round, Speaker


class ProvisionalFacts:
    """Keeps the statements of stored rounds as provisional facts. Safe to run twice: a
    statement's id comes from its round."""

    def __init__(self, facts: FactStore) -> None:
        self._facts = facts

    async def keep(self, rounds: Sequence[Round]) -> list[Fact]:
        """Store the statements of rounds of one user, with their vectors; returns those new."""
        return await self._facts.keep_provisional(
            [fact for round_ in rounds for fact in statements_of(round_)])


def statements_of(round_: Round) -> list[Fact]:
    """The round's statements of the user, as provisional facts."""
    return [
        Fact(id=_statement_id(round_, i), user_id=round_.user_id, text=sentence,
             speaker=Speaker.USER, said_at=round_.created_at, round_ids=(round_.id,),
             persona=round_.persona, provisional=True)
        for i, sentence in enumerate(user_facts(round_.user_text))
    ]


def provisional_id(fact: Fact, kept: dict[tuple[int, str], str]) -> str | None:
    """The id of the provisional fact that says what `fact` says, from the same round, if one
    was kept; `kept` is `statement_ids` of the fact's window."""
    if fact.speaker is not Speaker.USER or len(fact.round_ids) != 1:
        return None
    return kept.get((fact.round_ids[0], _plain(fact.text)))


def statement_ids(rounds: Sequence[Round]) -> dict[tuple[int, str], str]:
    """(round id, the statement's words) -> the id its provisional fact has, or had."""
    return {(round_.id, _plain(fact.text)): fact.id
            for round_ in rounds for fact in statements_of(round_)}


def _plain(text: str) -> str:
    return " ".join(text.casefold().split())


def _statement_id(round_: Round, index: int) -> str:
    digest = hashlib.sha256(f"{round_.user_id}/round/{round_.id}#{index}".encode()).digest()
    return uuid.UUID(bytes=digest[:16]).hex
