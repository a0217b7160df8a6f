"""Beliefs made from statements, dated from 1 March 2024, as the judge and Algorithm 1 see them."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from memory.beliefs.belief import About, Belief, belief_columns
from memory.types import Fact, Origin, Speaker


def belief(text: str, *, days: int = 0, origin: Origin = Origin.SAID,
           speaker: Speaker = Speaker.USER, repeats: int = 1) -> Belief:
    """Ana's statement `text`, said `days` after 1 March 2024."""
    fact = Fact(uuid.uuid4().hex, "ana", text, speaker,
                datetime(2024, 3, 1, tzinfo=UTC) + timedelta(days=days), (), origin)
    columns = belief_columns(fact)
    return Belief(fact, About(columns["about"]), columns["subject"], columns["confidence"],
                  repeats)
