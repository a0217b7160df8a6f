"""Migration 18: check-ins, a message sent when a plan is over and the person has not written:
who asked for them, in which time zone, and how each plan was asked about."""

from __future__ import annotations

from sqlalchemy import Boolean, Column, Connection, MetaData, String, Table

from memory.sql.migrations.frozen import MYSQL, Timestamp, UserId, add_missing_columns

NAME = "check-ins: who wants them, in which time zone"

_metadata = MetaData()

_checkins = Table(
    "checkins",
    _metadata,
    Column("user_id", UserId, primary_key=True),
    Column("enabled", Boolean, nullable=False),
    Column("timezone", String(64), nullable=True),
    Column("updated_at", Timestamp, nullable=False),
    **MYSQL,
)


def apply(conn: Connection) -> None:
    _metadata.create_all(conn, checkfirst=True)
    add_missing_columns(conn, "plans", {"asked_via": "VARCHAR(16) NULL"})
