"""Migration 17: plans, coming events the user told of, to ask about once they are over."""

from __future__ import annotations

from sqlalchemy import Column, Connection, Date, Index, MetaData, String, Table, Text
from sqlalchemy.dialects import mysql

from memory.sql.migrations.frozen import MYSQL, RowId, Timestamp, UserId

NAME = "plans, to ask about once they are over"

_metadata = MetaData()

_plans = Table(
    "plans",
    _metadata,
    Column("id", String(32), primary_key=True),
    Column("user_id", UserId, nullable=False),
    Column("persona", String(64), nullable=True),
    Column("text", Text().with_variant(
        mysql.TEXT(charset="utf8mb4", collation="utf8mb4_unicode_ci"), "mysql", "mariadb"),
        nullable=False),
    Column("first_day", Date, nullable=False),
    Column("last_day", Date, nullable=False),
    Column("said_at", Timestamp, nullable=False),
    Column("round_id", RowId, nullable=False),
    Column("status", String(16), nullable=False),
    Column("asked_at", Timestamp, nullable=True),
    Index("ix_plans_user_status_last", "user_id", "status", "last_day"),
    **MYSQL,
)


def apply(conn: Connection) -> None:
    _metadata.create_all(conn, checkfirst=True)
