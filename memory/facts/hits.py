"""A fact as the vector index holds it: its words as the document, what a prompt shows of it
as metadata, so a search by meaning reads no SQL."""

from __future__ import annotations

from datetime import UTC, datetime

from memory.index.chroma import VectorHit
from memory.types import Fact, Origin, Speaker


def metadata_of(fact: Fact) -> dict[str, str | float]:
    return {
        "speaker": fact.speaker.value,
        "said_at": fact.said_at.timestamp(),
        "round_ids": " ".join(str(i) for i in fact.round_ids),
    }


def fact_of(user_id: str, hit: VectorHit, origin: Origin) -> Fact:
    meta = hit.metadata
    return Fact(
        id=hit.id,
        user_id=user_id,
        text=hit.document,
        speaker=Speaker(str(meta.get("speaker", "user"))),
        said_at=datetime.fromtimestamp(float(meta.get("said_at", 0)), UTC),
        round_ids=tuple(int(i) for i in str(meta.get("round_ids", "")).split()),
        origin=origin,
    )
