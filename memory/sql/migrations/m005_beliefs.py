"""Migration 5: facts become beliefs (who each is about, its subject, confidence, repeats,
whether it was checked, what superseded it), and the questions about conflicts.

The facts stored before it get their belief columns from a "belief_columns" job per user,
queued here and run by the memory worker with the claim rules of the code that runs it. Those
facts count as checked: an upgrade does not start superseding what was said long ago.
"""

from __future__ import annotations

from sqlalchemy import (
    Column,
    Connection,
    Index,
    MetaData,
    String,
    Table,
    cast,
    column,
    func,
    insert,
    literal,
    select,
    table,
)

from memory.sql.migrations.frozen import (
    MYSQL,
    Timestamp,
    UserId,
    add_missing_columns,
    add_missing_indexes,
    now,
)

NAME = "beliefs: subjects, confidence, supersession and questions about conflicts"

_BELIEF_COLUMNS = {
    "about": "VARCHAR(16) NULL",  # user | companion; NULL: no belief (a suggestion)
    "persona": "VARCHAR(64) NULL",  # the persona that said it
    "subject": "VARCHAR(120) NULL",  # what it claims something about
    "confidence": "FLOAT NOT NULL DEFAULT 0",  # 0: not computed yet
    "repeats": "INTEGER NOT NULL DEFAULT 1",
    "checked": "BOOLEAN NOT NULL DEFAULT 1",
    "superseded_by": "VARCHAR(32) NULL",
}
_BELIEF_INDEXES = {
    "ix_facts_user_checked": "user_id, checked",
    "ix_facts_user_subject": "user_id, subject",
}

_metadata = MetaData()

# Two beliefs of a user that disagree where neither clearly wins.
_belief_questions = Table(
    "belief_questions",
    _metadata,
    Column("id", String(32), primary_key=True),
    Column("user_id", UserId, nullable=False),
    Column("earlier_id", String(32), nullable=False),
    Column("later_id", String(32), nullable=False),
    Column("status", String(16), nullable=False),
    Column("created_at", Timestamp, nullable=False),
    Column("asked_at", Timestamp, nullable=True),
    Index("ix_belief_questions_user_status", "user_id", "status"),
    **MYSQL,
)

_facts = table("facts", column("seq"), column("user_id"), column("about"),
               column("confidence"))
_memory_jobs = table(
    "memory_jobs", column("job_key"), column("kind"), column("user_id"), column("status"),
    column("attempts"), column("next_attempt_at"), column("created_at"),
)


def apply(conn: Connection) -> None:
    add_missing_columns(conn, "facts", _BELIEF_COLUMNS)
    add_missing_indexes(conn, "facts", _BELIEF_INDEXES)
    _metadata.create_all(conn, checkfirst=True)
    # Last: MySQL commits each DDL statement at once, and the jobs must be committed with the
    # migration's record, so that a run again after a crash queues them once.
    _queue_belief_columns(conn)


def _queue_belief_columns(conn: Connection) -> None:
    """One "belief_columns" job per user with facts that have no belief columns yet. Its key
    is the user's first such fact: short, and one per user."""
    facts, queued_at = _facts.c, now()
    users = (
        select(
            literal("belief_columns:") + cast(func.min(facts.seq), String),
            literal("belief_columns"), facts.user_id, literal("pending"), literal(0),
            literal(queued_at), literal(queued_at),
        )
        .where(facts.about.is_(None) & (facts.confidence == 0))
        .group_by(facts.user_id)
    )
    conn.execute(insert(_memory_jobs).from_select(
        ["job_key", "kind", "user_id", "status", "attempts", "next_attempt_at", "created_at"],
        users,
    ))
