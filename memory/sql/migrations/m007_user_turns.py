"""Migration 7: whose turn it is, across processes (a lease per user)."""

from __future__ import annotations

from sqlalchemy import Column, Connection, MetaData, String, Table

from memory.sql.migrations.frozen import MYSQL, Timestamp, UserId

NAME = "whose turn it is, across processes"

_metadata = MetaData()

_user_turns = Table(
    "user_turns",
    _metadata,
    Column("user_id", UserId, primary_key=True),
    Column("holder", String(64), nullable=False),
    Column("expires_at", Timestamp, nullable=False),
    **MYSQL,
)


def apply(conn: Connection) -> None:
    _metadata.create_all(conn, checkfirst=True)
