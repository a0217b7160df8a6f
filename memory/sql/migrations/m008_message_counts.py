"""Migration 8: how many messages each user sent in the current minute, across processes."""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Connection, Integer, MetaData, Table

from memory.sql.migrations.frozen import MYSQL, UserId

NAME = "messages per user and minute, across processes"

_metadata = MetaData()

_message_counts = Table(
    "message_counts",
    _metadata,
    Column("user_id", UserId, primary_key=True),
    Column("minute", BigInteger, nullable=False),
    Column("count", Integer, nullable=False),
    **MYSQL,
)


def apply(conn: Connection) -> None:
    _metadata.create_all(conn, checkfirst=True)
