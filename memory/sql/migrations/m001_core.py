"""Migration 1: rounds, profiles, topics, the per-user round counter and the memory jobs, in
their first shape (release e98952c)."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

from memory.sql.migrations.frozen import MYSQL, LongText, RowId, Timestamp, UserId

NAME = "rounds, profiles, topics and memory jobs"

_metadata = MetaData()

_rounds = Table(
    "rounds",
    _metadata,
    Column("id", RowId, primary_key=True, autoincrement=True),
    Column("user_id", UserId, nullable=False),
    Column("conversation_id", UserId, nullable=False),
    Column("persona", String(64), nullable=False),
    Column("user_text", LongText, nullable=False),
    Column("reply_text", LongText, nullable=True),
    Column("status", String(16), nullable=False),
    Column("created_at", Timestamp, nullable=False),
    Column("replied_at", Timestamp, nullable=True),
    Column("summary_job_id", BigInteger, nullable=True),
    Index("ix_rounds_user_id_id", "user_id", "id"),
    **MYSQL,
)

_profiles = Table(
    "profiles",
    _metadata,
    Column("user_id", UserId, primary_key=True),
    Column("persona", String(64), nullable=True),
    Column("updated_at", Timestamp, nullable=False),
    **MYSQL,
)

_topics = Table(
    "topics",
    _metadata,
    Column("id", String(36), primary_key=True),
    Column("user_id", UserId, nullable=False),
    Column("label", String(200), nullable=False),
    Column("label_key", String(200), nullable=False),
    Column("description", LongText, nullable=False),
    Column("status", String(16), nullable=False),
    Column("merged_into", String(36), nullable=True),
    Column("source_job_id", BigInteger, nullable=True),
    Column("indexed", Boolean, nullable=False),
    Column("created_at", Timestamp, nullable=False),
    Column("updated_at", Timestamp, nullable=False),
    Index("ix_topics_user_status_updated", "user_id", "status", "updated_at"),
    Index("ix_topics_user_label_key", "user_id", "label_key"),
    **MYSQL,
)

_memory_progress = Table(
    "memory_progress",
    _metadata,
    Column("user_id", UserId, primary_key=True),
    Column("pending_rounds", Integer, nullable=False),
    Column("scheduled_through", BigInteger, nullable=False),
    **MYSQL,
)

_memory_jobs = Table(
    "memory_jobs",
    _metadata,
    Column("id", RowId, primary_key=True, autoincrement=True),
    Column("job_key", String(191), nullable=False, unique=True),
    Column("kind", String(16), nullable=False),
    Column("user_id", UserId, nullable=False),
    Column("first_round_id", BigInteger, nullable=True),
    Column("last_round_id", BigInteger, nullable=True),
    Column("label_key", String(200), nullable=True),
    Column("topic_ids", Text, nullable=True),
    Column("status", String(16), nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("next_attempt_at", Timestamp, nullable=False),
    Column("claimed_by", String(64), nullable=True),
    Column("claimed_at", Timestamp, nullable=True),
    Column("last_error", Text, nullable=True),
    Column("created_at", Timestamp, nullable=False),
    Column("finished_at", Timestamp, nullable=True),
    Index("ix_memory_jobs_status_due", "status", "next_attempt_at"),
    **MYSQL,
)


def apply(conn: Connection) -> None:
    _metadata.create_all(conn, checkfirst=True)
