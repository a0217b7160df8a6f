"""Everything stored about one user, as plain data: what `/export` hands them."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from memory.facts.rows import FORGOTTEN, REPLACED
from memory.sql.engine import as_utc, utcnow
from memory.sql.tables import (
    belief_questions,
    checkins,
    facts,
    feedback,
    plans,
    pool_entries,
    pool_optins,
    profiles,
    rounds,
    topics,
)


class UserExport:
    """Reads one user's rows from every table that holds them; every query filters by user."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def export(self, user_id: str) -> dict[str, Any]:
        async with self._engine.connect() as conn:
            persona = (await conn.execute(
                select(profiles.c.persona).where(profiles.c.user_id == user_id)
            )).scalar_one_or_none()
            round_rows = (await conn.execute(
                select(rounds).where(rounds.c.user_id == user_id).order_by(rounds.c.id)
            )).mappings().all()
            topic_rows = (await conn.execute(
                select(topics).where(topics.c.user_id == user_id).order_by(topics.c.created_at)
            )).mappings().all()
            fact_rows = (await conn.execute(
                # Not the provisional facts replaced or forgotten (no words left): no copies.
                select(facts).where((facts.c.user_id == user_id)
                                    & facts.c.status.not_in([REPLACED, FORGOTTEN]))
                .order_by(facts.c.seq)
            )).mappings().all()
            feedback_rows = (await conn.execute(
                select(feedback).where(feedback.c.user_id == user_id)
                .order_by(feedback.c.created_at)
            )).mappings().all()
            question_rows = (await conn.execute(
                select(belief_questions).where(belief_questions.c.user_id == user_id)
                .order_by(belief_questions.c.created_at)
            )).mappings().all()
            pool_rows = (await conn.execute(
                select(pool_entries).where(pool_entries.c.user_id == user_id)
                .order_by(pool_entries.c.created_at)
            )).mappings().all()
            plan_rows = (await conn.execute(
                select(plans).where(plans.c.user_id == user_id).order_by(plans.c.first_day)
            )).mappings().all()
            checkin = (await conn.execute(
                select(checkins.c.enabled, checkins.c.timezone)
                .where(checkins.c.user_id == user_id))).first()
            sharing = (await conn.execute(
                select(pool_optins.c.since).where(pool_optins.c.user_id == user_id)
            )).scalar_one_or_none()
        return {
            "user_id": user_id,
            "exported_at": as_utc(utcnow()).isoformat(),
            "persona": persona,
            "rounds": [_round(row) for row in round_rows],
            "topics": [_topic(row) for row in topic_rows],
            "facts": [_fact(row) for row in fact_rows],
            "feedback": [_feedback(row) for row in feedback_rows],
            # Two facts that disagreed, to ask you about once (ids of "facts").
            "questions": [_question(row) for row in question_rows],
            # Coming events you told of, to ask about once they are over.
            "plans": [_plan(row) for row in plan_rows],
            # /checkins and /timezone: whether a plan that is over gets a message of its own.
            "checkins": {"on": bool(checkin[0]), "timezone": checkin[1]} if checkin else None,
            # /share on: since when good exchanges of yours may become shared examples.
            "sharing_since": as_utc(sharing).isoformat() if sharing else None,
            # Your exchanges in the shared pool, as stored: personal details taken out.
            "shared_pool": [_pool_entry(row) for row in pool_rows],
        }


def _plan(row: Any) -> dict[str, Any]:
    return {
        "id": row["id"],
        "text": row["text"],
        "first_day": row["first_day"].isoformat(),
        "last_day": row["last_day"].isoformat(),
        "said_at": as_utc(row["said_at"]).isoformat(),
        "from_round": int(row["round_id"]),
        "status": row["status"],  # open; asked (you were asked how it went); replaced
        "asked_at": as_utc(row["asked_at"]).isoformat() if row["asked_at"] else None,
    }


def _pool_entry(row: Any) -> dict[str, Any]:
    return {
        "id": row["id"],
        "round": row["round_id"],
        "status": row["status"],
        "persona": row["persona"],
        "kind": row["kind"],
        "score": row["score"],
        "votes": row["votes"],
        "prompt": row["prompt"],
        "answer": row["answer"],
        "at": as_utc(row["created_at"]).isoformat(),
    }


def _round(row: Any) -> dict[str, Any]:
    return {
        "id": int(row["id"]),
        "at": as_utc(row["created_at"]).isoformat(),
        "chat": row["conversation_id"],
        "persona": row["persona"],
        "status": row["status"],
        "message": row["user_text"],
        "reply": row["reply_text"],
        "cited": json.loads(row["cited"]) if row["cited"] else [],
    }


def _topic(row: Any) -> dict[str, Any]:
    # Merged descriptions are kept as the history of the topic they became; they are data
    # about the user too, so they are exported with their status.
    return {
        "id": row["id"],
        "label": row["label"],
        "description": row["description"],
        "status": row["status"],
        "merged_into": row["merged_into"],
        # A superseded belief whose old value it quotes: shown as earlier.
        "quotes_superseded": row["quotes_superseded"],
        "created_at": as_utc(row["created_at"]).isoformat(),
        "updated_at": as_utc(row["updated_at"]).isoformat(),
    }


def _fact(row: Any) -> dict[str, Any]:
    return {
        "id": row["id"],
        "text": row["text"],
        "said_by": "you" if row["speaker"] == "user" else "companion",
        "said_at": as_utc(row["said_at"]).isoformat(),
        "from_rounds": [int(i) for i in row["round_ids"].split()],
        "origin": row["origin"],  # said in a chat, or taught on purpose
        # kept at once from its round, until the summary of the round's window replaces it
        "provisional": bool(row["provisional"]),
        # active; retracted (said to be wrong); superseded (by superseded_by)
        "status": row["status"],
        "superseded_by": row["superseded_by"],
        "about": row["about"],  # a belief about you, or about the companion; None: no belief
        "confidence": row["confidence"],
        "times_said": row["repeats"],
    }


def _question(row: Any) -> dict[str, Any]:
    return {
        "earlier_fact": row["earlier_id"],
        "later_fact": row["later_id"],
        "status": row["status"],  # open, asked, or settled
        "created_at": as_utc(row["created_at"]).isoformat(),
    }


def _feedback(row: Any) -> dict[str, Any]:
    # Superseded corrections are kept as history, so they are the user's data too.
    return {
        "id": row["id"],
        "message": row["key_text"],
        "feedback": row["feedback"],
        "understanding": row["understanding"],
        "persona": row["persona"],
        "status": row["status"],
        "superseded_by": row["superseded_by"],
        "applies_to_everyone": bool(row["shared"]),
        "created_at": as_utc(row["created_at"]).isoformat(),
    }
