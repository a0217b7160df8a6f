"""Migration 14: a topic that quotes only what a superseded belief said is marked with it, so
the prompt shows it as earlier (memory.beliefs.outdated)."""

from __future__ import annotations

from sqlalchemy import Connection

from memory.sql.migrations.frozen import add_missing_columns

NAME = "topics marked when they quote a superseded belief"


def apply(conn: Connection) -> None:
    add_missing_columns(conn, "topics", {"quotes_superseded": "VARCHAR(32) NULL"})
