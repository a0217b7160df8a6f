"""Migration 6: the shared pool of good exchanges (Memory Sharing), who opted in, the versions
of its retriever, and the platform messages that showed a reply."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    Float,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
)
from sqlalchemy.dialects import mysql

from memory.sql.migrations.frozen import MYSQL, LongText, RowId, Timestamp, UserId

NAME = "the shared pool of good exchanges, opt-ins, retriever versions and reply messages"

_metadata = MetaData()

_pool_entries = Table(
    "pool_entries",
    _metadata,
    Column("id", String(32), primary_key=True),
    Column("prompt", LongText, nullable=False),
    Column("answer", LongText, nullable=False),
    Column("persona", String(64), nullable=False),
    Column("domain", String(32), nullable=False),
    Column("kind", String(64), nullable=True),
    Column("status", String(16), nullable=False),
    Column("source", String(16), nullable=False),
    Column("score", Integer, nullable=True),
    Column("rubric_version", Integer, nullable=True),
    Column("votes", Integer, nullable=False),
    Column("user_id", UserId, nullable=True),
    Column("round_id", BigInteger, nullable=True, unique=True),
    Column("indexed", Boolean, nullable=False),
    Column("created_at", Timestamp, nullable=False),
    Column("reviewed_by", UserId, nullable=True),
    Index("ix_pool_entries_status_domain", "status", "domain"),
    Index("ix_pool_entries_user", "user_id"),
    **MYSQL,
)

_pool_optins = Table(
    "pool_optins",
    _metadata,
    Column("user_id", UserId, primary_key=True),
    Column("since", Timestamp, nullable=False),
    **MYSQL,
)

_pool_retrievers = Table(
    "pool_retrievers",
    _metadata,
    Column("version", RowId, primary_key=True, autoincrement=True),
    Column("trained_at", Timestamp, nullable=False),
    Column("entries", Integer, nullable=False),
    Column("held_back", Integer, nullable=False),
    Column("score", Float, nullable=False),
    Column("previous_score", Float, nullable=False),
    Column("accepted", Boolean, nullable=False),
    Column("model", LargeBinary().with_variant(mysql.LONGBLOB(), "mysql", "mariadb"),
           nullable=False),
    **MYSQL,
)

_reply_messages = Table(
    "reply_messages",
    _metadata,
    Column("message_key", String(191), primary_key=True),
    Column("user_id", UserId, nullable=False),
    Column("round_id", BigInteger, nullable=False),
    Column("created_at", Timestamp, nullable=False),
    **MYSQL,
)


def apply(conn: Connection) -> None:
    _metadata.create_all(conn, checkfirst=True)
