"""Migration 2: corrections (MemPrompt's feedback memories)."""

from __future__ import annotations

from sqlalchemy import BigInteger, Boolean, Column, Connection, Index, MetaData, String, Table, Text

from memory.sql.migrations.frozen import MYSQL, LongText, Timestamp, UserId

NAME = "feedback memories"

_metadata = MetaData()

_feedback = Table(
    "feedback",
    _metadata,
    Column("id", String(36), primary_key=True),
    Column("user_id", UserId, nullable=False),
    Column("key_text", LongText, nullable=False),
    Column("key_hash", String(64), nullable=False),
    Column("feedback", LongText, nullable=False),
    Column("understanding", Text, nullable=True),
    Column("frame", Text, nullable=False),
    Column("rule", String(200), nullable=False),
    Column("persona", String(64), nullable=False),
    Column("status", String(16), nullable=False),
    Column("superseded_by", String(36), nullable=True),
    Column("shared", Boolean, nullable=False),
    Column("indexed", Boolean, nullable=False),
    Column("round_id", BigInteger, nullable=True),
    Column("created_at", Timestamp, nullable=False),
    Index("ix_feedback_user_status", "user_id", "status"),
    Index("ix_feedback_user_key", "user_id", "key_hash"),
    Index("ix_feedback_shared_status", "shared", "status"),
    **MYSQL,
)


def apply(conn: Connection) -> None:
    _metadata.create_all(conn, checkfirst=True)
