"""The recall step (memory/recall.py): what a reply is given from memory."""

from __future__ import annotations

from datetime import UTC, datetime

from memory.recall import fit_recent
from memory.types import Round, RoundStatus

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _round(i: int, user: str, reply: str | None) -> Round:
    status = RoundStatus.ANSWERED if reply else RoundStatus.FAILED
    return Round(i, "u", "u", "companion", user, reply, status, NOW)


def test_recency_keeps_the_newest_rounds_that_fit_the_budget() -> None:
    rounds = [_round(i, f"message {i} " + "x" * 80, f"reply {i}") for i in range(10)]
    kept = fit_recent(rounds, 300)
    assert [r.id for r in kept] == [7, 8, 9]
    assert fit_recent(rounds, 10) == (rounds[-1],)  # the newest round always stays
    assert fit_recent([], 10) == ()
